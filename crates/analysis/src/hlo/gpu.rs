//! XLA kernels on GPUs matched to the HLO instructions they ran for.

use crate::hlo::cost::gpu_cost;
use crate::hlo::text::{category, ModuleIndex};
use proflens_model::hlo::{HloInstruction, HloModule};
use rustc_hash::FxHashMap;

/// The HLO instructions GPU kernels ran for, looked up by the kernels'
/// (`program_id`, innermost `hlo_op`): what the device op metrics and the
/// kernel stats need of an XLA kernel. Empty without HLO modules, and then
/// XLA kernels are not counted as ops (XProf needs the HLO too).
pub struct GpuHlo<'a> {
    indexes: FxHashMap<u64, ModuleIndex<'a>>,
}

/// One HLO instruction as an op of the device op metrics.
pub struct GpuHloOp {
    pub category: String,
    /// The framework op as `op_name:` (empty when the HLO names none).
    pub provenance: String,
    /// Cost of one execution: FLOPs normalized to the device (XProf's op
    /// FLOPs), XLA's FLOPs, bytes.
    pub flops: u64,
    pub model_flops: u64,
    pub bytes_accessed: u64,
}

impl<'a> GpuHlo<'a> {
    pub fn new(modules: &'a [HloModule]) -> GpuHlo<'a> {
        GpuHlo { indexes: modules.iter().map(|m| (m.program_id, ModuleIndex::new(m))).collect() }
    }

    pub fn is_empty(&self) -> bool {
        self.indexes.is_empty()
    }

    /// The framework op (`op_name` metadata, possibly empty) of instruction
    /// `hlo_op` of `program`, when its module is known.
    pub fn framework_op(&self, program: u64, hlo_op: &str) -> Option<&'a str> {
        let index = self.indexes.get(&program)?;
        Some(index.by_name(innermost(hlo_op))?.metadata.op_name.as_str())
    }

    /// The module of `program` and its instruction named `name`.
    pub fn instruction(&self, program: u64, name: &str) -> Option<(&'a HloModule, &'a HloInstruction)> {
        let index = self.indexes.get(&program)?;
        Some((index.module, index.by_name(name)?))
    }

    /// The instruction `hlo_op` (nested names joined by `::`, the innermost
    /// is the op) of `program`, when its module is known.
    pub fn op(&self, program: u64, hlo_op: &str) -> Option<GpuHloOp> {
        let index = self.indexes.get(&program)?;
        let instr = index.by_name(innermost(hlo_op))?;
        let cost = gpu_cost(index, instr);
        Some(GpuHloOp {
            category: category(instr),
            provenance: provenance(instr),
            flops: cost.device_flops,
            model_flops: cost.flops,
            bytes_accessed: cost.bytes_accessed,
        })
    }
}

/// The innermost of `::`-joined HLO names.
pub fn innermost(hlo_op: &str) -> &str {
    hlo_op.rsplit("::").next().unwrap_or(hlo_op)
}

/// The framework op of an instruction as XProf's provenance (`op_name:`).
pub fn provenance(instr: &HloInstruction) -> String {
    if instr.metadata.op_name.is_empty() {
        String::new()
    } else {
        format!("{}:", instr.metadata.op_name)
    }
}
