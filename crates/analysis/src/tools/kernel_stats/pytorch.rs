//! Kernel stats of PyTorch (Kineto) traces.

use crate::passes::kernels::{self, parse_kernel_details, uses_tensor_core, KernelRow};
use crate::passes::kineto::{DeviceKind, HostKind, KinetoIndex};
use rustc_hash::FxHashMap;

/// XProf-shaped kernel rows (see [`crate::passes::kernels`]) whose `op_name`
/// is the launching PyTorch op (`aten::mm`, …). Kineto has no theoretical
/// occupancy; `occupancy_pct` is its estimated achieved occupancy.
pub fn kernel_stats(index: &KinetoIndex) -> Vec<KernelRow> {
    let by_corr = index.external_of_correlation();
    let op_of: FxHashMap<i64, &str> = index
        .host
        .iter()
        .filter(|h| h.kind == HostKind::CpuOp)
        .filter_map(|h| Some((h.external_id?, &*h.name)))
        .collect();
    let mut rows = Vec::new();
    for d in index.device.iter().filter(|d| d.kind == DeviceKind::Kernel && d.end_ps > d.start_ps) {
        let details = parse_kernel_details(d.kernel_details.as_deref().unwrap_or(""));
        let ext = d.external_id.or_else(|| d.correlation_id.and_then(|c| by_corr.get(&c).copied()));
        let op_name = ext.and_then(|e| op_of.get(&e)).map_or(String::new(), |s| s.to_string());
        let uses = uses_tensor_core(&d.name);
        let ns = ((d.end_ps - d.start_ps) / 1000) as u64;
        rows.push(KernelRow {
            name: d.name.to_string(),
            registers_per_thread: details.registers,
            static_shmem_bytes: details.static_shmem,
            dynamic_shmem_bytes: details.dynamic_shmem,
            block: details.block,
            grid: details.grid,
            occupancy_pct: details.occupancy_pct,
            op_tensor_core_eligible: uses || torch_op_tensor_core_eligible(&op_name),
            uses_tensor_core: uses,
            op_name,
            occurrences: 1,
            total_ns: ns,
            min_ns: ns,
            max_ns: ns,
        });
    }
    // `combine` merges rows with the same kernel, shape and op, sorts and cuts.
    kernels::combine(&[&rows])
}

/// PyTorch ops whose kernels can run on TensorCores (matmuls, convolutions,
/// attention), by name.
fn torch_op_tensor_core_eligible(op: &str) -> bool {
    const OPS: [&str; 11] = [
        "aten::mm",
        "aten::addmm",
        "aten::bmm",
        "aten::baddbmm",
        "aten::matmul",
        "aten::linear",
        "aten::conv",
        "aten::cudnn_convolution",
        "aten::_convolution",
        "aten::convolution",
        "aten::_scaled_dot_product",
    ];
    OPS.iter().any(|o| op.starts_with(o)) || kernels::op_tensor_core_eligible(op)
}

/// The kernels of every rank of a job, as one table.
pub fn kernel_stats_of_ranks(ranks: &[&KinetoIndex]) -> Vec<KernelRow> {
    let tables: Vec<Vec<KernelRow>> = ranks.iter().map(|i| kernel_stats(i)).collect();
    kernels::combine(&tables.iter().map(Vec::as_slice).collect::<Vec<_>>())
}
