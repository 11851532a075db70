//! Memory bandwidth: per rank and kind of memory operation (`Memcpy DtoD`,
//! `Memcpy HtoD`, `Memset`…), the bandwidth the copies and sets in flight
//! use together, over time. HTA 0.5.0's `get_memory_bw_time_series` /
//! `get_memory_bw_summary` (`hta/analyzers/trace_counters.py`):
//!
//! * the operations are the device events (on a stream) whose name holds
//!   `Memcpy` or `Memset`; the kind is `Memset`, or the name's first 11
//!   characters (`Memcpy DtoH`), or `Memcpy Unknown`;
//! * each adds its `memory bandwidth (GB/s)` arg at its start and takes it
//!   back at its end (a 0 µs operation lasts 1 µs); the points sorted by
//!   time (starts before ends at the same µs, see [`Ties`]), the running sum per kind
//!   (a negative rounding residue is 0) is the series;
//! * the summary is pandas' `describe()` of the series' values above 0.
//!
//! The events are HTA's ([`hta::events`], [`hta::traced_iterations`]).

mod tool;

pub use tool::{rank_part, MemoryBandwidthTool};

use crate::common::schema::StatPicker;
use crate::passes::kineto::describe::{describe, Describe, HtaRank, Ties};
use crate::passes::kineto::gpu_frame::GpuFrame;
use crate::passes::kineto::hta::{self, HtaEvent};
use proflens_model::{Profile, StatValue};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Most points a kind's series keeps for the page; beyond, each run of
/// points is one point at its highest value.
pub const MAX_POINTS: usize = 4000;

/// The memory bandwidth of every rank.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemoryBandwidth {
    /// Whether the last profiler step was analysed (HTA's `include_last_profiler_step`).
    pub include_last_step: bool,
    pub ranks: Vec<HtaRank>,
    /// One row per (rank, kind), by rank then kind.
    pub rows: Vec<BandwidthRow>,
    /// The time series per (rank, kind), in the rows' order.
    pub series: Vec<BandwidthSeries>,
}

/// `describe()` of one kind's bandwidth (GB/s), its zero points left out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BandwidthRow {
    pub rank: i64,
    pub name: String,
    pub summary: Describe,
}

/// A kind's bandwidth over time: a step function, `gbps[k]` from `ts_us[k]`
/// on (µs since the trace's first event).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BandwidthSeries {
    pub rank: i64,
    pub name: String,
    pub ts_us: Vec<i64>,
    pub gbps: Vec<f64>,
    /// Points in HTA's series (before any thinning for the page).
    pub points: usize,
}

/// HTA's `get_memory_kernel_type`.
pub fn memory_kind(name: &str) -> String {
    if name.starts_with("Memset") {
        "Memset".to_string()
    } else if name.starts_with("Memcpy") {
        name.chars().take(11).collect()
    } else {
        "Memcpy Unknown".to_string()
    }
}

/// HTA's memory kernels: `Memcpy` or `Memset` in the name, not a
/// communication kernel.
pub fn is_memory_op(name: &str) -> bool {
    (name.contains("Memcpy") || name.contains("Memset")) && !name.starts_with("nccl")
}

/// One rank's series per kind, as HTA's time series: (ts, GB/s).
pub fn time_series(profile: &Profile, events: &[HtaEvent], ties: Ties) -> BTreeMap<String, Vec<(i64, f64)>> {
    let picker = StatPicker::new(profile, &[profile.strings.lookup("memory bandwidth (GB/s)")]);
    let mut value: [Option<StatValue>; 1] = [None];
    // (kind, start, end, GB/s) in trace order.
    let mut ops: Vec<(String, i64, i64, f64)> = Vec::new();
    for e in events.iter().filter(|e| e.stream != -1 && is_memory_op(e.name())) {
        let (p, l, i) = e.at();
        let plane = &profile.planes[p];
        picker.pick(profile, plane, &plane.lines[l], i, &mut value);
        // Without the arg HTA's value is NaN: pandas' running sum skips it.
        let Some(gbps) = value[0].and_then(|v| v.as_f64()).filter(|v| !v.is_nan()) else { continue };
        let dur = if e.dur_us == 0 { 1 } else { e.dur_us };
        ops.push((memory_kind(e.name()), e.ts_us, e.ts_us.saturating_add(dur), gbps));
    }
    // HTA concatenates the starts before the ends, then sorts by ts.
    let mut points: Vec<(i64, u8, usize)> = Vec::with_capacity(ops.len() * 2);
    for (k, op) in ops.iter().enumerate() {
        points.push((op.1, ties.rank(true), k));
        points.push((op.2, ties.rank(false), k));
    }
    points.sort_unstable();
    let mut sums: BTreeMap<String, (f64, Vec<(i64, f64)>)> = BTreeMap::new();
    let start = ties.rank(true);
    for (ts, side, k) in points {
        let (kind, _, _, gbps) = &ops[k];
        let (sum, series) = sums.entry(kind.clone()).or_default();
        *sum += if side == start { *gbps } else { -gbps };
        series.push((ts, if *sum < 0.0 { 0.0 } else { *sum }));
    }
    sums.into_iter().map(|(kind, (_, series))| (kind, series)).collect()
}

/// One rank (one Kineto trace) as HTA analyses it.
pub fn rank_memory_bandwidth(profile: &Profile, name: &str, include_last_step: bool) -> MemoryBandwidth {
    rank_memory_bandwidth_with(profile, name, include_last_step, Ties::default())
}

/// [`rank_memory_bandwidth`] with a choice of order at equal times.
pub fn rank_memory_bandwidth_with(
    profile: &Profile,
    name: &str,
    include_last_step: bool,
    ties: Ties,
) -> MemoryBandwidth {
    rank_memory_bandwidth_in(profile, &GpuFrame::new(profile), name, include_last_step, ties)
}

/// [`rank_memory_bandwidth_with`] over the trace's frame already built (the
/// host's shared pass).
pub fn rank_memory_bandwidth_in(
    profile: &Profile,
    frame: &GpuFrame,
    name: &str,
    include_last_step: bool,
    ties: Ties,
) -> MemoryBandwidth {
    let events = frame.traced(profile, include_last_step);
    let rank = hta::rank(profile).unwrap_or(0);
    let info = HtaRank { rank, name: name.to_string(), steps: hta::step_numbers(&events) };
    let mut rows = Vec::new();
    let mut series = Vec::new();
    for (kind, points) in time_series(profile, &events, ties) {
        let values: Vec<f64> = points.iter().map(|&(_, v)| v).filter(|&v| v > 0.0).collect();
        if let Some(summary) = describe(&values) {
            rows.push(BandwidthRow { rank, name: kind.clone(), summary });
        }
        series.push(thin(rank, kind, &points));
    }
    MemoryBandwidth { include_last_step, ranks: vec![info], rows, series }
}

/// Several ranks together, by rank (HTA's `ranks=[…]`).
pub fn combine(parts: Vec<MemoryBandwidth>) -> MemoryBandwidth {
    let include_last_step = parts.first().is_some_and(|p| p.include_last_step);
    let mut all = MemoryBandwidth { include_last_step, ranks: Vec::new(), rows: Vec::new(), series: Vec::new() };
    for p in parts {
        all.ranks.extend(p.ranks);
        all.rows.extend(p.rows);
        all.series.extend(p.series);
    }
    all.ranks.sort_by_key(|r| r.rank);
    all.rows.sort_by(|a, b| (a.rank, &a.name).cmp(&(b.rank, &b.name)));
    all.series.sort_by(|a, b| (a.rank, &a.name).cmp(&(b.rank, &b.name)));
    all
}

/// A series of at most [`MAX_POINTS`] points: each run of points becomes
/// its first time with its highest value.
fn thin(rank: i64, name: String, points: &[(i64, f64)]) -> BandwidthSeries {
    let per = points.len().div_ceil(MAX_POINTS).max(1);
    let (ts_us, gbps) = points.chunks(per).map(|c| (c[0].0, c.iter().map(|&(_, v)| v).fold(0.0, f64::max))).unzip();
    BandwidthSeries { rank, name, ts_us, gbps, points: points.len() }
}

/// The main table as CSV (names quoted when they need it).
pub fn to_csv(m: &MemoryBandwidth) -> String {
    let mut out = String::from("rank,name,count,mean,std,min,25%,50%,75%,max\n");
    for r in &m.rows {
        let s = &r.summary;
        let std = s.std.map_or(String::new(), |v| v.to_string());
        let name = if r.name.contains([',', '"', '\n']) {
            format!("\"{}\"", r.name.replace('"', "\"\""))
        } else {
            r.name.clone()
        };
        out.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{}\n",
            r.rank, name, s.count, s.mean, std, s.min, s.p25, s.p50, s.p75, s.max
        ));
    }
    out
}

#[cfg(test)]
mod tests;
