//! The tools' ids and labels as the page shows them, in the registry's order.
//!
//! The page needs only these two strings of each tool. Reading them through
//! `proflens_analysis::registry::TOOLS` (`&dyn Tool`) would keep every tool's
//! `run` and `combine` in the page's wasm (a trait object's vtable holds all
//! its methods), that is the whole analysis; this table is plain data. A test
//! requires it to equal the registry, entry by entry.

/// One tool of the registry: its id (XProf's name) and its label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolName {
    pub id: &'static str,
    pub label: &'static str,
}

const fn tool(id: &'static str, label: &'static str) -> ToolName {
    ToolName { id, label }
}

/// `registry::TOOLS`' ids and labels, same order; the first is the default.
pub static TOOLS: &[ToolName] = &[
    tool("advisor", "Advisor"),
    tool("overview_page", "Overview"),
    tool("input_pipeline_analyzer", "Input pipeline analyzer"),
    tool("framework_op_stats", "Framework op stats"),
    tool("kernel_stats", "GPU kernel stats"),
    tool("kernel_launch_stats", "Kernel launch stats"),
    tool("kernel_sequences", "Kernel sequences"),
    tool("modules", "Modules"),
    tool("idle_time_breakdown", "Idle time breakdown"),
    tool("queue_length", "Queue length"),
    tool("memory_bandwidth", "Memory bandwidth"),
    tool("stragglers", "Stragglers"),
    tool("critical_path", "Critical path"),
    tool("memory_profile", "Memory profile"),
    tool("pod_viewer", "Pod viewer"),
    tool("tf_data_bottleneck_analysis", "tf.data bottleneck analysis"),
    tool("trace_viewer", "Trace viewer"),
    tool("op_profile", "Op profile"),
    tool("hlo_stats", "HLO op stats"),
    tool("roofline_model", "Roofline model"),
    tool("memory_viewer", "Memory viewer"),
    tool("graph_viewer", "Graph viewer"),
    tool("info", "Profile info"),
];

/// The tools grouped by the question they answer, in the selector's order
/// (and the order `[` and `]` walk). Every tool is in exactly one group.
pub static GROUPS: &[(&str, &[&str])] = &[
    ("Summary", &["advisor", "overview_page", "info"]),
    ("Steps and input", &["input_pipeline_analyzer", "tf_data_bottleneck_analysis", "stragglers", "pod_viewer"]),
    ("Ops", &["framework_op_stats", "op_profile", "hlo_stats", "roofline_model", "graph_viewer"]),
    ("GPU kernels", &["kernel_stats", "kernel_launch_stats", "kernel_sequences", "idle_time_breakdown"]),
    ("PyTorch analyses", &["modules", "queue_length", "memory_bandwidth", "critical_path"]),
    ("Memory", &["memory_profile", "memory_viewer"]),
    ("Timeline", &["trace_viewer"]),
];

/// The tool named `id`, as `registry::find` answers (`tensorflow_stats` is
/// XProf's old name of `framework_op_stats`).
pub fn find(id: &str) -> Option<&'static ToolName> {
    let id = if id == "tensorflow_stats" { "framework_op_stats" } else { id };
    TOOLS.iter().find(|t| t.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proflens_analysis::registry;

    /// A tool added to (or renamed in) the registry but not here fails here.
    #[test]
    fn equals_the_registry_entry_by_entry() {
        let ours: Vec<(&str, &str)> = TOOLS.iter().map(|t| (t.id, t.label)).collect();
        let registry: Vec<(&str, &str)> = registry::TOOLS.iter().map(|t| (t.id(), t.label())).collect();
        assert_eq!(ours, registry);
    }

    /// A tool left out of the groups would not be in the selector.
    #[test]
    fn every_tool_is_in_exactly_one_group() {
        let grouped: Vec<&str> = GROUPS.iter().flat_map(|(_, ids)| ids.iter().copied()).collect();
        for tool in TOOLS {
            assert_eq!(grouped.iter().filter(|id| **id == tool.id).count(), 1, "{}", tool.id);
        }
        assert_eq!(grouped.len(), TOOLS.len(), "a group names a tool that does not exist");
    }

    #[test]
    fn finds_as_the_registry_does() {
        let names = registry::TOOLS.iter().map(|t| t.id()).chain(["tensorflow_stats", "no_such_tool", ""]);
        for name in names {
            assert_eq!(find(name).map(|t| t.id), registry::find(name).map(|t| t.id()), "{name}");
        }
    }
}
