//! Roofline model (XProf's roofline_model, op_stats_to_roofline_model.cc):
//! each XLA op's FLOP rate against its operational intensity, with the
//! device's ceilings (peak FLOP rate, HBM and on-chip bandwidths).
//!
//! The records are XProf's, in its order, once with infeed/outfeed ops
//! and once without: the whole profile ("Total": a `Program` record, then
//! the ops, longest self time first), then on TPUs the average over complete
//! steps ("Average") and on GPUs one `Program` record per step. XProf fills
//! the per-step HLO databases on TPUs only, so on GPUs those records are
//! zero, as in XProf.

mod peaks;
mod record;
mod tool;
mod xprof;

pub use peaks::{Peaks, RooflineDevice};
pub use record::{Metrics, RooflineRecord};
pub use tool::RooflineModelTool;
pub use xprof::{to_csv, to_xprof_json};

pub use crate::passes::input_pipeline::Diagnostic;
use crate::passes::op_metrics::MemoryBreakdown;
use crate::passes::xla_ops::{XlaOp, XlaOpDb};
use record::{op_record, program_record};
use serde::{Deserialize, Serialize};

/// XProf writes at most this many op records per database.
const MAX_OP_RECORDS: usize = 1000;

/// The tool's view model.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RooflineModel {
    pub peaks: Peaks,
    pub records: Vec<RooflineRecord>,
    pub diagnostics: Vec<Diagnostic>,
}

/// What the model is computed from: a host's XLA ops, its steps and devices.
pub struct Inputs<'a> {
    pub ops: &'a XlaOpDb,
    pub peaks: Peaks,
    /// Device cores (GPUs or TPU cores) the time is spread over.
    pub device_core_count: u64,
    /// Step numbers, in order; empty when the profile has no step marker.
    pub steps: Vec<i64>,
}

/// The roofline model of one host.
pub fn roofline_model(input: &Inputs<'_>) -> RooflineModel {
    let peaks = input.peaks.clone();
    // XProf has no roofline for CPU-only profiles: an empty database.
    if peaks.device == RooflineDevice::None {
        return RooflineModel { peaks, ..RooflineModel::default() };
    }
    let metrics: Vec<Metrics> = input.ops.ops.iter().map(metrics_of).collect();
    let mut records = Vec::new();
    for include_infeed_outfeed in [true, false] {
        let ctx = record::Context { peaks: &peaks, cores: input.device_core_count, include_infeed_outfeed };
        records.extend(whole_profile(&metrics, input.ops.total_time_ps, &ctx));
        match peaks.device {
            // TPU: the complete steps' combined database (empty without steps).
            RooflineDevice::Tpu => {
                let steps = input.steps.len() as f64;
                records.push(program_record(&[], 0, "Average".into(), steps, &ctx));
            }
            // GPU: one record per step, from XProf's empty per-step databases.
            _ => records.extend(input.steps.iter().map(|s| program_record(&[], 0, s.to_string(), 1.0, &ctx))),
        }
    }
    let diagnostics = if input.steps.is_empty() {
        vec![Diagnostic {
            severity: "WARNING".into(),
            message: crate::passes::input_pipeline::NO_STEP_MARKER_WARNING.into(),
        }]
    } else {
        Vec::new()
    };
    RooflineModel { peaks, records, diagnostics }
}

/// The `Total` records: the program, then the ops by self time.
fn whole_profile(metrics: &[Metrics], total_time_ps: u64, ctx: &record::Context<'_>) -> Vec<RooflineRecord> {
    let program = program_record(metrics, total_time_ps, "Total".into(), 1.0, ctx);
    let skipped: u64 = if ctx.include_infeed_outfeed {
        0
    } else {
        metrics.iter().filter(|m| is_infeed_or_outfeed(&m.category)).map(|m| m.time_ps).sum()
    };
    let total_ps = total_time_ps.saturating_sub(skipped);
    let mut sorted: Vec<&Metrics> = metrics.iter().collect();
    sorted.sort_by(|a, b| b.self_time_ps.cmp(&a.self_time_ps).then_with(|| a.name.cmp(&b.name)));
    let mut out = vec![program];
    for m in sorted.into_iter().take(MAX_OP_RECORDS) {
        if m.occurrences == 0 || (!ctx.include_infeed_outfeed && is_infeed_or_outfeed(&m.category)) {
            continue;
        }
        let prev = out.last().map_or((0, 0.0), |r: &RooflineRecord| (r.rank, r.cumulative_self_time_fraction));
        out.push(op_record(m, total_ps, prev, ctx));
    }
    out
}

fn metrics_of(op: &XlaOp) -> Metrics {
    // GPU cost-model ops carry HBM bytes only; TPU ops their full breakdown.
    let breakdown = match (&op.memory_breakdown, op.has_memory_breakdown) {
        (Some(b), _) => Some(*b),
        (None, true) => Some(MemoryBreakdown { hbm: op.hbm_bytes, ..MemoryBreakdown::default() }),
        (None, false) => None,
    };
    Metrics {
        name: op.name.clone(),
        category: op.category.clone(),
        program_id: op.program_id,
        occurrences: op.occurrences,
        time_ps: op.time_ps,
        self_time_ps: op.self_time_ps,
        flops: op.flops,
        model_flops: op.model_flops,
        bytes_accessed: op.bytes_accessed,
        breakdown,
        source: op.source.clone(),
    }
}

/// XProf's `IsInfeedOrOutfeed`.
pub(crate) fn is_infeed_or_outfeed(category: &str) -> bool {
    category.contains("infeed") || category.contains("outfeed")
}

/// XProf's `MayHaveInnerOps`: ops whose time and bytes their inner ops
/// already count.
pub(crate) fn may_have_inner_ops(category: &str) -> bool {
    matches!(category, "call" | "conditional" | "while" | "megacore fusion")
}

#[cfg(test)]
mod tests;
