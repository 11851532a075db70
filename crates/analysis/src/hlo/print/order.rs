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
    let by_id_map: FxHashMap<i64, &HloComputation> = computations.iter().map(|c| (c.id, *c)).collect();
    let called: FxHashSet<i64> = computations
        .iter()
        .flat_map(|c| c.instructions.iter().flat_map(|i| i.called_computation_ids.iter().copied()))
        .collect();
    let mut added = FxHashSet::default();
    let mut out = Vec::new();
    for root in computations.iter().filter(|c| !called.contains(&c.id)) {
        for c in embedded(root, &by_id_map) {
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
fn embedded<'a>(root: &'a HloComputation, all: &FxHashMap<i64, &'a HloComputation>) -> Vec<&'a HloComputation> {
    let mut seen = FxHashSet::default();
    let mut out = Vec::new();
    // (computation, its instructions, next position)
    let mut stack: Vec<(&HloComputation, Vec<&HloInstruction>, usize)> = Vec::new();
    let push_callees = |instr: &HloInstruction,
                        stack: &mut Vec<(&'a HloComputation, Vec<&'a HloInstruction>, usize)>,
                        seen: &mut FxHashSet<i64>| {
        for id in instr.called_computation_ids.iter().rev() {
            if let Some(c) = all.get(id) {
                if seen.insert(*id) {
                    stack.push((c, c.instructions.iter().collect(), 0));
                }
            }
        }
    };
    for instr in &root.instructions {
        push_callees(instr, &mut stack, &mut seen);
        while let Some(top) = stack.last_mut() {
            if top.2 == top.1.len() {
                let (c, _, _) = stack.pop().unwrap_or_else(|| unreachable!());
                out.push(c);
            } else {
                let next = top.1[top.2];
                top.2 += 1;
                push_callees(next, &mut stack, &mut seen);
            }
        }
    }
    out
}

/// A computation's instructions in the order the text lists them.
pub(super) fn instruction_order<'a>(module: &HloModule, c: &'a HloComputation) -> Vec<&'a HloInstruction> {
    let by_instr_id: FxHashMap<i64, &HloInstruction> = c.instructions.iter().map(|i| (i.id, i)).collect();
    if let Some(sequence) = module.attributes.sequence(c.id) {
        let scheduled: Vec<&HloInstruction> = sequence.iter().filter_map(|id| by_instr_id.get(id).copied()).collect();
        if scheduled.len() == c.instructions.len() {
            return scheduled;
        }
    }
    post_order(c, &by_instr_id)
}

/// XLA's MakeInstructionPostOrder: from each unused instruction, an
/// iterative depth-first walk that visits control predecessors, then
/// operands first to last.
fn post_order<'a>(c: &'a HloComputation, by_id_map: &FxHashMap<i64, &'a HloInstruction>) -> Vec<&'a HloInstruction> {
    let used: FxHashSet<i64> = c.instructions.iter().flat_map(|i| i.operand_ids.iter().copied()).collect();
    #[derive(PartialEq)]
    enum State {
        Visiting,
        Visited,
    }
    let mut state: FxHashMap<i64, State> = FxHashMap::default();
    let mut out = Vec::with_capacity(c.instructions.len());
    let mut stack: Vec<&HloInstruction> = Vec::new();
    for root in c.instructions.iter().filter(|i| !used.contains(&i.id)) {
        stack.push(root);
        while let Some(&current) = stack.last() {
            match state.get(&current.id) {
                Some(s) => {
                    stack.pop();
                    if *s != State::Visited {
                        out.push(current);
                        state.insert(current.id, State::Visited);
                    }
                }
                None => {
                    state.insert(current.id, State::Visiting);
                    stack.extend(current.operand_ids.iter().rev().filter_map(|id| by_id_map.get(id).copied()));
                    stack.extend(
                        current.attributes.control_predecessor_ids.iter().filter_map(|id| by_id_map.get(id).copied()),
                    );
                }
            }
        }
    }
    out
}
