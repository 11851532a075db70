//! Kernel stats of PyTorch (Kineto) traces.
//!
//! A kernel's op is the one that launched it
//! ([`KinetoIndex::device_external_ids`]: a CUDA graph's kernels go to the op
//! around the `cudaGraphLaunch`); whether it used TensorCores follows the
//! device's vendor ([`crate::passes::tensor_core::uses_tensor_core_on`]).

use crate::passes::kernels::{self, parse_kernel_details, KernelRow};
use crate::passes::kineto::{DeviceKind, HostKind, KinetoIndex, Text};
use crate::passes::tensor_core::{self, uses_tensor_core_on};
use rustc_hash::FxHashMap;

/// XProf-shaped kernel rows (see [`crate::passes::kernels`]) whose `op_name`
/// is the launching PyTorch op (`aten::mm`, …). Kineto has no theoretical
/// occupancy; `occupancy_pct` is its estimated achieved occupancy.
pub fn kernel_stats(index: &KinetoIndex) -> Vec<KernelRow> {
    let launcher = index.device_external_ids();
    let op_of: FxHashMap<i64, Text> = index
        .host
        .iter()
        .filter(|h| h.kind == HostKind::CpuOp)
        .filter_map(|h| Some((h.external_id.get()?, h.name)))
        .collect();
    // Kernels with the same name, details and op make one row here already
    // (a trace has millions of launches of a few thousand such kernels);
    // `combine` then merges rows whose details parse alike, sorts and cuts.
    // Rows stay in the order of their first kernel, so the row `combine`
    // keeps for each key is the one of the key's first kernel, as before.
    let mut row_of: FxHashMap<(Text, Option<Text>, Option<Text>), usize> = FxHashMap::default();
    let mut rows: Vec<KernelRow> = Vec::new();
    let kernels =
        index.device.iter().zip(launcher).filter(|(d, _)| d.kind == DeviceKind::Kernel && d.end_ps > d.start_ps);
    for (d, ext) in kernels {
        let op = ext.and_then(|e| op_of.get(&e).copied());
        let ns = ((d.end_ps - d.start_ps) / 1000) as u64;
        let row = *row_of.entry((d.name, d.kernel_details, op)).or_insert_with(|| {
            rows.push(kernel_row(index, d.name, d.kernel_details, op));
            rows.len() - 1
        });
        rows[row].add_run(ns);
    }
    kernels::combine(&[&rows])
}

/// The row of a kernel, with no occurrence yet.
fn kernel_row(index: &KinetoIndex, name: Text, details: Option<Text>, op: Option<Text>) -> KernelRow {
    let details = parse_kernel_details(details.map_or("", |k| index.text(k)));
    let op_name = op.map_or(String::new(), |o| index.text(o).to_string());
    // The device's vendor picks the rule: AMD's matrix cores on ROCm.
    let uses = uses_tensor_core_on(index.vendor, index.text(name));
    let op_eligible = uses || torch_op_tensor_core_eligible(&op_name);
    KernelRow::not_run(index.text(name).to_string(), &details, op_name, uses, op_eligible)
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
    OPS.iter().any(|o| op.starts_with(o)) || tensor_core::op_tensor_core_eligible(op)
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
        assert_eq!(amd.vendor, tensor_core::GpuVendor::Amd);
        let gemm = kernel_stats(&amd).into_iter().find(|r| r.name == "volta_h884gemm").unwrap();
        assert!(!gemm.uses_tensor_core && gemm.op_tensor_core_eligible);
    }
}
