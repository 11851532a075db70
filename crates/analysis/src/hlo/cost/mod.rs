//! FLOPs and bytes of HLO instructions for GPU profiles.
//!
//! On GPUs the profile carries no per-op costs: XProf runs XLA's
//! GpuHloCostAnalysis over the module (xprof/utils/xprof_gpu_cost_analysis.cc,
//! on top of xla/service/gpu/model/gpu_hlo_cost_analysis.cc and
//! xla/service/hlo_cost_analysis.cc). This ports its FLOP rules:
//! elementwise ops cost XLA's per-element cycles from its default (`sm_86`)
//! op profile, 3 when unprofiled (`profile`); dots and convolutions 2 per
//! multiply-add (`conv`); reductions, maps, scatters and windows their
//! called computation's cost per application; calls and loops their
//! computations' (`ops`); fusions the FLOPs of their fused instructions
//! weighted by how much of each the fusion uses (`fusion`). Bytes follow
//! XLA's rules too (`bytes`): an op reads its operands and writes its
//! output once, except where XLA knows better (slices, gathers, scatters,
//! reductions, fusions reading only what their body uses).
//! Differences are listed in docs/deviations.md.

mod bytes;
mod conv;
mod fusion;
mod ops;
mod profile;
mod shapes;
#[cfg(test)]
mod tests;

use crate::hlo::text::{element_bits, ModuleIndex};
use proflens_model::hlo::HloInstruction;

/// Cost of one execution of an instruction.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cost {
    /// XLA's FLOP count (XProf's "model FLOPs").
    pub flops: u64,
    /// The FLOPs normalized to the device's 16-bit rate (XProf's op FLOPs):
    /// 8-bit inputs run twice and 4-bit inputs four times as fast.
    pub device_flops: u64,
    /// Transcendental operations, counted apart from FLOPs.
    pub transcendentals: u64,
    pub bytes_accessed: u64,
    /// The part XLA attributes to HBM in its memory breakdown.
    pub hbm_bytes: u64,
}

/// Cost of one execution of a top-level (entry or called, not fused)
/// instruction.
pub fn gpu_cost(index: &ModuleIndex<'_>, instr: &HloInstruction) -> Cost {
    let props = ops::Analysis::new(index).instruction(instr);
    let (bytes_accessed, hbm_bytes) = bytes::bytes(index, instr);
    Cost {
        flops: valid(props.flops),
        device_flops: device_flops(index, instr, props.flops),
        transcendentals: valid(props.transcendentals),
        bytes_accessed,
        hbm_bytes,
    }
}

/// XLA's per-instruction costs are `f32` read back as integers; XProf shows
/// negative ones (XLA's "unknown", −1) as 0 (tsl ValidHloCost).
fn valid(cost: f32) -> u64 {
    if cost > 0.0 {
        cost as u64
    } else {
        0
    }
}

/// XProfGpuCostAnalysis's device FLOPs: the FLOPs divided by 2 when the
/// widest input has 8 bits and by 4 when it has 4 (such GPUs run those
/// types that much faster than 16-bit ones). Custom calls are left alone
/// (XProf only adjusts cuBLASLt GEMMs, which count nothing here).
fn device_flops(index: &ModuleIndex<'_>, instr: &HloInstruction, flops: f32) -> u64 {
    if instr.opcode == "custom-call" {
        return valid(flops);
    }
    // XLA's BitWidth counts a pred as 1 bit, not the byte it is stored in.
    let bits = |t: i32| if t == 1 { 1 } else { element_bits(t) };
    let widest = index.operands(instr).iter().map(|o| bits(o.shape.element_type)).max().unwrap_or(0);
    let rate = match widest {
        8 => 2.0,
        4 => 4.0,
        _ => 1.0,
    };
    // XLA stores the adjustment as an f32 and reads both back as integers.
    let adjustment = (flops - flops / rate) as i64;
    u64::try_from((flops as i64).saturating_sub(adjustment)).unwrap_or(0)
}
