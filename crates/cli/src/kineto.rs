//! `proflens tool` on PyTorch profiler (Kineto) traces: the PyTorch views
//! for the XProf tool names that have one. Several files of one run are the
//! ranks of one job: `overview_page` then shows each rank and the
//! distributed view side by side.

use crate::input;
use crate::tool::Format;
use crate::Failure;
use proflens_analysis::passes::kernels;
use proflens_analysis::passes::kineto::{operators, overview, KinetoIndex};
use proflens_model::Origin;
use std::path::PathBuf;

/// The tools a PyTorch trace has (memory_profile goes through the XSpace
/// path: the importer maps `[memory]` events to allocator events).
const TOOLS: [&str; 4] = ["overview_page", "framework_op_stats", "kernel_stats", "memory_profile"];

/// The tool's text when every chosen file is a Kineto trace; `None` for
/// other files (and for memory_profile), which take the usual path.
pub fn tool_text(tool: &str, files: &[(PathBuf, String)], format: Format) -> Result<Option<String>, Failure> {
    if files.is_empty() || !files.iter().all(|(f, _)| input::is_trace_json(f)) {
        return Ok(None);
    }
    let mut ranks = Vec::with_capacity(files.len());
    for (file, host) in files {
        let profile = input::load(file)?;
        if profile.origin != Origin::Kineto {
            return Ok(None);
        }
        // Only the index is kept: one profile in memory at a time.
        ranks.push((host.clone(), KinetoIndex::new(&profile)));
    }
    if tool == "memory_profile" {
        return Ok(None);
    }
    if !TOOLS.contains(&tool) {
        return Err(Failure(format!(
            "{tool} is not available for PyTorch traces; their tools are: {}",
            TOOLS.join(", ")
        )));
    }
    let indexes: Vec<&KinetoIndex> = ranks.iter().map(|(_, i)| i).collect();
    let json = |v: serde_json::Value| serde_json::to_string_pretty(&v).map(|s| s + "\n").map_err(Failure::from);
    let no_xprof = || Failure(format!("XProf has no {tool} for PyTorch traces; use --format json or csv"));
    let text = match tool {
        "overview_page" => match (format, ranks.as_slice()) {
            (Format::Xprof, _) => return Err(no_xprof()),
            (Format::Json, [(_, one)]) => json(serde_json::to_value(overview::overview(one))?)?,
            (Format::Json, _) => {
                let refs: Vec<(String, &KinetoIndex)> = ranks.iter().map(|(h, i)| (h.clone(), i)).collect();
                json(serde_json::to_value(overview::multi_rank(&refs))?)?
            }
            (Format::Csv, [(_, one)]) => overview::steps_csv(&overview::overview(one)),
            (Format::Csv, _) => {
                return Err(Failure("the step table describes one rank; choose one with --host".into()));
            }
        },
        "framework_op_stats" => {
            let rows = operators::operator_stats_of_ranks(&indexes);
            match format {
                Format::Json => json(serde_json::to_value(&rows)?)?,
                Format::Csv => operators::to_csv(&rows),
                Format::Xprof => return Err(no_xprof()),
            }
        }
        _ => {
            let rows = operators::kernel_stats_of_ranks(&indexes);
            match format {
                Format::Json => json(serde_json::to_value(&rows)?)?,
                Format::Csv => kernel_stats::to_csv(&rows),
                Format::Xprof => json(kernel_stats::to_xprof_json(&rows))?,
            }
        }
    };
    Ok(Some(text))
}
