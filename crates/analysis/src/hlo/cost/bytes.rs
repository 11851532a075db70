//! Bytes an HLO instruction accesses, by XLA's rules: an op reads its
//! operands and writes its output (HloCostAnalysis::Preprocess in
//! xla/service/hlo_cost_analysis.cc) unless its handler knows better, and a
//! fusion reads each parameter as much as its body uses it
//! (HloCostAnalysis::HandleFusion with GpuHloCostAnalysis's
//! FusionParameterReadBytes, xla/service/gpu/model/gpu_hlo_cost_analysis.cc).
//!
//! Returns (bytes accessed, the HBM part XProf's memory breakdown shows).

use super::conv::is_dnn_convolution;
use super::fusion::{in_place_updates, utilizations, MAX_INSTRUCTIONS};
use super::shapes::first_array;
use crate::hlo::text::{byte_size, element_count, ModuleIndex};
use proflens_model::hlo::{HloComputation, HloInstruction, Shape, TUPLE_TYPE};
use rustc_hash::FxHashMap;

/// Ops that only rename or order buffers: no memory traffic of their own.
const NO_TRAFFIC_OPS: &[&str] =
    &["parameter", "constant", "get-tuple-element", "bitcast", "after-all", "add-dependency", "domain"];

/// XLA's pointer size, what a tuple's index table holds per element.
const POINTER_BYTES: u64 = 8;

pub fn bytes(index: &ModuleIndex<'_>, instr: &HloInstruction) -> (u64, u64) {
    let operand = |i: usize| instr.operand_ids.get(i).and_then(|&id| index.instruction(id)).map(|o| &o.shape);
    let size = |i: usize| operand(i).map_or(0, byte_size);
    let operands: u64 = (0..instr.operand_ids.len()).map(size).sum();
    let out = byte_size(&instr.shape);
    let same = |b: u64| (b, b);
    match instr.opcode.as_str() {
        op if NO_TRAFFIC_OPS.contains(&op) => (0, 0),
        // A tuple writes its index table and reads nothing.
        "tuple" => (POINTER_BYTES * instr.operand_ids.len() as u64, 0),
        // Slices read what they return; a dynamic slice its start indices.
        "slice" => same(2 * out),
        "dynamic-slice" | "gather" => same(2 * out + size(1)),
        // The update is written in place: its buffer is neither read nor
        // copied.
        "dynamic-update-slice" => same(2 * size(1) + size(2)),
        // Inputs, outputs and updates: the update shape each, plus indices.
        "scatter" => {
            let n = instr.operand_ids.len().saturating_sub(1) / 2;
            let updates: u64 = (n + 1..instr.operand_ids.len()).map(size).sum();
            same(3 * updates + size(n))
        }
        // GpuHloCostAnalysis::HandleReduce: the init values are read once
        // per output element.
        "reduce" => {
            let inputs = instr.operand_ids.len() / 2;
            let per_output = element_count(first_array(&instr.shape));
            let init: u64 = (inputs..instr.operand_ids.len()).map(size).sum();
            same(out + (0..inputs).map(size).sum::<u64>() + init.saturating_mul(per_output))
        }
        // GpuHloCostAnalysis::HandleCustomCall: a cuDNN convolution writes
        // its first result (the rest is scratch space); XLA keys that write
        // to no tuple element, so the HBM breakdown has only the reads.
        "custom-call" if is_dnn_convolution(instr) => (operands + byte_size(first_array(&instr.shape)), operands),
        // Other library calls are unknown (XLA's −1, shown as 0).
        "custom-call" => (0, 0),
        "fusion" => fusion_bytes(index, instr).unwrap_or_else(|| same(operands + out)),
        _ => same(operands + out),
    }
}

/// HloCostAnalysis::HandleFusion: the outputs written (an in-place update
/// writes only its update), large constants and the parameters read as far
/// as the body uses them (at most once each). Constants are not operands:
/// they are not in the HBM breakdown.
fn fusion_bytes(index: &ModuleIndex<'_>, fusion: &HloInstruction) -> Option<(u64, u64)> {
    let computation = fusion.called_computation_ids.first().and_then(|&id| index.module.computation(id))?;
    let instrs = &computation.instructions;
    // A custom fusion around a gather or scatter costs as that op.
    if fusion.fusion_kind == "kCustom" {
        if let Some(op) = instrs.iter().find(|i| i.opcode == "gather" || i.opcode == "scatter") {
            return Some(bytes(index, op));
        }
    }
    // Past the bound (no real fusion) a fusion reads and writes everything.
    if instrs.is_empty() || instrs.len() > MAX_INSTRUCTIONS {
        return None;
    }
    let position: FxHashMap<i64, usize> = instrs.iter().enumerate().map(|(i, instr)| (instr.id, i)).collect();
    let root = position.get(&computation.root_id).copied().unwrap_or(instrs.len() - 1);
    let utilization = utilizations(index, computation);
    let in_place = in_place_updates(instrs, &position, root);
    let update_size = |i: usize| {
        let update = instrs[i].operand_ids.get(1).and_then(|&id| position.get(&id));
        update.map_or(0, |&u| byte_size(&instrs[u].shape))
    };
    let written = if fusion.shape.element_type == TUPLE_TYPE {
        let root_operand = |e: usize| instrs[root].operand_ids.get(e).and_then(|id| position.get(id)).copied();
        (fusion.shape.tuple_shapes.iter().enumerate())
            .map(|(e, s)| match root_operand(e) {
                Some(u) if instrs[root].opcode == "tuple" && in_place.contains(&u) => update_size(u),
                _ => byte_size(s),
            })
            .sum()
    } else if in_place.contains(&root) {
        update_size(root)
    } else {
        byte_size(&fusion.shape)
    };
    // A read of `size` bytes used `u` times counts at most once.
    let read = |size: u64, u: f32| (size as f32 * u.min(1.0)).round() as u64;
    let constants: u64 = (instrs.iter().zip(&utilization))
        .filter(|(i, _)| i.opcode == "constant" && element_count(&i.shape) > 1)
        .map(|(i, &u)| read(byte_size(&i.shape), u))
        .sum();
    let parameters: u64 = (instrs.iter().enumerate())
        .filter(|(_, i)| i.opcode == "parameter")
        .map(|(p, i)| parameter_read(computation, &position, &utilization, p, &i.shape, &read))
        .sum();
    Some((written + constants + parameters, written + parameters))
}

/// Bytes read of a fused parameter: an array as far as it is used; a tuple
/// leaf by leaf, each through the get-tuple-element chain that extracts it.
fn parameter_read(
    computation: &HloComputation,
    position: &FxHashMap<i64, usize>,
    utilization: &[f32],
    p: usize,
    shape: &Shape,
    read: &dyn Fn(u64, f32) -> u64,
) -> u64 {
    if shape.element_type != TUPLE_TYPE {
        return read(byte_size(shape), utilization[p]);
    }
    let instrs = &computation.instructions;
    let mut total = 0;
    let mut followed = 0;
    let mut leaves = vec![(Vec::new(), shape)];
    while let Some((path, s)) = leaves.pop() {
        if s.element_type == TUPLE_TYPE {
            leaves.extend(s.tuple_shapes.iter().enumerate().map(|(e, t)| ([path.clone(), vec![e]].concat(), t)));
            continue;
        }
        // Leaves past the bound (no real tuple has that many) count whole.
        followed += 1;
        if followed > MAX_INSTRUCTIONS {
            total += byte_size(s);
            continue;
        }
        // Follow the get-tuple-elements of this leaf as far as they go.
        let mut at = p;
        for &e in &path {
            let next = instrs.iter().find(|u| {
                u.opcode == "get-tuple-element"
                    && usize::try_from(u.tuple_index).ok() == Some(e)
                    && u.operand_ids.first() == Some(&instrs[at].id)
            });
            match next.and_then(|u| position.get(&u.id)) {
                Some(&n) => at = n,
                None => break,
            }
        }
        total += read(byte_size(&instrs[at].shape), utilization[at]);
    }
    total
}
