//! `proflens tools`: the registry as a table, or as JSON.

use crate::Failure;
use proflens_analysis::registry::xprof_only::XPROF_ONLY;
use proflens_analysis::registry::TOOLS;
use serde::Serialize;

#[derive(Serialize)]
struct Entry {
    id: &'static str,
    label: &'static str,
    inputs: Vec<&'static str>,
    formats: Vec<&'static str>,
    /// XProf's tools that Proflens does not build: why (the others are built).
    #[serde(skip_serializing_if = "Option::is_none")]
    not_built: Option<&'static str>,
}

pub fn run(json: bool) -> Result<(), Failure> {
    let entries: Vec<Entry> = TOOLS
        .iter()
        .map(|t| {
            let i = t.inputs();
            let mut inputs = Vec::new();
            for (on, name) in [
                (i.xspace, "xspace"),
                (i.kineto, "pytorch"),
                (i.tool_set_trace, "tensorboard trace"),
                (i.all_hosts, "all hosts"),
                (i.all_ranks, "all ranks"),
            ] {
                if on {
                    inputs.push(name);
                }
            }
            inputs.extend(i.tool_files.iter().chain(i.reads_tool_files).map(|f| f.file_stem()));
            let formats = t.formats().iter().map(|f| f.name()).collect();
            Entry { id: t.id(), label: t.label(), inputs, formats, not_built: None }
        })
        .chain(XPROF_ONLY.iter().map(|t| Entry {
            id: t.id,
            label: t.label,
            inputs: Vec::new(),
            formats: Vec::new(),
            not_built: Some(t.why),
        }))
        .collect();
    if json {
        return crate::output::print(&(serde_json::to_string_pretty(&entries)? + "\n"));
    }
    let width = entries.iter().map(|e| e.id.len()).max().unwrap_or(0);
    let label_width = entries.iter().map(|e| e.label.len()).max().unwrap_or(0);
    let mut table = format!("{:width$}  {:label_width$}  reads\n", "tool", "label");
    for e in entries.iter().filter(|e| e.not_built.is_none()) {
        table += &format!("{:width$}  {:label_width$}  {}\n", e.id, e.label, e.inputs.join(", "));
    }
    table += "\nXProf's other tools, not built (nothing to check a port against):\n";
    for e in entries.iter().filter(|e| e.not_built.is_some()) {
        table += &format!("{:width$}  {:label_width$}  {}\n", e.id, e.label, e.not_built.unwrap_or_default());
    }
    crate::output::print(&table)
}
