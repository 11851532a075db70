//! `proflens bench FILE`: how long decoding, the shared passes and each
//! tool take on one host file, and the process's peak memory after each
//! phase, as JSON; and how often each shared pass ran while every tool ran
//! once (each should run once per load), with each pass's wall time on that
//! load (`pass_ms`). A script compares these with
//! XProf's conversion of the same file (tests/bench/compare_xprof.py); the
//! numbers are meant as ratios, not as absolute targets.

use crate::Failure;
use proflens_analysis::context::{Format, Hooks, HostContext, HostFile, Request};
use proflens_analysis::passes::trace::links::LinkIndex;
use proflens_analysis::passes::trace::search::EventRef;
use proflens_analysis::passes::trace::{Trace, TrackSource};
use proflens_analysis::registry;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;
use std::rc::Rc;
use std::time::Instant;

#[derive(Serialize)]
struct Phase {
    name: String,
    /// Best (minimum) wall time over the repeats, ms.
    ms: f64,
    /// Peak resident memory of the process after the phase (Linux), bytes.
    peak_rss_bytes: Option<u64>,
}

#[derive(Serialize)]
struct Report {
    file: String,
    bytes: u64,
    events: u64,
    repeats: u32,
    phases: Vec<Phase>,
    /// Runs of each shared pass while every tool ran once on one load.
    pass_runs: BTreeMap<&'static str, u32>,
    /// Wall ms of each shared pass on that load (its own work; `decode`
    /// without reading the file), the breakdown the web benchmark's worker
    /// reports too (`cargo xtask bench-web`).
    pass_ms: BTreeMap<&'static str, f64>,
    /// Reading the file on that load (here a copy of bytes already in memory).
    file_read_ms: f64,
}

/// Wall-clock time, and the threads a host may use.
struct Clock(Instant, usize);

impl Hooks for Clock {
    fn progress(&self, _: Option<f64>, _: &str) {}

    fn now_ms(&self) -> f64 {
        self.0.elapsed().as_secs_f64() * 1000.0
    }

    fn threads(&self) -> usize {
        self.1
    }
}

/// A fresh context over the file's bytes: nothing computed yet.
fn context(path: &Path, bytes: &Rc<Vec<u8>>) -> HostContext {
    context_with(path, bytes, 1)
}

/// [`context`] whose host may use `threads` threads.
fn context_with(path: &Path, bytes: &Rc<Vec<u8>>, threads: usize) -> HostContext {
    let bytes = bytes.clone();
    let file = HostFile {
        path: path.display().to_string(),
        tool: None,
        read: Box::new(move || Ok(proflens_format::source::in_memory((*bytes).clone()))),
    };
    HostContext::new("bench", vec![file], Rc::new(Clock(Instant::now(), threads)))
}

/// One thread count's times (best of the repeats), ms.
#[derive(Serialize)]
struct ThreadsRow {
    threads: usize,
    decode_ms: f64,
    passes_ms: f64,
    total_ms: f64,
    /// The first count's total over this one's.
    speedup: f64,
}

#[derive(Serialize)]
struct ThreadsReport {
    file: String,
    events: u64,
    repeats: u32,
    rows: Vec<ThreadsRow>,
}

/// `proflens bench FILE --threads 1,2,…`: decoding and the shared passes
/// (those behind the step tools) with each thread count, each repeat on a
/// fresh context; the best decode and the best passes are summed.
pub fn threads(path: &Path, repeats: u32, counts: &[usize]) -> Result<(), Failure> {
    let repeats = repeats.max(1);
    let bytes = Rc::new(std::fs::read(path).map_err(|e| Failure(format!("{}: {e}", path.display())))?);
    let failed = |e: String| Failure(format!("{}: {e}", path.display()));
    let mut rows: Vec<ThreadsRow> = Vec::new();
    let mut events = 0;
    for &threads in counts {
        let threads = threads.max(1);
        let (mut decode, mut passes) = (f64::INFINITY, f64::INFINITY);
        for _ in 0..repeats {
            let host = context_with(path, &bytes, threads);
            events = host.profile().map_err(failed)?.event_count() as u64;
            // Without the copy of the bytes that stands for reading the file.
            let decoded = host.pass_ms().into_iter().find(|(pass, _)| *pass == "decode").map_or(0.0, |(_, ms)| ms);
            decode = decode.min(decoded);
            let start = Instant::now();
            std::hint::black_box(host.analysis().map_err(failed)?);
            passes = passes.min(start.elapsed().as_secs_f64() * 1000.0);
        }
        let total = decode + passes;
        let first = rows.first().map_or(total, |r| r.total_ms);
        rows.push(ThreadsRow {
            threads,
            decode_ms: round_ms(decode),
            passes_ms: round_ms(passes),
            total_ms: round_ms(total),
            speedup: (first / total * 1000.0).round() / 1000.0,
        });
    }
    let report = ThreadsReport { file: path.display().to_string(), events, repeats, rows };
    crate::output::print(&(serde_json::to_string_pretty(&report)? + "\n"))
}

pub fn run(path: &Path, repeats: u32) -> Result<(), Failure> {
    let repeats = repeats.max(1);
    let bytes = Rc::new(std::fs::read(path).map_err(|e| Failure(format!("{}: {e}", path.display())))?);
    let mut phases = Vec::new();
    let time = |phases: &mut Vec<Phase>, name: &str, f: &mut dyn FnMut() -> Result<(), Failure>| {
        let mut best = f64::INFINITY;
        for _ in 0..repeats {
            let start = Instant::now();
            f()?;
            best = best.min(start.elapsed().as_secs_f64() * 1000.0);
        }
        phases.push(Phase { name: name.to_string(), ms: best, peak_rss_bytes: peak_rss() });
        Ok::<(), Failure>(())
    };
    let failed = |e: String| Failure(format!("{}: {e}", path.display()));
    time(&mut phases, "decode", &mut || context(path, &bytes).profile().map(drop).map_err(failed))?;
    // The passes behind the step tools (HLO, grouping, steps, op metrics,
    // kernels) on a decoded profile: each repeat on a fresh context.
    let mut best = f64::INFINITY;
    for _ in 0..repeats {
        let host = context(path, &bytes);
        host.profile().map_err(failed)?;
        let start = Instant::now();
        std::hint::black_box(host.analysis().map_err(failed)?);
        best = best.min(start.elapsed().as_secs_f64() * 1000.0);
    }
    phases.push(Phase { name: "shared_analysis".into(), ms: best, peak_rss_bytes: peak_rss() });
    // Every tool once on one load: the passes it needs are computed by the
    // first tool that asks and shared by the others.
    let host = context(path, &bytes);
    let xprof = Request { format: Format::Xprof, ..Request::default() };
    for tool in registry::available(&host) {
        let (format, request) = if tool.formats().contains(&Format::Xprof) {
            (Format::Xprof, xprof.clone())
        } else {
            (Format::Json, Request::default())
        };
        match tool.run(&host, &request) {
            Ok(output) => {
                time(&mut phases, tool.id(), &mut || {
                    let output = tool.run(&host, &request).map_err(|e| Failure(e.to_string()))?;
                    // The value, as the phases timed it before the registry (not its text).
                    let value = if format == Format::Xprof { output.model.xprof() } else { output.model.json() };
                    std::hint::black_box(value.ok());
                    Ok(())
                })?;
                drop(output);
            }
            // A tool with nothing to show for this file (no XLA programs…) is left out.
            Err(e) => eprintln!("proflens: bench: {} skipped: {e}", tool.id()),
        }
    }
    let pass_runs = host.pass_runs().into_iter().collect();
    // The trace viewer's flow-arrow index: one scan of the events (what every
    // selection cost before the index), then lookups.
    let (profile, trace) = (host.profile().map_err(failed)?, host.trace().map_err(failed)?);
    let pass_ms = host.pass_ms().into_iter().map(|(pass, ms)| (pass, round_ms(ms))).collect();
    let file_read_ms = round_ms(host.read_ms());
    let index = LinkIndex::new(&profile, &trace.trace);
    time(&mut phases, "trace_link_index", &mut || {
        std::hint::black_box(LinkIndex::new(&profile, &trace.trace));
        Ok(())
    })?;
    let clicks = spread_events(&profile, &trace.trace, 100);
    time(&mut phases, "trace_links_100_selections", &mut || {
        for &at in &clicks {
            std::hint::black_box(index.links(&profile, &trace.trace, at, 100));
        }
        Ok(())
    })?;
    let report = Report {
        file: path.display().to_string(),
        bytes: bytes.len() as u64,
        events: profile.event_count() as u64,
        repeats,
        phases,
        pass_runs,
        pass_ms,
        file_read_ms,
    };
    crate::output::print(&(serde_json::to_string_pretty(&report)? + "\n"))
}

/// `n` events spread evenly over the trace's line tracks.
fn spread_events(profile: &proflens_model::Profile, trace: &Trace, n: usize) -> Vec<EventRef> {
    let all: Vec<EventRef> = trace
        .sections
        .iter()
        .flat_map(|s| &s.tracks)
        .enumerate()
        .filter_map(|(t, track)| match track.source {
            TrackSource::Line(p, l) => Some((t, profile.planes[p].lines[l].events.len())),
            TrackSource::Derived(_) | TrackSource::Counter(_) => None,
        })
        .flat_map(|(t, len)| (0..len).map(move |i| EventRef { track: t as u32, event: i as u32 }))
        .collect();
    all.iter().step_by((all.len() / n).max(1)).copied().collect()
}

/// Milliseconds to the microsecond (the JSON stays readable).
fn round_ms(ms: f64) -> f64 {
    (ms * 1000.0).round() / 1000.0
}

/// VmHWM of this process, where /proc exists.
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}
