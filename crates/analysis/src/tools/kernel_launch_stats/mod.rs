//! Kernel launch statistics of PyTorch (Kineto) traces, as
//! HolisticTraceAnalysis 0.5.0's `TraceAnalysis.get_cuda_kernel_launch_stats`
//! computes them, per rank:
//!
//! * **Launches.** The correlation ids of the runtime calls named
//!   `cudaLaunchKernel`, `cudaLaunchKernelExC` or MTIA's
//!   `runFunction - job_prep_and_submit_for_execution` (and `cudaMemcpyAsync`,
//!   `cudaMemsetAsync` with `include_memory_events`, the default). Every
//!   stream −1 event with one of those ids is joined with every event on a
//!   stream (≠ −1) that has it: one row per pair, as pandas' inner merge
//!   gives, ordered by the CPU event's start (the trace order among equal
//!   starts). The GPU side is any event on a stream, whatever its category
//!   (MTIA's `mtia_ccp_events` too). Driver calls (`cuLaunchKernel`, `cuLaunchKernelEx`) and ROCm's
//!   `hip*` calls are not counted; the rows say how many such launches were
//!   left out ([`RankLaunches::uncounted`]).
//! * **Per launch**, in whole µs (HTA's rounded times, see
//!   [`crate::passes::kineto::hta`]): the CPU runtime call's duration, the
//!   GPU event's duration, and the launch delay, the GPU start minus the
//!   CPU call's end, 0 where the GPU started first.
//! * **Summary**: the number of launches; how many ran shorter on the GPU
//!   than their runtime call took; the CPU runtime outliers (longer than
//!   `runtime_cutoff`, 50 µs) and launch-delay outliers (longer than
//!   `launch_delay_cutoff`, 100 µs); sum, mean, median, 95th percentile and
//!   maximum of each column, the percentiles interpolated linearly as
//!   pandas' `quantile` does.
//! * **Which events**: as `TraceAnalysis` loads a trace by default, without
//!   the last `ProfilerStep` and what it launched (`include_last_profiler_step`).

mod output;
mod tool;

pub use output::{outlier_kind, outliers_csv, to_csv, to_hta_json};
pub use tool::{rank_part, KernelLaunchStatsTool};

use crate::passes::kineto::describe::quantile;
use crate::passes::kineto::gpu_frame::GpuFrame;
use crate::passes::kineto::hta::{self, HtaEvent};
use proflens_model::Profile;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

/// The kernel-launching runtime calls HTA 0.5.0 counts
/// (`get_cuda_kernel_launch_stats`, `hta/analyzers/cuda_kernel_analysis.py`):
/// CUDA's and MTIA's.
pub const LAUNCH_CALLS: [&str; 3] = ["cudaLaunchKernel", "cudaLaunchKernelExC", hta::MTIA_LAUNCH];
/// The memory runtime calls it counts with `include_memory_events`.
pub const MEMORY_CALLS: [&str; 2] = ["cudaMemcpyAsync", "cudaMemsetAsync"];

/// `get_cuda_kernel_launch_stats`'s parameters and how the trace is loaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Params {
    /// A runtime call longer than this (µs) is an outlier.
    pub runtime_cutoff: i64,
    /// A launch delay longer than this (µs) is an outlier.
    pub launch_delay_cutoff: i64,
    /// Counts `cudaMemcpyAsync` and `cudaMemsetAsync` too.
    pub include_memory_events: bool,
    /// Keeps the last `ProfilerStep` (HTA drops it by default).
    pub include_last_profiler_step: bool,
}

impl Default for Params {
    /// HTA 0.5.0's defaults.
    fn default() -> Params {
        Params {
            runtime_cutoff: 50,
            launch_delay_cutoff: 100,
            include_memory_events: true,
            include_last_profiler_step: false,
        }
    }
}

/// The tool's model: the parameters and one entry per rank.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KernelLaunchStats {
    pub params: Params,
    pub ranks: Vec<RankLaunches>,
}

/// One rank's (one trace's) launches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RankLaunches {
    /// The host (trace) the rank was read from.
    pub host: String,
    /// `distributedInfo.rank`, 0 without it (as HTA).
    pub rank: i64,
    /// The `ProfilerStep#N` numbers of the events analysed.
    pub profiler_steps_used: Vec<i64>,
    /// The steps left out: the last one, unless `include_last_profiler_step`.
    pub dropped_steps: Vec<i64>,
    pub summary: Summary,
    /// The names the launches refer to (runtime calls and GPU events).
    pub names: Vec<String>,
    /// One row per launch, in HTA's order.
    pub launches: Vec<Launch>,
    /// Runtime calls matched to GPU work by correlation id that HTA does
    /// not count (driver or ROCm launches), by name, most first.
    pub uncounted: Vec<NameCount>,
}

/// One launch: a runtime call and the GPU work it started, times in µs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Launch {
    pub correlation: u64,
    /// The runtime call, an index into [`RankLaunches::names`].
    pub runtime: u32,
    /// The kernel, memcpy or memset, an index into [`RankLaunches::names`].
    pub kernel: u32,
    pub cpu_duration: i64,
    pub gpu_duration: i64,
    /// GPU start − CPU end, at least 0.
    pub launch_delay: i64,
    /// The GPU event's place in the profile (plane, line, index), for the
    /// page's link to the trace viewer; `--format hta` leaves it out.
    pub at: (usize, usize, usize),
}

impl Launch {
    pub fn is_runtime_outlier(&self, params: &Params) -> bool {
        self.cpu_duration > params.runtime_cutoff
    }

    pub fn is_delay_outlier(&self, params: &Params) -> bool {
        self.launch_delay > params.launch_delay_cutoff
    }

    /// An outlier of either kind.
    pub fn is_outlier(&self, params: &Params) -> bool {
        self.is_runtime_outlier(params) || self.is_delay_outlier(params)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NameCount {
    pub name: String,
    pub count: u64,
}

/// HTA's summary of one rank's launches.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Summary {
    pub num_launches: u64,
    /// GPU duration < CPU duration.
    pub gpu_shorter_than_cpu: u64,
    /// CPU duration > `runtime_cutoff`.
    pub cpu_runtime_outliers: u64,
    /// Launch delay > `launch_delay_cutoff`.
    pub launch_delay_outliers: u64,
    /// `None` without launches.
    pub cpu_duration: Option<Stats>,
    pub gpu_duration: Option<Stats>,
    pub launch_delay: Option<Stats>,
}

/// Statistics of one column, µs.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Stats {
    pub sum: f64,
    /// Not rounded (HTA's golden rounds it to 3 decimals).
    pub mean: f64,
    pub p50: f64,
    pub p95: f64,
    pub max: f64,
}

impl Stats {
    /// The statistics of `values`; `None` when there are none.
    pub fn of(values: impl Iterator<Item = i64>) -> Option<Stats> {
        let mut sorted: Vec<f64> = values.map(|v| v as f64).collect();
        if sorted.is_empty() {
            return None;
        }
        sorted.sort_by(f64::total_cmp);
        let sum: f64 = sorted.iter().sum();
        Some(Stats {
            sum,
            mean: sum / sorted.len() as f64,
            p50: quantile(&sorted, 0.5),
            p95: quantile(&sorted, 0.95),
            max: sorted[sorted.len() - 1],
        })
    }
}

/// Python's `round(x, digits)`: the nearest decimal, ties to even on the
/// exact binary value (Rust's formatting rounds the same way).
pub fn py_round(x: f64, digits: usize) -> f64 {
    if !x.is_finite() {
        return x;
    }
    format!("{x:.digits$}").parse().unwrap_or(x)
}

impl Summary {
    pub fn of(launches: &[Launch], params: &Params) -> Summary {
        let count = |f: &dyn Fn(&Launch) -> bool| launches.iter().filter(|l| f(l)).count() as u64;
        Summary {
            num_launches: launches.len() as u64,
            gpu_shorter_than_cpu: count(&|l| l.gpu_duration < l.cpu_duration),
            cpu_runtime_outliers: count(&|l| l.is_runtime_outlier(params)),
            launch_delay_outliers: count(&|l| l.is_delay_outlier(params)),
            cpu_duration: Stats::of(launches.iter().map(|l| l.cpu_duration)),
            gpu_duration: Stats::of(launches.iter().map(|l| l.gpu_duration)),
            launch_delay: Stats::of(launches.iter().map(|l| l.launch_delay)),
        }
    }
}

/// One trace's launches (the host named `host`).
pub fn rank_launches(profile: &Profile, host: &str, params: &Params) -> RankLaunches {
    rank_launches_in(profile, &GpuFrame::new(profile), host, params)
}

/// [`rank_launches`] over the trace's frame already built (the host's
/// shared pass).
pub fn rank_launches_in(profile: &Profile, frame: &GpuFrame, host: &str, params: &Params) -> RankLaunches {
    // Launches and the GPU work they started: the events HTA's merges join.
    let events = frame.traced(profile, params.include_last_profiler_step);
    let profiler_steps_used = hta::step_numbers(&events);
    let dropped_steps =
        frame.step_numbers().iter().copied().filter(|s| profiler_steps_used.binary_search(s).is_err()).collect();
    let counted =
        |name: &str| LAUNCH_CALLS.contains(&name) || (params.include_memory_events && MEMORY_CALLS.contains(&name));
    // Sorted lists rather than maps: a trace has millions of launches.
    let sorted_ids = |pick: &dyn Fn(&HtaEvent) -> bool| {
        let mut ids: Vec<u64> = events.iter().filter(|e| pick(e)).filter_map(|e| e.correlation()).collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    };
    let ids = sorted_ids(&|e| counted(e.name()));
    let gpu_ids = sorted_ids(&|e| e.stream != -1);
    let has = |ids: &[u64], c: u64| ids.binary_search(&c).is_ok();
    // GPU side: every event on a stream with a counted id, by correlation
    // id, each id's in time order (the trace's among equal starts).
    let mut gpu: Vec<(u64, i64, u32)> = (0..events.len())
        .filter_map(|k| {
            let e = &events[k];
            let c = e.correlation().filter(|&c| e.stream != -1 && has(&ids, c))?;
            Some((c, e.ts_us, k as u32))
        })
        .collect();
    gpu.sort_unstable();
    let mut cpu: Vec<&HtaEvent> =
        events.iter().filter(|e| e.stream == -1 && e.correlation().is_some_and(|c| has(&ids, c))).collect();
    cpu.sort_by_key(|e| e.ts_us);

    let mut names = Names::default();
    let mut launches = Vec::new();
    for c in cpu {
        let Some(id) = c.correlation() else { continue };
        let first = gpu.partition_point(|&(g, _, _)| g < id);
        for &(_, _, k) in gpu[first..].iter().take_while(|&&(g, _, _)| g == id) {
            let g = &events[k as usize];
            launches.push(Launch {
                correlation: id,
                runtime: names.id(c.name()),
                kernel: names.id(g.name()),
                cpu_duration: c.dur_us,
                gpu_duration: g.dur_us,
                launch_delay: g.ts_us.saturating_sub(c.end_us()).max(0),
                at: g.at(),
            });
        }
    }
    drop(gpu);

    // Launches of GPU work that HTA leaves out, by the runtime call's name.
    let mut left_out: FxHashMap<&str, u64> = FxHashMap::default();
    for e in &events {
        if e.stream == -1 && !counted(e.name()) && e.correlation().is_some_and(|c| has(&gpu_ids, c)) {
            *left_out.entry(e.name()).or_default() += 1;
        }
    }
    let mut uncounted: Vec<NameCount> =
        left_out.into_iter().map(|(name, count)| NameCount { name: name.to_string(), count }).collect();
    uncounted.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.name.cmp(&b.name)));

    RankLaunches {
        host: host.to_string(),
        rank: hta::rank(profile).unwrap_or(0),
        profiler_steps_used,
        dropped_steps,
        summary: Summary::of(&launches, params),
        names: names.list,
        launches,
        uncounted,
    }
}

/// Names, each stored once.
#[derive(Default)]
struct Names {
    list: Vec<String>,
    index: FxHashMap<String, u32>,
}

impl Names {
    fn id(&mut self, name: &str) -> u32 {
        if let Some(&i) = self.index.get(name) {
            return i;
        }
        let i = self.list.len() as u32;
        self.list.push(name.to_string());
        self.index.insert(name.to_string(), i);
        i
    }
}

impl RankLaunches {
    /// The name at `index` of [`RankLaunches::names`] ("" when out of range).
    pub fn name(&self, index: u32) -> &str {
        self.names.get(index as usize).map_or("", String::as_str)
    }
}

#[cfg(test)]
mod tests;
