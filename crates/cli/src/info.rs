//! `proflens info PATH`: what each run and host holds, as JSON; with
//! `--list`, only the runs, hosts and their files, without reading them.

use crate::{hosts, Failure};
use proflens_analysis::registry;
use proflens_analysis::tools::info::host_info;
use serde::Serialize;
use std::path::{Path, PathBuf};

#[derive(Serialize)]
struct Summary {
    runs: Vec<RunSummary>,
    /// Runs captured together (their windows overlap), as `--run` combines
    /// them (`RUN1+RUN2`); absent when there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    combinable_runs: Vec<String>,
}

#[derive(Serialize)]
struct RunSummary {
    name: String,
    hosts: Vec<HostSummary>,
}

#[derive(Serialize)]
struct HostSummary {
    name: String,
    planes: Vec<PlaneSummary>,
}

#[derive(Serialize)]
struct PlaneSummary {
    name: String,
    lines: usize,
    events: u64,
}

/// TensorBoard's legacy tool files, when PATH holds nothing else.
#[derive(Serialize)]
struct LegacyFiles {
    legacy_tool_files: Vec<LegacyFile>,
}

#[derive(Serialize)]
struct LegacyFile {
    path: PathBuf,
    run: String,
    host: String,
    /// XProf's tool name (`framework_op_stats` for `tensorflow_stats.pb`).
    tool: &'static str,
    /// The file's kind as its name gives it (`tensorflow_stats`).
    file_kind: &'static str,
}

/// `--list`: a run's hosts and the files each is read from, as found.
#[derive(Serialize)]
struct Listed {
    runs: Vec<ListedRun>,
}

#[derive(Serialize)]
struct ListedRun {
    name: String,
    hosts: Vec<ListedHost>,
}

#[derive(Serialize)]
struct ListedHost {
    name: String,
    files: Vec<PathBuf>,
}

pub fn run(path: &Path, list: bool) -> Result<(), Failure> {
    let opened = hosts::open(path)?;
    if list {
        let runs = opened
            .runs
            .iter()
            .map(|run| ListedRun {
                name: run.name.clone(),
                hosts: (run.hosts.iter().zip(&run.files))
                    .map(|(host, files)| ListedHost { name: host.name().to_string(), files: files.clone() })
                    .collect(),
            })
            .collect();
        return crate::output::print(&(serde_json::to_string_pretty(&Listed { runs })? + "\n"));
    }
    // A file of events that does not decode may be a TensorBoard tool JSON named like a trace.
    for host in opened.runs.iter().flat_map(|r| &r.hosts) {
        if host.has_events() && host.tool_file_kinds().is_empty() && host.profile().is_err() {
            host.events_as_tool_file();
        }
    }
    let all_tool_files = opened.runs.iter().flat_map(|r| &r.hosts).all(|h| !h.tool_file_kinds().is_empty());
    if all_tool_files {
        let mut legacy_tool_files = Vec::new();
        for run in &opened.runs {
            for (host, files) in run.hosts.iter().zip(&run.files) {
                for (kind, file) in host.tool_file_kinds().into_iter().zip(files) {
                    legacy_tool_files.push(LegacyFile {
                        path: file.clone(),
                        run: run.name.clone(),
                        host: host.name().to_string(),
                        tool: registry::tool_for_file(kind).map_or(kind.file_stem(), |t| t.id()),
                        file_kind: kind.file_stem(),
                    });
                }
            }
        }
        return crate::output::print(&(serde_json::to_string_pretty(&LegacyFiles { legacy_tool_files })? + "\n"));
    }
    let mut runs = Vec::new();
    for run in &opened.runs {
        let mut hosts = Vec::new();
        for (host, files) in run.hosts.iter().zip(&run.files) {
            let profile = host.profile().map_err(|e| {
                let file = files.last().map(|f| f.display().to_string()).unwrap_or_default();
                Failure(format!("{file}: {e}"))
            })?;
            let planes = host_info(&profile)
                .planes
                .into_iter()
                .map(|p| PlaneSummary { name: p.name, lines: p.lines.len(), events: p.events })
                .collect();
            hosts.push(HostSummary { name: host.name().to_string(), planes });
        }
        runs.push(RunSummary { name: run.name.clone(), hosts });
    }
    let combinable_runs = crate::combine::offered(&opened);
    crate::output::print(&(serde_json::to_string_pretty(&Summary { runs, combinable_runs })? + "\n"))
}
