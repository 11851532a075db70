//! Kernel stats of PyTorch (Kineto) traces.
//!
//! A kernel's op is the one that launched it
//! ([`KinetoIndex::device_external_ids`]: a CUDA graph's kernels go to the op
//! around the `cudaGraphLaunch`); whether it used TensorCores follows the
//! device's vendor ([`crate::passes::kernels::uses_tensor_core_on`]).

use crate::passes::kernels::{self, parse_kernel_details, uses_tensor_core_on, KernelRow};
use crate::passes::kineto::{DeviceKind, HostKind, KinetoIndex};
use rustc_hash::FxHashMap;

/// XProf-shaped kernel rows (see [`crate::passes::kernels`]) whose `op_name`
/// is the launching PyTorch op (`aten::mm`, …). Kineto has no theoretical
/// occupancy; `occupancy_pct` is its estimated achieved occupancy.
pub fn kernel_stats(index: &KinetoIndex) -> Vec<KernelRow> {
    let launcher = index.device_external_ids();
    let op_of: FxHashMap<i64, &str> = index
        .host
        .iter()
        .filter(|h| h.kind == HostKind::CpuOp)
        .filter_map(|h| Some((h.external_id.get()?, &*h.name)))
        .collect();
    let mut rows = Vec::new();
    let kernels =
        index.device.iter().zip(launcher).filter(|(d, _)| d.kind == DeviceKind::Kernel && d.end_ps > d.start_ps);
    for (d, ext) in kernels {
        let details = parse_kernel_details(d.kernel_details.as_deref().unwrap_or(""));
        let op_name = ext.and_then(|e| op_of.get(&e)).map_or(String::new(), |s| s.to_string());
        // The device's vendor picks the rule: AMD's matrix cores on ROCm.
        let uses = uses_tensor_core_on(index.vendor, &d.name);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passes::kineto::launch::graph_trace;

    #[test]
    fn a_graph_launch_s_kernels_carry_its_op() {
        let rows = kernel_stats(&KinetoIndex::new(&graph_trace(r#"{"id":0,"name":"H100","warpSize":32}"#)));
        let graph: Vec<(&str, &str, u64)> = rows
            .iter()
            .filter(|r| r.name.starts_with("graph_k"))
            .map(|r| (r.name.as_str(), r.op_name.as_str(), r.total_ns))
            .collect();
        assert_eq!(graph.len(), 3);
        assert!(graph.iter().all(|g| g.1 == "CompiledFunction"), "{graph:?}");
        assert_eq!(graph.iter().map(|g| g.2).sum::<u64>(), 9_000);
    }

    #[test]
    fn the_vendor_picks_the_tensor_core_rule() {
        // `h884` is NVIDIA's TensorCore tile; on an AMD GPU it means nothing.
        let nvidia = kernel_stats(&KinetoIndex::new(&graph_trace(r#"{"id":0,"name":"V100","warpSize":32}"#)));
        let gemm = nvidia.iter().find(|r| r.name == "volta_h884gemm").unwrap();
        assert!(gemm.uses_tensor_core && gemm.op_tensor_core_eligible);
        let amd = KinetoIndex::new(&graph_trace(r#"{"id":0,"name":"AMD Instinct MI300X VF","warpSize":64}"#));
        assert_eq!(amd.vendor, kernels::GpuVendor::Amd);
        let gemm = kernel_stats(&amd).into_iter().find(|r| r.name == "volta_h884gemm").unwrap();
        assert!(!gemm.uses_tensor_core && gemm.op_tensor_core_eligible);
    }
}
