//! "How to read this": a short guide per tool, in our own words, shown
//! collapsed under every tool's title (`widgets::how_to_read`). One file per
//! family of tools; each entry says what the numbers mean, what is good and
//! bad, and what to try next. Plain text only: the page renders it as text.
//!
//! Entries are keyed by view name (`views::VIEWS`), which is the tool's id
//! except for the PyTorch variants (`pytorch_overview`, `operator_stats`)
//! and compare mode (`compare`).

mod advisor;
mod memory;
mod ops;
mod pytorch;
mod steps;
mod viewers;

/// One tool's guide.
pub struct Help {
    /// One line: what the tool answers.
    pub summary: &'static str,
    /// What each number or chart is.
    pub numbers: &'static [&'static str],
    /// What a healthy profile looks like, and what a problem looks like.
    pub good_bad: &'static [&'static str],
    /// Where to look or what to change next.
    pub next: &'static [&'static str],
}

/// Every guide, by view name.
pub static TOPICS: &[(&str, &Help)] = &[
    ("advisor", &advisor::ADVISOR),
    ("overview_page", &steps::OVERVIEW),
    ("pytorch_overview", &pytorch::OVERVIEW),
    ("input_pipeline_analyzer", &steps::INPUT_PIPELINE),
    ("framework_op_stats", &ops::FRAMEWORK_OP_STATS),
    ("operator_stats", &pytorch::OPERATOR_STATS),
    ("kernel_stats", &ops::KERNEL_STATS),
    ("kernel_launch_stats", &pytorch::KERNEL_LAUNCH_STATS),
    ("kernel_sequences", &pytorch::KERNEL_SEQUENCES),
    ("modules", &pytorch::MODULES),
    ("idle_time_breakdown", &pytorch::IDLE_TIME),
    ("queue_length", &pytorch::QUEUE_LENGTH),
    ("memory_bandwidth", &pytorch::MEMORY_BANDWIDTH),
    ("stragglers", &pytorch::STRAGGLERS),
    ("critical_path", &pytorch::CRITICAL_PATH),
    ("memory_profile", &memory::MEMORY_PROFILE),
    ("pod_viewer", &steps::POD_VIEWER),
    ("tf_data_bottleneck_analysis", &steps::TF_DATA),
    ("trace_viewer", &viewers::TRACE_VIEWER),
    ("op_profile", &ops::OP_PROFILE),
    ("hlo_stats", &ops::HLO_STATS),
    ("roofline_model", &ops::ROOFLINE),
    ("memory_viewer", &memory::MEMORY_VIEWER),
    ("graph_viewer", &viewers::GRAPH_VIEWER),
    ("info", &viewers::INFO),
    ("compare", &viewers::COMPARE),
];

/// The guide of view `topic`.
pub fn find(topic: &str) -> Option<&'static Help> {
    TOPICS.iter().find(|(name, _)| *name == topic).map(|(_, help)| *help)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proflens_analysis::registry;

    fn words(help: &Help) -> usize {
        let all =
            std::iter::once(help.summary).chain(help.numbers.iter().chain(help.good_bad).chain(help.next).copied());
        all.map(|s| s.split_whitespace().count()).sum()
    }

    /// A tool added to the registry without a guide fails here.
    #[test]
    fn every_tool_of_the_registry_has_a_complete_guide() {
        for tool in registry::TOOLS {
            let help = find(tool.id()).unwrap_or_else(|| panic!("no help for tool {}", tool.id()));
            assert!(!help.summary.trim().is_empty(), "{}: empty summary", tool.id());
            for (section, items) in [("numbers", help.numbers), ("good and bad", help.good_bad), ("next", help.next)] {
                assert!(!items.is_empty(), "{}: no {section}", tool.id());
                assert!(items.iter().all(|i| !i.trim().is_empty()), "{}: an empty item in {section}", tool.id());
            }
        }
    }

    /// Tight enough to read at a glance, long enough to say something.
    #[test]
    fn every_guide_is_short() {
        for (name, help) in TOPICS {
            let n = words(help);
            assert!((60..=190).contains(&n), "{name}: {n} words");
        }
    }

    #[test]
    fn topics_are_unique() {
        for (i, (name, _)) in TOPICS.iter().enumerate() {
            assert!(TOPICS[..i].iter().all(|(other, _)| other != name), "{name} twice");
        }
    }
}
