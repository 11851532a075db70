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
        "fusion" => Cost::traffic(fused_flops(index, instr), operand_bytes.saturating_add(byte_size(&instr.shape))),
        op if NO_TRAFFIC_OPS.contains(&op) => Cost::default(),
        _ => Cost::traffic(instruction_flops(index, instr), operand_bytes.saturating_add(byte_size(&instr.shape))),
    }
}

/// FLOPs of the instructions of a fusion's computation (nested fusions too).
fn fused_flops(index: &ModuleIndex<'_>, fusion: &HloInstruction) -> u64 {
    let mut walk = Walk::default();
    fusion.called_computation_ids.iter().fold(0u64, |sum, &id| sum.saturating_add(walk.flops(index, id)))
}

/// A walk over called computations, safe on what a file may hold: a fusion
/// that calls itself (directly or through others) counts nothing the second
/// time round, nesting deeper than real HLO counts nothing, and each
/// computation is summed once however often it is called.
#[derive(Default)]
struct Walk {
    on_path: Vec<i64>,
    done: rustc_hash::FxHashMap<i64, u64>,
}

impl Walk {
    /// Most nested fusions followed.
    const MAX_DEPTH: usize = 16;

    fn flops(&mut self, index: &ModuleIndex<'_>, id: i64) -> u64 {
        if let Some(&known) = self.done.get(&id) {
            return known;
        }
        if self.on_path.contains(&id) || self.on_path.len() > Self::MAX_DEPTH {
            return 0;
        }
        let Some(computation) = index.module.computation(id) else { return 0 };
        self.on_path.push(id);
        let mut flops = 0u64;
        for instr in &computation.instructions {
            let f = if instr.opcode == "fusion" {
                instr.called_computation_ids.iter().fold(0u64, |sum, &c| sum.saturating_add(self.flops(index, c)))
            } else {
                instruction_flops(index, instr)
            };
            flops = flops.saturating_add(f);
        }
        self.on_path.pop();
        self.done.insert(id, flops);
        flops
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use proflens_model::hlo::{HloComputation, HloModule, Shape};

    fn instr(id: i64, opcode: &str, calls: &[i64]) -> HloInstruction {
        HloInstruction {
            id,
            name: format!("{opcode}.{id}"),
            opcode: opcode.into(),
            called_computation_ids: calls.to_vec(),
            shape: Shape { element_type: 11, dimensions: vec![4], ..Shape::default() },
            ..HloInstruction::default()
        }
    }

    fn computation(id: i64, instructions: Vec<HloInstruction>) -> HloComputation {
        HloComputation { id, name: format!("c{id}"), instructions, ..HloComputation::default() }
    }

    #[test]
    fn a_fusion_that_calls_itself_counts_once() {
        // c1 adds, and fuses c1 again (a file may say so): the walk ends.
        let module = HloModule {
            computations: vec![computation(1, vec![instr(1, "add", &[]), instr(2, "fusion", &[1])])],
            ..HloModule::default()
        };
        let index = ModuleIndex::new(&module);
        assert_eq!(gpu_cost(&index, &module.computations[0].instructions[1]).flops, 4);
    }

    #[test]
    fn shared_computations_are_summed_once_each() {
        // 40 levels, each fusing the next ten times: 10^40 paths, 40 sums.
        let levels: Vec<HloComputation> = (1..=40)
            .map(|c| {
                let mut body = vec![instr(c * 100, "add", &[])];
                if c < 40 {
                    body.extend((1..=10).map(|k| instr(c * 100 + k, "fusion", &[c + 1])));
                }
                computation(c, body)
            })
            .collect();
        let module = HloModule { computations: levels, ..HloModule::default() };
        let index = ModuleIndex::new(&module);
        let top = instr(1, "fusion", &[1]);
        // Nesting past the depth bound counts nothing: 4 × (1 + 10 + … + 10^16).
        let expected = (0..=16u32).map(|d| 4 * 10u64.pow(d)).sum::<u64>();
        assert_eq!(gpu_cost(&index, &top).flops, expected);
    }
}
