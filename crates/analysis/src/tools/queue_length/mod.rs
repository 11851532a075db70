//! Queue length: per rank and stream, how many launched kernels (and
//! memory copies and sets) wait on the stream, over time. HTA 0.5.0's
//! `get_queue_length_time_series` / `get_queue_length_summary`
//! (`hta/analyzers/trace_counters.py`):
//!
//! * a **+1** at the start of each runtime launch (`cudaLaunchKernel`,
//!   `cudaMemcpyAsync`, `hipLaunchKernel`… with a correlation id) whose
//!   correlated device event is in the trace, on that event's stream;
//! * a **−1** at the *start* of each such device event (HTA counts an
//!   operation as dequeued when it begins to run);
//! * every +1 and −1 is one sample: the points sorted by time (launches
//!   before device events at the same µs, see [`Ties`]), the running sum
//!   per stream;
//! * the summary is pandas' `describe()` of those samples per (rank, stream).
//!
//! The events are HTA's ([`hta::events`], [`hta::traced_iterations`]).

mod tool;

pub use tool::{rank_part, QueueLengthTool};

use crate::passes::kineto::describe::{describe, Describe, HtaRank, Ties};
use crate::passes::kineto::gpu_frame::GpuFrame;
use crate::passes::kineto::hta::{self, HtaEvent};
use proflens_model::Profile;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Runtime calls that enqueue work on a stream (HTA's
/// `get_runtime_launch_events_mask`).
pub const LAUNCHES: &[&str] = &[
    "cudaLaunchKernel",
    "cudaLaunchKernelExC",
    "cuLaunchKernel",
    "cudaMemcpyAsync",
    "cudaMemsetAsync",
    hta::MTIA_LAUNCH,
    "hipLaunchKernel",
    "hipExtModuleLaunchKernel",
    "hipMemsetAsync",
    "hipMemcpyAsync",
    "hipMemcpyWithStream",
];

/// Most points a stream's series keeps for the page; beyond, each run of
/// points is one point at its highest value.
pub const MAX_POINTS: usize = 4000;

/// The queue lengths of every rank.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueueLength {
    /// Whether the last profiler step was analysed (HTA's `include_last_profiler_step`).
    pub include_last_step: bool,
    pub ranks: Vec<HtaRank>,
    /// One row per (rank, stream), by rank then stream.
    pub rows: Vec<QueueRow>,
    /// The time series per (rank, stream), in the rows' order.
    pub series: Vec<QueueSeries>,
}

/// `describe()` of one stream's queue length.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueueRow {
    pub rank: i64,
    pub stream: i64,
    pub summary: Describe,
}

/// A stream's queue length over time: a step function, `queue[k]` from
/// `ts_us[k]` on (µs since the trace's first event).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueueSeries {
    pub rank: i64,
    pub stream: i64,
    pub ts_us: Vec<i64>,
    pub queue: Vec<i64>,
    /// Points in HTA's series (before any thinning for the page).
    pub points: usize,
}

/// One rank's samples per stream, as HTA's time series: (ts, queue length).
pub fn time_series(events: &[HtaEvent], ties: Ties) -> BTreeMap<i64, Vec<(i64, i64)>> {
    // Launches as (correlation id, order in the trace), sorted: a list
    // rather than a map, for the millions of launches of a large trace.
    let mut launches: Vec<(u64, u32)> = (0..events.len())
        .filter_map(|l| {
            let e = &events[l];
            let c = e.correlation().filter(|_| e.stream == -1 && LAUNCHES.contains(&e.name()))?;
            Some((c, l as u32))
        })
        .collect();
    launches.sort_unstable();
    // (ts, +1 before −1, order, the device event): HTA concatenates the
    // launches (in trace order) before the device events, then sorts by ts.
    let adds = ties.rank(true);
    let mut points: Vec<(i64, u8, u32, u32)> = Vec::new();
    for (i, e) in events.iter().enumerate() {
        let Some(c) = e.correlation().filter(|_| e.stream != -1) else { continue };
        let first = launches.partition_point(|&(l, _)| l < c);
        for &(_, l) in launches[first..].iter().take_while(|&&(l, _)| l == c) {
            points.push((events[l as usize].ts_us, adds, l, i as u32));
            points.push((e.ts_us, ties.rank(false), i as u32, i as u32));
        }
    }
    drop(launches);
    points.sort_unstable();
    let mut out: BTreeMap<i64, Vec<(i64, i64)>> = BTreeMap::new();
    for (ts, side, _, k) in points {
        let series = out.entry(events[k as usize].stream).or_default();
        let last = series.last().map_or(0, |&(_, q)| q);
        series.push((ts, last + if side == adds { 1 } else { -1 }));
    }
    out
}

/// One rank (one Kineto trace) as HTA analyses it.
pub fn rank_queue_length(profile: &Profile, name: &str, include_last_step: bool) -> QueueLength {
    rank_queue_length_with(profile, name, include_last_step, Ties::default())
}

/// [`rank_queue_length`] with a choice of order at equal times.
pub fn rank_queue_length_with(profile: &Profile, name: &str, include_last_step: bool, ties: Ties) -> QueueLength {
    rank_queue_length_in(profile, &GpuFrame::new(profile), name, include_last_step, ties)
}

/// [`rank_queue_length_with`] over the trace's frame already built (the
/// host's shared pass).
pub fn rank_queue_length_in(
    profile: &Profile,
    frame: &GpuFrame,
    name: &str,
    include_last_step: bool,
    ties: Ties,
) -> QueueLength {
    let events = frame.traced(profile, include_last_step);
    let rank = hta::rank(profile).unwrap_or(0);
    let info = HtaRank { rank, name: name.to_string(), steps: hta::step_numbers(&events) };
    let mut rows = Vec::new();
    let mut series = Vec::new();
    for (stream, points) in time_series(&events, ties) {
        let values: Vec<f64> = points.iter().map(|&(_, q)| q as f64).collect();
        let Some(summary) = describe(&values) else { continue };
        rows.push(QueueRow { rank, stream, summary });
        series.push(thin(rank, stream, &points));
    }
    QueueLength { include_last_step, ranks: vec![info], rows, series }
}

/// Several ranks together, by rank (HTA's `ranks=[…]`).
pub fn combine(parts: Vec<QueueLength>) -> QueueLength {
    let include_last_step = parts.first().is_some_and(|p| p.include_last_step);
    let mut all = QueueLength { include_last_step, ranks: Vec::new(), rows: Vec::new(), series: Vec::new() };
    for p in parts {
        all.ranks.extend(p.ranks);
        all.rows.extend(p.rows);
        all.series.extend(p.series);
    }
    all.ranks.sort_by_key(|r| r.rank);
    all.rows.sort_by_key(|r| (r.rank, r.stream));
    all.series.sort_by_key(|s| (s.rank, s.stream));
    all
}

/// A series of at most [`MAX_POINTS`] points: each run of points becomes
/// its first time with its highest value.
fn thin(rank: i64, stream: i64, points: &[(i64, i64)]) -> QueueSeries {
    let per = points.len().div_ceil(MAX_POINTS).max(1);
    let (ts_us, queue) = points.chunks(per).map(|c| (c[0].0, c.iter().map(|&(_, q)| q).max().unwrap_or(0))).unzip();
    QueueSeries { rank, stream, ts_us, queue, points: points.len() }
}

/// The main table as CSV.
pub fn to_csv(q: &QueueLength) -> String {
    let mut out = String::from("rank,stream,count,mean,std,min,25%,50%,75%,max\n");
    for r in &q.rows {
        let s = &r.summary;
        let std = s.std.map_or(String::new(), |v| v.to_string());
        out.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{}\n",
            r.rank, r.stream, s.count, s.mean, std, s.min, s.p25, s.p50, s.p75, s.max
        ));
    }
    out
}

#[cfg(test)]
mod tests;
