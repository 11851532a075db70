//! `proflens tool PATH TOOL`: one tool's numbers for one host, as Proflens's
//! own JSON view model, CSV, or exactly the JSON XProf 2.24 returns.

use crate::input::{self, Input};
use crate::Failure;
use proflens_analysis::passes::grouping::group_events;
use proflens_analysis::passes::host_analysis::HostAnalysis;
use proflens_analysis::{
    tools::framework_op_stats, passes::input_pipeline, passes::kernels, tools::memory_profile, tools::overview, tools::pod_viewer, tools::tf_data,
};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Proflens's view model.
    Json,
    /// The tool's main table.
    Csv,
    /// XProf 2.24's JSON for the tool (DataTable arrays).
    Xprof,
}

/// The tools, named as XProf names them.
pub const TOOLS: [&str; 10] = [
    "overview_page",
    "input_pipeline_analyzer",
    "framework_op_stats",
    "kernel_stats",
    "pod_viewer",
    "memory_profile",
    "tf_data_bottleneck_analysis",
    "op_profile",
    "hlo_stats",
    "memory_viewer",
];

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
    pub group_by: crate::xla_tools::GroupBy,
}

pub fn run(args: &Args) -> Result<(), Failure> {
    // Legacy per-tool files (TF 2.2 `<host>.<tool>.pb`, XProf tool JSON) carry their tool's numbers.
    if let Some(text) =
        crate::legacy::tool_text(&args.path, &args.tool, args.run.as_deref(), args.host.as_deref(), args.format)?
    {
        return write_out(args, text);
    }
    if !TOOLS.contains(&args.tool.as_str()) {
        return Err(Failure(format!("unknown tool '{}'; the tools are: {}", args.tool, TOOLS.join(", "))));
    }
    let input = input::resolve(&args.path)?;
    let files = choose_hosts(&input, args.run.as_deref(), args.host.as_deref(), &args.path)?;
    // PyTorch (Kineto) traces have their own views for some tool names.
    if let Some(text) = crate::kineto::tool_text(&args.tool, &files, args.format)? {
        return write_out(args, text);
    }
    if args.tool == "memory_profile" {
        let text = memory_profile_text(&files, args.format)?;
        return write_out(args, text);
    }
    if crate::xla_tools::TOOLS.contains(&args.tool.as_str()) {
        let text = crate::xla_tools::text(&args.tool, &files, args.format, args.module.as_deref(), args.group_by)?;
        return write_out(args, text);
    }
    if args.tool == "tf_data_bottleneck_analysis" {
        let text = tf_data_text(&files, args.format)?;
        return write_out(args, text);
    }
    let mut hosts = Vec::with_capacity(files.len());
    for (file, host) in &files {
        // One profile in memory at a time: each host is analysed, then dropped.
        let analysis = input::host_analysis(&input::load(file)?);
        // Shown as the name the profiler recorded, like XProf; else the file's.
        let name = analysis.environment.hostnames.first().cloned().unwrap_or_else(|| host.clone());
        hosts.push((analysis, name));
    }
    let text = if args.tool == "pod_viewer" {
        let view = pod_viewer::pod_viewer(&hosts.iter().map(|(a, n)| (a, n.clone())).collect::<Vec<_>>());
        match args.format {
            Format::Json => serde_json::to_string_pretty(&view)? + "\n",
            Format::Xprof => serde_json::to_string_pretty(&pod_viewer::to_xprof_json(&view))? + "\n",
            Format::Csv => pod_viewer::to_csv(&view),
        }
    } else {
        let analysis = if hosts.len() == 1 {
            hosts.remove(0).0
        } else {
            HostAnalysis::combine(&hosts.iter().map(|(a, _)| a).collect::<Vec<_>>())
        };
        render(&args.tool, args.format, &analysis)?
    };
    write_out(args, text)
}

fn write_out(args: &Args, text: String) -> Result<(), Failure> {
    match &args.output {
        Some(path) => std::fs::write(path, text).map_err(|e| Failure(format!("{}: {e}", path.display()))),
        None => {
            print!("{text}");
            Ok(())
        }
    }
}

/// The tf.data analysis of every chosen host, the most input-bound first.
fn tf_data_text(files: &[(PathBuf, String)], format: Format) -> Result<String, Failure> {
    if format == Format::Xprof {
        return Err(Failure("XProf 2.24 no longer has tf_data_bottleneck_analysis; use --format json or csv".into()));
    }
    let mut hosts = Vec::with_capacity(files.len());
    for (file, host) in files {
        hosts.push(tf_data::analyze(&input::load(file)?, host));
    }
    let analysis = tf_data::combine(hosts);
    Ok(match format {
        Format::Csv => tf_data::pipelines_csv(&analysis),
        _ => serde_json::to_string_pretty(&analysis)? + "\n",
    })
}

/// The memory profile describes one host: allocators belong to one process.
fn memory_profile_text(files: &[(PathBuf, String)], format: Format) -> Result<String, Failure> {
    let [(file, _)] = files else {
        let names: Vec<&str> = files.iter().map(|(_, n)| n.as_str()).collect();
        return Err(Failure(format!(
            "memory_profile describes one host; choose one with --host: {}",
            names.join(", ")
        )));
    };
    let profile = input::load(file)?;
    let pretty = |v: &serde_json::Value| serde_json::to_string_pretty(v).map(|s| s + "\n").map_err(Failure::from);
    let view = memory_profile::memory_profile(&profile, &group_events(&profile));
    match format {
        Format::Json => pretty(&serde_json::to_value(&view)?),
        Format::Xprof => pretty(&memory_profile::to_xprof_json(&view)),
        Format::Csv => Ok(memory_profile::breakdown_csv(&view)),
    }
}

fn render(tool: &str, format: Format, a: &HostAnalysis) -> Result<String, Failure> {
    let json = |v: &serde_json::Value| serde_json::to_string_pretty(v).map(|s| s + "\n").map_err(Failure::from);
    Ok(match (tool, format) {
        ("overview_page", Format::Json) => json(&serde_json::to_value(a.overview())?)?,
        ("overview_page", Format::Xprof) => json(&overview::to_xprof_json(&a.overview_xprof()))?,
        ("overview_page", Format::Csv) => input_pipeline::steps_csv(&a.overview().input),
        ("input_pipeline_analyzer", Format::Json) => json(&serde_json::to_value(a.input_pipeline())?)?,
        ("input_pipeline_analyzer", Format::Xprof) => json(&input_pipeline::to_xprof_json(&a.input_pipeline_xprof()))?,
        ("input_pipeline_analyzer", Format::Csv) => input_pipeline::input_ops_csv(&a.input_pipeline()),
        ("kernel_stats", Format::Json) => json(&serde_json::to_value(&a.kernels)?)?,
        ("kernel_stats", Format::Xprof) => json(&kernel_stats::to_xprof_json(&a.kernels))?,
        ("kernel_stats", Format::Csv) => kernel_stats::to_csv(&a.kernels),
        ("framework_op_stats", f) => {
            let view = a.framework_op_stats();
            match f {
                Format::Json => json(&serde_json::to_value(&view)?)?,
                Format::Xprof => json(&framework_op_stats::to_xprof_json(&view))?,
                Format::Csv => framework_op_stats::to_csv(&view, false),
            }
        }
        _ => return Err(Failure(format!("unknown tool '{tool}'"))),
    })
}

/// The files (and host names) of the hosts to analyse: the run named by `--run` (or the only
/// one; several runs without a choice is an error that lists them), and in it
/// the host named by `--host`, or all its hosts together.
pub fn choose_hosts(
    input: &Input,
    run: Option<&str>,
    host: Option<&str>,
    path: &Path,
) -> Result<Vec<(PathBuf, String)>, Failure> {
    let runs = &input.logdir.runs;
    let run = match run {
        Some(name) => runs.iter().find(|r| r.name == name).ok_or_else(|| {
            Failure(format!(
                "{}: no run '{name}'; the runs are: {}",
                path.display(),
                names(runs.iter().map(|r| &r.name))
            ))
        })?,
        None if runs.len() == 1 => &runs[0],
        None => {
            return Err(Failure(format!(
                "{} holds {} runs; choose one with --run: {}",
                path.display(),
                runs.len(),
                names(runs.iter().map(|r| &r.name))
            )))
        }
    };
    match host {
        Some(name) => {
            let chosen = run.hosts.iter().find(|h| h.name == name).ok_or_else(|| {
                Failure(format!(
                    "run '{}' has no host '{name}'; its hosts are: {}",
                    run.name,
                    names(run.hosts.iter().map(|h| &h.name))
                ))
            })?;
            Ok(vec![(input.files[chosen.file].clone(), chosen.name.clone())])
        }
        None => Ok(run.hosts.iter().map(|h| (input.files[h.file].clone(), h.name.clone())).collect()),
    }
}

fn names<'a>(items: impl Iterator<Item = &'a String>) -> String {
    items.map(String::as_str).collect::<Vec<_>>().join(", ")
}
