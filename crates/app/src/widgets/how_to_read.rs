//! "How to read this": the tool's guide (`crate::help`) as a collapsed
//! `<details>` under its title. Text only, never HTML.

use leptos::prelude::*;

use crate::help::{self, Help};

/// The view name of the result on screen, which the shell provides as
/// context: it tells the PyTorch variants (`pytorch_overview`,
/// `operator_stats`) from the tools whose id they share.
#[derive(Debug, Clone, PartialEq)]
pub struct ShownView(pub String);

/// The guide for `tool` (an id of the registry): the shown view's guide when
/// the shell says which view is on screen, the tool's otherwise.
pub fn topic_for(tool: &str, shown: Option<&str>) -> &'static str {
    let found = |name: &str| help::TOPICS.iter().find(|(t, _)| *t == name).map(|(t, _)| *t);
    shown.and_then(found).or_else(|| found(tool)).unwrap_or("")
}

/// The collapsed panel of `topic`'s guide; nothing when it has none.
#[component]
pub fn HowToRead(topic: &'static str) -> impl IntoView {
    help::find(topic).map(|guide| panel(topic, guide))
}

fn panel(topic: &'static str, guide: &'static Help) -> impl IntoView {
    let list = |items: &'static [&'static str]| items.iter().map(|i| view! { <li>{*i}</li> }).collect_view();
    view! {
        <details class="how-to-read" data-topic=topic>
            <summary>"How to read this"</summary>
            <p class="how-to-read-summary">{guide.summary}</p>
            <h3>"What the numbers mean"</h3>
            <ul>{list(guide.numbers)}</ul>
            <h3>"Good and bad"</h3>
            <ul>{list(guide.good_bad)}</ul>
            <h3>"What to try next"</h3>
            <ul>{list(guide.next)}</ul>
        </details>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shown_view_picks_the_pytorch_variant() {
        assert_eq!(topic_for("overview_page", Some("pytorch_overview")), "pytorch_overview");
        assert_eq!(topic_for("framework_op_stats", Some("operator_stats")), "operator_stats");
        assert_eq!(topic_for("framework_op_stats", None), "framework_op_stats");
        assert_eq!(topic_for("kernel_stats", Some("no_such_view")), "kernel_stats");
        assert_eq!(topic_for("no_such_tool", None), "");
    }
}
