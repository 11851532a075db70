//! Host op metrics: XProf's HostOpMetricsDbBuilder, replaying each host
//! thread's ops through its activity stack.

use super::{str_stat_id, OpMetrics, OpMetricsDb, IDLE};
use crate::common::schema::{event_stat, is_derived_line, StatKeys, HOST_PLANE};
use crate::common::tf_op::{self, OpCategory};
use crate::passes::grouping::{Grouping, FLAG_EAGER};
use proflens_model::{Profile, StrId};
use rustc_hash::FxHashMap;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

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
                let (start, end) = (ev.start_ps.at(i), ev.end_ps(i));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passes::grouping::{GroupIds, LineGroups};
    use crate::passes::op_metrics::test_builder::{op, Builder, V};

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
        b.line(
            p,
            i64::from(crate::common::schema::DERIVED_LINE_ID_MIN) + 3,
            "TensorFlow Ops",
            vec![(a, 0, 10_000, vec![])],
        );
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
            planes: vec![vec![LineGroups { group: GroupIds::none(3), flags: vec![FLAG_EAGER, 0, 0] }]],
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
}
