//! `proflens summarize PATH`: writes each XSpace host's summary, and each
//! PyTorch rank's, beside its profile (`<host>.proflens-summary.bin.gz`),
//! hosts in parallel. Later commands on the run read the summaries instead
//! of the profiles for the tools of all hosts (or ranks); the summaries
//! alone (copied elsewhere) are a run too. With `--output-dir DIR` they are
//! written under DIR instead, each in its run's folder as found under PATH.

use crate::hosts::{self, HostSpec};
use crate::parallel;
use crate::summaries;
use crate::Failure;
use proflens_analysis::context::HostContext;
use proflens_analysis::rank_summary::Summary;
use std::path::{Path, PathBuf};
use std::time::Instant;

pub fn run(path: &Path, only_run: Option<&str>, jobs: Option<usize>, output_dir: Option<&Path>) -> Result<(), Failure> {
    let mut opened = hosts::open(path)?;
    let runs: Vec<&hosts::Run> = match only_run {
        Some(_) => vec![crate::combine::choose(&mut opened, only_run, None, path)?.0],
        None => opened.runs.iter().collect(),
    };
    // Each host with its profile and where its summary goes (beside it, or under DIR).
    let mut todo: Vec<(&HostSpec, &Path, PathBuf)> = Vec::new();
    for spec in runs.iter().flat_map(|r| &r.specs) {
        let Some((profile, beside)) = summarised(spec) else { continue };
        let target = match output_dir {
            Some(dir) => elsewhere(dir, spec, &beside),
            None => beside,
        };
        // `h.xplane.pb` and `h.xplane.pb.gz` in one folder: one summary name.
        if todo.iter().any(|(_, _, t)| *t == target) {
            eprintln!("proflens: {}: two profiles of one host here; only the first is summarised", target.display());
            continue;
        }
        todo.push((spec, profile, target));
    }
    let none =
        || Failure(format!("{}: no XSpace profiles (*.xplane.pb) or PyTorch traces to summarise", path.display()));
    if todo.is_empty() {
        return Err(none());
    }
    let specs: Vec<&HostSpec> = todo.iter().map(|(s, _, _)| *s).collect();
    let lines = parallel::map_hosts(&specs, parallel::jobs(jobs), |spec, host| {
        let (_, profile, target) = todo.iter().find(|(s, _, _)| std::ptr::eq(*s, spec))?;
        Some(summarize(host, profile, target))
    });
    let mut failed = Vec::new();
    let mut skipped = 0;
    for line in lines.into_iter().flatten() {
        match line {
            Ok(Some(done)) => crate::output::print(&format!("{done}\n"))?,
            Ok(None) => skipped += 1,
            Err(why) => failed.push(why),
        }
    }
    match failed.as_slice() {
        [] if skipped == todo.len() => Err(none()),
        [] => Ok(()),
        [one] => Err(Failure(one.clone())),
        [first, ..] => Err(Failure(format!("{} hosts failed; the first: {first}", failed.len()))),
    }
}

/// The host's profile on disk and where its summary goes: an XSpace, or
/// trace JSON named as discovery named the host (a PyTorch rank, once its
/// content says so).
fn summarised(spec: &HostSpec) -> Option<(&Path, PathBuf)> {
    if let Some(profile) = spec.xspace() {
        return Some((profile, summaries::path_for(profile)?));
    }
    let profile = spec.events()?;
    let name = profile.file_name()?.to_str()?;
    let is_trace = proflens_format::logdir::trace_host_name(name) == Some(spec.name.as_str())
        && proflens_format::legacy::tool_file(name).is_none();
    is_trace.then(|| Some((profile, summaries::path_for(profile)?))).flatten()
}

/// The summary's place under `dir`: the folder the host's events were found
/// in, relative to the opened path, under `dir`.
fn elsewhere(dir: &Path, spec: &HostSpec, beside: &Path) -> PathBuf {
    let found = spec.files.iter().find(|(_, _, tool)| tool.is_none()).map(|(relative, _, _)| Path::new(relative));
    let folder = found.and_then(Path::parent).map_or_else(|| dir.to_path_buf(), |p| dir.join(p));
    folder.join(beside.file_name().unwrap_or_default())
}

/// One host: skipped when its summary is up to date, else computed and
/// written; `None` for trace JSON that is no PyTorch trace (it has no summary).
fn summarize(host: &HostContext, profile: &Path, target: &Path) -> Result<Option<String>, String> {
    let source = summaries::source_of(profile).ok_or_else(|| format!("{}: cannot be read", profile.display()))?;
    if summaries::read(target).is_ok_and(|s| s.describes(&source)) {
        return Ok(Some(format!("{}: up to date", target.display())));
    }
    let started = Instant::now();
    let xspace = proflens_format::logdir::host_name(&source.name).is_some();
    if !xspace && !host.is_kineto().map_err(|e| format!("{}: {e}", profile.display()))? {
        return Ok(None);
    }
    let summary = Summary::of(host, Some(source)).map_err(|e| format!("{}: {e}", profile.display()))?;
    let bytes = summary.encode();
    if let Some(folder) = target.parent() {
        std::fs::create_dir_all(folder).map_err(|e| format!("{}: {e}", folder.display()))?;
    }
    summaries::write_atomic(target, &bytes)?;
    Ok(Some(format!(
        "{}: written ({} bytes, {:.0} ms)",
        target.display(),
        bytes.len(),
        started.elapsed().as_secs_f64() * 1000.0
    )))
}
