//! `proflens tool PATH TOOL`: one tool of the registry on one host or on all
//! hosts of a run, through the same entry point as the app
//! (`proflens_analysis::registry::run`).

use crate::hosts::{names, Opened};
use crate::output::{self, Format};
use crate::Failure;
use proflens_analysis::context::{GroupBy, Request, Tool, ToolError};
use proflens_analysis::registry;
use std::path::PathBuf;

/// `proflens tool`'s arguments.
#[derive(clap::Args)]
pub struct Args {
    /// A profile file, a run directory, a whole log directory, or a .tar / .tar.gz archive of profiles.
    pub path: PathBuf,
    /// A tool of `proflens tools` (XProf's names: overview_page, framework_op_stats, …).
    pub tool: String,
    /// The run, when PATH holds several; `RUN1+RUN2` combines runs captured together (their
    /// capture windows overlap, as the run folders of one multi-host JAX job; `info` lists them).
    #[arg(long)]
    pub run: Option<String>,
    /// One host of the run; without it, all hosts together (XProf's "all hosts").
    #[arg(long)]
    pub host: Option<String>,
    /// json: Proflens's view model; csv: the main table; xprof: XProf 2.24's JSON
    /// (graph_viewer: its long_txt HLO text); hta: HolisticTraceAnalysis 0.5.0's numbers
    /// (PyTorch analyses HTA has); txt, svg: graph_viewer's HLO text and graph drawing;
    /// md: the advisor's Markdown report.
    #[arg(long, value_enum, default_value = "json")]
    pub format: Format,
    /// Write to FILE instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// PyTorch analyses that follow HTA: keep the last ProfilerStep (HTA's
    /// include_last_profiler_step=True); by default it is left out, as HTA does.
    #[arg(long)]
    pub include_last_step: bool,
    /// memory_viewer, graph_viewer: the XLA module, as XProf names it (`jit_f(12)`) or by
    /// plain name; default: the module with the most memory (graph_viewer: the most
    /// instructions).
    #[arg(long)]
    pub module: Option<String>,
    /// op_profile --format xprof: group by program (XProf's default) or by category.
    #[arg(long, value_enum, default_value = "program")]
    pub group_by: Grouping,
    /// graph_viewer: the instruction to draw the graph around; default: the entry's root.
    #[arg(long)]
    pub node: Option<String>,
    /// graph_viewer: hops around the node (XProf's graph_width; default 3, at most 10).
    #[arg(long)]
    pub graph_width: Option<u32>,
    /// graph_viewer: draw each fusion as one node instead of its fused instructions.
    #[arg(long)]
    pub merge_fusion: bool,
    /// critical_path: find only this step's path (its place among the steps, from 0;
    /// HTA's instance_id); the other steps are listed without theirs. Default: every step's.
    #[arg(long, value_name = "N", visible_alias = "instance")]
    pub step: Option<usize>,
    /// critical_path: the iterations are the host events whose name contains NAME (HTA's
    /// annotation; "" for the whole trace). Default: ProfilerStep, or on a trace without it
    /// the longest top-level user annotation if its instances cover half the trace (else the
    /// whole trace).
    #[arg(long, value_name = "NAME")]
    pub annotation: Option<String>,
    /// All hosts: hosts analysed at once, one per thread (default: one per core).
    #[arg(long, value_name = "N")]
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
    // Kept for the next command in a Python process (crate::session).
    let mut opened = crate::session::open(&args.path)?;
    let text = answer(args, tool, &mut opened);
    crate::session::keep(&args.path, opened);
    output::write(args.output.as_deref(), &text?)
}

/// The tool's result on the chosen hosts of `opened`, as text.
fn answer(args: &Args, tool: &'static dyn Tool, opened: &mut Opened) -> Result<String, Failure> {
    let (run, hosts) = crate::combine::choose(opened, args.run.as_deref(), args.host.as_deref(), &args.path)?;
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
    result.text(request.format).map_err(|e| Failure(format!("{}: {e}", tool.id())))
}
