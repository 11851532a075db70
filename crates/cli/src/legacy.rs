//! Legacy tool files on the command line: `proflens tool` and `proflens info`
//! on a `<host>.<tool>.pb|.json` file, an XProf tool JSON, or a folder of
//! them (the files of one host form that host's tool set).
//!
//! Used only when PATH holds no XSpace (`*.xplane.pb`): a run with both is
//! an XSpace run, and XSpace gives every tool.

use crate::tool::Format;
use crate::Failure;
use proflens_analysis::common::legacy::{self as views, LegacyView};
use proflens_analysis::{
    tools::framework_op_stats, passes::input_pipeline, passes::kernels, tools::memory_profile, tools::memory_viewer, tools::op_profile, tools::overview, tools::pod_viewer,
};
use proflens_format::legacy::{self, LegacyTool};
use proflens_format::Limits;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// One legacy tool file found under PATH.
#[derive(Debug, Clone, Serialize)]
pub struct Found {
    pub path: PathBuf,
    /// The run: the folder holding the file.
    pub run: String,
    pub host: String,
    /// XProf's tool name (`framework_op_stats` for `tensorflow_stats.pb`).
    pub tool: &'static str,
    /// The file's kind as its name gives it (`tensorflow_stats`).
    pub file_kind: &'static str,
}

fn is_xspace_name(name: &str) -> bool {
    name.ends_with(".xplane.pb") || name.ends_with(".xplane.pb.gz")
}

fn read(path: &Path) -> Result<Vec<u8>, Failure> {
    let limit = Limits::default().max_input_bytes;
    let size = std::fs::metadata(path).map_err(|e| Failure(format!("{}: {e}", path.display())))?.len();
    if size > limit {
        let e = proflens_format::Error::TooLarge { what: "file", limit };
        return Err(Failure(format!("{}: {e}", path.display())));
    }
    std::fs::read(path).map_err(|e| Failure(format!("{}: {e}", path.display())))
}

fn file_name(path: &Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

fn found(path: &Path, host: String, tool: LegacyTool) -> Found {
    let run =
        path.parent().and_then(|p| p.file_name()).map_or_else(|| ".".into(), |n| n.to_string_lossy().into_owned());
    let host = if host.is_empty() {
        // Bare names (`overview_page.pb`): the run folder stands for the host.
        run.clone()
    } else {
        host
    };
    Found { path: path.to_path_buf(), run, host, tool: tool.xprof_tool(), file_kind: tool.file_stem() }
}

/// The legacy tool files of PATH, or `None` when PATH is (or holds) XSpace or
/// nothing legacy. A single file counts by its name or, for JSON, its content.
pub fn discover(path: &Path) -> Result<Option<Vec<Found>>, Failure> {
    let meta = std::fs::metadata(path).map_err(|e| Failure(format!("{}: {e}", path.display())))?;
    if meta.is_file() {
        let name = file_name(path);
        if is_xspace_name(&name) {
            return Ok(None);
        }
        if let Some((host, tool)) = legacy::tool_file(&name) {
            return Ok(Some(vec![found(path, host, tool)]));
        }
        let bytes = read(path)?;
        return Ok(legacy::recognise(&name, &bytes, &Limits::default()).map(|tool| {
            let stem = path.file_stem().map_or(name.clone(), |s| s.to_string_lossy().into_owned());
            vec![found(path, stem, tool)]
        }));
    }
    let mut files = Vec::new();
    crate::input::walk(path, 0, &mut files).map_err(|e| Failure(format!("{}: {e}", path.display())))?;
    if files.iter().any(|f| is_xspace_name(&file_name(f))) {
        return Ok(None);
    }
    files.sort();
    let all: Vec<Found> = files
        .iter()
        .filter_map(|f| legacy::tool_file(&file_name(f)).map(|(host, tool)| found(f, host, tool)))
        .collect();
    Ok((!all.is_empty()).then_some(all))
}

fn list<'a>(items: impl Iterator<Item = &'a str>) -> String {
    let mut names: Vec<&str> = items.collect();
    names.sort_unstable();
    names.dedup();
    names.join(", ")
}

/// `proflens tool` on legacy files: `Ok(None)` when PATH is not legacy.
pub fn tool_text(
    path: &Path,
    tool: &str,
    run: Option<&str>,
    host: Option<&str>,
    format: Format,
) -> Result<Option<String>, Failure> {
    let Some(all) = discover(path)? else { return Ok(None) };
    let tool = if tool == "tensorflow_stats" { "framework_op_stats" } else { tool };
    let in_run: Vec<&Found> = all.iter().filter(|f| run.is_none_or(|r| f.run == r)).collect();
    if in_run.is_empty() {
        return Err(Failure(format!(
            "{}: no run '{}'; the runs are: {}",
            path.display(),
            run.unwrap_or_default(),
            list(all.iter().map(|f| f.run.as_str()))
        )));
    }
    let for_tool: Vec<&&Found> = in_run.iter().filter(|f| f.tool == tool && host.is_none_or(|h| f.host == h)).collect();
    let file = match for_tool.as_slice() {
        [one] => *one,
        [] => {
            return Err(Failure(format!(
                "{}: no legacy {tool} file{}; the legacy tool files here are: {}",
                path.display(),
                host.map(|h| format!(" for host '{h}'")).unwrap_or_default(),
                list(in_run.iter().map(|f| f.path.file_name().and_then(|n| n.to_str()).unwrap_or_default()))
            )))
        }
        several => {
            return Err(Failure(format!(
                "legacy tool files describe one host each; choose one with --host (and --run): {}",
                list(several.iter().map(|f| f.host.as_str()))
            )))
        }
    };
    let bytes = read(&file.path)?;
    let decoded = legacy::decode(&file_name(&file.path), &bytes, &Limits::default())
        .map_err(|e| Failure(format!("{}: {e}", file.path.display())))?;
    let view = views::view(&decoded).map_err(|e| Failure(format!("{}: {e}", file.path.display())))?;
    render(&view, format).map(Some)
}

fn render(view: &LegacyView, format: Format) -> Result<String, Failure> {
    let pretty = |v: &serde_json::Value| serde_json::to_string_pretty(v).map(|s| s + "\n").map_err(Failure::from);
    Ok(match (view, format) {
        // The view model itself, as `proflens tool` prints it for an XSpace.
        (LegacyView::Overview(o), Format::Json) => pretty(&serde_json::to_value(o)?)?,
        (LegacyView::InputPipeline(a), Format::Json) => pretty(&serde_json::to_value(a)?)?,
        (LegacyView::FrameworkOpStats(v), Format::Json) => pretty(&serde_json::to_value(v)?)?,
        (LegacyView::KernelStats(rows), Format::Json) => pretty(&serde_json::to_value(rows)?)?,
        (LegacyView::PodViewer(v), Format::Json) => pretty(&serde_json::to_value(v)?)?,
        (LegacyView::MemoryProfile(v), Format::Json) => pretty(&serde_json::to_value(v)?)?,
        (LegacyView::OpProfile(v), Format::Json) => pretty(&serde_json::to_value(v)?)?,
        (LegacyView::OpProfile(v), Format::Xprof) => {
            let by_category = v.by_program.children.is_empty() && !v.by_category.children.is_empty();
            pretty(&op_profile::to_xprof_json(v, by_category))?
        }
        (LegacyView::MemoryViewer(v), Format::Json) => pretty(&serde_json::to_value(v)?)?,
        (LegacyView::MemoryViewer(v), Format::Xprof) => pretty(&memory_viewer::to_xprof_json(v))?,
        (LegacyView::MemoryViewer(_), Format::Csv) => {
            return Err(Failure("memory_viewer has no table to write as CSV; use --format json or xprof".into()))
        }
        (LegacyView::OpProfile(_), Format::Csv) => {
            return Err(Failure("op_profile has no table to write as CSV; use --format json or xprof".into()))
        }
        (LegacyView::Overview(o), Format::Xprof) => pretty(&overview::to_xprof_json(o))?,
        (LegacyView::Overview(o), Format::Csv) => input_pipeline::steps_csv(&o.input),
        (LegacyView::InputPipeline(a), Format::Xprof) => pretty(&input_pipeline::to_xprof_json(a))?,
        (LegacyView::InputPipeline(a), Format::Csv) => input_pipeline::input_ops_csv(a),
        (LegacyView::FrameworkOpStats(v), Format::Xprof) => pretty(&framework_op_stats::to_xprof_json(v))?,
        (LegacyView::FrameworkOpStats(v), Format::Csv) => framework_op_stats::to_csv(v, false),
        (LegacyView::KernelStats(rows), Format::Xprof) => pretty(&kernel_stats::to_xprof_json(rows))?,
        (LegacyView::KernelStats(rows), Format::Csv) => kernel_stats::to_csv(rows),
        (LegacyView::PodViewer(v), Format::Xprof) => pretty(&pod_viewer::to_xprof_json(v))?,
        (LegacyView::PodViewer(v), Format::Csv) => pod_viewer::to_csv(v),
        (LegacyView::MemoryProfile(v), Format::Xprof) => pretty(&memory_profile::to_xprof_json(v))?,
        (LegacyView::MemoryProfile(v), Format::Csv) => memory_profile::breakdown_csv(v),
    })
}

/// `proflens info` on legacy files: `Ok(false)` when PATH is not legacy.
pub fn info(path: &Path) -> Result<bool, Failure> {
    let Some(all) = discover(path)? else { return Ok(false) };
    #[derive(Serialize)]
    struct Info<'a> {
        legacy_tool_files: &'a [Found],
    }
    println!("{}", serde_json::to_string_pretty(&Info { legacy_tool_files: &all })?);
    Ok(true)
}
