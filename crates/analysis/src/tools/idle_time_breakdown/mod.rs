//! HTA's idle time breakdown (`TraceAnalysis.get_idle_time_breakdown`,
//! HolisticTraceAnalysis 0.5.0) of a PyTorch trace: per rank and stream,
//! the time between consecutive GPU events split by its likely cause.
//!
//! On each stream (HTA's device work, [`HtaEvent::is_device_work`]:
//! kernels, memcpys, memsets and MTIA's on-device events on a stream, with
//! or without a correlation id; not the `cuda_sync` events, nor the host's
//! Triton `cpu_op`s that carry a `stream` arg) sorted by start, an event's
//! idle interval is its start minus the previous event's end (none for the
//! first one), and it is
//! * **host_wait** when its launch (the CPU event with its correlation id)
//!   started after the previous event ended: the host was late (an event
//!   without a launch in the trace never is: HTA joins it to its first
//!   event, see the module's deviations below);
//! * **kernel_wait** otherwise when the interval is below
//!   `consecutive_kernel_delay` (30 µs): the cost of launching back to back;
//! * **other** otherwise, and always for the first event.
//!
//! Each category present on a stream gets its summed idle time, its share
//! of the stream's idle time, and pandas' `describe()` of its intervals
//! (see [`stats`]); like HTA, everything is rounded to two decimals. The
//! trace is HTA's ([`crate::passes::kineto::hta`]), without the last
//! profiler step by default.
//!
//! Where HTA 0.5.0 is off, Proflens keeps its own answer: device work whose
//! correlation id no kept CPU event has gets HTA's `index_correlation` 0,
//! and its join then reads the launch time of whatever event has index 0;
//! here such work has no launch (never host_wait).

pub mod stats;
mod tool;
pub use tool::{rank_part, IdlePart, IdleTimeBreakdownTool};

use crate::passes::kineto::gpu_frame::GpuFrame;
use crate::passes::kineto::hta::{self, HtaEvent, Iteration};
use proflens_model::Profile;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
pub use stats::IntervalStats;
use stats::{describe, round2};
use std::collections::BTreeSet;

/// HTA's default `consecutive_kernel_delay`, µs.
pub const CONSECUTIVE_KERNEL_DELAY_US: i64 = 30;

/// Why a stream sat idle before an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IdleCategory {
    HostWait,
    KernelWait,
    Other,
}

impl IdleCategory {
    /// HTA's name of the category.
    pub fn name(self) -> &'static str {
        match self {
            IdleCategory::HostWait => "host_wait",
            IdleCategory::KernelWait => "kernel_wait",
            IdleCategory::Other => "other",
        }
    }
}

/// One category on one stream, with HTA's rounding.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CategoryIdle {
    pub category: IdleCategory,
    /// Summed idle intervals, µs.
    pub idle_time_us: f64,
    /// Share of the stream's idle time (0–1, two decimals); `None` when the
    /// stream has no idle time at all (HTA's 0/0).
    pub idle_time_ratio: Option<f64>,
    pub stats: IntervalStats,
}

/// One stream: the categories its events fall in (HTA's order).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StreamIdle {
    pub stream: i64,
    /// Events on the stream (kernels, memcpys, memsets, MTIA device events).
    pub events: u64,
    pub categories: Vec<CategoryIdle>,
}

/// One rank's streams.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RankIdle {
    /// `distributedInfo.rank`, else the rank's position (0 for one trace).
    pub rank: i64,
    /// The host (trace) it was read from.
    pub host: String,
    /// The `ProfilerStep#N` iterations the analysed events belong to.
    pub profiler_steps_used: Vec<i64>,
    pub streams: Vec<StreamIdle>,
}

/// The tool's view model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IdleTimeBreakdown {
    pub consecutive_kernel_delay_us: i64,
    pub include_last_profiler_step: bool,
    pub ranks: Vec<RankIdle>,
}

/// The idle time breakdown of one rank's trace.
pub fn rank_idle(profile: &Profile, rank: i64, host: &str, include_last: bool, delay_us: i64) -> RankIdle {
    rank_idle_in(profile, &GpuFrame::new(profile), rank, host, include_last, delay_us)
}

/// [`rank_idle`] over the trace's frame already built (the host's shared pass).
pub fn rank_idle_in(
    profile: &Profile,
    frame: &GpuFrame,
    rank: i64,
    host: &str,
    include_last: bool,
    delay_us: i64,
) -> RankIdle {
    // Launches and the GPU work they started (the trace's host ops only
    // add the steps they fall in, below).
    let all = &frame.events(profile);
    let iterations = hta::assign_iterations(all, &hta::steps_of(all));
    // Which events the analysis keeps, by position in `all` (one list of
    // events: a trace has millions).
    let kept = frame.traced_mask(include_last);

    let mut steps: BTreeSet<i64> = iterations
        .iter()
        .zip(&kept)
        .filter(|(_, &k)| k)
        .filter_map(|(it, _)| if let Iteration::Step(n) = it { (*n >= 0).then_some(*n) } else { None })
        .collect();
    // The host events the frame left out (stream −1, so HTA's iteration is
    // the step they start in) that the last-step filter keeps.
    steps.extend(frame.left_out_spans(include_last).keys().filter(|&&n| n >= 0));
    let steps: Vec<i64> = steps.into_iter().collect();

    // A GPU event's launch: the last CPU event in trace order with its
    // correlation id (HTA's `index_correlation`), if the analysis kept it.
    let mut launch: FxHashMap<u64, usize> = FxHashMap::default();
    for (i, e) in all.iter().enumerate().filter(|(_, e)| !e.is_gpu()) {
        if let Some(c) = e.correlation() {
            launch.insert(c, i);
        }
    }
    let launch_ts = |e: &HtaEvent| -> Option<i64> {
        if !e.is_gpu() {
            return None;
        }
        let &l = launch.get(&e.correlation()?)?;
        kept[l].then_some(all[l].ts_us)
    };

    let mut by_stream: FxHashMap<i64, Vec<(i64, i64, Option<i64>)>> = FxHashMap::default();
    let kept_events = all.iter().zip(&kept).filter_map(|(e, &k)| k.then_some(e));
    for e in kept_events.filter(|e| e.is_device_work()) {
        by_stream.entry(e.stream).or_default().push((e.ts_us, e.end_us(), launch_ts(e)));
    }
    let mut streams: Vec<StreamIdle> =
        by_stream.into_iter().map(|(stream, mut events)| stream_idle(stream, &mut events, delay_us)).collect();
    streams.sort_by_key(|s| s.stream);
    RankIdle { rank, host: host.to_string(), profiler_steps_used: steps, streams }
}

/// One stream's events as (start, end, launch start) → its breakdown.
fn stream_idle(stream: i64, events: &mut [(i64, i64, Option<i64>)], delay_us: i64) -> StreamIdle {
    events.sort_by_key(|e| e.0);
    let mut groups: [Vec<Option<f64>>; 3] = Default::default();
    let mut prev_end: Option<i64> = None;
    for &(ts, end, launch) in events.iter() {
        let interval = prev_end.map(|p| ts - p);
        let category = match (prev_end, interval) {
            (Some(p), _) if launch.is_some_and(|l| l > p) => IdleCategory::HostWait,
            (_, Some(i)) if i < delay_us => IdleCategory::KernelWait,
            _ => IdleCategory::Other,
        };
        groups[category as usize].push(interval.map(|i| i as f64));
        prev_end = Some(end);
    }
    let sums: Vec<f64> = groups.iter().map(|g| g.iter().flatten().fold(0.0, |s, v| s + v)).collect();
    let total = sums.iter().fold(0.0, |s, v| s + v);
    let categories = [IdleCategory::HostWait, IdleCategory::KernelWait, IdleCategory::Other]
        .into_iter()
        .zip(groups.iter().zip(sums))
        .filter(|(_, (g, _))| !g.is_empty())
        .map(|(category, (g, sum))| {
            let ratio = sum / total;
            CategoryIdle {
                category,
                idle_time_us: round2(sum),
                idle_time_ratio: ratio.is_finite().then(|| round2(ratio)),
                stats: describe(g),
            }
        })
        .collect();
    StreamIdle { stream, events: events.len() as u64, categories }
}

/// The rows in HTA's order: (rank, stream, category).
fn rows(b: &IdleTimeBreakdown) -> impl Iterator<Item = (&RankIdle, &StreamIdle, &CategoryIdle)> {
    b.ranks.iter().flat_map(|r| r.streams.iter().flat_map(move |s| s.categories.iter().map(move |c| (r, s, c))))
}

/// HTA's two tables in the shape of its goldens (`hta_idle_time_breakdown*.json`).
pub fn to_hta_json(b: &IdleTimeBreakdown) -> Value {
    let idle_time: Vec<Value> = rows(b)
        .map(|(r, s, c)| {
            json!({"rank": r.rank, "stream": s.stream, "idle_category": c.category.name(),
                   "idle_time": c.idle_time_us, "idle_time_ratio": c.idle_time_ratio})
        })
        .collect();
    let stats: Vec<Value> = rows(b)
        .map(|(r, s, c)| {
            let t = &c.stats;
            json!({"rank": r.rank, "stream": s.stream, "idle_category": c.category.name(),
                   "count": t.count as f64, "mean": t.mean, "std": t.std, "min": t.min,
                   "25%": t.p25, "50%": t.p50, "75%": t.p75, "max": t.max})
        })
        .collect();
    let ranks: Vec<i64> = b.ranks.iter().map(|r| r.rank).collect();
    let files: serde_json::Map<String, Value> =
        b.ranks.iter().map(|r| (r.rank.to_string(), Value::from(r.host.clone()))).collect();
    let mut steps: Vec<i64> = b.ranks.iter().flat_map(|r| r.profiler_steps_used.iter().copied()).collect();
    steps.sort_unstable();
    steps.dedup();
    json!({
        "hta_version": "0.5.0",
        "api": "TraceAnalysis.get_idle_time_breakdown",
        "params": {"ranks": ranks, "streams": null, "visualize": false, "show_idle_interval_stats": true,
                   "consecutive_kernel_delay": b.consecutive_kernel_delay_us},
        "load": {"include_last_profiler_step": b.include_last_profiler_step, "ns_rounding": true,
                 "ranks": files, "profiler_steps_used": steps},
        "time_unit": "us",
        "idle_time": idle_time,
        "idle_interval_stats": stats,
    })
}

/// One row per (rank, stream, category): the breakdown and its statistics.
pub fn to_csv(b: &IdleTimeBreakdown) -> String {
    let mut out = String::from(
        "rank,stream,idle_category,idle_time_us,idle_time_ratio,count,mean_us,std_us,min_us,p25_us,p50_us,p75_us,max_us\n",
    );
    let opt = |v: Option<f64>| v.map(|v| v.to_string()).unwrap_or_default();
    for (r, s, c) in rows(b) {
        let t = &c.stats;
        out += &format!(
            "{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
            r.rank,
            s.stream,
            c.category.name(),
            c.idle_time_us,
            opt(c.idle_time_ratio),
            t.count,
            opt(t.mean),
            opt(t.std),
            opt(t.min),
            opt(t.p25),
            opt(t.p50),
            opt(t.p75),
            opt(t.max)
        );
    }
    out
}

#[cfg(test)]
mod tests;
