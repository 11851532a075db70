//! `proflens tool PATH TOOL`: one tool of the registry on one host or on all
//! hosts of a run, through the same entry point as the app
//! (`proflens_analysis::registry::run`).

use crate::hosts::{self, names};
use crate::output::{self, Format};
use crate::Failure;
use proflens_analysis::context::{GroupBy, Request, ToolError};
use proflens_analysis::registry;
use std::path::PathBuf;

pub struct Args {
    pub path: PathBuf,
    pub tool: String,
    pub run: Option<String>,
    pub host: Option<String>,
    pub format: Format,
    pub output: Option<PathBuf>,
    /// memory_viewer: the XLA module (`name(program id)`).
    pub module: Option<String>,
    /// op_profile: the grouping of `--format xprof`.
    pub group_by: Grouping,
    /// HTA's `include_last_profiler_step` for the PyTorch analyses.
    pub include_last_step: bool,
    /// graph_viewer: the node, the hops around it, fusions as one node.
    pub node: Option<String>,
    pub graph_width: Option<u32>,
    pub merge_fusion: bool,
    /// critical_path: only this step's path (its place, from 0).
    pub step: Option<usize>,
    /// critical_path: the annotation whose instances are the iterations.
    pub annotation: Option<String>,
    /// All hosts: threads that analyse hosts at once (`None`: one per core).
    pub jobs: Option<usize>,
}

/// How `op_profile --format xprof` groups ops (XProf's `group_by` parameter).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Grouping {
    /// Program → category → op (XProf's default).
    #[default]
    Program,
    /// Category → op.
    Category,
}

pub fn run(args: &Args) -> Result<(), Failure> {
    if let Some(missing) = registry::xprof_only::find(&args.tool) {
        return Err(Failure(format!(
            "'{}' ({}) is an XProf tool Proflens does not build: {}",
            missing.id, missing.label, missing.why
        )));
    }
    let tool = registry::find(&args.tool).ok_or_else(|| {
        Failure(format!(
            "unknown tool '{}'; the tools are: {}",
            args.tool,
            names(registry::TOOLS.iter().map(|t| t.id()))
        ))
    })?;
    let mut opened = hosts::open(&args.path)?;
    let (run, hosts) = crate::combine::choose(&mut opened, args.run.as_deref(), args.host.as_deref(), &args.path)?;
    let request = Request {
        format: args.format.into(),
        module: args.module.clone(),
        group_by: match args.group_by {
            Grouping::Program => GroupBy::Program,
            Grouping::Category => GroupBy::Category,
        },
        include_last_step: args.include_last_step,
        node: args.node.clone(),
        graph_width: args.graph_width,
        merge_fusion: args.merge_fusion,
        step: args.step,
        annotation: args.annotation.clone(),
    };
    let failure = |e: ToolError| match e {
        ToolError::OneHost => Failure(format!(
            "{} describes one host; choose one with --host: {}",
            tool.id(),
            names(hosts.iter().map(|h| h.name()))
        )),
        // A file's failure names the file.
        ToolError::Failed(why) if hosts.len() == 1 => {
            let at = run.hosts.iter().position(|h| std::rc::Rc::ptr_eq(h, &hosts[0]));
            match at.and_then(|i| run.files[i].first()) {
                Some(file) if !why.starts_with(&file.display().to_string()) => {
                    Failure(format!("{}: {why}", file.display()))
                }
                _ => Failure(why),
            }
        }
        other => Failure(other.to_string()),
    };
    crate::parallel::analyse_hosts(tool.id(), run, &hosts, crate::parallel::jobs(args.jobs), request.include_last_step);
    let result = registry::run(tool, &hosts, &request).map_err(failure)?;
    // What the page's diagnostics box shows, said here too.
    for warning in result.model.warnings() {
        eprintln!("proflens: {}: {}", tool.id(), proflens_format::escape_controls(&warning));
    }
    let text = result.text(request.format).map_err(|e| Failure(format!("{}: {e}", tool.id())))?;
    output::write(args.output.as_deref(), &text)
}
