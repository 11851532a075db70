//! The comparison's view model: what the CLI prints as JSON and the page's
//! Compare view renders. Every number is a [`Delta`]: baseline, candidate,
//! their difference and the difference as a share of the baseline.

pub use crate::advice::compare::{AdviceDiff, ChangeStatus, FindingChange};
use serde::{Deserialize, Serialize};

/// One tool's comparison of a baseline with a candidate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// The compared tool's id (`overview_page`, `kernel_stats`, `trace_diff`…).
    pub tool: String,
    pub base: SideFacts,
    pub candidate: SideFacts,
    /// Sentences on what differs between the sides beyond the numbers
    /// (hardware, device count, kind of profile, step markers).
    pub differences: Vec<String>,
    /// What is missing, and on which side (no steps, no XLA…).
    pub notes: Vec<String>,
    /// The average step time of each side (the overview's), when both have steps.
    pub step_time_ms: Option<Delta>,
    /// One paragraph in plain words.
    pub verdict: String,
    /// Named figures side by side: the step-time breakdown, memory peaks.
    pub metrics: Vec<Metric>,
    /// Ops, operators or kernels keyed alike on both sides.
    pub table: Option<TableDiff>,
    /// The op profile's tree (category → op) with deltas per node.
    pub tree: Option<DiffNode>,
    /// HTA's trace diff (PyTorch traces).
    pub trace_diff: Option<TraceDiff>,
    /// The Advisor's findings on both sides (`advisor`).
    #[serde(default)]
    pub advice: Option<AdviceDiff>,
}

/// [`SideFacts::kind`] of a PyTorch (Kineto) trace.
pub const PYTORCH_TRACE: &str = "PyTorch trace";

/// What one side is.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SideFacts {
    /// `run / host` (or `run / All hosts`).
    pub label: String,
    /// `XSpace`, `PyTorch trace` or `TensorBoard tool files`.
    pub kind: String,
    /// `CPU`, `Nvidia GPU (Volta)`, a TPU type…; empty when unknown.
    pub device_type: String,
    pub device_count: u64,
    pub hosts: usize,
    pub steps: usize,
    /// How steps were found: `ProfilerStep#N`, XProf's step markers, inferred (why), or none.
    pub step_marker: String,
}

/// A figure on both sides.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Delta {
    pub base: f64,
    pub candidate: f64,
    /// candidate − base.
    pub delta: f64,
    /// delta / base × 100; `None` when the base is 0.
    pub delta_pct: Option<f64>,
}

impl Delta {
    pub fn new(base: f64, candidate: f64) -> Delta {
        let delta = candidate - base;
        Delta { base, candidate, delta, delta_pct: (base != 0.0).then(|| 100.0 * delta / base) }
    }
}

/// A named figure (`Input`, ms) on both sides.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Metric {
    pub name: String,
    pub unit: String,
    #[serde(flatten)]
    pub value: Delta,
}

/// Rows keyed alike on both sides (op type and name, kernel and launch shape…).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableDiff {
    /// Names of the key's parts (`Type`, `Operation`).
    pub key_names: Vec<String>,
    /// What `base`/`candidate` measure (`self time`).
    pub metric: String,
    /// Their unit (`µs`).
    pub unit: String,
    pub base_total: f64,
    pub candidate_total: f64,
    /// Sorted by |delta|, largest first.
    pub rows: Vec<DiffRow>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DiffRow {
    pub key: Vec<String>,
    pub status: Status,
    pub base_count: u64,
    pub candidate_count: u64,
    pub base: f64,
    pub candidate: f64,
    pub delta: f64,
    /// `None` for new rows (nothing to divide by).
    pub delta_pct: Option<f64>,
    /// delta / Σ|delta| over all rows × 100: the shares' sizes add up to 100.
    pub share_of_change_pct: f64,
}

/// How a row or node changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Only in the candidate.
    New,
    /// Only in the baseline.
    Gone,
    Changed,
    Same,
}

/// A node of the op-profile tree on both sides.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DiffNode {
    pub name: String,
    pub status: Status,
    pub base_count: u64,
    pub candidate_count: u64,
    /// Time, ps.
    pub base_ps: f64,
    pub candidate_ps: f64,
    pub delta_ps: f64,
    /// Sorted by |delta|, largest first.
    pub children: Vec<DiffNode>,
}

/// HTA's `TraceDiff.compare_traces`: per event name, counts and summed
/// durations over the chosen iterations of each trace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceDiff {
    /// The `ProfilerStep#N` numbers summed on each side.
    pub control_iterations: Vec<i64>,
    pub test_iterations: Vec<i64>,
    pub rows: Vec<TraceDiffRow>,
}

/// One row in HTA's column names; durations in µs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceDiffRow {
    pub name: String,
    pub control_counts: u64,
    pub control_total_duration: f64,
    pub test_counts: u64,
    pub test_total_duration: f64,
    pub diff_counts: i64,
    pub diff_duration: f64,
    /// `+`, `-` or `=`: the sign of `diff_counts`.
    pub counts_change_categories: String,
}
