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

use crate::passes::grouping::{Grouping, FLAG_EAGER};
use crate::common::schema::{event_stat, is_derived_line, StatKeys, GPU_PLANE_PREFIX, HOST_PLANE, TPU_PLANE_PREFIX};
use crate::common::tf_op::{self, OpCategory};
use crate::hlo::gpu::{innermost, GpuHlo};
use proflens_model::{Line, MetaIdx, Plane, Profile, StatKind, StatValue, StrId};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

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

    /// Decodes a serialized `MemoryAccessBreakdown` proto (repeated
    /// `MemoryAccessed {operation_type = 1; memory_space = 2; bytes_accessed = 3}`
    /// in field 1); `None` when it is malformed or holds no entry.
    pub fn decode(bytes: &[u8]) -> Option<MemoryBreakdown> {
        let mut out = MemoryBreakdown::default();
        let mut entries = 0;
        let mut outer = ProtoReader(bytes);
        while !outer.0.is_empty() {
            let (field, wire) = outer.key()?;
            if field == 1 && wire == 2 {
                let (mut op_type, mut space, mut amount) = (0, 0, 0);
                let mut inner = ProtoReader(outer.bytes()?);
                while !inner.0.is_empty() {
                    let (field, wire) = inner.key()?;
                    match (field, wire) {
                        (1, 0) => op_type = inner.varint()?,
                        (2, 0) => space = inner.varint()?,
                        (3, 0) => amount = inner.varint()?,
                        _ => inner.skip(wire)?,
                    }
                }
                entries += 1;
                // Memory spaces: 1 HBM, 2 CMEM, 3 VMEM; operation 1 read, 2 write.
                let slot = match (space, op_type) {
                    (1, _) => &mut out.hbm,
                    (2, 1) => &mut out.cmem_read,
                    (2, 2) => &mut out.cmem_write,
                    (3, 1) => &mut out.vmem_read,
                    (3, 2) => &mut out.vmem_write,
                    _ => continue,
                };
                *slot = slot.saturating_add(amount);
            } else {
                outer.skip(wire)?;
            }
        }
        (entries > 0).then_some(out)
    }
}

/// Minimal protobuf wire reader for the few small messages stored in stats.
struct ProtoReader<'a>(&'a [u8]);

impl<'a> ProtoReader<'a> {
    fn varint(&mut self) -> Option<u64> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let (&byte, rest) = self.0.split_first()?;
            self.0 = rest;
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Some(value);
            }
        }
        None
    }

    fn key(&mut self) -> Option<(u64, u8)> {
        let key = self.varint()?;
        Some((key >> 3, (key & 7) as u8))
    }

    fn bytes(&mut self) -> Option<&'a [u8]> {
        let len = usize::try_from(self.varint()?).ok()?;
        if len > self.0.len() {
            return None;
        }
        let (head, rest) = self.0.split_at(len);
        self.0 = rest;
        Some(head)
    }

    fn skip(&mut self, wire: u8) -> Option<()> {
        match wire {
            0 => self.varint().map(drop),
            1 | 5 => {
                let n = if wire == 1 { 8 } else { 4 };
                self.0 = self.0.get(n..)?;
                Some(())
            }
            2 => self.bytes().map(drop),
            _ => None,
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

/// Ops under construction: (id, name) → slot, plus the op type each
/// registration proposes (the first non-empty one becomes the category).
#[derive(Default)]
struct OpTable {
    index: FxHashMap<(u64, String), u32>,
    ops: Vec<OpMetrics>,
    /// Registered (slot, op type) pairs; activities refer to them by index.
    variants: Vec<(u32, String)>,
    variant_index: FxHashMap<(u32, String), u32>,
}

impl OpTable {
    fn slot(&mut self, id: u64, name: &str) -> u32 {
        if let Some(&slot) = self.index.get(&(id, name.to_string())) {
            return slot;
        }
        let slot = self.ops.len() as u32;
        self.ops.push(OpMetrics { id, name: name.to_string(), ..OpMetrics::default() });
        self.index.insert((id, name.to_string()), slot);
        slot
    }

    /// Registers an op and the type this occurrence gives it.
    fn variant(&mut self, id: u64, name: &str, op_type: &str) -> u32 {
        let slot = self.slot(id, name);
        if let Some(&v) = self.variant_index.get(&(slot, op_type.to_string())) {
            return v;
        }
        let v = self.variants.len() as u32;
        self.variants.push((slot, op_type.to_string()));
        self.variant_index.insert((slot, op_type.to_string()), v);
        v
    }

    /// One finished occurrence (XProf's HostOpMetricsDbBuilder::EnterOp).
    fn enter(&mut self, variant: u32, is_eager: bool, time_ps: u64, children_ps: u64) -> u64 {
        let Some((slot, op_type)) = self.variants.get(variant as usize) else {
            return 0;
        };
        let Some(op) = self.ops.get_mut(*slot as usize) else {
            return 0;
        };
        if op.category.is_empty() {
            op.category.clone_from(op_type);
        }
        let self_ps = time_ps.saturating_sub(children_ps);
        op.is_eager |= is_eager;
        op.occurrences += 1;
        op.time_ps = op.time_ps.saturating_add(time_ps);
        op.self_time_ps = op.self_time_ps.saturating_add(self_ps);
        self_ps
    }

    fn into_db(self, total_time_ps: u64, total_op_time_ps: u64) -> OpMetricsDb {
        OpMetricsDb { ops: self.ops, total_time_ps, total_op_time_ps }
    }
}

/// An op on the replay stack: begun, not yet ended.
struct OpenOp {
    seq: u64,
    start_ps: i64,
    children_ps: u64,
}

/// The end of an activity, ordered by time, then by recording position.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct PendingEnd {
    end_ps: i64,
    position: u64,
    seq: u64,
    variant: u32,
    eager: bool,
}

/// Replays one line's activities through XProf's op stack. Every op is a
/// begin and an end activity; they are replayed in time order, ties in the
/// order they were recorded (an op's begin, then its end). Begins arrive in
/// order with the events, so only the ends wait in a heap.
#[derive(Default)]
struct LineReplay {
    stack: Vec<OpenOp>,
    ends: BinaryHeap<Reverse<PendingEnd>>,
    seq: u64,
    first_ps: Option<i64>,
    last_ps: i64,
    op_time_ps: u64,
}

impl LineReplay {
    fn reset(&mut self) {
        self.stack.clear();
        self.ends.clear();
        self.seq = 0;
        self.first_ps = None;
        self.last_ps = 0;
        self.op_time_ps = 0;
    }

    /// Records an activity spanning [start, end) and replays everything before its begin.
    fn activity(&mut self, table: &mut OpTable, start_ps: i64, end_ps: i64, variant: u32, eager: bool) {
        let seq = self.seq;
        self.seq += 1;
        // Ends recorded earlier sort before this begin when not later in time.
        while let Some(Reverse(pending)) = self.ends.peek() {
            if pending.end_ps > start_ps {
                break;
            }
            self.pop_end(table);
        }
        self.first_ps.get_or_insert(start_ps);
        self.last_ps = self.last_ps.max(end_ps);
        self.stack.push(OpenOp { seq, start_ps, children_ps: 0 });
        self.ends.push(Reverse(PendingEnd { end_ps, position: 2 * seq + 1, seq, variant, eager }));
    }

    fn pop_end(&mut self, table: &mut OpTable) {
        let Some(Reverse(PendingEnd { end_ps, seq, variant, eager, .. })) = self.ends.pop() else {
            return;
        };
        // Pop until the matching begin; anything above it is dropped unfinished.
        while let Some(open) = self.stack.pop() {
            if open.seq != seq {
                continue;
            }
            let time_ps = u64::try_from(end_ps.saturating_sub(open.start_ps)).unwrap_or(0);
            self.op_time_ps = self.op_time_ps.saturating_add(table.enter(variant, eager, time_ps, open.children_ps));
            if let Some(parent) = self.stack.last_mut() {
                parent.children_ps = parent.children_ps.saturating_add(time_ps);
            }
            break;
        }
    }

    /// Replays the remaining ends; returns (line total time, line op time).
    fn finish(&mut self, table: &mut OpTable) -> (u64, u64) {
        while !self.ends.is_empty() {
            self.pop_end(table);
        }
        let span = match self.first_ps {
            Some(first) => u64::try_from(self.last_ps.saturating_sub(first)).unwrap_or(0),
            None => 0,
        };
        (span.max(self.op_time_ps), self.op_time_ps)
    }
}

/// Host op metrics of `/host:CPU` (empty when the profile has no host plane).
///
/// `grouping` supplies the eager flag (`FLAG_EAGER`); an `is_eager` stat in
/// the file counts as well.
pub fn host_op_metrics(profile: &Profile, grouping: &Grouping) -> OpMetricsDb {
    let keys = StatKeys::new(profile);
    let Some(p) = profile.planes.iter().position(|pl| profile.str(pl.name) == HOST_PLANE) else {
        return OpMetricsDb::default();
    };
    let plane = &profile.planes[p];
    let mut table = OpTable::default();

    // Ops named by their event metadata.
    let meta_variant: Vec<Option<u32>> = plane
        .event_metadata
        .iter()
        .map(|m| {
            let name = profile.str(m.name);
            let op = tf_op::parse(name);
            (!name.is_empty() && op.category != OpCategory::Unknown).then(|| table.variant(0, op.name, &op.op_type))
        })
        .collect();

    // Input-pipeline stage ops: the first event of a stage (with a category) names it.
    let mut stages: FxHashMap<i64, u32> = FxHashMap::default();
    if keys.ipl_stage_id.is_some() {
        for line in &plane.lines {
            for i in 0..line.events.len() {
                let Some(stage) = event_stat(profile, plane, line, i, keys.ipl_stage_id).and_then(|v| v.as_i64())
                else {
                    continue;
                };
                if stages.contains_key(&stage) {
                    continue;
                }
                let name = line.events.metadata.get(i).and_then(|&m| plane.event_metadata.get(m as usize));
                let name = name.map_or("", |m| profile.str(m.name));
                if name.is_empty() {
                    continue;
                }
                let Some(cat) = event_stat(profile, plane, line, i, keys.ipl_stage_cat) else {
                    continue;
                };
                let cat = cat.as_str().unwrap_or("");
                let id = stage as u64;
                let variant = if cat.is_empty() {
                    let op = tf_op::parse(name);
                    table.variant(id, op.name, &op.op_type)
                } else {
                    table.variant(id, name, cat)
                };
                stages.insert(stage, variant);
            }
        }
    }

    // Ops named by a `tf_op` stat, by the stat's interned value.
    let mut tf_op_variants: FxHashMap<StrId, Option<u32>> = FxHashMap::default();
    let mut replay = LineReplay::default();
    let (mut total_time_ps, mut total_op_time_ps, mut idle_ps) = (0u64, 0u64, 0u64);
    let no_flags: &[u8] = &[];
    for (l, line) in plane.lines.iter().enumerate() {
        replay.reset();
        if !is_derived_line(line) {
            let flags = grouping.planes.get(p).and_then(|lines| lines.get(l)).map_or(no_flags, |g| &g.flags[..]);
            let ev = &line.events;
            for i in 0..ev.len() {
                let (start, end) = (ev.start_ps[i], ev.end_ps(i));
                let stage = match keys.ipl_stage_id {
                    Some(_) => event_stat(profile, plane, line, i, keys.ipl_stage_id).and_then(|v| v.as_i64()),
                    None => None,
                };
                let variant = match stage {
                    Some(stage) => stages.get(&stage).copied(),
                    None => meta_variant.get(ev.metadata[i] as usize).copied().flatten(),
                };
                if let Some(variant) = variant {
                    let eager = flags.get(i).is_some_and(|f| f & FLAG_EAGER != 0)
                        || event_stat(profile, plane, line, i, keys.is_eager).and_then(|v| v.as_i64()).unwrap_or(0)
                            != 0;
                    replay.activity(&mut table, start, end, variant, eager);
                }
                if let Some(value) = str_stat_id(plane, line, i, keys.tf_op) {
                    let variant = *tf_op_variants.entry(value).or_insert_with(|| {
                        let full = profile.str(value);
                        (!full.is_empty()).then(|| {
                            let op = tf_op::parse(full);
                            table.variant(0, op.name, &op.op_type)
                        })
                    });
                    if let Some(variant) = variant {
                        replay.activity(&mut table, start, end, variant, false);
                    }
                }
            }
        }
        let (line_total, line_ops) = replay.finish(&mut table);
        total_time_ps = total_time_ps.saturating_add(line_total);
        total_op_time_ps = total_op_time_ps.saturating_add(line_ops);
        idle_ps = idle_ps.saturating_add(line_total - line_ops);
    }
    if !plane.lines.is_empty() {
        let slot = table.slot(0, IDLE);
        if let Some(idle) = table.ops.get_mut(slot as usize) {
            if idle.category.is_empty() {
                idle.category = IDLE.to_string();
            }
            idle.time_ps = idle.time_ps.saturating_add(idle_ps);
            idle.self_time_ps = idle.self_time_ps.saturating_add(idle_ps);
        }
    }
    table.into_db(total_time_ps, total_op_time_ps)
}

/// Device op metrics, combined over the devices.
///
/// * TPU (any `/device:TPU:N` plane; SparseCore planes are skipped): every
///   event of the `XLA Ops` lines, keyed by the (program_id, symbol_id) of its
///   metadata, named by the metadata's display name, with category, cost and
///   memory breakdown from the metadata's stats; nested ops count in their
///   parent's total but not its self time. The measured time of a core runs
///   from its first to its last op (or `Steps` event).
/// * Otherwise every GPU plane: events with a `tf_op` stat become ops named
///   `<tf op name>/<kernel name>`. Events with an `hlo_op` stat are XLA ops,
///   counted only through [`device_op_metrics_with_hlo`]. The measured time
///   runs from the first to the last event of the non-derived lines.
///
/// Empty (no idle op either) when the profile has no device plane.
pub fn device_op_metrics(profile: &Profile, grouping: &Grouping) -> OpMetricsDb {
    device_op_metrics_with_hlo(profile, grouping, &GpuHlo::new(&[]))
}

/// [`device_op_metrics`] with the HLO of the profile's XLA programs: on GPUs,
/// each kernel with an `hlo_op` whose instruction `hlo` knows is one
/// occurrence of that instruction (keyed by program id and name; category
/// and costs from the HLO, provenance from its `op_name` metadata), as XProf
/// does when it has the HLO protos.
pub fn device_op_metrics_with_hlo(profile: &Profile, grouping: &Grouping, hlo: &GpuHlo<'_>) -> OpMetricsDb {
    let keys = StatKeys::new(profile);
    let mut db = OpMetricsDb::default();
    let is_tpu = |name: &str| name.starts_with(TPU_PLANE_PREFIX);
    if profile.planes.iter().any(|pl| is_tpu(profile.str(pl.name))) {
        let tpu_keys = TpuKeys::new(profile);
        for plane in &profile.planes {
            let name = profile.str(plane.name);
            if is_tpu(name) && !name.contains("SparseCore") {
                db.combine(&tpu_plane_op_metrics(profile, &tpu_keys, plane));
            }
        }
        return db;
    }
    for (p, plane) in profile.planes.iter().enumerate() {
        if profile.str(plane.name).starts_with(GPU_PLANE_PREFIX) {
            db.combine(&gpu_plane_op_metrics(profile, grouping, &keys, hlo, p));
        }
    }
    db
}

/// Stat names only the TPU pass reads.
struct TpuKeys {
    program_id: Option<StrId>,
    symbol_id: Option<StrId>,
    hlo_category: Option<StrId>,
    tf_op: Option<StrId>,
    flops: Option<StrId>,
    model_flops: Option<StrId>,
    bytes_accessed: Option<StrId>,
    memory_access_breakdown: Option<StrId>,
    device_offset_ps: Option<StrId>,
    device_duration_ps: Option<StrId>,
    step_idle_time_ps: Option<StrId>,
}

impl TpuKeys {
    fn new(profile: &Profile) -> TpuKeys {
        let k = |name: &str| profile.strings.lookup(name);
        TpuKeys {
            program_id: k("program_id"),
            symbol_id: k("symbol_id"),
            hlo_category: k("hlo_category"),
            tf_op: k("tf_op"),
            flops: k("flops"),
            model_flops: k("model_flops"),
            bytes_accessed: k("bytes_accessed"),
            memory_access_breakdown: k("memory_access_breakdown"),
            device_offset_ps: k("device_offset_ps"),
            device_duration_ps: k("device_duration_ps"),
            step_idle_time_ps: k("step_idle_time_ps"),
        }
    }
}

/// An op event still open on the TPU ancestor stack.
struct OpenEvent {
    index: usize,
    begin: i64,
    end: i64,
    children_ps: u64,
}

fn tpu_plane_op_metrics(profile: &Profile, keys: &TpuKeys, plane: &Plane) -> OpMetricsDb {
    let strings = &profile.strings;
    let meta_stat = |meta: MetaIdx, key: Option<StrId>| {
        let key = key?;
        plane.event_metadata.get(meta as usize)?.stats.get(key, strings)
    };
    let meta_u64 = |meta: MetaIdx, key| meta_stat(meta, key).and_then(|v| v.as_u64());
    let meta_str = |meta: MetaIdx, key| meta_stat(meta, key).and_then(|v| v.as_str().map(str::to_string));
    let mut ops: Vec<OpMetrics> = Vec::new();
    let mut by_symbol: FxHashMap<(u64, u64), usize> = FxHashMap::default();
    let mut span: Option<(i64, i64)> = None;
    let mut stack: Vec<OpenEvent> = Vec::new();
    for line in &plane.lines {
        let line_name = profile.str(line.name);
        let is_step_line = line_name == "Steps" || line_name == "Sparse Core Steps";
        let is_op_line = matches!(line_name, "XLA Ops" | "Framework Ops" | "Sparse Core Ops");
        if !is_step_line && !is_op_line {
            continue;
        }
        let ev = &line.events;
        let aggregated: FxHashMap<u32, i64> = ev.aggregated.iter().copied().collect();
        let device_span = |i: usize| {
            let stat = |key| event_stat(profile, plane, line, i, key).and_then(|v| v.as_i64());
            match (stat(keys.device_offset_ps), stat(keys.device_duration_ps)) {
                (Some(offset), Some(duration)) => (offset, offset.saturating_add(duration.max(0))),
                _ => (ev.start_ps[i], ev.end_ps(i)),
            }
        };
        // An op leaves the stack: record it under its (program, symbol).
        let mut emit = |open: OpenEvent| {
            let i = open.index;
            let meta = ev.metadata[i];
            let time_ps = u64::try_from(open.end.saturating_sub(open.begin)).unwrap_or(0);
            let self_ps = time_ps.saturating_sub(open.children_ps);
            let idle = event_stat(profile, plane, line, i, keys.step_idle_time_ps).is_some();
            let key = if idle {
                (u64::MAX, u64::MAX)
            } else {
                match (meta_u64(meta, keys.program_id), meta_u64(meta, keys.symbol_id)) {
                    (Some(program), Some(symbol)) if symbol != 0 => (program, symbol),
                    _ => return,
                }
            };
            let occurrences = aggregated.get(&(i as u32)).map_or(1, |&n| u64::try_from(n).unwrap_or(0).max(1));
            let slot = *by_symbol.entry(key).or_insert_with(|| {
                let m = plane.event_metadata.get(meta as usize);
                let op = if idle {
                    OpMetrics {
                        id: u64::MAX,
                        name: "sparse_core_busy_ops".into(),
                        category: "sparse_core_busy_ops".into(),
                        ..OpMetrics::default()
                    }
                } else {
                    OpMetrics {
                        id: key.0,
                        name: m.map_or("", |m| profile.str(m.display_name.unwrap_or(m.name))).to_string(),
                        category: meta_str(meta, keys.hlo_category).unwrap_or_default(),
                        provenance: meta_str(meta, keys.tf_op).unwrap_or_default(),
                        flops: meta_u64(meta, keys.flops).unwrap_or(0),
                        model_flops: meta_u64(meta, keys.model_flops).unwrap_or(0),
                        bytes_accessed: meta_u64(meta, keys.bytes_accessed).unwrap_or(0),
                        memory_breakdown: match meta_stat(meta, keys.memory_access_breakdown) {
                            Some(StatValue::Bytes(b)) => MemoryBreakdown::decode(b),
                            _ => None,
                        },
                        ..OpMetrics::default()
                    }
                };
                ops.push(op);
                ops.len() - 1
            });
            if let Some(op) = ops.get_mut(slot) {
                op.occurrences = op.occurrences.saturating_add(occurrences);
                op.time_ps = op.time_ps.saturating_add(time_ps);
                op.self_time_ps = op.self_time_ps.saturating_add(self_ps);
            }
        };
        for i in 0..ev.len() {
            let (begin, end) = device_span(i);
            span = Some(span.map_or((begin, end), |(a, b)| (a.min(begin), b.max(end))));
            if !is_op_line {
                continue;
            }
            while let Some(top) = stack.last() {
                if top.begin <= begin && end <= top.end {
                    break;
                }
                if let Some(open) = stack.pop() {
                    emit(open);
                }
            }
            if let Some(parent) = stack.last_mut() {
                let duration = u64::try_from(end.saturating_sub(begin)).unwrap_or(0);
                parent.children_ps = parent.children_ps.saturating_add(duration);
            }
            stack.push(OpenEvent { index: i, begin, end, children_ps: 0 });
        }
        while let Some(open) = stack.pop() {
            emit(open);
        }
    }
    // Per-occurrence costs scale with the occurrences.
    let mut op_time_ps = 0u64;
    for op in &mut ops {
        op.flops = op.flops.saturating_mul(op.occurrences);
        op.model_flops = if op.model_flops > 0 { op.model_flops.saturating_mul(op.occurrences) } else { op.flops };
        op.bytes_accessed = op.bytes_accessed.saturating_mul(op.occurrences);
        op.memory_breakdown = op.memory_breakdown.map(|b| b.scaled(op.occurrences));
        op_time_ps = op_time_ps.saturating_add(op.self_time_ps);
    }
    finish_device_db(ops, span, op_time_ps)
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

fn gpu_plane_op_metrics(
    profile: &Profile,
    grouping: &Grouping,
    keys: &StatKeys,
    hlo: &GpuHlo<'_>,
    p: usize,
) -> OpMetricsDb {
    let plane = &profile.planes[p];
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
            let (start, end) = (ev.start_ps[i], ev.end_ps(i));
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
                    Some(XlaSlot { slot: ops.len() - 1, flops: op.flops, bytes_accessed: op.bytes_accessed })
                });
                let Some(XlaSlot { slot, flops, bytes_accessed }) = *entry else { continue };
                let Some(op) = ops.get_mut(slot) else { continue };
                let duration = u64::try_from(ev.duration_ps[i]).unwrap_or(0);
                // Every kernel is one occurrence and costs the instruction's cost.
                op.occurrences += 1;
                op.time_ps = op.time_ps.saturating_add(duration);
                op.self_time_ps = op.self_time_ps.saturating_add(duration);
                op.flops = op.flops.saturating_add(flops);
                op.model_flops = op.flops;
                op.bytes_accessed = op.bytes_accessed.saturating_add(bytes_accessed);
                op_time_ps = op_time_ps.saturating_add(duration);
                add_kernel_time(profile, plane, line, i, keys, op, duration);
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
            let duration = u64::try_from(ev.duration_ps[i]).unwrap_or(0);
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
            add_kernel_time(profile, plane, line, i, keys, op, duration);
        }
    }
    finish_device_db(ops, span, op_time_ps)
}

/// Where an XLA op of a GPU plane sits in the op list, and its cost per occurrence.
#[derive(Clone, Copy)]
struct XlaSlot {
    slot: usize,
    flops: u64,
    bytes_accessed: u64,
}

/// Counts event `i` in `op`'s kernel time (and TensorCore time) if it is a kernel.
fn add_kernel_time(
    profile: &Profile,
    plane: &Plane,
    line: &Line,
    i: usize,
    keys: &StatKeys,
    op: &mut OpMetrics,
    duration: u64,
) {
    if duration > 0 && event_stat(profile, plane, line, i, keys.kernel_details).is_some() {
        op.kernel_time_ps = op.kernel_time_ps.saturating_add(duration);
        let kernel = plane.event_metadata.get(line.events.metadata[i] as usize).map_or("", |m| profile.str(m.name));
        if crate::passes::kernels::uses_tensor_core(kernel) {
            op.tensor_core_time_ps = op.tensor_core_time_ps.saturating_add(duration);
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::passes::grouping::LineGroups;
    use proflens_model::{EventMetadata, Events, Interner, StatList, Stats};

    /// A stat value for the synthetic profiles.
    pub(crate) enum V {
        I(i64),
        S(&'static str),
        B(Vec<u8>),
    }

    fn push(strings: &mut Interner, stats: &mut Stats, key: &str, v: &V) {
        let key = strings.intern(key);
        match v {
            V::I(i) => stats.push_int(key, *i),
            V::S(s) => {
                let id = strings.intern(s);
                stats.push_str(key, id);
            }
            V::B(b) => stats.push_bytes(key, b.clone()),
        }
    }

    /// A synthetic event: metadata, start ps, duration ps, stats.
    pub(crate) type Ev = (MetaIdx, i64, i64, Vec<(&'static str, V)>);

    /// Builds small profiles: planes of metadata and lines of sorted events.
    #[derive(Default)]
    pub(crate) struct Builder {
        pub strings: Interner,
        pub planes: Vec<Plane>,
    }

    impl Builder {
        pub fn new() -> Builder {
            Builder { strings: Interner::new(), planes: Vec::new() }
        }

        pub fn plane(&mut self, name: &str) -> usize {
            let name = self.strings.intern(name);
            self.planes.push(Plane { id: self.planes.len() as i64, name, ..Plane::default() });
            self.planes.len() - 1
        }

        pub fn plane_stat(&mut self, p: usize, key: &str, v: V) {
            let mut stats = Stats::default();
            push(&mut self.strings, &mut stats, key, &v);
            stats.end_owner();
            self.planes[p].stats = StatList(stats);
        }

        pub fn meta(&mut self, p: usize, name: &str, display: Option<&str>, stats: &[(&str, V)]) -> MetaIdx {
            let mut list = Stats::default();
            for (k, v) in stats {
                push(&mut self.strings, &mut list, k, v);
            }
            list.end_owner();
            let plane = &mut self.planes[p];
            let idx = plane.event_metadata.len() as MetaIdx;
            let name = self.strings.intern(name);
            let display_name = display.map(|d| self.strings.intern(d));
            self.planes[p].event_metadata.push(EventMetadata {
                id: i64::from(idx) + 1,
                name,
                display_name,
                stats: StatList(list),
                children: Vec::new(),
            });
            idx
        }

        /// Events as (metadata, start ps, duration ps, stats), already sorted.
        pub fn line(&mut self, p: usize, id: i64, name: &str, events: Vec<Ev>) {
            let mut ev = Events::default();
            for (meta, start, duration, stats) in &events {
                ev.start_ps.push(*start);
                ev.duration_ps.push(*duration);
                ev.metadata.push(*meta);
                for (k, v) in stats {
                    push(&mut self.strings, &mut ev.stats, k, v);
                }
                ev.stats.end_owner();
            }
            ev.depth = proflens_model::nesting_depths(&ev.start_ps, &ev.duration_ps);
            let name = self.strings.intern(name);
            self.planes[p].lines.push(Line {
                id,
                display_id: id,
                name,
                display_name: None,
                timestamp_ps: 0,
                events: ev,
            });
        }

        pub fn build(self) -> Profile {
            Profile { strings: self.strings, planes: self.planes, ..Profile::default() }
        }
    }

    fn op<'a>(db: &'a OpMetricsDb, name: &str) -> &'a OpMetrics {
        db.ops.iter().find(|o| o.name == name).unwrap_or_else(|| panic!("op {name} missing from {db:?}"))
    }

    #[test]
    fn host_self_time_excludes_direct_children() {
        let mut b = Builder::new();
        let p = b.plane(HOST_PLANE);
        let outer = b.meta(p, "model/outer:Outer", None, &[]);
        let inner = b.meta(p, "model/inner:MatMul", None, &[]);
        let leaf = b.meta(p, "model/leaf:Relu", None, &[]);
        let other = b.meta(p, "python_function", None, &[]);
        b.line(
            p,
            1,
            "thread",
            vec![
                (other, 0, 500, vec![]),
                (outer, 100, 100, vec![]),
                (inner, 110, 40, vec![]),
                (leaf, 120, 10, vec![]),
                (inner, 160, 20, vec![]),
                // A gap, then a lone op.
                (leaf, 300, 50, vec![]),
            ],
        );
        let profile = b.build();
        let db = host_op_metrics(&profile, &Grouping::default());
        let outer = op(&db, "model/outer");
        assert_eq!(
            (outer.category.as_str(), outer.occurrences, outer.time_ps, outer.self_time_ps),
            ("Outer", 1, 100, 40)
        );
        let inner = op(&db, "model/inner");
        assert_eq!((inner.occurrences, inner.time_ps, inner.self_time_ps), (2, 60, 50));
        let leaf = op(&db, "model/leaf");
        assert_eq!((leaf.occurrences, leaf.time_ps, leaf.self_time_ps), (2, 60, 60));
        // The line spans its ops (100..350), not the non-op event around them.
        assert_eq!(db.total_time_ps, 250);
        assert_eq!(db.total_op_time_ps, 150);
        let idle = db.idle_op().expect("idle op");
        assert_eq!((idle.name.as_str(), idle.occurrences, idle.self_time_ps), (IDLE, 0, 100));
        assert!(db.ops.iter().all(|o| o.name != "python_function"));
    }

    #[test]
    fn host_idle_is_summed_per_line() {
        let mut b = Builder::new();
        let p = b.plane(HOST_PLANE);
        let a = b.meta(p, "a:A", None, &[]);
        b.line(p, 1, "t1", vec![(a, 0, 10, vec![]), (a, 30, 10, vec![])]);
        b.line(p, 2, "t2", vec![(a, 1_000, 10, vec![]), (a, 1_050, 50, vec![])]);
        // Derived lines are skipped.
        b.line(p, i64::from(crate::common::schema::DERIVED_LINE_ID_MIN) + 3, "TensorFlow Ops", vec![(a, 0, 10_000, vec![])]);
        let db = host_op_metrics(&b.build(), &Grouping::default());
        assert_eq!(op(&db, "a").occurrences, 4);
        assert_eq!(db.total_time_ps, 40 + 100);
        assert_eq!(db.total_op_time_ps, 80);
        assert_eq!(db.idle_op().map(|o| o.time_ps), Some(60));
    }

    #[test]
    fn host_replays_xprof_stack_quirks() {
        let mut b = Builder::new();
        let p = b.plane(HOST_PLANE);
        let parent = b.meta(p, "p:P", None, &[]);
        let child = b.meta(p, "c:C", None, &[]);
        // The child ends with its parent: XProf pops it unfinished, so it is lost.
        b.line(p, 1, "t1", vec![(parent, 0, 100, vec![]), (child, 50, 50, vec![])]);
        // Zero-length ops still count once.
        b.line(p, 2, "t2", vec![(child, 500, 0, vec![])]);
        let db = host_op_metrics(&b.build(), &Grouping::default());
        assert_eq!((op(&db, "p").occurrences, op(&db, "p").self_time_ps), (1, 100));
        assert_eq!((op(&db, "c").occurrences, op(&db, "c").time_ps), (1, 0));
    }

    #[test]
    fn host_dataset_stage_and_tf_op_stat_ops() {
        let mut b = Builder::new();
        let p = b.plane(HOST_PLANE);
        let iter = b.meta(p, "Iterator::Root::Prefetch", None, &[]);
        let stage = b.meta(p, "ReadFiles", None, &[]);
        let launch = b.meta(p, "cuLaunchKernel", None, &[]);
        b.line(
            p,
            1,
            "t",
            vec![
                (iter, 0, 100, vec![]),
                (stage, 10, 30, vec![("_ipl_stage_id", V::I(7)), ("_ipl_stage_cat", V::S("read"))]),
                (launch, 60, 20, vec![("tf_op", V::S("net/conv:Conv2D"))]),
            ],
        );
        let db = host_op_metrics(&b.build(), &Grouping::default());
        let it = op(&db, "Iterator::Root::Prefetch");
        assert_eq!((it.category.as_str(), it.self_time_ps), ("Dataset", 50));
        let st = op(&db, "ReadFiles");
        assert_eq!((st.id, st.category.as_str(), st.time_ps), (7, "read", 30));
        let conv = op(&db, "net/conv");
        assert_eq!((conv.category.as_str(), conv.time_ps, conv.is_eager), ("Conv2D", 20, false));
        assert!(db.ops.iter().all(|o| o.name != "cuLaunchKernel"));
    }

    #[test]
    fn host_eager_flag_comes_from_grouping_or_stat() {
        let mut b = Builder::new();
        let p = b.plane(HOST_PLANE);
        let a = b.meta(p, "a:A", None, &[]);
        let c = b.meta(p, "c:C", None, &[]);
        let d = b.meta(p, "d:D", None, &[]);
        b.line(p, 1, "t", vec![(a, 0, 10, vec![]), (c, 20, 10, vec![]), (d, 40, 10, vec![("is_eager", V::I(1))])]);
        let grouping = Grouping {
            planes: vec![vec![LineGroups { group: vec![-1; 3], flags: vec![FLAG_EAGER, 0, 0] }]],
            ..Grouping::default()
        };
        let db = host_op_metrics(&b.build(), &grouping);
        assert!(op(&db, "a").is_eager);
        assert!(!op(&db, "c").is_eager);
        assert!(op(&db, "d").is_eager);
    }

    #[test]
    fn no_host_plane_means_empty_db() {
        let mut b = Builder::new();
        b.plane("/device:GPU:0");
        let db = host_op_metrics(&b.build(), &Grouping::default());
        assert_eq!(db, OpMetricsDb::default());
    }

    #[test]
    fn gpu_kernels_become_framework_ops() {
        let mut b = Builder::new();
        let p = b.plane("/device:GPU:0");
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

    #[test]
    fn gpu_planes_combine_and_tpu_wins() {
        let mut b = Builder::new();
        for g in 0..2 {
            let p = b.plane(&format!("/device:GPU:{g}"));
            let k = b.meta(p, "k", None, &[]);
            b.line(p, 1, "Stream #1", vec![(k, 0, 10, vec![("tf_op", V::S("x:X"))]), (k, 40, 10, vec![])]);
        }
        let db = device_op_metrics(&b.build(), &Grouping::default());
        assert_eq!(op(&db, "x/k").occurrences, 2);
        assert_eq!((db.total_time_ps, db.total_op_time_ps), (100, 20));
        assert_eq!(db.ops.iter().filter(|o| o.is_idle()).count(), 1);

        let mut b = Builder::new();
        let p = b.plane("/device:GPU:0");
        let k = b.meta(p, "k", None, &[]);
        b.line(p, 1, "Stream #1", vec![(k, 0, 10, vec![("tf_op", V::S("x:X"))])]);
        b.plane("/device:TPU:0");
        let db = device_op_metrics(&b.build(), &Grouping::default());
        assert!(db.ops.iter().all(|o| o.is_idle()), "GPU planes are ignored beside TPU planes: {db:?}");
    }

    /// `MemoryAccessBreakdown` with HBM read 100, HBM write 20 and VMEM read 8.
    pub(crate) fn breakdown_bytes() -> Vec<u8> {
        let entry = |op: u8, space: u8, bytes: u8| vec![0x0a, 6, 0x08, op, 0x10, space, 0x18, bytes];
        [entry(1, 1, 100), entry(2, 1, 20), entry(1, 3, 8)].concat()
    }

    #[test]
    fn memory_breakdown_decodes_and_rejects_garbage() {
        let b = MemoryBreakdown::decode(&breakdown_bytes()).expect("decodes");
        assert_eq!(b, MemoryBreakdown { hbm: 120, vmem_read: 8, ..MemoryBreakdown::default() });
        assert_eq!(MemoryBreakdown::decode(&[]), None);
        assert_eq!(MemoryBreakdown::decode(&[0x0a, 50, 1]), None);
        assert_eq!(MemoryBreakdown::decode(&[0xff; 12]), None);
        assert_eq!(MemoryBreakdown::decode(&[0x0f]), None);
    }

    #[test]
    fn tpu_xla_ops_nest_and_scale_costs() {
        let mut b = Builder::new();
        let p = b.plane("/device:TPU:0");
        let sym = |s: i64| vec![("program_id", V::I(5)), ("symbol_id", V::I(s))];
        let mut fusion_stats = sym(1);
        fusion_stats.extend([
            ("hlo_category", V::S("loop fusion")),
            ("flops", V::I(1000)),
            ("bytes_accessed", V::I(64)),
            ("memory_access_breakdown", V::B(breakdown_bytes())),
        ]);
        let fusion = b.meta(p, "%fusion = f32[] fusion()", Some("fusion"), &fusion_stats);
        let mut copy_stats = sym(2);
        copy_stats.push(("tf_op", V::S("jit(f)/copy:copy")));
        let copy = b.meta(p, "%copy = f32[] copy()", Some("copy"), &copy_stats);
        let root = b.meta(p, "root", None, &sym(0));
        let step = b.meta(p, "1", None, &[]);
        b.line(p, 1, "Steps", vec![(step, 0, 2_000, vec![])]);
        b.line(
            p,
            2,
            "XLA Ops",
            vec![
                (fusion, 100, 400, vec![]),
                (copy, 150, 100, vec![]),
                (root, 600, 50, vec![]),
                (fusion, 1_000, 200, vec![("device_offset_ps", V::I(1_100)), ("device_duration_ps", V::I(300))]),
            ],
        );
        let db = device_op_metrics(&b.build(), &Grouping::default());
        let f = op(&db, "fusion");
        assert_eq!((f.id, f.category.as_str(), f.occurrences), (5, "loop fusion", 2));
        assert_eq!((f.time_ps, f.self_time_ps), (700, 600));
        assert_eq!((f.flops, f.model_flops, f.bytes_accessed), (2000, 2000, 128));
        assert_eq!(f.memory_breakdown.map(|m| m.hbm), Some(240));
        let c = op(&db, "copy");
        assert_eq!((c.provenance.as_str(), c.self_time_ps), ("jit(f)/copy:copy", 100));
        assert!(db.ops.iter().all(|o| o.name != "root"), "symbol 0 is not an op");
        assert_eq!((db.total_time_ps, db.total_op_time_ps), (2_000, 700));
        let framework = db.framework_ops(true);
        assert_eq!(op(&framework, "fusion").category, "Unknown");
        assert_eq!(op(&framework, "jit(f)/copy").category, "copy");
    }

    #[test]
    fn hostile_values_do_not_panic() {
        let mut b = Builder::new();
        let p = b.plane(HOST_PLANE);
        let a = b.meta(p, "a:A", None, &[]);
        let odd = b.meta(p, "MemcpyHé€:", None, &[]);
        let odd2 = b.meta(p, "Memcpyé€€€", None, &[]);
        b.line(
            p,
            1,
            "t",
            vec![
                (a, i64::MIN, i64::MAX, vec![("tf_op", V::I(3)), ("_ipl_stage_id", V::S("x"))]),
                (odd, -5, 0, vec![("tf_op", V::S(""))]),
                (odd2, 0, 1, vec![("_ipl_stage_id", V::I(-1)), ("_ipl_stage_cat", V::I(1))]),
                (99, 10, i64::MAX, vec![]),
            ],
        );
        let g = b.plane("/device:GPU:0");
        let k = b.meta(g, "k", None, &[]);
        b.line(g, 1, "s", vec![(k, i64::MIN, i64::MAX, vec![("tf_op", V::S(":"))]), (7, i64::MAX, i64::MAX, vec![])]);
        let t = b.plane("/device:TPU:0");
        let m = b.meta(t, "m", None, &[("program_id", V::I(-1)), ("symbol_id", V::I(3))]);
        b.line(
            t,
            1,
            "XLA Ops",
            vec![(m, i64::MIN, i64::MAX, vec![]), (m, 0, 10, vec![("device_duration_ps", V::I(-4))])],
        );
        let profile = b.build();
        let grouping = Grouping::default();
        let _ = host_op_metrics(&profile, &grouping);
        let _ = device_op_metrics(&profile, &grouping);
        let mut no_tpu = profile;
        no_tpu.planes.pop();
        let _ = device_op_metrics(&no_tpu, &grouping);
    }
}
