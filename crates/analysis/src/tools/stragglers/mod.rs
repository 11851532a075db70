//! Stragglers: which rank of a job holds the others back, and by how much —
//! HTA 0.5.0's `TraceAnalysis.get_potential_stragglers` with its default
//! metric, `find_stragglers_with_late_start_comm_kernels`.
//!
//! HTA's reasoning: a collective ends at about the same time on every rank,
//! so the rank whose significant communication kernel *starts* last is the
//! one the others waited for. Its rules, kept here:
//!
//! 1. Each rank's trace is loaded as HTA does ([`crate::passes::kineto::hta`]:
//!    µs rounding, iterations, the last step dropped unless asked for), and
//!    ranks are aligned on the earliest event of any rank.
//! 2. The iterations are every `ProfilerStep#N` left in any rank; their
//!    events (all ranks) span `[t_min, t_max]`, and the mean iteration time
//!    is that span over their number.
//! 3. Candidates: kernels named `ncclKernel…` on a stream > 0 in those
//!    iterations, lasting at least 1 % of the mean iteration time; per rank,
//!    stream, iteration and name the last one.
//! 4. The metric kernel is the (stream, name) whose duration, over the mean
//!    iteration time, differs most between ranks (the largest mean over
//!    iterations of the ranks' sample standard deviation).
//! 5. Its normalized start time `(ts − t_min) / mean iteration time` ranks the
//!    ranks per iteration: the `num_candidates` latest are stragglers there;
//!    a rank's count is the iterations it was one, and the potential
//!    stragglers are the `num_candidates` ranks with the highest counts.
//!
//! The work is a map per rank ([`RankSummary`], a few numbers and the
//! communication kernels) and a reduce over them ([`stragglers`]), so a job
//! of many ranks never holds more than one trace's events.

mod tool;

pub use tool::{rank_part, StragglerPart, StragglersTool};

use crate::passes::kineto::describe::describe;
use crate::passes::kineto::gpu_frame::GpuFrame;
use crate::passes::kineto::hta;
use proflens_model::Profile;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// HTA's default number of stragglers to name (as the goldens were made).
pub const NUM_CANDIDATES: usize = 1;
/// Kernels shorter than this share of the mean iteration time never count.
const MIN_NORMALIZED_DURATION: f64 = 0.01;

/// A communication kernel of one rank, in a step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct CommKernel {
    stream: i64,
    iteration: i64,
    name: String,
    /// Wall-clock µs (the trace's own rounded timestamp).
    ts_us: i64,
    dur_us: i64,
}

/// What one rank contributes: its first event, its steps, each step's
/// events' extent and its communication kernels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RankSummary {
    pub rank: i64,
    pub label: String,
    first_ts_us: Option<i64>,
    /// Step → (earliest start, latest end) of the events HTA assigns to it.
    spans: BTreeMap<i64, (i64, i64)>,
    /// Step numbers named by a `ProfilerStep` event left after the filter.
    steps: BTreeSet<i64>,
    comm: Vec<CommKernel>,
}

impl RankSummary {
    /// The map step: one rank's trace as HTA sees it.
    pub fn new(rank: i64, label: &str, profile: &Profile, include_last: bool) -> RankSummary {
        RankSummary::of_frame(rank, label, profile, &GpuFrame::new(profile), include_last)
    }

    /// [`RankSummary::new`] over the trace's frame already built (the
    /// host's shared pass).
    pub fn of_frame(rank: i64, label: &str, profile: &Profile, frame: &GpuFrame, include_last: bool) -> RankSummary {
        let origin = hta::origin_us(profile);
        // Launches and the GPU work they started; the host ops the frame
        // leaves out only widen the steps' extents (below).
        let events = &frame.events(profile);
        let iterations = hta::assign_iterations(events, &hta::steps_of(events));
        let kept = frame.traced_mask(include_last);
        let mut summary = RankSummary {
            rank,
            label: label.to_string(),
            first_ts_us: events.iter().map(|e| origin.saturating_add(e.ts_us)).min(),
            spans: BTreeMap::new(),
            steps: BTreeSet::new(),
            comm: Vec::new(),
        };
        for ((e, iteration), kept) in events.iter().zip(iterations).zip(kept) {
            if !kept {
                continue;
            }
            if e.name().starts_with("ProfilerStep") {
                if let Some(n) = hta::step_number(e.name()) {
                    summary.steps.insert(n);
                }
            }
            let hta::Iteration::Step(n) = iteration else { continue };
            let (ts, end) = (origin.saturating_add(e.ts_us), origin.saturating_add(e.end_us()));
            let span = summary.spans.entry(n).or_insert((ts, end));
            *span = (span.0.min(ts), span.1.max(end));
            if e.stream > 0 && n > 0 && e.name().starts_with("ncclKernel") {
                summary.comm.push(CommKernel {
                    stream: e.stream,
                    iteration: n,
                    name: e.name().to_string(),
                    ts_us: ts,
                    dur_us: e.dur_us,
                });
            }
        }
        // The host events the frame left out: stream −1, none a step or a
        // launch, so HTA's iteration is the step they start in. The frame
        // keeps their earliest start and each step's extent; adding the
        // origin keeps the order, so their least and most are the same.
        if let Some(first) = frame.left_out_first_ts_us() {
            let ts = origin.saturating_add(first);
            summary.first_ts_us = Some(summary.first_ts_us.map_or(ts, |f| f.min(ts)));
        }
        for (&n, &(start, end)) in frame.left_out_spans(include_last) {
            let (ts, end) = (origin.saturating_add(start), origin.saturating_add(end));
            let span = summary.spans.entry(n).or_insert((ts, end));
            *span = (span.0.min(ts), span.1.max(end));
        }
        summary
    }
}

/// The metric of one rank in one iteration: HTA's candidate kernel there.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CandidateRow {
    pub rank: i64,
    pub iteration: i64,
    pub stream: i64,
    pub name: String,
    /// µs since the earliest event of any rank (HTA's aligned `ts`).
    pub ts: i64,
    pub dur: f64,
    pub normalized_start_time: f64,
    pub duration: f64,
    /// µs after the earliest rank's start of the same kernel in the same
    /// iteration: how far behind this rank was.
    pub late_by_us: i64,
    /// Whether the rank is among the latest `num_candidates` in this iteration.
    pub is_straggler: bool,
}

/// The view model: who held the job back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stragglers {
    /// `(rank, the file or host it was read from)`, in rank order.
    pub ranks: Vec<(i64, String)>,
    pub include_last_step: bool,
    pub iterations: Vec<i64>,
    pub mean_iteration_us: f64,
    pub num_candidates: usize,
    /// The ranks HTA reports, most often late first.
    pub potential_stragglers: Vec<i64>,
    /// Per rank with a candidate kernel: in how many iterations it was late.
    pub straggler_counts: Vec<(i64, u64)>,
    pub rows: Vec<CandidateRow>,
}

/// The reduce step over every rank's summary.
pub fn stragglers(ranks: &[RankSummary], num_candidates: usize, include_last: bool) -> Result<Stragglers, String> {
    if ranks.len() < 2 {
        return Err("Stragglers compare the ranks of one job: open two or more rank traces of a run and choose all \
                    ranks."
            .into());
    }
    let iterations: Vec<i64> =
        ranks.iter().flat_map(|r| r.steps.iter().copied()).collect::<BTreeSet<_>>().into_iter().collect();
    if iterations.is_empty() {
        return Err("No rank has a ProfilerStep#N step, and stragglers are found per step.".into());
    }
    let origin = ranks.iter().filter_map(|r| r.first_ts_us).min().unwrap_or(0);
    let spans = ranks.iter().flat_map(|r| iterations.iter().filter_map(|n| r.spans.get(n)));
    let (t_min, t_max) = spans.fold((i64::MAX, i64::MIN), |(lo, hi), &(s, e)| (lo.min(s), hi.max(e)));
    if t_min > t_max {
        return Err("The ranks' steps hold no events.".into());
    }
    let mean_iteration_us = (t_max - t_min) as f64 / iterations.len() as f64;
    let min_duration = mean_iteration_us * MIN_NORMALIZED_DURATION;
    // The last long kernel per (rank, stream, iteration, name), in that order.
    let mut last: BTreeMap<(i64, i64, i64, &str), &CommKernel> = BTreeMap::new();
    for r in ranks {
        for k in r.comm.iter().filter(|k| iterations.binary_search(&k.iteration).is_ok()) {
            if k.dur_us as f64 >= min_duration {
                last.insert((r.rank, k.stream, k.iteration, &k.name), k);
            }
        }
    }
    let (stream, name) = metric_kernel(&last, mean_iteration_us).ok_or_else(|| {
        "No communication kernel (ncclKernel…) of at least 1 % of the mean iteration time runs on two or more ranks \
         in the same step, so no rank can be told to start late."
            .to_string()
    })?;
    let mut rows: Vec<CandidateRow> = last
        .iter()
        .filter(|((_, s, _, n), _)| *s == stream && *n == name)
        .map(|(&(rank, _, iteration, _), k)| CandidateRow {
            rank,
            iteration,
            stream,
            name: name.to_string(),
            ts: k.ts_us - origin,
            dur: k.dur_us as f64,
            normalized_start_time: (k.ts_us - t_min) as f64 / mean_iteration_us,
            duration: k.dur_us as f64 / mean_iteration_us,
            late_by_us: 0,
            is_straggler: false,
        })
        .collect();
    // Iteration by iteration, ranks in order (the goldens' order).
    rows.sort_by_key(|r| (r.iteration, r.rank));
    let mut earliest: BTreeMap<i64, i64> = BTreeMap::new();
    for r in &rows {
        let e = earliest.entry(r.iteration).or_insert(r.ts);
        *e = (*e).min(r.ts);
    }
    for r in &mut rows {
        r.late_by_us = r.ts - earliest[&r.iteration];
    }
    let num_candidates = num_candidates.max(1);
    let counts = mark_late(&mut rows, num_candidates);
    let mut by_count: Vec<(i64, u64)> = counts.clone();
    // Most often late first; ties in rank order (stable).
    by_count.sort_by_key(|&(_, n)| std::cmp::Reverse(n));
    Ok(Stragglers {
        ranks: ranks.iter().map(|r| (r.rank, r.label.clone())).collect(),
        include_last_step: include_last,
        iterations,
        mean_iteration_us,
        num_candidates,
        potential_stragglers: by_count.iter().take(num_candidates).map(|&(rank, _)| rank).collect(),
        straggler_counts: counts,
        rows,
    })
}

/// The (stream, name) whose normalized duration varies most across ranks:
/// per iteration the sample standard deviation over ranks (none with one
/// rank), then its mean over iterations; the first of the largest.
fn metric_kernel<'k>(
    last: &BTreeMap<(i64, i64, i64, &'k str), &CommKernel>,
    mean_iteration_us: f64,
) -> Option<(i64, &'k str)> {
    let mut per_iteration: BTreeMap<(i64, i64, &str), Vec<f64>> = BTreeMap::new();
    for (&(_, stream, iteration, name), k) in last {
        per_iteration.entry((stream, iteration, name)).or_default().push(k.dur_us as f64 / mean_iteration_us);
    }
    let mut stds: BTreeMap<(i64, &str), Vec<f64>> = BTreeMap::new();
    for ((stream, _, name), values) in per_iteration {
        if let Some(std) = describe(&values).and_then(|d| d.std) {
            stds.entry((stream, name)).or_default().push(std);
        }
    }
    let mut best: Option<((i64, &str), f64)> = None;
    for (key, values) in stds {
        let mean = values.iter().sum::<f64>() / values.len() as f64;
        if best.is_none_or(|(_, b)| mean > b) {
            best = Some((key, mean));
        }
    }
    best.map(|(key, _)| key)
}

/// Marks each iteration's `k` latest starters (ties with the k-th count,
/// as HTA's `>= threshold`) and counts per rank how often each was one.
fn mark_late(rows: &mut [CandidateRow], k: usize) -> Vec<(i64, u64)> {
    let mut by_iteration: BTreeMap<i64, Vec<f64>> = BTreeMap::new();
    for r in rows.iter() {
        by_iteration.entry(r.iteration).or_default().push(r.normalized_start_time);
    }
    let thresholds: BTreeMap<i64, f64> = by_iteration
        .into_iter()
        .map(|(n, mut starts)| {
            starts.sort_by(|a, b| b.total_cmp(a));
            (n, starts[(k - 1).min(starts.len() - 1)])
        })
        .collect();
    let mut counts: BTreeMap<i64, u64> = BTreeMap::new();
    for r in rows.iter_mut() {
        r.is_straggler = r.iteration >= 0 && r.normalized_start_time >= thresholds[&r.iteration];
        *counts.entry(r.rank).or_default() += u64::from(r.is_straggler);
    }
    counts.into_iter().collect()
}

#[cfg(test)]
mod tests;
