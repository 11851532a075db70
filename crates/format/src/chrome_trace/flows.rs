//! Flow events → links between the slices they bind to, kept as event stats
//! the trace viewer's link index reads (`passes/trace/links.rs`).
//!
//! Binding follows the Trace Event Format and Chrome's importer: a flow start
//! (`s`) or step (`t`) binds to the slice enclosing its `ts` on its own
//! (pid, tid); a flow end (`f`) binds to the next slice that starts at or
//! after its `ts`, or with `"bp":"e"` to the enclosing one (Kineto writes
//! that). Flows are identified by (cat, name, id). The newer form puts
//! `bind_id` with `flow_out`/`flow_in` on the slice itself.
//!
//! Each hop of a flow (start → step → … → end) gets a number; both of its
//! slices carry the text `"<cat> <number>"`: the source as stat [`FLOW_OUT`],
//! the target as [`FLOW_IN`]. A slice may carry several of each.

use super::event_walk::EventWalk;
use super::{Raw, RawEvent};
use crate::Error;
use proflens_model::{Interner, Stats, StrId};
use rustc_hash::FxHashMap;

/// Flow categories of kernel launches, which the PyTorch mapping links by
/// `correlation_id` instead.
pub(crate) const LAUNCH_FLOW_CATS: [&str; 3] = ["ac2g", "async_cpu_to_gpu", "async"];

/// Stat key of a flow leaving the event (the event is the flow's source).
pub const FLOW_OUT: &str = "_fo";
/// Stat key of a flow arriving at the event.
pub const FLOW_IN: &str = "_fi";

/// The flow ends of the events of one trace, by event index.
pub(crate) struct Flows {
    /// (event index, outgoing, flow text), sorted by event index.
    ends: Vec<(usize, bool, StrId)>,
    out_key: StrId,
    in_key: StrId,
}

#[derive(Clone, Copy, PartialEq)]
enum Role {
    Start,
    Step,
    End,
}

#[derive(Clone, Copy)]
enum Bind {
    Enclosing,
    Next,
    /// The event itself (`bind_id` on a slice).
    Itself(usize),
}

/// The flow phases of a trace, in file order, gathered by the first pass
/// (which keeps them while the events themselves go). Their texts are
/// interned here: a Kineto trace has a flow phase for every kernel launch,
/// and owned strings made them about 350 bytes each.
#[derive(Default)]
pub(crate) struct FlowPoints {
    points: Vec<Point>,
    texts: Interner,
}

/// One flow phase, before it is bound to a slice.
struct Point {
    ts: i128,
    order: usize,
    thread: Thread,
    key: (StrId, StrId, StrId),
    cat: StrId,
    role: Role,
    bind: Bind,
}

/// A (pid, tid) as written, interned in [`FlowPoints::texts`].
type Thread = (StrId, StrId);

fn raw(v: Option<Raw<'_>>) -> &str {
    v.map_or("", |r| r.get())
}

impl Flows {
    /// The flows of `points` (the survey's), except those whose category
    /// `skip` says the model already links another way (Kineto's launch
    /// flows: the correlation id). Walks the events once more to find the
    /// slices of the threads that have flow phases.
    pub fn bind(
        flow_points: &FlowPoints,
        skip: impl Fn(&str) -> bool,
        walk: &mut dyn EventWalk,
        strings: &mut Interner,
    ) -> Result<Flows, Error> {
        let mut flows = Flows { ends: Vec::new(), out_key: strings.intern(FLOW_OUT), in_key: strings.intern(FLOW_IN) };
        let texts = &flow_points.texts;
        let points: Vec<&Point> = flow_points.points.iter().filter(|p| !skip(texts.get(p.cat))).collect();
        if points.is_empty() {
            return Ok(flows);
        }
        let base = points.iter().map(|p| p.ts).min().unwrap_or(0);
        let slices = slices(walk, &points, texts, base)?;
        let bound: Vec<Option<usize>> = points.iter().map(|p| resolve(p, &slices, base)).collect();
        let mut order: Vec<usize> = (0..points.len()).collect();
        order.sort_by_key(|&i| (points[i].ts, points[i].order));
        // Open flows: the slice the last phase bound to.
        let mut open: FxHashMap<(StrId, StrId, StrId), Option<usize>> = FxHashMap::default();
        let mut hops = 0u64;
        for i in order {
            let (p, here) = (points[i], bound[i]);
            if p.role != Role::Start {
                if let (Some(Some(from)), Some(to)) = (open.get(&p.key), here) {
                    if *from != to {
                        hops += 1;
                        let cat = match texts.get(p.cat) {
                            "" => "flow",
                            cat => cat,
                        };
                        let text = strings.intern(&format!("{cat} {hops}"));
                        flows.ends.push((*from, true, text));
                        flows.ends.push((to, false, text));
                    }
                }
            }
            match p.role {
                Role::End => {
                    open.remove(&p.key);
                }
                _ => {
                    let slot = open.entry(p.key).or_insert(None);
                    *slot = here.or(*slot);
                }
            }
        }
        flows.ends.sort_unstable_by_key(|e| e.0);
        Ok(flows)
    }

    /// Pushes the flow stats of event `n` (its index in the file).
    pub fn push_stats(&self, n: usize, stats: &mut Stats) {
        let start = self.ends.partition_point(|e| e.0 < n);
        for &(_, out, text) in self.ends[start..].iter().take_while(|e| e.0 == n) {
            stats.push_str(if out { self.out_key } else { self.in_key }, text);
        }
    }
}

impl FlowPoints {
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.points.len()
    }

    /// Keeps event `n` if it is a flow phase.
    pub fn see(&mut self, n: usize, e: &RawEvent) {
        if let Some(point) = Point::of(n, e, &mut self.texts) {
            self.points.push(point);
        }
    }
}

impl Point {
    /// The flow phase event `n` is, if it is one.
    fn of(n: usize, e: &RawEvent, texts: &mut Interner) -> Option<Point> {
        let ph = e.ph();
        let v2 = e.bind_id.is_some() && matches!(ph, "X" | "B");
        if !(matches!(ph, "s" | "t" | "f") || v2) {
            return None;
        }
        let ts = e.ts_ps()?;
        let thread = (texts.intern(raw(e.pid)), texts.intern(raw(e.tid)));
        let (role, bind, key) = if v2 {
            let (out, into) = (is_true(e.flow_out), is_true(e.flow_in));
            let role = match (into, out) {
                (true, true) => Role::Step,
                (false, true) => Role::Start,
                (true, false) => Role::End,
                (false, false) => return None,
            };
            let none = texts.intern("");
            (role, Bind::Itself(n), (none, none, texts.intern(raw(e.bind_id))))
        } else {
            let role = match ph {
                "s" => Role::Start,
                "t" => Role::Step,
                _ => Role::End,
            };
            let enclosing = role != Role::End || e.bp.as_ref().is_some_and(|b| &*b.0 == "e");
            let key = (texts.intern(e.cat()), texts.intern(e.name()), texts.intern(raw(e.id)));
            (role, if enclosing { Bind::Enclosing } else { Bind::Next }, key)
        };
        Some(Point { ts, order: n, thread, key, cat: texts.intern(e.cat()), role, bind })
    }
}

fn is_true(v: Option<Raw>) -> bool {
    matches!(raw(v).trim(), "true" | "1" | "\"true\"")
}

/// Slices per (pid, tid): start and end (ps from the earliest flow phase;
/// 64 bits hold ±106 days) and event index.
type Slices = FxHashMap<Thread, Vec<(i64, i64, usize)>>;

/// `ts` in ps from `base`, as slices keep it.
fn from_base(ts: i128, base: i128) -> i64 {
    (ts - base).clamp(i64::MIN.into(), i64::MAX.into()) as i64
}

/// Slices (start, end, event index) of the threads that have flow phases,
/// sorted by start, longer first: `X` events and `B`/`E` pairs (a pair is
/// the index of its `B`, the event the importers keep).
fn slices(walk: &mut dyn EventWalk, points: &[&Point], texts: &Interner, base: i128) -> Result<Slices, Error> {
    let mut slices: Slices = FxHashMap::default();
    for p in points {
        slices.entry(p.thread).or_default();
    }
    let mut open: FxHashMap<Thread, Vec<(i64, usize)>> = FxHashMap::default();
    walk.each(&mut |n, e| {
        let ph = e.ph();
        if !matches!(ph, "X" | "B" | "E") {
            return;
        }
        // A thread no flow phase named has no interned text, and no slices kept.
        let (Some(pid), Some(tid)) = (texts.lookup(raw(e.pid)), texts.lookup(raw(e.tid))) else { return };
        let Some(list) = slices.get_mut(&(pid, tid)) else { return };
        let Some(ts) = e.ts_ps().map(|ts| from_base(ts, base)) else { return };
        match ph {
            "X" => list.push((ts, ts.saturating_add(from_base(e.dur_ps(), 0)), n)),
            "B" => open.entry((pid, tid)).or_default().push((ts, n)),
            _ => {
                if let Some((begin, b)) = open.get_mut(&(pid, tid)).and_then(Vec::pop) {
                    list.push((begin, ts.max(begin), b));
                }
            }
        }
    })?;
    for list in slices.values_mut() {
        list.sort_unstable_by_key(|&(start, end, n)| (start, std::cmp::Reverse(end), n));
    }
    Ok(slices)
}

/// The slice a flow phase binds to: the deepest slice of its thread that
/// encloses `ts` (the latest-starting one, of those that start by `ts` and
/// end at or after it), or the first that starts at or after `ts`.
fn resolve(p: &Point, slices: &Slices, base: i128) -> Option<usize> {
    let list = match p.bind {
        Bind::Itself(n) => return Some(n),
        _ => slices.get(&p.thread)?,
    };
    let ts = from_base(p.ts, base);
    match p.bind {
        Bind::Next => list.get(list.partition_point(|s| s.0 < ts)).map(|s| s.2),
        _ => {
            // Walk back from the last slice starting by `ts` to one still
            // open at `ts`; an earlier sibling ends before, so the walk
            // stops at the innermost enclosing slice. Bounded: a thread of
            // many short siblings under one long parent is cut short.
            let last = list.partition_point(|s| s.0 <= ts);
            list[..last].iter().rev().take(4096).find(|s| s.1 >= ts).map(|s| s.2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::decode;
    use proflens_model::{Profile, StatValue};

    /// (event name, flow stat key, flow text) of every flow end, sorted.
    fn ends(p: &Profile) -> Vec<(String, String, String)> {
        let mut out = Vec::new();
        for plane in &p.planes {
            for line in &plane.lines {
                let ev = &line.events;
                for i in 0..ev.len() {
                    let name = p.str(plane.event_metadata[ev.metadata[i] as usize].name);
                    for s in ev.stats.of(i) {
                        let key = p.str(s.key);
                        if key == super::FLOW_IN || key == super::FLOW_OUT {
                            let StatValue::Str(text) = ev.stats.value(s, &p.strings) else { panic!() };
                            out.push((name.to_string(), key.to_string(), text.to_string()));
                        }
                    }
                }
            }
        }
        out.sort();
        out
    }

    fn decode_str(s: &str) -> Profile {
        decode(s.as_bytes(), &mut |_| {}).unwrap()
    }

    /// Which event each end of the one-hop flows went to: (source, target).
    fn hops(p: &Profile) -> Vec<(String, String)> {
        let e = ends(p);
        let mut out: Vec<(String, String)> = e
            .iter()
            .filter(|(_, k, _)| k == super::FLOW_OUT)
            .map(|(src, _, text)| {
                let dst = e.iter().find(|(_, k, t)| k == super::FLOW_IN && t == text).unwrap();
                (src.clone(), dst.0.clone())
            })
            .collect();
        out.sort();
        out
    }

    #[test]
    fn start_binds_to_the_innermost_enclosing_slice() {
        let p = decode_str(
            r#"[{"ph":"X","name":"outer","pid":1,"tid":1,"ts":0,"dur":100},
               {"ph":"X","name":"inner","pid":1,"tid":1,"ts":10,"dur":20},
               {"ph":"X","name":"later","pid":1,"tid":1,"ts":50,"dur":5},
               {"ph":"X","name":"target","pid":1,"tid":2,"ts":60,"dur":10},
               {"ph":"s","cat":"c","name":"n","id":7,"pid":1,"tid":1,"ts":40},
               {"ph":"f","cat":"c","name":"n","id":7,"pid":1,"tid":2,"ts":65,"bp":"e"}]"#,
        );
        // ts 40: inner (10–30) has ended, later (50) has not begun: outer.
        assert_eq!(hops(&p), [("outer".to_string(), "target".to_string())]);
    }

    #[test]
    fn end_binds_to_the_next_slice_unless_bp_e() {
        let json = |bp: &str| {
            format!(
                r#"[{{"ph":"X","name":"src","pid":1,"tid":1,"ts":0,"dur":10}},
                   {{"ph":"X","name":"around","pid":1,"tid":2,"ts":10,"dur":30}},
                   {{"ph":"X","name":"next","pid":1,"tid":2,"ts":50,"dur":5}},
                   {{"ph":"s","cat":"c","name":"n","id":"0x1","pid":1,"tid":1,"ts":5}},
                   {{"ph":"f","cat":"c","name":"n","id":"0x1","pid":1,"tid":2,"ts":20{bp}}}]"#
            )
        };
        assert_eq!(hops(&decode_str(&json(""))), [("src".to_string(), "next".to_string())]);
        assert_eq!(hops(&decode_str(&json(r#","bp":"e""#))), [("src".to_string(), "around".to_string())]);
    }

    #[test]
    fn steps_chain_hops_and_ids_are_scoped_by_category() {
        let p = decode_str(
            r#"{"traceEvents":[
               {"ph":"B","name":"a","pid":1,"tid":1,"ts":"0"},
               {"ph":"E","pid":1,"tid":1,"ts":"10"},
               {"ph":"X","name":"b","pid":1,"tid":2,"ts":20,"dur":10},
               {"ph":"X","name":"c","pid":2,"tid":1,"ts":40,"dur":10},
               {"ph":"X","name":"other","pid":2,"tid":1,"ts":60,"dur":10},
               {"ph":"s","cat":"x","name":"n","id":1,"pid":1,"tid":1,"ts":5},
               {"ph":"s","cat":"y","name":"n","id":1,"pid":1,"tid":2,"ts":25},
               {"ph":"t","cat":"x","name":"n","id":1,"pid":1,"tid":2,"ts":22},
               {"ph":"f","cat":"x","name":"n","id":1,"pid":2,"tid":1,"ts":41,"bp":"e"},
               {"ph":"f","cat":"y","name":"n","id":1,"pid":2,"tid":1,"ts":55}]}"#,
        );
        let mut expected = [("a", "b"), ("b", "c"), ("b", "other")].map(|(a, b)| (a.to_string(), b.to_string()));
        expected.sort();
        assert_eq!(hops(&p), expected);
        // The category names the flow.
        assert!(ends(&p).iter().any(|(n, _, t)| n == "other" && t.starts_with("y ")), "{:?}", ends(&p));
    }

    #[test]
    fn bind_id_on_slices_links_flow_out_to_flow_in() {
        let p = decode_str(
            r#"[{"ph":"X","name":"producer","pid":1,"tid":1,"ts":0,"dur":5,"bind_id":"0xa","flow_out":true},
               {"ph":"X","name":"relay","pid":1,"tid":2,"ts":6,"dur":5,"bind_id":"0xa","flow_in":true,"flow_out":true},
               {"ph":"X","name":"consumer","pid":2,"tid":1,"ts":20,"dur":5,"bind_id":"0xa","flow_in":true},
               {"ph":"X","name":"unrelated","pid":2,"tid":1,"ts":30,"dur":5}]"#,
        );
        let mut expected = [("producer", "relay"), ("relay", "consumer")].map(|(a, b)| (a.to_string(), b.to_string()));
        expected.sort();
        assert_eq!(hops(&p), expected);
    }

    /// The hand-written chrome://tracing file of the browser tests.
    #[test]
    fn handwritten_trace_has_its_sections_and_flows() {
        let path =
            concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/chrome_trace/handwritten_training.trace.json");
        let p = decode(&std::fs::read(path).unwrap(), &mut |_| {}).unwrap();
        let planes: Vec<&str> = p.planes.iter().map(|pl| p.str(pl.name)).collect();
        assert_eq!(planes, ["Data loader (pid 2)", "Trainer (pid 1)"]);
        let lines: Vec<&str> = p.planes[1].lines.iter().map(|l| p.str(l.name)).collect();
        assert_eq!(lines, ["comm", "main"]);
        let mut expected = [
            ("allreduce", "sgd_update"),
            ("backward", "allreduce"),
            ("load_batch", "forward"),
            ("load_batch", "train_step"),
        ]
        .map(|(a, b)| (a.to_string(), b.to_string()));
        expected.sort();
        assert_eq!(hops(&p), expected);
    }

    #[test]
    fn unbound_or_unfinished_flows_leave_no_stats() {
        // The start has no slice around it; the second flow never starts.
        let p = decode_str(
            r#"[{"ph":"X","name":"a","pid":1,"tid":1,"ts":10,"dur":5},
               {"ph":"s","cat":"c","name":"n","id":1,"pid":1,"tid":1,"ts":0},
               {"ph":"f","cat":"c","name":"n","id":1,"pid":1,"tid":1,"ts":10,"bp":"e"},
               {"ph":"f","cat":"c","name":"n","id":2,"pid":1,"tid":1,"ts":10,"bp":"e"}]"#,
        );
        assert!(ends(&p).is_empty(), "{:?}", ends(&p));
    }
}
