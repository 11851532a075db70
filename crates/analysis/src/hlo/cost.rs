//! FLOPs and bytes of HLO instructions for GPU profiles.
//!
//! On GPUs the profile carries no per-op costs: XProf runs XLA's
//! GpuHloCostAnalysis over the module. This is a small model of it that
//! covers what the op profile needs: dots and convolutions (also as cuDNN
//! custom calls and inside fusions) count 2 FLOPs per multiply-add over the
//! valid (non-padding) taps, elementwise arithmetic one FLOP per element,
//! and an op reads its operands and writes its output once. Library calls
//! other than convolutions (cuBLAS GEMMs) count nothing, as in XLA.
//! Differences are listed in docs/deviations.md.

use crate::hlo::text::{byte_size, element_count, ModuleIndex};
use proflens_model::hlo::HloInstruction;

/// Cost of one execution of an instruction.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cost {
    pub flops: u64,
    pub bytes_accessed: u64,
    /// The part XLA attributes to HBM in its memory breakdown.
    pub hbm_bytes: u64,
}

impl Cost {
    fn traffic(flops: u64, bytes: u64) -> Cost {
        Cost { flops, bytes_accessed: bytes, hbm_bytes: bytes }
    }
}

/// Elementwise opcodes XLA counts as one FLOP per output element
/// (transcendentals are counted apart and not as FLOPs).
const ELEMENTWISE_FLOP_OPS: &[&str] = &[
    "add",
    "subtract",
    "multiply",
    "divide",
    "maximum",
    "minimum",
    "negate",
    "abs",
    "compare",
    "select",
    "and",
    "or",
    "xor",
    "not",
    "remainder",
    "sign",
    "floor",
    "ceil",
    "round-nearest-afz",
    "round-nearest-even",
    "clamp",
    "convert",
];

/// Ops that only rename or regroup buffers: no memory traffic of their own.
const NO_TRAFFIC_OPS: &[&str] = &["parameter", "get-tuple-element", "tuple", "bitcast", "constant", "after-all"];

/// Cost of one execution of a top-level (entry or called, not fused)
/// instruction.
pub fn gpu_cost(index: &ModuleIndex<'_>, instr: &HloInstruction) -> Cost {
    let operand_bytes: u64 = index.operands(instr).iter().map(|o| byte_size(&o.shape)).sum();
    match instr.opcode.as_str() {
        "custom-call" => {
            if instr.custom_call_target.contains("conv") {
                // The result (first tuple element; the rest is scratch space)
                // counts in the bytes accessed but not in the HBM breakdown.
                let result = instr.shape.tuple_shapes.first().unwrap_or(&instr.shape);
                Cost {
                    flops: convolution_flops(index, instr),
                    bytes_accessed: operand_bytes.saturating_add(byte_size(result)),
                    hbm_bytes: operand_bytes,
                }
            } else {
                Cost::default()
            }
        }
        "fusion" => Cost::traffic(fused_flops(index, instr, 0), operand_bytes.saturating_add(byte_size(&instr.shape))),
        op if NO_TRAFFIC_OPS.contains(&op) => Cost::default(),
        _ => Cost::traffic(instruction_flops(index, instr), operand_bytes.saturating_add(byte_size(&instr.shape))),
    }
}

/// FLOPs of the instructions of a fusion's computation (nested fusions too).
fn fused_flops(index: &ModuleIndex<'_>, fusion: &HloInstruction, depth: usize) -> u64 {
    if depth > 16 {
        return 0;
    }
    let mut flops = 0u64;
    for &id in &fusion.called_computation_ids {
        let Some(computation) = index.module.computation(id) else { continue };
        for instr in &computation.instructions {
            let f = if instr.opcode == "fusion" {
                fused_flops(index, instr, depth + 1)
            } else {
                instruction_flops(index, instr)
            };
            flops = flops.saturating_add(f);
        }
    }
    flops
}

fn instruction_flops(index: &ModuleIndex<'_>, instr: &HloInstruction) -> u64 {
    match instr.opcode.as_str() {
        "dot" => dot_flops(index, instr),
        "convolution" => convolution_flops(index, instr),
        op if ELEMENTWISE_FLOP_OPS.contains(&op) => element_count(&instr.shape),
        _ => 0,
    }
}

/// 2 × output elements × contracted elements.
fn dot_flops(index: &ModuleIndex<'_>, instr: &HloInstruction) -> u64 {
    let Some(dims) = &instr.dot else { return 0 };
    let Some(lhs) = index.operands(instr).first().copied() else { return 0 };
    let contracted = dims.lhs_contracting.iter().fold(1u64, |n, &d| {
        let size = usize::try_from(d).ok().and_then(|d| lhs.shape.dimensions.get(d)).copied().unwrap_or(1);
        n.saturating_mul(u64::try_from(size).unwrap_or(0))
    });
    2u64.saturating_mul(element_count(&instr.shape)).saturating_mul(contracted)
}

/// 2 × batch × output features × input features per group × the valid
/// (input position inside the unpadded input) window taps summed over the
/// output positions, dimension by dimension.
fn convolution_flops(index: &ModuleIndex<'_>, instr: &HloInstruction) -> u64 {
    let Some(dims) = &instr.convolution else { return 0 };
    let operands = index.operands(instr);
    let (Some(input), Some(kernel)) = (operands.first(), operands.get(1)) else { return 0 };
    let output = if instr.shape.tuple_shapes.is_empty() { &instr.shape } else { &instr.shape.tuple_shapes[0] };
    let dim = |shape: &proflens_model::hlo::Shape, i: i64| {
        usize::try_from(i)
            .ok()
            .and_then(|i| shape.dimensions.get(i))
            .copied()
            .map_or(0, |d| u64::try_from(d).unwrap_or(0))
    };
    let batch = dim(output, dims.output_batch);
    let out_features = dim(output, dims.output_feature);
    let in_features = dim(&kernel.shape, dims.kernel_input_feature);
    let mut taps = 1u64;
    for (n, &out_dim) in dims.output_spatial.iter().enumerate() {
        let out_size = dim(output, out_dim);
        let in_size = dims.input_spatial.get(n).map_or(0, |&d| dim(&input.shape, d));
        let w = instr.window.get(n).cloned().unwrap_or_default();
        let (stride, dilation, base) = (w.stride.max(1), w.window_dilation.max(1), w.base_dilation.max(1));
        // Input positions of the (base-dilated) input that hold real data.
        let dilated_in = (i64::try_from(in_size).unwrap_or(0) - 1) * base + 1;
        let mut valid = 0u64;
        for o in 0..i64::try_from(out_size).unwrap_or(0) {
            for k in 0..w.size.max(1) {
                let pos = o * stride - w.padding_low + k * dilation;
                if pos >= 0 && pos < dilated_in && pos % base == 0 {
                    valid += 1;
                }
            }
        }
        taps = taps.saturating_mul(valid);
    }
    2u64.saturating_mul(batch).saturating_mul(out_features).saturating_mul(in_features).saturating_mul(taps)
}
