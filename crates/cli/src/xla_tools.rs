//! The XLA tools of `proflens tool`: op_profile, hlo_stats and
//! memory_viewer, which read the HLO modules recorded in the profile.

use crate::input;
use crate::tool::Format;
use crate::Failure;
use proflens_analysis::passes::xla_ops::{program_names, xla_ops_of};
use proflens_analysis::{tools::hlo_stats, tools::memory_viewer, tools::op_profile};
use std::path::PathBuf;

/// The tools this module answers, named as XProf names them.
pub const TOOLS: [&str; 3] = ["op_profile", "hlo_stats", "memory_viewer"];

/// How `op_profile --format xprof` groups ops (XProf's `group_by` parameter).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum GroupBy {
    /// Program → category → op (XProf's default).
    #[default]
    Program,
    /// Category → op.
    Category,
}

/// One XLA tool on one host: `module` picks the memory viewer's module
/// (XProf's `name(program id)` or the plain name; default: the largest).
pub fn text(
    tool: &str,
    files: &[(PathBuf, String)],
    format: Format,
    module: Option<&str>,
    group_by: GroupBy,
) -> Result<String, Failure> {
    let [(file, _)] = files else {
        let names: Vec<&str> = files.iter().map(|(_, n)| n.as_str()).collect();
        return Err(Failure(format!("{tool} describes one host; choose one with --host: {}", names.join(", "))));
    };
    let profile = input::load(file)?;
    let decoded = proflens_format::hlo::hlo_modules(&profile);
    if let Some(e) = decoded.errors.first() {
        eprintln!("proflens: warning: {e}");
    }
    let modules = decoded.modules;
    if modules.is_empty() {
        return Err(Failure(format!(
            "{}: the profile records no XLA program (no HLO in /host:metadata)",
            file.display()
        )));
    }
    let pretty = |v: &serde_json::Value| serde_json::to_string_pretty(v).map(|s| s + "\n").map_err(Failure::from);
    match tool {
        "op_profile" => {
            let view = op_profile::op_profile(&xla_ops_of(&profile, &modules), &program_names(&modules));
            match format {
                Format::Json => pretty(&serde_json::to_value(&view)?),
                Format::Xprof => pretty(&op_profile::to_xprof_json(&view, group_by == GroupBy::Category)),
                Format::Csv => Err(Failure("op_profile is a tree, not a table; hlo_stats has its ops as CSV".into())),
            }
        }
        "hlo_stats" => {
            let view = hlo_stats::hlo_stats(&xla_ops_of(&profile, &modules));
            match format {
                Format::Json => pretty(&serde_json::to_value(&view)?),
                Format::Xprof => pretty(&hlo_stats::to_xprof_json(&view)),
                Format::Csv => Ok(hlo_stats::to_csv(&view)),
            }
        }
        _ => {
            let chosen = memory_viewer::select_module(&modules, module).ok_or_else(|| {
                let names: Vec<String> = modules.iter().map(|m| m.display_name()).collect();
                Failure(format!("no module '{}'; the modules are: {}", module.unwrap_or(""), names.join(", ")))
            })?;
            let view = memory_viewer::memory_viewer(chosen, 0)
                .map_err(|e| Failure(format!("{}: {e}", chosen.display_name())))?;
            match format {
                Format::Json => pretty(&serde_json::to_value(&view)?),
                Format::Xprof => pretty(&memory_viewer::to_xprof_json(&view)),
                Format::Csv => Ok(memory_viewer::max_heap_csv(&view)),
            }
        }
    }
}
