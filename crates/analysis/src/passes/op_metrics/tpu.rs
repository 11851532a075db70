//! TPU op metrics: the `XLA Ops` of one TensorCore plane, keyed by their
//! (program, symbol), with costs from the ops' metadata.

use super::{finish_device_db, MemoryBreakdown, OpMetrics, OpMetricsDb};
use crate::common::schema::event_stat;
use proflens_model::{MetaIdx, Plane, Profile, StatValue, StrId};
use rustc_hash::FxHashMap;

/// Stat names only the TPU pass reads.
pub(super) struct TpuKeys {
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
    pub(super) fn new(profile: &Profile) -> TpuKeys {
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

pub(super) fn tpu_plane_op_metrics(profile: &Profile, keys: &TpuKeys, plane: &Plane) -> OpMetricsDb {
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
                _ => (ev.start_ps.at(i), ev.end_ps(i)),
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

#[cfg(test)]
mod tests {
    use crate::passes::grouping::Grouping;
    use crate::passes::op_metrics::device_op_metrics;
    use crate::passes::op_metrics::test_builder::{breakdown_bytes, op, Builder, V};

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
}
