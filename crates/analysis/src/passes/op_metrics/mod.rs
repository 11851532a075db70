//! Op metrics databases (host and device): per op occurrences, total and self time.
//!
//! These are XProf's `OpMetricsDb`s (xplane_to_op_metrics_db.cc), the shared
//! intermediate behind the framework op stats, overview page and input
//! pipeline tools:
//!
//! * [`host_op_metrics`]: framework ops run on the host threads (`/host:CPU`).
//!   An op is an event whose name parses as a framework op (`name:Type`,
//!   tf.data `Iterator::…` with type `Dataset`, JAX, memcpy), an event with an
//!   input-pipeline stage (`_ipl_stage_id` + `_ipl_stage_cat`, type = the
//!   stage category), or an event carrying a `tf_op` stat (the stat's op).
//!   Ops are keyed by (id, name): id is the stage id for stage ops and 0
//!   otherwise; `category` holds the op type (`Dataset`, `MatMul`, …).
//!   The input-pipeline analyzer reads its input ops from this DB: select the
//!   ops whose `category` is `Dataset`, `InfeedEnqueue`, `MemcpyHToD`… and
//!   use `self_time_ps`.
//! * [`device_op_metrics`]: on GPUs, kernels (and memcpys) that carry a
//!   `tf_op` stat, named `<tf op name>/<kernel name>` with the full `tf_op` as
//!   provenance; on TPUs, the `XLA Ops` of each TensorCore.
//!   [`OpMetricsDb::framework_ops`] folds them into framework ops.
//!
//! Both DBs hold an `IDLE` op (name = category = `IDLE`, no occurrences): the
//! part of the measured time in which no op ran.
//!
//! The host pass replays XProf's activity stack faithfully, quirks included:
//! an op whose end coincides with an enclosing op's end, or that overlaps a
//! sibling without nesting, is dropped (XProf pops it unfinished).
//!
//! Files: `host` replays the host threads; `device` picks the planes that
//! count, `tpu` or `gpu`; `memory_breakdown` decodes the TPU memory stat.
//! The shared types, and the helpers several of them use, live here.

mod device;
mod gpu;
mod host;
mod memory_breakdown;
#[cfg(test)]
pub(crate) mod test_builder;
mod tpu;

pub use device::{device_op_metrics, device_op_metrics_with_hlo};
pub use host::host_op_metrics;

use crate::common::tf_op;
use proflens_model::{Line, Plane, StatKind, StrId};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

/// Name and category of the idle op.
pub const IDLE: &str = "IDLE";

/// Metrics of one op, summed over its occurrences.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OpMetrics {
    /// Second key part besides the name (XProf's `hlo_module_id`): the XLA
    /// program id of TPU ops, the input-pipeline stage id (as two's
    /// complement) of `_ipl_stage_*` host ops, else 0.
    pub id: u64,
    /// Op name: the framework op name (`model/dense/MatMul`), the full tf.data
    /// iterator name, or `<tf op name>/<kernel name>` on a device.
    pub name: String,
    /// Op type (`MatMul`, `Dataset`, …); `IDLE` for the idle op.
    pub category: String,
    /// Device ops: the full framework op (`name:Type`) the kernel ran for.
    pub provenance: String,
    pub is_eager: bool,
    pub occurrences: u64,
    /// Total time over all occurrences, ps.
    pub time_ps: u64,
    /// Total time minus the time of nested ops, ps.
    pub self_time_ps: u64,
    pub flops: u64,
    pub model_flops: u64,
    pub bytes_accessed: u64,
    /// Bytes accessed by memory space, when the profile breaks them down (TPU).
    pub memory_breakdown: Option<MemoryBreakdown>,
    /// Device ops: time of the kernels (events with `kernel_details`), ps.
    pub kernel_time_ps: u64,
    /// Device ops: time of the kernels that use TensorCores, ps.
    pub tensor_core_time_ps: u64,
}

/// Bytes an op accessed per memory space (XProf's memory_accessed_breakdown).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryBreakdown {
    pub hbm: u64,
    pub cmem_read: u64,
    pub cmem_write: u64,
    pub vmem_read: u64,
    pub vmem_write: u64,
}

impl MemoryBreakdown {
    fn add(&mut self, other: &MemoryBreakdown) {
        self.hbm = self.hbm.saturating_add(other.hbm);
        self.cmem_read = self.cmem_read.saturating_add(other.cmem_read);
        self.cmem_write = self.cmem_write.saturating_add(other.cmem_write);
        self.vmem_read = self.vmem_read.saturating_add(other.vmem_read);
        self.vmem_write = self.vmem_write.saturating_add(other.vmem_write);
    }

    fn scaled(&self, factor: u64) -> MemoryBreakdown {
        MemoryBreakdown {
            hbm: self.hbm.saturating_mul(factor),
            cmem_read: self.cmem_read.saturating_mul(factor),
            cmem_write: self.cmem_write.saturating_mul(factor),
            vmem_read: self.vmem_read.saturating_mul(factor),
            vmem_write: self.vmem_write.saturating_mul(factor),
        }
    }
}

impl OpMetrics {
    pub fn is_idle(&self) -> bool {
        self.category == IDLE
    }
}

/// A set of ops with the time they were measured over.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OpMetricsDb {
    /// Ops in first-seen order (the idle op included).
    pub ops: Vec<OpMetrics>,
    /// Measured time: per host line / device the span of its ops (at least
    /// their summed self time), summed over lines / devices, ps.
    pub total_time_ps: u64,
    /// Sum of the ops' self times (idle excluded), ps.
    pub total_op_time_ps: u64,
}

impl OpMetricsDb {
    /// Time in which no op ran, ps.
    pub fn idle_time_ps(&self) -> u64 {
        self.total_time_ps.saturating_sub(self.total_op_time_ps)
    }

    pub fn idle_op(&self) -> Option<&OpMetrics> {
        self.ops.iter().find(|op| op.is_idle())
    }

    /// The ops sorted by self time, longest first (ties by name, category, id).
    pub fn sorted_by_self_time(&self) -> Vec<&OpMetrics> {
        let mut ops: Vec<&OpMetrics> = self.ops.iter().collect();
        ops.sort_by(|a, b| {
            b.self_time_ps
                .cmp(&a.self_time_ps)
                .then_with(|| a.name.cmp(&b.name))
                .then_with(|| a.category.cmp(&b.category))
                .then_with(|| a.id.cmp(&b.id))
        });
        ops
    }

    /// Adds `other` into `self` (XProf's OpMetricsDbCombiner): totals add up,
    /// ops with the same (id, name) merge.
    pub fn combine(&mut self, other: &OpMetricsDb) {
        self.total_time_ps = self.total_time_ps.saturating_add(other.total_time_ps);
        self.total_op_time_ps = self.total_op_time_ps.saturating_add(other.total_op_time_ps);
        let mut index: FxHashMap<(u64, String), usize> =
            self.ops.iter().enumerate().map(|(i, op)| ((op.id, op.name.clone()), i)).collect();
        for op in &other.ops {
            let slot = *index.entry((op.id, op.name.clone())).or_insert_with(|| {
                self.ops.push(OpMetrics { id: op.id, name: op.name.clone(), ..OpMetrics::default() });
                self.ops.len() - 1
            });
            let dst = &mut self.ops[slot];
            if dst.category.is_empty() {
                dst.category.clone_from(&op.category);
            }
            if dst.provenance.is_empty() {
                dst.provenance.clone_from(&op.provenance);
            }
            merge_counts(dst, op);
            merge_breakdown(dst, op);
            dst.is_eager |= op.is_eager;
            dst.occurrences = dst.occurrences.saturating_add(op.occurrences);
        }
    }

    /// Device ops folded into the framework ops they ran for (XProf's
    /// CreateTfMetricsDbFromDeviceOpMetricsDb): keyed by the parsed provenance
    /// (or the op name when there is none, type `Unknown`); occurrences are the
    /// largest of the folded ops', times and costs add up. The idle op is kept
    /// only `with_idle`, and then also counts in `total_time_ps`.
    pub fn framework_ops(&self, with_idle: bool) -> OpMetricsDb {
        let mut out = OpMetricsDb {
            ops: Vec::new(),
            total_time_ps: if with_idle { self.total_time_ps } else { self.total_op_time_ps },
            total_op_time_ps: self.total_op_time_ps,
        };
        let mut index: FxHashMap<String, usize> = FxHashMap::default();
        for op in &self.ops {
            let (name, op_type) = if op.is_idle() {
                if !with_idle {
                    continue;
                }
                (IDLE, IDLE.to_string())
            } else if op.provenance.is_empty() {
                (op.name.as_str(), String::new())
            } else {
                let parsed = tf_op::parse(&op.provenance);
                (parsed.name, parsed.op_type.into_owned())
            };
            let slot = *index.entry(name.to_string()).or_insert_with(|| {
                out.ops.push(OpMetrics { name: name.to_string(), ..OpMetrics::default() });
                out.ops.len() - 1
            });
            let dst = &mut out.ops[slot];
            if dst.category.is_empty() {
                dst.category = if op_type.is_empty() { "Unknown".to_string() } else { op_type };
            }
            // XProf overwrites: the last folded op decides.
            dst.is_eager = op.is_eager;
            dst.occurrences = dst.occurrences.max(op.occurrences);
            merge_counts(dst, op);
            merge_breakdown(dst, op);
        }
        out
    }
}

fn merge_breakdown(dst: &mut OpMetrics, src: &OpMetrics) {
    if let Some(src) = &src.memory_breakdown {
        dst.memory_breakdown.get_or_insert_with(MemoryBreakdown::default).add(src);
    }
}

fn merge_counts(dst: &mut OpMetrics, src: &OpMetrics) {
    dst.time_ps = dst.time_ps.saturating_add(src.time_ps);
    dst.self_time_ps = dst.self_time_ps.saturating_add(src.self_time_ps);
    dst.flops = dst.flops.saturating_add(src.flops);
    dst.model_flops = dst.model_flops.saturating_add(src.model_flops);
    dst.bytes_accessed = dst.bytes_accessed.saturating_add(src.bytes_accessed);
    dst.kernel_time_ps = dst.kernel_time_ps.saturating_add(src.kernel_time_ps);
    dst.tensor_core_time_ps = dst.tensor_core_time_ps.saturating_add(src.tensor_core_time_ps);
}

// Helpers for the pass files: here rather than in one of them, so that the
// files stay independent of each other (host and gpu read tf_op stats, tpu
// and gpu both end in a device DB).

/// A string stat of event `i` (event stats first, then its metadata's), as its interned id.
fn str_stat_id(plane: &Plane, line: &Line, i: usize, key: Option<StrId>) -> Option<StrId> {
    let key = key?;
    let events = &line.events;
    let stat = match events.stats.of(i).find(|s| s.key == key) {
        Some(s) => s,
        None => {
            let meta = plane.event_metadata.get(*events.metadata.get(i)? as usize)?;
            meta.stats.iter().find(|s| s.key == key)?
        }
    };
    (stat.kind == StatKind::Str).then_some(StrId(stat.bits as u32))
}

/// Adds the idle op: the measured span (at least the op time) minus the op time.
fn finish_device_db(mut ops: Vec<OpMetrics>, span: Option<(i64, i64)>, op_time_ps: u64) -> OpMetricsDb {
    let span_ps = span.map_or(0, |(a, b)| u64::try_from(b.saturating_sub(a)).unwrap_or(0));
    let total_time_ps = span_ps.max(op_time_ps);
    ops.push(OpMetrics {
        name: IDLE.into(),
        category: IDLE.into(),
        time_ps: total_time_ps - op_time_ps,
        self_time_ps: total_time_ps - op_time_ps,
        ..OpMetrics::default()
    });
    OpMetricsDb { ops, total_time_ps, total_op_time_ps: op_time_ps }
}
