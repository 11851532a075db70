//! FLOPs of one HLO instruction by the rules of XLA's HloCostAnalysis
//! (xla/service/hlo_cost_analysis.cc) as GpuHloCostAnalysis
//! (xla/service/gpu/model/gpu_hlo_cost_analysis.cc) overrides them, which is
//! what XProf runs on GPU profiles (xprof/utils/xprof_gpu_cost_analysis.cc).
//!
//! XLA keeps every cost as an `f32` property and multiplies and sums them in
//! `f32`; so does this module, so that large counts round as XProf's do.

use super::profile::{self, is_costed_elementwise};
use super::shapes::{elements_recursive, first_array};
use super::{conv, fusion};
use crate::hlo::text::{element_count, ModuleIndex};
use proflens_model::hlo::{HloComputation, HloInstruction, Shape, WindowDimension, TUPLE_TYPE};

/// The cost properties XProf reads of an instruction.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Props {
    pub flops: f32,
    /// Transcendental operations, which XLA counts apart from FLOPs (on GPUs
    /// only random numbers land here: elementwise ops all count as FLOPs).
    pub transcendentals: f32,
}

impl Props {
    fn flops(flops: f32) -> Props {
        Props { flops, transcendentals: 0.0 }
    }

    /// A called computation's cost applied `count` times.
    fn times(self, count: f32) -> Props {
        Props { flops: self.flops * count, transcendentals: self.transcendentals * count }
    }

    pub fn plus(self, other: Props) -> Props {
        Props { flops: self.flops + other.flops, transcendentals: self.transcendentals + other.transcendentals }
    }

    fn max(self, other: Props) -> Props {
        Props { flops: self.flops.max(other.flops), transcendentals: self.transcendentals.max(other.transcendentals) }
    }
}

fn count(n: u64) -> f32 {
    n as f32
}

fn product_of_sizes(window: &[WindowDimension]) -> u64 {
    window.iter().fold(1u64, |n, d| n.saturating_mul(u64::try_from(d.size).unwrap_or(0)))
}

/// The cost walk over one module: called computations are costed once each
/// (memoized by id), a computation that calls itself counts nothing the
/// second time round, and nesting deeper than real HLO counts nothing.
pub struct Analysis<'i, 'a> {
    index: &'i ModuleIndex<'a>,
    on_path: Vec<i64>,
    computations: rustc_hash::FxHashMap<i64, Props>,
    fusions: rustc_hash::FxHashMap<i64, Props>,
}

impl<'i, 'a> Analysis<'i, 'a> {
    /// Most nested called computations followed.
    pub const MAX_DEPTH: usize = 16;

    pub fn new(index: &'i ModuleIndex<'a>) -> Self {
        Analysis { index, on_path: Vec::new(), computations: Default::default(), fusions: Default::default() }
    }

    /// Runs `f` on computation `id` unless it is already being costed or
    /// the nesting is too deep (then it counts nothing, and is not memoized:
    /// another path may reach it legitimately).
    fn nested(&mut self, id: i64, f: impl FnOnce(&mut Self) -> Props) -> Option<Props> {
        if self.on_path.contains(&id) || self.on_path.len() > Self::MAX_DEPTH {
            return None;
        }
        self.on_path.push(id);
        let props = f(self);
        self.on_path.pop();
        Some(props)
    }

    /// A called computation's cost: the sum over its instructions
    /// (HloCostAnalysis::ProcessSubcomputation).
    pub fn computation(&mut self, id: i64) -> Props {
        if let Some(&known) = self.computations.get(&id) {
            return known;
        }
        let index = self.index;
        let Some(computation) = index.module.computation(id) else { return Props::default() };
        let Some(props) = self.nested(id, |a| {
            computation.instructions.iter().fold(Props::default(), |sum, i| sum.plus(a.instruction(i)))
        }) else {
            return Props::default();
        };
        self.computations.insert(id, props);
        props
    }

    /// A fused computation's cost: its FLOPs weighted by how much of each
    /// instruction's output the fusion uses.
    fn fused(&mut self, id: i64) -> Props {
        if let Some(&known) = self.fusions.get(&id) {
            return known;
        }
        let index = self.index;
        let Some(computation) = index.module.computation(id) else { return Props::default() };
        let Some(props) = self.nested(id, |a| a.fused_props(computation)) else {
            return Props::default();
        };
        self.fusions.insert(id, props);
        props
    }

    /// The cost of a fused computation as its fusion's cost
    /// (GpuHloCostAnalysis::FusionCalculateUtilizations): each instruction's
    /// FLOPs times its utilization, summed from the root down as XLA does;
    /// transcendentals stay the plain sum (XLA only recomputes FLOPs).
    fn fused_props(&mut self, computation: &HloComputation) -> Props {
        let own: Vec<Props> = computation.instructions.iter().map(|i| self.instruction(i)).collect();
        let utilization = fusion::utilizations(self.index, computation);
        let transcendentals = own.iter().map(|p| p.transcendentals).sum();
        let flops = own.iter().zip(&utilization).rev().map(|(p, u)| u * p.flops).sum();
        Props { flops, transcendentals }
    }

    fn called(&mut self, instr: &HloInstruction, i: usize) -> Props {
        instr.called_computation_ids.get(i).map_or_else(Props::default, |&id| self.computation(id))
    }

    fn operand_shape(&self, instr: &HloInstruction, i: usize) -> Option<&'a Shape> {
        instr.operand_ids.get(i).and_then(|&id| self.index.instruction(id)).map(|o| &o.shape)
    }

    fn operand_elements(&self, instr: &HloInstruction, i: usize) -> u64 {
        self.operand_shape(instr, i).map_or(0, element_count)
    }

    /// The cost of one execution of `instr`.
    pub fn instruction(&mut self, instr: &HloInstruction) -> Props {
        let op = instr.opcode.as_str();
        match op {
            _ if is_costed_elementwise(op) => Props::flops(count(
                profile::flops_per_element(op, instr.shape.element_type)
                    .saturating_mul(elements_recursive(&instr.shape)),
            )),
            "dot" => Props::flops(count(self.dot_flops(instr))),
            "convolution" => Props::flops(count(self.convolution_flops(instr, &instr.shape))),
            "custom-call" => self.custom_call(instr),
            "fusion" => self.fusion(instr),
            "reduce" => {
                // The reducer runs once per input element that is not the
                // first of its output element.
                let reductions =
                    self.operand_elements(instr, 0).saturating_sub(element_count(first_array(&instr.shape)));
                self.called(instr, 0).times(count(reductions))
            }
            "reduce-window" => {
                let reductions = reduce_window_count(instr);
                self.called(instr, 0).times(count(reductions))
            }
            "select-and-scatter" => {
                // Per source element: window − 1 selects and one scatter.
                let source = self.operand_elements(instr, 1);
                let selects = source.saturating_mul(product_of_sizes(&instr.window).saturating_sub(1));
                let select = self.called(instr, 0).times(count(selects));
                select.plus(self.called(instr, 1).times(count(source)))
            }
            "scatter" => {
                // Operands: n inputs, the indices, n updates.
                let n = instr.operand_ids.len().saturating_sub(1) / 2;
                let updates = self.operand_elements(instr, n + 1);
                self.called(instr, 0).times(count(updates))
            }
            "map" => self.called(instr, 0).times(count(element_count(&instr.shape))),
            "sort" => {
                // A comparison sort: n·⌈log2 n⌉.
                let n = self.operand_elements(instr, 0);
                let log = if n <= 1 { 0 } else { u64::from(64 - (n - 1).leading_zeros()) };
                Props::flops(count(n.saturating_mul(log)))
            }
            // Calls and async ops cost their computation; a loop one trip
            // of its body and condition.
            "call" | "async-start" => self.called(instr, 0),
            "while" => self.called(instr, 0).plus(self.called(instr, 1)),
            "conditional" => (0..instr.called_computation_ids.len())
                .map(|i| self.called(instr, i))
                .reduce(Props::max)
                .unwrap_or_default(),
            "concatenate" => Props::flops(count(self.concatenate_flops(instr))),
            "all-reduce" | "all-reduce-start" => Props::flops(count(self.all_reduce_flops(instr))),
            // Random numbers cost a transcendental each.
            "rng" => Props { flops: 0.0, transcendentals: count(element_count(&instr.shape)) },
            "rng-bit-generator" => Props { flops: 0.0, transcendentals: count(elements_recursive(&instr.shape)) },
            "triangular-solve" => {
                // batch · m · n² / 2 multiply-adds.
                let a = self.operand_shape(instr, 0).and_then(|s| s.dimensions.last()).copied().unwrap_or(0);
                let b = self.operand_elements(instr, 1);
                Props::flops(count(2u64.saturating_mul(u64::try_from(a).unwrap_or(0)).saturating_mul(b)))
            }
            "cholesky" => {
                // batch · n³ / 3.
                let a = self.operand_shape(instr, 0);
                let n = a.and_then(|s| s.dimensions.last()).copied().unwrap_or(0);
                let elems = a.map_or(0, element_count);
                Props::flops(count(u64::try_from(n).unwrap_or(0).saturating_mul(elems) / 3))
            }
            _ => Props::default(),
        }
    }

    /// 2 × output elements × contracted elements.
    fn dot_flops(&self, instr: &HloInstruction) -> u64 {
        let (Some(dims), Some(lhs)) = (&instr.dot, self.operand_shape(instr, 0)) else { return 0 };
        let contracted = dims.lhs_contracting.iter().fold(1u64, |n, &d| {
            let size = usize::try_from(d).ok().and_then(|d| lhs.dimensions.get(d)).copied().unwrap_or(1);
            n.saturating_mul(u64::try_from(size).unwrap_or(0))
        });
        2u64.saturating_mul(element_count(&instr.shape)).saturating_mul(contracted)
    }

    fn convolution_flops(&self, instr: &HloInstruction, result: &Shape) -> u64 {
        match (self.operand_shape(instr, 0), self.operand_shape(instr, 1)) {
            (Some(lhs), Some(rhs)) => conv::convolution_flops(instr, lhs, rhs, result),
            _ => 0,
        }
    }

    /// cuDNN convolutions count as convolutions of their first result (the
    /// rest is scratch space). XLA would count cuBLAS GEMMs from their
    /// backend configuration; XProf's build reports them, like every other
    /// library call, as unknown (XLA's −1, shown as 0).
    fn custom_call(&self, instr: &HloInstruction) -> Props {
        if conv::is_dnn_convolution(instr) {
            Props::flops(count(self.convolution_flops(instr, first_array(&instr.shape))))
        } else {
            Props::flops(-1.0)
        }
    }

    /// A kCustom fusion around a gather or scatter costs as that op;
    /// any other fusion as its fused computation.
    fn fusion(&mut self, instr: &HloInstruction) -> Props {
        let Some(&id) = instr.called_computation_ids.first() else { return Props::default() };
        if instr.fusion_kind == "kCustom" {
            let index = self.index;
            let inner = index.module.computation(id).into_iter().flat_map(|c| &c.instructions);
            if let Some(op) = inner.into_iter().find(|i| i.opcode == "gather" || i.opcode == "scatter") {
                return self.instruction(op);
            }
        }
        self.fused(id)
    }

    /// GpuHloCostAnalysis::HandleConcatenate: a compare and a branch (6
    /// FLOPs) per element, 400 when the concatenated dimension is not the
    /// major one and the first operand's extent there is not a multiple of
    /// the warp size (XLA's deterrent against fusing such concatenates).
    fn concatenate_flops(&self, instr: &HloInstruction) -> u64 {
        let dim = instr.dimensions.first().copied().unwrap_or(0);
        let extent = usize::try_from(dim)
            .ok()
            .and_then(|d| self.operand_shape(instr, 0).and_then(|s| s.dimensions.get(d)))
            .copied()
            .unwrap_or(0);
        let per_element = if dim > 0 && extent & 31 != 0 { 400 } else { 6 };
        per_element * elements_recursive(&instr.shape)
    }

    /// GpuHloCostAnalysis::HandleAllReduce: the reduction's root op costed
    /// as an elementwise op over the result.
    fn all_reduce_flops(&self, instr: &HloInstruction) -> u64 {
        let index = self.index;
        let root = instr
            .called_computation_ids
            .first()
            .and_then(|&id| index.module.computation(id))
            .and_then(|c| index.instruction(c.root_id).or_else(|| c.instructions.last()));
        let Some(root) = root else { return 0 };
        profile::flops_per_element(&root.opcode, instr.shape.element_type)
            .saturating_mul(elements_recursive(&instr.shape))
    }
}

/// Reducer applications of a reduce-window: window − 1 per output element,
/// except for a window that reduces one padded dimension whole and
/// broadcasts it back (XLA's special case): one reduction of that dimension
/// per output row.
fn reduce_window_count(instr: &HloInstruction) -> u64 {
    let window = &instr.window;
    let output = first_array(&instr.shape);
    let out_elems = element_count(output);
    let mut window_elems = product_of_sizes(window);
    let mut reductions = window_elems.saturating_sub(1).saturating_mul(out_elems);
    let reducing = window.iter().filter(|d| d.size != 1).count();
    let padded = window.iter().filter(|d| d.padding_low != 0 || d.padding_high != 0).count();
    if reducing == 1 && padded == 1 && instr.shape.element_type != TUPLE_TYPE {
        let whole = window.iter().position(|d| {
            d.size != 1
                && d.padding_low != 0
                && d.padding_high != 0
                && d.padding_low == d.padding_high
                && d.size == 2 * d.padding_low + 1
        });
        if let Some(d) = whole {
            let extent = output.dimensions.get(d).copied().unwrap_or(0);
            if window[d].padding_low == extent - 1 && extent > 0 {
                window_elems = u64::try_from(extent).unwrap_or(1);
                reductions = out_elems / window_elems + (window_elems - 1);
            }
        }
    }
    reductions
}
