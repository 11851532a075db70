//! XProf 2.24's tools that Proflens does not build, and why. Each answered
//! nothing on every XSpace profile of the fixtures (their goldens are empty
//! tables or "no data"), so a port could not be checked against anything;
//! one will be built when a real profile has data for it. The tool selector
//! and `proflens tools` list them, so that XProf's whole tool set is
//! accounted for.

/// A tool XProf has and Proflens does not.
pub struct XprofOnlyTool {
    /// XProf's name.
    pub id: &'static str,
    pub label: &'static str,
    /// Why it is not built, in a sentence.
    pub why: &'static str,
}

/// What XProf 2.24 gave for these tools on the fixtures (their goldens).
const EMPTY: &str = "XProf 2.24's answer is empty on every profile of the test fixtures";
const NO_DATA: &str = "XProf 2.24 returns no data on every profile of the test fixtures";

pub static XPROF_ONLY: &[XprofOnlyTool] = &[
    XprofOnlyTool { id: "perf_counters", label: "Performance counters", why: EMPTY },
    XprofOnlyTool { id: "utilization_viewer", label: "Utilization viewer", why: EMPTY },
    XprofOnlyTool { id: "kernel_utilization", label: "Kernel utilization", why: EMPTY },
    XprofOnlyTool { id: "inference_profile", label: "Inference profile", why: EMPTY },
    XprofOnlyTool { id: "smart_suggestion", label: "Smart suggestions", why: EMPTY },
    XprofOnlyTool { id: "megascale_stats", label: "Megascale stats", why: NO_DATA },
    XprofOnlyTool { id: "hlo_op_profile", label: "HLO op profile", why: NO_DATA },
];

/// The XProf tool named `id` that Proflens does not build.
pub fn find(id: &str) -> Option<&'static XprofOnlyTool> {
    XPROF_ONLY.iter().find(|t| t.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_built_tool_is_listed_as_missing() {
        for tool in XPROF_ONLY {
            assert!(crate::registry::find(tool.id).is_none(), "{} is built", tool.id);
        }
        assert_eq!(find("perf_counters").map(|t| t.label), Some("Performance counters"));
    }
}
