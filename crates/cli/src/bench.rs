//! `proflens bench FILE`: how long decoding and each tool take on one host
//! file, and the process's peak memory after each phase, as JSON. A script
//! compares these with XProf's conversion of the same file
//! (tests/bench/compare_xprof.py); the numbers are meant as ratios, not as
//! absolute targets.

use crate::Failure;
use proflens_analysis::passes::grouping::group_events;
use proflens_analysis::passes::trace::links::LinkIndex;
use proflens_analysis::passes::trace::search::EventRef;
use proflens_analysis::passes::trace::{Trace, TrackSource};
use proflens_analysis::passes::xla_ops::GpuHlo;
use proflens_analysis::{tools::framework_op_stats, passes::input_pipeline, tools::overview};
use serde::Serialize;
use std::path::Path;
use std::time::Instant;

#[derive(Serialize)]
struct Phase {
    name: &'static str,
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
}

pub fn run(path: &Path, repeats: u32) -> Result<(), Failure> {
    let repeats = repeats.max(1);
    let bytes = std::fs::read(path).map_err(|e| Failure(format!("{}: {e}", path.display())))?;
    let mut phases = Vec::new();
    let mut time = |name: &'static str, f: &mut dyn FnMut() -> Result<(), Failure>| -> Result<(), Failure> {
        let mut best = f64::INFINITY;
        for _ in 0..repeats {
            let start = Instant::now();
            f()?;
            best = best.min(start.elapsed().as_secs_f64() * 1000.0);
        }
        phases.push(Phase { name, ms: best, peak_rss_bytes: peak_rss() });
        Ok(())
    };
    let limits = proflens_format::Limits::default();
    let decode = || {
        proflens_format::load_profile(&bytes, &limits, &mut |_| {})
            .map_err(|e| Failure(format!("{}: {e}", path.display())))
    };
    let profile = decode()?;
    time("decode", &mut || decode().map(drop))?;
    let analysis = crate::input::host_analysis(&profile);
    time("shared_analysis", &mut || {
        std::hint::black_box(crate::input::host_analysis(&profile));
        Ok(())
    })?;
    time("overview_page", &mut || {
        std::hint::black_box(overview::to_xprof_json(&analysis.overview_xprof()));
        Ok(())
    })?;
    time("input_pipeline_analyzer", &mut || {
        std::hint::black_box(input_pipeline::to_xprof_json(&analysis.input_pipeline_xprof()));
        Ok(())
    })?;
    time("framework_op_stats", &mut || {
        std::hint::black_box(framework_op_stats::to_xprof_json(&analysis.framework_op_stats()));
        Ok(())
    })?;
    // The trace viewer's flow-arrow index: one scan of the events (what every
    // selection cost before the index), then lookups.
    let grouping = group_events(&profile);
    let modules = proflens_format::hlo::hlo_modules(&profile).modules;
    let trace = Trace::with_hlo(&profile, &grouping, &GpuHlo::new(&modules));
    let index = LinkIndex::new(&profile, &trace);
    time("trace_link_index", &mut || {
        std::hint::black_box(LinkIndex::new(&profile, &trace));
        Ok(())
    })?;
    let clicks = spread_events(&profile, &trace, 100);
    time("trace_links_100_selections", &mut || {
        for &at in &clicks {
            std::hint::black_box(index.links(&profile, &trace, at, 100));
        }
        Ok(())
    })?;
    let report = Report {
        file: path.display().to_string(),
        bytes: bytes.len() as u64,
        events: profile.event_count() as u64,
        repeats,
        phases,
    };
    println!("{}", serde_json::to_string_pretty(&report)?);
    Ok(())
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
            TrackSource::Derived(_) => None,
        })
        .flat_map(|(t, len)| (0..len).map(move |i| EventRef { track: t as u32, event: i as u32 }))
        .collect();
    all.iter().step_by((all.len() / n).max(1)).copied().collect()
}

/// VmHWM of this process, where /proc exists.
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}
