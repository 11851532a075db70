//! Frequent CUDA kernel sequences: the operators whose calls launch the same
//! run of kernels again and again — fusion candidates (one fused kernel, or
//! `torch.compile`, does the run's work in one launch and one pass over
//! memory). After HTA 0.5.0's `get_frequent_cuda_kernel_sequences`, which
//! fails on current pandas, so there is no golden; the rule, and where it
//! departs from HTA's, is in docs/deviations.md ("kernel_sequences"):
//!
//! 1. The trace as HTA loads it ([`crate::passes::kineto::hta`]: whole µs,
//!    the last `ProfilerStep` dropped, as `TraceAnalysis` does by default).
//! 2. Host events (stream < 0, not GPU) nest per thread by time: an event is
//!    inside the latest-starting event still open at its start (sorted by
//!    start, longer first, then trace order; an event ending at `t` is closed
//!    at `t`).
//! 3. A call of the operator is an event whose name contains
//!    [`OPERATOR_NAME`] (`aten::`) and that has no such ancestor: the
//!    outermost operator matching, so nested `aten::` calls count once.
//! 4. The kernels it launched are the GPU events (a stream ≥ 0 and a
//!    correlation id) whose correlation id the call, or any event nested in
//!    it (the `cudaLaunchKernel`s), carries; ordered by start, then trace
//!    order. Memcpys and memsets count, as in HTA.
//! 5. A call with at least [`MIN_PATTERN_LEN`] kernels is an occurrence of
//!    the sequence (operator name, the kernels' names in order): the whole
//!    run the call launched, not sub-windows of it.
//! 6. Per sequence: its count, the kernels' total duration (each kernel's
//!    rounded duration, negatives as 0), its mean per occurrence, its share
//!    of all GPU events' time, and the calls' total CPU time.
//! 7. Ordered by count, then total GPU time (both largest first), then
//!    operator and kernel names; every sequence is kept (HTA's `top_k` only
//!    picks what it plots), the first [`TOP_K`] are marked.

mod tool;

pub use tool::KernelSequencesTool;

use crate::passes::kineto::hta::{self, HtaEvent};
use proflens_model::Profile;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The operators whose kernel runs are counted: names containing this.
pub const OPERATOR_NAME: &str = "aten::";
/// Calls launching fewer kernels are no sequence (HTA's default).
pub const MIN_PATTERN_LEN: usize = 3;
/// How many sequences HTA's `top_k` highlights (its default).
pub const TOP_K: usize = 5;

/// One sequence: an operator and the kernels each of its calls launched.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SequenceRow {
    /// 1-based place in the order (count, then GPU time).
    pub rank: usize,
    pub operator: String,
    pub kernels: Vec<String>,
    pub count: u64,
    /// All occurrences' kernels, µs.
    pub gpu_total_us: i64,
    /// Per occurrence, µs.
    pub gpu_mean_us: f64,
    /// Of all GPU events' time (0–1).
    pub gpu_share: f64,
    /// The calls' total duration on the CPU, µs.
    pub cpu_total_us: i64,
}

/// The view model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KernelSequences {
    pub operator_name: String,
    pub min_pattern_len: usize,
    pub top_k: usize,
    pub include_last_step: bool,
    /// The outermost calls of the operator.
    pub operator_calls: u64,
    /// All GPU events' time (stream ≥ 0, with a correlation id), µs.
    pub gpu_time_us: i64,
    pub rows: Vec<SequenceRow>,
}

/// The sequences of one trace.
pub fn kernel_sequences(
    profile: &Profile,
    operator_name: &str,
    min_pattern_len: usize,
    include_last: bool,
) -> KernelSequences {
    let events = hta::traced_iterations(hta::events(profile), include_last);
    let launched = |e: &HtaEvent| e.stream >= 0 && e.correlation().is_some();
    let mut kernels_of: FxHashMap<u64, Vec<usize>> = FxHashMap::default();
    let mut gpu_time_us = 0;
    for (i, e) in events.iter().enumerate().filter(|(_, e)| launched(e)) {
        gpu_time_us += e.dur_us.max(0);
        kernels_of.entry(e.correlation().unwrap_or_default()).or_default().push(i);
    }
    // Host events per thread, in nesting order.
    let mut threads: BTreeMap<(usize, usize), Vec<usize>> = BTreeMap::new();
    for (i, e) in events.iter().enumerate().filter(|(_, e)| e.stream < 0 && !e.is_gpu()) {
        threads.entry((e.at().0, e.at().1)).or_default().push(i);
    }
    // Each call (its event) → the kernels it launched.
    let mut calls: Vec<(usize, Vec<usize>)> = Vec::new();
    for thread in threads.values_mut() {
        thread.sort_by_key(|&i| (events[i].ts_us, std::cmp::Reverse(events[i].dur_us), i));
        // (event, its call: an index into `calls`)
        let mut stack: Vec<(usize, Option<usize>)> = Vec::new();
        for &i in thread.iter() {
            let e = &events[i];
            while stack.last().is_some_and(|&(top, _)| events[top].end_us() <= e.ts_us) {
                stack.pop();
            }
            let call = match stack.last().and_then(|&(_, call)| call) {
                Some(call) => Some(call),
                None if e.name().contains(operator_name) => {
                    calls.push((i, Vec::new()));
                    Some(calls.len() - 1)
                }
                None => None,
            };
            stack.push((i, call));
            if let (Some(call), Some(c)) = (call, e.correlation()) {
                calls[call].1.extend(kernels_of.get(&c).into_iter().flatten());
            }
        }
    }
    let operator_calls = calls.len() as u64;
    // (operator, kernels) → (count, GPU µs, CPU µs)
    let mut patterns: FxHashMap<(&str, Vec<&str>), (u64, i64, i64)> = FxHashMap::default();
    for (call, mut kernels) in calls {
        // A kernel reached twice (two nested events with its correlation id) counts once.
        kernels.sort_by_key(|&k| (events[k].ts_us, k));
        kernels.dedup();
        if kernels.len() < min_pattern_len.max(1) {
            continue;
        }
        let names = kernels.iter().map(|&k| events[k].name()).collect();
        let p = patterns.entry((events[call].name(), names)).or_default();
        p.0 += 1;
        p.1 += kernels.iter().map(|&k| events[k].dur_us.max(0)).sum::<i64>();
        p.2 += events[call].dur_us.max(0);
    }
    let mut sorted: Vec<_> = patterns.into_iter().collect();
    sorted.sort_by(|(ka, a), (kb, b)| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then_with(|| ka.cmp(kb)));
    let rows = sorted
        .into_iter()
        .enumerate()
        .map(|(i, ((operator, kernels), (count, gpu, cpu)))| SequenceRow {
            rank: i + 1,
            operator: operator.to_string(),
            kernels: kernels.into_iter().map(str::to_string).collect(),
            count,
            gpu_total_us: gpu,
            gpu_mean_us: gpu as f64 / count as f64,
            gpu_share: if gpu_time_us > 0 { gpu as f64 / gpu_time_us as f64 } else { 0.0 },
            cpu_total_us: cpu,
        })
        .collect();
    KernelSequences {
        operator_name: operator_name.to_string(),
        min_pattern_len,
        top_k: TOP_K,
        include_last_step: include_last,
        operator_calls,
        gpu_time_us,
        rows,
    }
}

#[cfg(test)]
mod tests;
