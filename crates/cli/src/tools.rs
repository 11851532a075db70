//! `proflens tools`: the registry as a table, or as JSON.

use crate::Failure;
use proflens_analysis::registry::TOOLS;
use serde::Serialize;

#[derive(Serialize)]
struct Entry {
    id: &'static str,
    label: &'static str,
    inputs: Vec<&'static str>,
    formats: Vec<&'static str>,
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
            inputs.extend(i.tool_files.iter().map(|f| f.file_stem()));
            Entry { id: t.id(), label: t.label(), inputs, formats: t.formats().iter().map(|f| f.name()).collect() }
        })
        .collect();
    if json {
        return crate::output::print(&(serde_json::to_string_pretty(&entries)? + "\n"));
    }
    let width = entries.iter().map(|e| e.id.len()).max().unwrap_or(0);
    let label_width = entries.iter().map(|e| e.label.len()).max().unwrap_or(0);
    let mut table = format!("{:width$}  {:label_width$}  reads\n", "tool", "label");
    for e in &entries {
        table += &format!("{:width$}  {:label_width$}  {}\n", e.id, e.label, e.inputs.join(", "));
    }
    crate::output::print(&table)
}
