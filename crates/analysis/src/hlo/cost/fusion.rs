//! FLOPs of a fusion: XLA's GpuHloCostAnalysis::FusionCalculateUtilizations
//! (xla/service/gpu/model/gpu_hlo_cost_analysis.cc).
//!
//! A fusion computes its whole output once, but an instruction inside it
//! runs once per element its users read: an elementwise chain runs as often
//! as the output it feeds, while the operand of a slice, gather or dynamic
//! slice only runs for the part they read, and an elementwise producer
//! feeding two reductions runs twice. XLA walks the fused computation from
//! the root (utilization 1) to the parameters, and counts each instruction's
//! FLOPs times its utilization.

use super::profile::is_costed_elementwise;
use super::shapes::{elements_recursive, first_array};
use crate::hlo::text::{element_bits, element_count, ModuleIndex};
use proflens_model::hlo::{HloComputation, HloInstruction};
use rustc_hash::{FxHashMap, FxHashSet};

/// Larger fused computations (none in real HLO) are costed as XLA's base
/// HloCostAnalysis does: every instruction used once. It bounds the work a
/// file can ask for.
pub const MAX_INSTRUCTIONS: usize = 4096;

/// The utilization of every instruction of a fused computation, in its
/// order.
pub fn utilizations(index: &ModuleIndex<'_>, computation: &HloComputation) -> Vec<f32> {
    let instrs = &computation.instructions;
    let n = instrs.len();
    if n == 0 || n > MAX_INSTRUCTIONS {
        return vec![1.0; n];
    }
    let position: FxHashMap<i64, usize> = instrs.iter().enumerate().map(|(i, instr)| (instr.id, i)).collect();
    let root = position.get(&computation.root_id).copied().unwrap_or(n - 1);
    // Each instruction's elementwise use roots: the nearest non-elementwise
    // users (or the fusion root) it feeds through elementwise ops only.
    let mut roots: Vec<FxHashSet<usize>> = vec![FxHashSet::default(); n];
    let mut root_utilization = vec![0f32; n];
    let mut utilization = vec![0f32; n];
    roots[root].insert(root);
    root_utilization[root] = 1.0;
    // HloCostAnalysis::HandleFusion: a dynamic-update-slice that makes (an
    // element of) the output updates its buffer in place: its operand 0 is
    // not read.
    let in_place = in_place_updates(instrs, &position, root);
    // Users come after their operands: walking backwards sees every user of
    // an instruction before the instruction.
    for i in (0..n).rev() {
        utilization[i] = roots[i].iter().map(|&r| root_utilization[r]).sum();
        let instr = &instrs[i];
        let passes_roots =
            matches!(instr.opcode.as_str(), "tuple" | "get-tuple-element") || is_elementwise(index, instr);
        let inherited: Vec<usize> = if passes_roots { roots[i].iter().copied().collect() } else { Vec::new() };
        for (k, id) in instr.operand_ids.iter().enumerate() {
            let Some(&j) = position.get(id) else { continue };
            if passes_roots {
                roots[j].extend(inherited.iter().copied());
                continue;
            }
            // A non-elementwise user makes the operand a root of its own,
            // used for the share of it this user reads, rounded up to whole
            // elements.
            roots[j].insert(j);
            let read = if k == 0 && in_place.contains(&i) { 0.0 } else { operand_utilization(index, instr, k) };
            let share = utilization[i] * read;
            let elements = elements_recursive(&instrs[j].shape) as f32;
            root_utilization[j] += if elements == 0.0 { 0.0 } else { (share * elements).ceil() / elements };
        }
    }
    utilization
}

/// The dynamic-update-slices whose result is the fusion's output or one of
/// its tuple elements.
pub fn in_place_updates(instrs: &[HloInstruction], position: &FxHashMap<i64, usize>, root: usize) -> Vec<usize> {
    let is_update = |i: &usize| instrs[*i].opcode == "dynamic-update-slice";
    if is_update(&root) {
        return vec![root];
    }
    if instrs[root].opcode != "tuple" {
        return Vec::new();
    }
    instrs[root].operand_ids.iter().filter_map(|id| position.get(id).copied()).filter(is_update).collect()
}

/// XLA's HloInstruction::IsElementwise for the ops that can sit in a fusion.
fn is_elementwise(index: &ModuleIndex<'_>, instr: &HloInstruction) -> bool {
    match instr.opcode.as_str() {
        // A bitcast-convert that changes the element width reshapes.
        "bitcast-convert" => {
            let operand = instr.operand_ids.first().and_then(|&id| index.instruction(id));
            operand.is_some_and(|o| element_bits(o.shape.element_type) == element_bits(instr.shape.element_type))
        }
        "copy" => true,
        // A map over all dimensions in order.
        "map" => {
            instr.dimensions.is_empty()
                || (instr.dimensions.len() == instr.shape.dimensions.len()
                    && instr.dimensions.iter().enumerate().all(|(i, &d)| d == i as i64))
        }
        op => is_costed_elementwise(op),
    }
}

/// The share of operand `k` an instruction reads per element of its output
/// (HloCostAnalysis's operand utilization; 1 unless a rule says otherwise).
/// (XLA takes a nested fusion's from its parameters' utilization; fusions
/// nested in fusions do not occur in GPU HLO, and count as reading each
/// operand once here.)
fn operand_utilization(index: &ModuleIndex<'_>, instr: &HloInstruction, k: usize) -> f32 {
    let elements = |i: usize| {
        instr.operand_ids.get(i).and_then(|&id| index.instruction(id)).map_or(0, |o| element_count(&o.shape)) as f64
    };
    let ratio = |a: f64, b: f64| if b == 0.0 { 0.0 } else { (a / b) as f32 };
    let out = element_count(&instr.shape) as f64;
    match instr.opcode.as_str() {
        // They read only the elements they return.
        "slice" | "dynamic-slice" | "gather" if k == 0 => ratio(out, elements(0)),
        // The updated part of operand 0 is not read.
        "dynamic-update-slice" if k == 0 => ratio(out - elements(1), out),
        // GpuHloCostAnalysis::HandleReduce: the init values are read once
        // per output element.
        "reduce" if k >= instr.operand_ids.len() / 2 => element_count(first_array(&instr.shape)) as f32,
        _ => 1.0,
    }
}
