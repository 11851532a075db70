//! GPU op metrics: the kernels of one GPU plane, as framework ops
//! (`tf_op` stat) or, with the HLO, as XLA ops (`hlo_op` stat).

use super::{finish_device_db, str_stat_id, OpMetrics, OpMetricsDb};
use crate::common::schema::{event_stat, is_derived_line, StatKeys};
use crate::common::tf_op;
use crate::hlo::gpu::{innermost, GpuHlo};
use crate::passes::grouping::{Grouping, FLAG_EAGER};
use crate::passes::tensor_core::{plane_vendor, uses_tensor_core_of, GpuVendor};
use proflens_model::{Line, MetaIdx, Plane, Profile, StrId};
use rustc_hash::FxHashMap;

pub(super) fn gpu_plane_op_metrics(
    profile: &Profile,
    grouping: &Grouping,
    keys: &StatKeys,
    hlo: &GpuHlo<'_>,
    p: usize,
) -> OpMetricsDb {
    let plane = &profile.planes[p];
    let kernel_time = KernelTime { profile, plane, keys, vendor: plane_vendor(profile, plane) };
    let mut ops: Vec<OpMetrics> = Vec::new();
    let mut by_key: FxHashMap<(MetaIdx, StrId), usize> = FxHashMap::default();
    // XLA ops by (program id, innermost HLO name); None: HLO unknown.
    let mut xla: FxHashMap<(u64, String), Option<XlaSlot>> = FxHashMap::default();
    let mut by_name: FxHashMap<String, usize> = FxHashMap::default();
    let mut span: Option<(i64, i64)> = None;
    let mut op_time_ps = 0u64;
    let no_flags: &[u8] = &[];
    for (l, line) in plane.lines.iter().enumerate() {
        if is_derived_line(line) {
            continue;
        }
        let flags = grouping.planes.get(p).and_then(|lines| lines.get(l)).map_or(no_flags, |g| &g.flags[..]);
        let ev = &line.events;
        for i in 0..ev.len() {
            let (start, end) = (ev.start_ps.at(i), ev.end_ps(i));
            span = Some(span.map_or((start, end), |(a, b)| (a.min(start), b.max(end))));
            if let Some(hlo_op) = event_stat(profile, plane, line, i, keys.hlo_op) {
                let program = event_stat(profile, plane, line, i, keys.program_id).and_then(|v| v.as_u64());
                let (Some(hlo_op), Some(program)) = (hlo_op.as_str(), program) else { continue };
                let name = innermost(hlo_op);
                let entry = xla.entry((program, name.to_string())).or_insert_with(|| {
                    let op = hlo.op(program, name)?;
                    ops.push(OpMetrics {
                        id: program,
                        name: name.to_string(),
                        category: op.category,
                        provenance: op.provenance,
                        ..OpMetrics::default()
                    });
                    Some(XlaSlot {
                        slot: ops.len() - 1,
                        flops: op.flops,
                        model_flops: op.model_flops,
                        bytes_accessed: op.bytes_accessed,
                    })
                });
                let Some(XlaSlot { slot, flops, model_flops, bytes_accessed }) = *entry else { continue };
                let Some(op) = ops.get_mut(slot) else { continue };
                let duration = u64::try_from(ev.duration_ps.at(i)).unwrap_or(0);
                // Every kernel is one occurrence and costs the instruction's cost.
                op.occurrences += 1;
                op.time_ps = op.time_ps.saturating_add(duration);
                op.self_time_ps = op.self_time_ps.saturating_add(duration);
                op.flops = op.flops.saturating_add(flops);
                op.model_flops = op.model_flops.saturating_add(model_flops);
                op.bytes_accessed = op.bytes_accessed.saturating_add(bytes_accessed);
                op_time_ps = op_time_ps.saturating_add(duration);
                kernel_time.add(line, i, op, duration);
                continue;
            }
            let Some(tf_op) = str_stat_id(plane, line, i, keys.tf_op) else {
                continue;
            };
            let full = profile.str(tf_op);
            if full.is_empty() {
                continue;
            }
            let meta = ev.metadata[i];
            let slot = match by_key.get(&(meta, tf_op)) {
                Some(&slot) => slot,
                None => {
                    let kernel = plane.event_metadata.get(meta as usize).map_or("", |m| profile.str(m.name));
                    let op = tf_op::parse(full);
                    let name = format!("{}/{}", op.name, kernel);
                    let slot = *by_name.entry(name.clone()).or_insert_with(|| {
                        ops.push(OpMetrics {
                            name,
                            category: if op.op_type.is_empty() { "unknown".into() } else { op.op_type.into_owned() },
                            provenance: full.to_string(),
                            ..OpMetrics::default()
                        });
                        ops.len() - 1
                    });
                    by_key.insert((meta, tf_op), slot);
                    slot
                }
            };
            let eager = flags.get(i).is_some_and(|f| f & FLAG_EAGER != 0)
                || event_stat(profile, plane, line, i, keys.is_eager).and_then(|v| v.as_i64()).unwrap_or(0) != 0;
            let duration = u64::try_from(ev.duration_ps.at(i)).unwrap_or(0);
            let Some(op) = ops.get_mut(slot) else {
                continue;
            };
            if op.occurrences == 0 {
                // XProf takes the eager flag of an op's first occurrence.
                op.is_eager = eager;
            }
            op.occurrences += 1;
            op.time_ps = op.time_ps.saturating_add(duration);
            op.self_time_ps = op.self_time_ps.saturating_add(duration);
            op_time_ps = op_time_ps.saturating_add(duration);
            kernel_time.add(line, i, op, duration);
        }
    }
    finish_device_db(ops, span, op_time_ps)
}

/// Where an XLA op of a GPU plane sits in the op list, and its cost per occurrence.
#[derive(Clone, Copy)]
struct XlaSlot {
    slot: usize,
    flops: u64,
    model_flops: u64,
    bytes_accessed: u64,
}

/// Counts kernels in their op's kernel time and TensorCore time; which
/// kernels ran on TensorCores depends on the plane's vendor.
struct KernelTime<'a> {
    profile: &'a Profile,
    plane: &'a Plane,
    keys: &'a StatKeys,
    vendor: Option<GpuVendor>,
}

impl KernelTime<'_> {
    /// Counts event `i` in `op`'s kernel time (and TensorCore time) if it is a kernel.
    fn add(&self, line: &Line, i: usize, op: &mut OpMetrics, duration: u64) {
        let (profile, plane) = (self.profile, self.plane);
        if duration > 0 && event_stat(profile, plane, line, i, self.keys.kernel_details).is_some() {
            op.kernel_time_ps = op.kernel_time_ps.saturating_add(duration);
            let kernel = plane.event_metadata.get(line.events.metadata[i] as usize).map_or("", |m| profile.str(m.name));
            if uses_tensor_core_of(self.vendor, kernel) {
                op.tensor_core_time_ps = op.tensor_core_time_ps.saturating_add(duration);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::passes::grouping::Grouping;
    use crate::passes::op_metrics::test_builder::{op, Builder, V};
    use crate::passes::op_metrics::{device_op_metrics, IDLE};

    #[test]
    fn gpu_kernels_become_framework_ops() {
        let mut b = Builder::new();
        let p = b.plane("/device:GPU:0");
        b.plane_stat(p, "device_vendor", V::S("Nvidia"));
        let gemm = b.meta(p, "volta_h884gemm", None, &[]);
        let add = b.meta(p, "add_kernel", None, &[]);
        let xla = b.meta(p, "fusion_kernel", None, &[]);
        let k = |tf: &'static str| vec![("tf_op", V::S(tf)), ("kernel_details", V::S("regs:32"))];
        b.line(
            p,
            7,
            "Stream #7(Compute)",
            vec![
                (gemm, 1_000, 100, k("dense/MatMul:MatMul")),
                (add, 1_200, 50, k("dense/MatMul:MatMul")),
                (gemm, 1_300, 100, k("dense/MatMul:MatMul")),
                (xla, 1_500, 100, vec![("hlo_op", V::S("fusion.1"))]),
                (add, 1_900, 100, k("bias")),
            ],
        );
        let profile = b.build();
        let db = device_op_metrics(&profile, &Grouping::default());
        let g = op(&db, "dense/MatMul/volta_h884gemm");
        assert_eq!((g.category.as_str(), g.provenance.as_str()), ("MatMul", "dense/MatMul:MatMul"));
        assert_eq!((g.occurrences, g.time_ps, g.tensor_core_time_ps, g.kernel_time_ps), (2, 200, 200, 200));
        assert_eq!(op(&db, "bias/add_kernel").category, "unknown");
        // The XLA op is not counted; the span still covers it.
        assert_eq!(db.total_time_ps, 1_000);
        assert_eq!(db.total_op_time_ps, 350);
        assert_eq!(db.idle_time_ps(), 650);

        let framework = db.framework_ops(true);
        let matmul = op(&framework, "dense/MatMul");
        assert_eq!((matmul.category.as_str(), matmul.occurrences, matmul.time_ps), ("MatMul", 2, 250));
        assert_eq!((matmul.tensor_core_time_ps, matmul.kernel_time_ps), (200, 250));
        assert_eq!(op(&framework, "bias").category, "Unknown");
        assert_eq!(op(&framework, IDLE).self_time_ps, 650);
        let without = db.framework_ops(false);
        assert!(without.idle_op().is_none());
        assert_eq!(without.total_time_ps, 350);
    }
}
