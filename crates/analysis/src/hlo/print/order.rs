//! The orders XLA prints a module in. Built from a proto, a module keeps its
//! computations and a computation its instructions in the proto's order; the
//! text then lists computations callees first
//! (HloModule::MakeComputationPostOrder) and each computation's
//! instructions in the schedule's order, or, for unscheduled ones (fusions),
//! operands before users by a depth-first walk from each instruction nothing
//! uses (HloComputation::MakeInstructionPostOrder).

use proflens_model::hlo::{HloComputation, HloInstruction, HloModule};
use rustc_hash::{FxHashMap, FxHashSet};

/// Computations callees first, as XLA's MakeComputationPostOrder.
pub(super) fn computation_order(module: &HloModule) -> Vec<&HloComputation> {
    let computations: Vec<&HloComputation> = module.computations.iter().collect();
    let by_id_map: FxHashMap<i64, usize> = computations.iter().enumerate().map(|(i, c)| (c.id, i)).collect();
    let called: FxHashSet<i64> = computations
        .iter()
        .flat_map(|c| c.instructions.iter().flat_map(|i| i.called_computation_ids.iter().copied()))
        .collect();
    let mut added = FxHashSet::default();
    let mut out = Vec::new();
    for root in computations.iter().filter(|c| !called.contains(&c.id)) {
        for c in embedded(module, root, &by_id_map) {
            if added.insert(c.id) {
                out.push(c);
            }
        }
        if added.insert(root.id) {
            out.push(*root);
        }
    }
    out
}

/// Every computation `root` calls, directly or not, callees first
/// (XLA's MakeEmbeddedComputationsList: siblings are marked seen when first
/// met, so a computation two siblings call is listed under the first).
fn embedded<'a>(
    module: &'a HloModule,
    root: &'a HloComputation,
    all: &FxHashMap<i64, usize>,
) -> Vec<&'a HloComputation> {
    let mut seen = FxHashSet::default();
    let mut out = Vec::new();
    // (computation, next instruction position)
    let mut stack: Vec<(&HloComputation, usize)> = Vec::new();
    let push_callees =
        |instr: &HloInstruction, stack: &mut Vec<(&'a HloComputation, usize)>, seen: &mut FxHashSet<i64>| {
            for id in instr.called_computation_ids.iter().rev() {
                if let Some(&ci) = all.get(id) {
                    if seen.insert(*id) {
                        stack.push((&module.computations[ci], 0));
                    }
                }
            }
        };
    for instr in &root.instructions {
        push_callees(instr, &mut stack, &mut seen);
        while let Some(&mut (c, ref mut at)) = stack.last_mut() {
            match c.instructions.get(*at) {
                Some(next) => {
                    *at += 1;
                    push_callees(next, &mut stack, &mut seen);
                }
                None => {
                    stack.pop();
                    out.push(c);
                }
            }
        }
    }
    out
}

/// A computation's instructions in the order the text lists them.
pub(super) fn instruction_order<'a>(module: &HloModule, c: &'a HloComputation) -> Vec<&'a HloInstruction> {
    let by_instr_id: FxHashMap<i64, usize> = c.instructions.iter().enumerate().map(|(k, i)| (i.id, k)).collect();
    if let Some(sequence) = module.attributes.sequence(c.id) {
        let scheduled: Vec<&HloInstruction> =
            sequence.iter().filter_map(|id| by_instr_id.get(id).map(|&k| &c.instructions[k])).collect();
        if scheduled.len() == c.instructions.len() {
            return scheduled;
        }
    }
    post_order(c, &by_instr_id)
}

/// XLA's MakeInstructionPostOrder: from each unused instruction, an
/// iterative depth-first walk that visits control predecessors, then
/// operands first to last.
fn post_order<'a>(c: &'a HloComputation, by_id_map: &FxHashMap<i64, usize>) -> Vec<&'a HloInstruction> {
    const UNSEEN: u8 = 0;
    const VISITING: u8 = 1;
    const VISITED: u8 = 2;
    let used: FxHashSet<i64> = c.instructions.iter().flat_map(|i| i.operand_ids.iter().copied()).collect();
    let mut state = vec![UNSEEN; c.instructions.len()];
    let mut out = Vec::with_capacity(c.instructions.len());
    let mut stack: Vec<usize> = Vec::new();
    let index = |id: &i64| by_id_map.get(id).copied();
    for (root, _) in c.instructions.iter().enumerate().filter(|(_, i)| !used.contains(&i.id)) {
        stack.push(root);
        while let Some(&current) = stack.last() {
            if state[current] != UNSEEN {
                stack.pop();
                if state[current] != VISITED {
                    out.push(&c.instructions[current]);
                    state[current] = VISITED;
                }
                continue;
            }
            state[current] = VISITING;
            let instr = &c.instructions[current];
            stack.extend(instr.operand_ids.iter().rev().filter_map(index));
            stack.extend(instr.attributes.control_predecessor_ids.iter().filter_map(index));
        }
    }
    out
}
