//! The launch statistics written out: HTA's numbers in the shape of its
//! goldens (`--format hta`), and CSV (every launch, or a rank's outliers).

use super::{py_round, KernelLaunchStats, Launch, Params, RankLaunches, Stats, Summary};
use crate::common::csv::csv_field;
use serde_json::{json, Map, Value};

/// HTA's version whose numbers these are.
pub const HTA_VERSION: &str = "0.5.0";
/// The API the numbers come from.
pub const HTA_API: &str = "TraceAnalysis.get_cuda_kernel_launch_stats";

/// The ranks' keys in `per_rank`: the rank numbers, or the host names where
/// two traces claim the same rank (HTA would keep only one of them).
fn rank_keys(model: &KernelLaunchStats) -> Vec<String> {
    let mut ranks: Vec<i64> = model.ranks.iter().map(|r| r.rank).collect();
    ranks.sort_unstable();
    let distinct = ranks.windows(2).all(|w| w[0] != w[1]);
    model.ranks.iter().map(|r| if distinct { r.rank.to_string() } else { r.host.clone() }).collect()
}

fn stats_json(stats: &Stats) -> Value {
    json!({
        "sum": stats.sum,
        "mean": py_round(stats.mean, 3),
        "p50": stats.p50,
        "p95": stats.p95,
        "max": stats.max,
    })
}

/// HTA's summary: the counts and statistics, or only `num_launches` when it is 0.
pub fn summary_json(summary: &Summary) -> Value {
    let mut out = Map::new();
    out.insert("num_launches".into(), summary.num_launches.into());
    if let (Some(cpu), Some(gpu), Some(delay)) = (&summary.cpu_duration, &summary.gpu_duration, &summary.launch_delay) {
        out.insert("gpu_shorter_than_cpu".into(), summary.gpu_shorter_than_cpu.into());
        out.insert("cpu_runtime_outliers".into(), summary.cpu_runtime_outliers.into());
        out.insert("launch_delay_outliers".into(), summary.launch_delay_outliers.into());
        out.insert("cpu_duration".into(), stats_json(cpu));
        out.insert("gpu_duration".into(), stats_json(gpu));
        out.insert("launch_delay".into(), stats_json(delay));
    }
    Value::Object(out)
}

/// The per-launch table as HTA's columns (`correlation`, then the three
/// durations as floats).
fn columns_json(launches: &[Launch]) -> Value {
    let column = |f: fn(&Launch) -> i64| Value::from(launches.iter().map(|l| f(l) as f64).collect::<Vec<f64>>());
    json!({
        "correlation": launches.iter().map(|l| l.correlation).collect::<Vec<u64>>(),
        "cpu_duration": column(|l| l.cpu_duration),
        "gpu_duration": column(|l| l.gpu_duration),
        "launch_delay": column(|l| l.launch_delay),
    })
}

/// The numbers as HTA's goldens hold them (`hta_cuda_kernel_launch_stats*.json`):
/// `params`, `load` (with the host of each rank where the golden names its
/// trace file) and `per_rank` with each rank's `summary` and `columns`.
pub fn to_hta_json(model: &KernelLaunchStats) -> Value {
    let keys = rank_keys(model);
    let mut steps: Vec<i64> = model.ranks.iter().flat_map(|r| r.profiler_steps_used.iter().copied()).collect();
    steps.sort_unstable();
    steps.dedup();
    let mut files = Map::new();
    let mut per_rank = Map::new();
    for (key, rank) in keys.iter().zip(&model.ranks) {
        files.insert(key.clone(), rank.host.clone().into());
        per_rank.insert(
            key.clone(),
            json!({ "summary": summary_json(&rank.summary), "columns": columns_json(&rank.launches) }),
        );
    }
    let p = &model.params;
    json!({
        "hta_version": HTA_VERSION,
        "api": HTA_API,
        "params": {
            "runtime_cutoff": p.runtime_cutoff,
            "launch_delay_cutoff": p.launch_delay_cutoff,
            "ranks": model.ranks.iter().map(|r| r.rank).collect::<Vec<i64>>(),
            "include_memory_events": p.include_memory_events,
            "visualize": false,
        },
        "load": {
            "include_last_profiler_step": p.include_last_profiler_step,
            "ns_rounding": true,
            "ranks": files,
            "profiler_steps_used": steps,
        },
        "time_unit": "us",
        "per_rank": per_rank,
    })
}

fn line(fields: &[String]) -> String {
    let mut l = fields.iter().map(|f| csv_field(f)).collect::<Vec<_>>().join(",");
    l.push_str("\r\n");
    l
}

const HEADER: [&str; 8] = [
    "rank",
    "host",
    "correlation",
    "runtime_call",
    "gpu_event",
    "cpu_duration_us",
    "gpu_duration_us",
    "launch_delay_us",
];

fn launch_fields(rank: &RankLaunches, l: &Launch) -> Vec<String> {
    vec![
        rank.rank.to_string(),
        rank.host.clone(),
        l.correlation.to_string(),
        rank.name(l.runtime).to_string(),
        rank.name(l.kernel).to_string(),
        l.cpu_duration.to_string(),
        l.gpu_duration.to_string(),
        l.launch_delay.to_string(),
    ]
}

/// Every launch of every rank, in HTA's order (RFC 4180).
pub fn to_csv(model: &KernelLaunchStats) -> String {
    let mut out = line(&HEADER.map(String::from));
    for rank in &model.ranks {
        for l in &rank.launches {
            out.push_str(&line(&launch_fields(rank, l)));
        }
    }
    out
}

/// Which cutoff a launch exceeds: `cpu_runtime`, `launch_delay` or `both`.
pub fn outlier_kind(l: &Launch, params: &Params) -> &'static str {
    match (l.is_runtime_outlier(params), l.is_delay_outlier(params)) {
        (true, true) => "both",
        (true, false) => "cpu_runtime",
        (false, true) => "launch_delay",
        (false, false) => "",
    }
}

/// A rank's outliers (runtime or launch delay over its cutoff), with the
/// cutoff each exceeds.
pub fn outliers_csv(rank: &RankLaunches, params: &Params) -> String {
    let mut header = HEADER.map(String::from).to_vec();
    header.push("outlier".into());
    let mut out = line(&header);
    for l in rank.launches.iter().filter(|l| l.is_outlier(params)) {
        let mut fields = launch_fields(rank, l);
        fields.push(outlier_kind(l, params).into());
        out.push_str(&line(&fields));
    }
    out
}
