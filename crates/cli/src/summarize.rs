//! `proflens summarize PATH`: writes each XSpace host's summary beside its
//! profile (`<host>.proflens-summary.bin.gz`), hosts in parallel. Later
//! commands on the run read the summaries instead of the profiles for the
//! tools of all hosts; the summaries alone (copied elsewhere) are a run too.

use crate::hosts::{self, HostSpec};
use crate::parallel;
use crate::summaries;
use crate::Failure;
use proflens_analysis::context::summary::HostSummary;
use std::path::{Path, PathBuf};
use std::time::Instant;

pub fn run(path: &Path, only_run: Option<&str>, jobs: Option<usize>) -> Result<(), Failure> {
    let mut opened = hosts::open(path)?;
    let runs: Vec<&hosts::Run> = match only_run {
        Some(_) => vec![crate::combine::choose(&mut opened, only_run, None, path)?.0],
        None => opened.runs.iter().collect(),
    };
    // Each host with its profile and the summary written beside it.
    let mut todo: Vec<(&HostSpec, &Path, PathBuf)> = Vec::new();
    for spec in runs.iter().flat_map(|r| &r.specs) {
        let Some((profile, target)) = spec.xspace().and_then(|p| Some((p, summaries::path_for(p)?))) else {
            continue;
        };
        // `h.xplane.pb` and `h.xplane.pb.gz` in one folder: one summary name.
        if todo.iter().any(|(_, _, t)| *t == target) {
            eprintln!("proflens: {}: two profiles of one host here; only the first is summarised", target.display());
            continue;
        }
        todo.push((spec, profile, target));
    }
    if todo.is_empty() {
        return Err(Failure(format!("{}: no XSpace profiles (*.xplane.pb) to summarise", path.display())));
    }
    let specs: Vec<&HostSpec> = todo.iter().map(|(s, _, _)| *s).collect();
    let lines = parallel::map_hosts(&specs, parallel::jobs(jobs), |spec, host| {
        let (_, profile, target) = todo.iter().find(|(s, _, _)| std::ptr::eq(*s, spec))?;
        Some(summarize(host, profile, target))
    });
    let mut failed = Vec::new();
    for line in lines.into_iter().flatten() {
        match line {
            Ok(done) => println!("{done}"),
            Err(why) => failed.push(why),
        }
    }
    match failed.as_slice() {
        [] => Ok(()),
        [one] => Err(Failure(one.clone())),
        [first, ..] => Err(Failure(format!("{} hosts failed; the first: {first}", failed.len()))),
    }
}

/// One host: skipped when its summary is up to date, else computed and written.
fn summarize(host: &proflens_analysis::context::HostContext, profile: &Path, target: &Path) -> Result<String, String> {
    let source = summaries::source_of(profile).ok_or_else(|| format!("{}: cannot be read", profile.display()))?;
    if summaries::read(target).is_ok_and(|s| s.describes(&source)) {
        return Ok(format!("{}: up to date", target.display()));
    }
    let started = Instant::now();
    let summary = HostSummary::of(host, Some(source)).map_err(|e| format!("{}: {e}", profile.display()))?;
    let bytes = summary.encode();
    summaries::write_atomic(target, &bytes)?;
    Ok(format!(
        "{}: written ({} bytes, {:.0} ms)",
        target.display(),
        bytes.len(),
        started.elapsed().as_secs_f64() * 1000.0
    ))
}
