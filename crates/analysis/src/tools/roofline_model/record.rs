//! One roofline record from one op's (or a program's) metrics, as XProf's
//! ConvertOpMetricsToRooflineModelRecord and SetRooflineMetrics compute it
//! (XProf 2.24's units: GFLOP/s, GiB/s; fractions where the labels say %).

use super::peaks::{Peaks, RooflineDevice};
use super::{is_infeed_or_outfeed, may_have_inner_ops};
use crate::passes::op_metrics::MemoryBreakdown;
use crate::passes::xla_ops::SourceInfo;
use serde::{Deserialize, Serialize};

const BYTES_PER_GIB: f64 = (1u64 << 30) as f64;

/// What a record is computed from.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Metrics {
    pub name: String,
    pub category: String,
    pub program_id: u64,
    pub occurrences: u64,
    pub time_ps: u64,
    pub self_time_ps: u64,
    pub flops: u64,
    pub model_flops: u64,
    pub bytes_accessed: u64,
    /// Bytes per memory space; `None`: all bytes count as HBM bytes.
    pub breakdown: Option<MemoryBreakdown>,
    pub source: SourceInfo,
}

/// One row of XProf's roofline table.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RooflineRecord {
    /// `Total`, `Average` or a step number.
    pub step: String,
    /// 0 for a `Program` record, then 1, 2, … by self time.
    pub rank: u32,
    pub category: String,
    pub operation: String,
    pub occurrences: u64,
    pub total_time_us: f64,
    pub avg_time_us: f64,
    pub total_self_time_us: f64,
    pub avg_self_time_us: f64,
    /// Of the profile's device time (a fraction, as XProf writes it).
    pub self_time_fraction: f64,
    pub cumulative_self_time_fraction: f64,
    /// GFLOP/s.
    pub measured_flop_rate: f64,
    pub model_flop_rate: f64,
    /// GiB/s.
    pub measured_memory_bw: f64,
    pub hbm_bw: f64,
    pub cmem_read_bw: f64,
    pub cmem_write_bw: f64,
    pub vmem_read_bw: f64,
    pub vmem_write_bw: f64,
    /// FLOPs per byte.
    pub operational_intensity: f64,
    pub hbm_operational_intensity: f64,
    pub cmem_read_operational_intensity: f64,
    pub cmem_write_operational_intensity: f64,
    pub vmem_read_operational_intensity: f64,
    pub vmem_write_operational_intensity: f64,
    pub bottleneck_operational_intensity: f64,
    /// `Compute`, `HBM`, `CMEM Read`, …, `Shm/L1` or `Unknown`.
    pub bound_by: String,
    pub total_time_per_core_us: f64,
    pub total_time_fraction: f64,
    pub optimal_flop_rate: f64,
    pub roofline_efficiency: f64,
    pub compute_efficiency: f64,
    pub max_mem_bw_utilization: f64,
    pub include_infeed_outfeed: bool,
    pub program_id: u64,
    pub source: SourceInfo,
}

/// What every record of one pass over a database shares.
pub struct Context<'a> {
    pub peaks: &'a Peaks,
    pub cores: u64,
    pub include_infeed_outfeed: bool,
}

fn safe(a: f64, b: f64) -> f64 {
    if b != 0.0 {
        a / b
    } else {
        0.0
    }
}

/// A `Program` record over `metrics`' innermost ops; `average_over` divides
/// its times by the step count (the `Average` record; 1 otherwise).
pub fn program_record(
    metrics: &[Metrics],
    total_time_ps: u64,
    step: String,
    average_over: f64,
    ctx: &Context<'_>,
) -> RooflineRecord {
    let mut program =
        Metrics { name: "Program".into(), category: "Program".into(), occurrences: 1, ..Metrics::default() };
    let mut infeed_outfeed_ps = 0u64;
    for m in metrics.iter().filter(|m| !may_have_inner_ops(&m.category)) {
        if !ctx.include_infeed_outfeed && is_infeed_or_outfeed(&m.category) {
            infeed_outfeed_ps = infeed_outfeed_ps.saturating_add(m.time_ps);
            continue;
        }
        program.flops = program.flops.saturating_add(m.flops);
        program.model_flops = program.model_flops.saturating_add(m.model_flops);
        program.bytes_accessed = program.bytes_accessed.saturating_add(m.bytes_accessed);
        if let Some(b) = &m.breakdown {
            let sum = program.breakdown.get_or_insert_with(MemoryBreakdown::default);
            sum.hbm = sum.hbm.saturating_add(b.hbm);
            sum.cmem_read = sum.cmem_read.saturating_add(b.cmem_read);
            sum.cmem_write = sum.cmem_write.saturating_add(b.cmem_write);
            sum.vmem_read = sum.vmem_read.saturating_add(b.vmem_read);
            sum.vmem_write = sum.vmem_write.saturating_add(b.vmem_write);
        }
    }
    program.time_ps = total_time_ps.saturating_sub(infeed_outfeed_ps);
    let mut r = record(&program, program.time_ps, step, ctx);
    if average_over != 1.0 {
        r.total_time_us = safe(r.total_time_us, average_over);
        r.total_self_time_us = safe(r.total_self_time_us, average_over);
        r.total_time_per_core_us = safe(r.total_time_us, ctx.cores as f64);
    }
    r
}

/// An op's record: `prev` is the (rank, cumulative self-time fraction) of
/// the record before it.
pub fn op_record(m: &Metrics, total_time_ps: u64, prev: (u32, f64), ctx: &Context<'_>) -> RooflineRecord {
    let mut r = record(m, total_time_ps, "Total".into(), ctx);
    r.rank = prev.0 + 1;
    r.self_time_fraction = safe(r.total_self_time_us, total_time_ps as f64 / 1e6);
    r.cumulative_self_time_fraction = prev.1 + r.self_time_fraction;
    r
}

fn record(m: &Metrics, total_time_ps: u64, step: String, ctx: &Context<'_>) -> RooflineRecord {
    let peaks = ctx.peaks;
    let total_time_us = m.time_ps as f64 / 1e6;
    let total_self_time_us = m.self_time_ps as f64 / 1e6;
    let occurrences = m.occurrences as f64;
    let mut r = RooflineRecord {
        step,
        category: m.category.clone(),
        operation: m.name.clone(),
        occurrences: m.occurrences,
        total_time_us,
        avg_time_us: safe(total_time_us, occurrences),
        total_self_time_us,
        avg_self_time_us: safe(total_self_time_us, occurrences),
        total_time_per_core_us: safe(total_time_us, ctx.cores as f64),
        total_time_fraction: safe(m.time_ps as f64, total_time_ps as f64),
        include_infeed_outfeed: ctx.include_infeed_outfeed,
        program_id: m.program_id,
        source: m.source.clone(),
        ..RooflineRecord::default()
    };
    set_rates(m, peaks, &mut r);
    let utilization = |bw: f64, peak: f64| safe(bw, peak);
    let (cmem_r, cmem_w) = if peaks.has_cmem {
        (utilization(r.cmem_read_bw, peaks.cmem_read_bw), utilization(r.cmem_write_bw, peaks.cmem_write_bw))
    } else {
        (0.0, 0.0)
    };
    let (vmem_r, vmem_w) = if peaks.has_merged_vmem {
        (utilization(r.vmem_read_bw, peaks.vmem_read_bw), utilization(r.vmem_write_bw, peaks.vmem_write_bw))
    } else {
        (0.0, 0.0)
    };
    let flops = utilization(r.measured_flop_rate, peaks.flop_rate);
    let hbm = utilization(r.hbm_bw, peaks.hbm_bw);
    let memory = [cmem_r, cmem_w, hbm, vmem_r, vmem_w].into_iter().fold(0.0, f64::max);
    let efficiency = memory.max(flops);
    // Asynchronous copies can exceed 1: their bytes and times do not match.
    r.optimal_flop_rate = safe(r.measured_flop_rate, efficiency);
    r.roofline_efficiency = efficiency;
    r.compute_efficiency = flops;
    r.max_mem_bw_utilization = memory;
    r
}

/// Rates, intensities and the bottleneck (XProf's SetRooflineMetrics).
fn set_rates(m: &Metrics, peaks: &Peaks, r: &mut RooflineRecord) {
    let time_ns = m.time_ps as f64 / 1000.0;
    let gib_per_s = |bytes: u64| safe(bytes as f64, time_ns) * 1e9 / BYTES_PER_GIB;
    let intensity = |bytes: u64| safe(m.flops as f64, bytes as f64);
    r.measured_flop_rate = safe(m.flops as f64, time_ns);
    r.model_flop_rate = safe(m.model_flops as f64, time_ns);
    r.measured_memory_bw = gib_per_s(m.bytes_accessed);
    r.operational_intensity = intensity(m.bytes_accessed);
    // Without a breakdown every byte counts as an HBM byte.
    let b = m.breakdown.unwrap_or(MemoryBreakdown { hbm: m.bytes_accessed, ..MemoryBreakdown::default() });
    r.hbm_bw = gib_per_s(b.hbm);
    r.cmem_read_bw = gib_per_s(b.cmem_read);
    r.cmem_write_bw = gib_per_s(b.cmem_write);
    r.vmem_read_bw = gib_per_s(b.vmem_read);
    r.vmem_write_bw = gib_per_s(b.vmem_write);
    r.hbm_operational_intensity = intensity(b.hbm);
    r.cmem_read_operational_intensity = intensity(b.cmem_read);
    r.cmem_write_operational_intensity = intensity(b.cmem_write);
    r.vmem_read_operational_intensity = intensity(b.vmem_read);
    r.vmem_write_operational_intensity = intensity(b.vmem_write);

    // The bottleneck is the resource used closest to its peak; the first
    // of equals wins, in XProf's order.
    let mut bound = ("Unknown", 0.0, 0.0);
    let mut consider = |name: &'static str, used: f64, oi: f64| {
        if bound.1 < used {
            bound = (name, used, oi);
        }
    };
    consider("Compute", safe(r.measured_flop_rate, peaks.flop_rate), r.operational_intensity);
    consider("HBM", safe(r.hbm_bw, peaks.hbm_bw), r.hbm_operational_intensity);
    match peaks.device {
        RooflineDevice::Tpu => {
            let spaces = [
                ("CMEM Read", b.cmem_read, r.cmem_read_bw, peaks.cmem_read_bw, r.cmem_read_operational_intensity),
                ("CMEM Write", b.cmem_write, r.cmem_write_bw, peaks.cmem_write_bw, r.cmem_write_operational_intensity),
                ("VMEM Read", b.vmem_read, r.vmem_read_bw, peaks.vmem_read_bw, r.vmem_read_operational_intensity),
                ("VMEM Write", b.vmem_write, r.vmem_write_bw, peaks.vmem_write_bw, r.vmem_write_operational_intensity),
            ];
            for (name, bytes, bw, peak, oi) in spaces {
                if bytes > 0 && peak > 0.0 {
                    consider(name, safe(bw, peak), oi);
                }
            }
        }
        // GPU records know one bandwidth, compared with the shared memory's too.
        RooflineDevice::Gpu if peaks.vmem_write_bw > 0.0 => {
            consider("Shm/L1", safe(r.hbm_bw, peaks.vmem_write_bw), r.hbm_operational_intensity);
        }
        _ => {}
    }
    r.bound_by = bound.0.to_string();
    r.bottleneck_operational_intensity = bound.2;
}
