//! Any other trace-event file, XProf's legacy `trace.json.gz` included
//! (formats.md §4.11): each pid becomes a plane named by its `process_name`
//! (XProf writes plane names such as `/host:CPU` and `/device:GPU:0`), each
//! tid a line named by its `thread_name`. Complete (`X`), instant (`i`) and
//! begin/end (`B`/`E`) events are kept; XProf's `long_name` arg restores the
//! raw event name (the shown name becomes the display name), and integer
//! text args (XProf writes every arg as a string) become integers again.
//! `process_sort_index`/`thread_sort_index` metadata order planes and lines
//! (else pid and tid order); flow events become flow stats ([`super::flows`]).
//! `displayTimeUnit` only sets how Chrome shows times: `ts` stays µs.
//! Nestable async events (`b`/`e`, instants `n`) go on a line per (category,
//! id) of their process, named `async: <cat> <id>`, nested by their times.
//! Counter (`C`) events become the process's counter series.

use super::builder::{push_arg, PlaneAcc};
use super::counter_events;
use super::event_walk::EventWalk;
use super::flows::Flows;
use super::kept::Kept;
use super::names::Names;
use super::walk::Survey;
use super::{rel_ps, RawEvent};
use crate::{Error, Progress};
use proflens_model::{Interner, Profile};
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;

pub(crate) fn build(
    survey: &Survey,
    walk: &mut dyn EventWalk,
    progress: &mut dyn FnMut(Progress),
) -> Result<Profile, Error> {
    let mut profile = Profile { strings: Interner::new(), ..Profile::default() };
    let strings = &mut profile.strings;
    let t0 = survey.generic_t0.unwrap_or(0);
    let names = &survey.names;
    let flows = Flows::bind(&survey.flow_points, |_| false, walk, strings)?;
    // Planes keyed by (sort index else pid, pid, pid text), for a stable layout.
    let mut planes: BTreeMap<PlaneKey, PlaneAcc> = BTreeMap::new();
    // Open `B` events per (pid, tid): (start, event index, the event).
    let mut open: FxHashMap<(String, String), Vec<Open>> = FxHashMap::default();
    // Open nestable async `b` events per (pid, cat, id): (start, event index, the event).
    let mut open_async: FxHashMap<(String, String, String), Vec<Open>> = FxHashMap::default();
    let total = survey.count as u64;
    walk.each(&mut |n, e| {
        if n % 65_536 == 0 {
            progress(Progress::Building { done: n as u64, total });
        }
        let Some(ts) = e.ts_ps() else { return };
        let start = rel_ps(ts, t0);
        let dur = match e.ph() {
            "X" => rel_ps(e.dur_ps(), 0),
            "i" | "I" => 0,
            "C" => {
                counter_events::push(plane_of(&mut planes, e, names, strings), e, start, "");
                return;
            }
            "B" => {
                open.entry((e.pid().text.into_owned(), e.tid().text.into_owned())).or_default().push((
                    start,
                    n,
                    Kept::of(e),
                ));
                return;
            }
            "E" => {
                if let Some((begin_ts, b, begin)) =
                    open.get_mut(&(e.pid().text.into_owned(), e.tid().text.into_owned())).and_then(Vec::pop)
                {
                    let at = Place { start: begin_ts, dur: start.saturating_sub(begin_ts), n: b, lane: None };
                    begin.with(|begin| emit(&mut planes, begin, at, names, &flows, strings));
                }
                return;
            }
            "b" => {
                open_async.entry(async_key(e)).or_default().push((start, n, Kept::of(e)));
                return;
            }
            "n" => {
                let key = async_key(e);
                let lane = format!("async: {} {}", key.1, key.2);
                emit(&mut planes, e, Place { start, dur: 0, n, lane: Some(&lane) }, names, &flows, strings);
                return;
            }
            "e" => {
                let key = async_key(e);
                let lane = format!("async: {} {}", key.1, key.2);
                if let Some((b_ts, b, begin)) = open_async.get_mut(&key).and_then(Vec::pop) {
                    let at = Place { start: b_ts, dur: start.saturating_sub(b_ts), n: b, lane: Some(&lane) };
                    begin.with(|begin| emit(&mut planes, begin, at, names, &flows, strings));
                }
                return;
            }
            _ => return,
        };
        emit(&mut planes, e, Place { start, dur, n, lane: None }, names, &flows, strings);
    })?;
    profile.planes.extend(planes.into_values().map(PlaneAcc::finish));
    progress(Progress::Building { done: total, total });
    Ok(profile)
}

type PlaneKey = (i64, i64, String);

/// A begin waiting for its end: (start, event index, the event).
type Open = (i64, usize, Kept);

/// Where an event goes: its start and duration (ps), its index in the
/// file, and for async events the name of their line.
#[derive(Clone, Copy)]
struct Place<'a> {
    start: i64,
    dur: i64,
    n: usize,
    lane: Option<&'a str>,
}

/// Line ids of async lines: above any thread id (they sort after threads).
const ASYNC_LINE_ID: i64 = 1 << 48;

/// A nestable async event's (pid, category, id): its own line per id.
fn async_key(e: &RawEvent) -> (String, String, String) {
    let id = e.id.map_or("", |r| r.get().trim_matches('"')).to_string();
    (e.pid().text.into_owned(), e.cat().to_string(), id)
}

/// The plane of `e`'s process, created on first use.
fn plane_of<'a>(
    planes: &'a mut BTreeMap<PlaneKey, PlaneAcc>,
    e: &RawEvent,
    names: &Names,
    strings: &mut Interner,
) -> &'a mut PlaneAcc {
    let pid = e.pid();
    let pid_order = pid.number.unwrap_or(i64::MAX);
    let sort = names.process_sort.get(&*pid.text).copied().unwrap_or(pid_order);
    planes.entry((sort, pid_order, pid.text.to_string())).or_insert_with(|| {
        let name = match names.processes.get(&*pid.text) {
            Some(n) if n.starts_with('/') => n.clone(),
            Some(n) => format!("{n} (pid {})", pid.text),
            None => format!("pid {}", pid.text),
        };
        // XProf's device planes keep their ordinal as the plane id.
        let id = name
            .strip_prefix("/device:")
            .and_then(|r| r.rsplit(':').next())
            .and_then(|n| n.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .or(pid.number)
            .unwrap_or(0);
        PlaneAcc::new(id, &name, strings)
    })
}

fn emit(
    planes: &mut BTreeMap<PlaneKey, PlaneAcc>,
    e: &RawEvent,
    at: Place<'_>,
    names: &Names,
    flows: &Flows,
    strings: &mut Interner,
) {
    let (pid, tid) = (e.pid(), e.tid());
    let thread_names = &names.threads;
    let plane = plane_of(planes, e, names, strings);
    if let Some(lane) = at.lane {
        let line = plane.line(lane, || (ASYNC_LINE_ID, lane.to_string()), strings);
        let meta = plane.metadata(e.name(), None, e.cat(), strings);
        plane.event(line, at.start, at.dur, meta, |stats| {
            for (k, v) in e.args() {
                let key = strings.intern(k);
                push_arg(stats, key, v, true, strings);
            }
        });
        return;
    }
    let thread = (pid.text.to_string(), tid.text.to_string());
    let line = plane.line(
        &tid.text,
        || {
            let name = thread_names.get(&thread).cloned();
            (tid.number.unwrap_or(0), name.unwrap_or_else(|| format!("tid {}", tid.text)))
        },
        strings,
    );
    if let Some(&sort) = names.thread_sort.get(&thread) {
        plane.sort_line(line, sort);
    }
    let long_name = e.arg_str("long_name");
    let meta = match long_name {
        Some(long) if long != e.name() => plane.metadata(long, Some(e.name()), e.cat(), strings),
        _ => plane.metadata(e.name(), None, e.cat(), strings),
    };
    plane.event(line, at.start, at.dur, meta, |stats| {
        for (k, v) in e.args() {
            if k != "long_name" {
                let key = strings.intern(k);
                push_arg(stats, key, v, true, strings);
            }
        }
        flows.push_stats(at.n, stats);
    });
}

#[cfg(test)]
mod tests {
    use super::super::decode;
    use proflens_model::{Origin, StatValue};

    #[test]
    fn xprof_trace_json_keeps_planes_lines_and_names() {
        let json = r#"{"displayTimeUnit":"ns","traceEvents":[
          {"ph":"M","pid":701,"name":"process_name","args":{"name":"/host:CPU"}},
          {"ph":"M","pid":1,"name":"process_name","args":{"name":"/device:GPU:0"}},
          {"ph":"M","pid":1,"tid":7,"name":"thread_name","args":{"name":"Stream #7(Compute)"}},
          {"ph":"X","pid":1,"tid":7,"ts":10.5,"dur":2,"name":"Fill","args":{"long_name":"Fill:Fill","correlation_id":"42"}},
          {"ph":"B","pid":701,"tid":3,"ts":10,"name":"outer"},
          {"ph":"E","pid":701,"tid":3,"ts":14},
          {}
        ]}"#;
        let p = decode(json.as_bytes(), &mut |_| {}).unwrap();
        assert_eq!(p.origin, Origin::ChromeTrace);
        let names: Vec<&str> = p.planes.iter().map(|pl| p.str(pl.name)).collect();
        assert_eq!(names, ["/device:GPU:0", "/host:CPU"]);
        let gpu = &p.planes[0];
        assert_eq!(gpu.id, 0);
        assert_eq!(p.str(gpu.lines[0].name), "Stream #7(Compute)");
        let ev = &gpu.lines[0].events;
        assert_eq!(ev.start_ps, vec![500_000]);
        let meta = &gpu.event_metadata[ev.metadata[0] as usize];
        assert_eq!(p.str(meta.name), "Fill:Fill");
        assert_eq!(meta.display_name.map(|d| p.str(d)), Some("Fill"));
        let corr = ev.stats.of(0).find(|s| p.str(s.key) == "correlation_id").unwrap();
        assert_eq!(ev.stats.value(corr, &p.strings), StatValue::Int(42));
        let host = &p.planes[1].lines[0].events;
        assert_eq!((host.start_ps.at(0), host.duration_ps.at(0)), (0, 4_000_000));
    }

    #[test]
    fn nestable_async_events_get_a_line_per_id() {
        let json = r#"{"displayTimeUnit":"ns","traceEvents":[
          {"ph":"X","pid":1,"tid":1,"ts":0,"dur":100,"name":"work"},
          {"ph":"b","pid":1,"tid":1,"ts":10,"cat":"net","id":"0x1","name":"request"},
          {"ph":"b","pid":1,"tid":2,"ts":20,"cat":"net","id":"0x1","name":"dns"},
          {"ph":"n","pid":1,"tid":2,"ts":25,"cat":"net","id":"0x1","name":"resolved"},
          {"ph":"e","pid":1,"tid":2,"ts":30,"cat":"net","id":"0x1","name":"dns"},
          {"ph":"b","pid":1,"tid":1,"ts":15,"cat":"net","id":2,"name":"request"},
          {"ph":"e","pid":1,"tid":1,"ts":40,"cat":"net","id":"0x1","name":"request"},
          {"ph":"e","pid":1,"tid":1,"ts":50,"cat":"net","id":2,"name":"request"}
        ]}"#;
        let p = decode(json.as_bytes(), &mut |_| {}).unwrap();
        let plane = &p.planes[0];
        let lines: Vec<&str> = plane.lines.iter().map(|l| p.str(l.name)).collect();
        assert_eq!(lines, ["tid 1", "async: net 0x1", "async: net 2"]);
        let first = &plane.lines[1].events;
        let names: Vec<&str> = first.metadata.iter().map(|&m| p.str(plane.event_metadata[m as usize].name)).collect();
        assert_eq!(names, ["request", "dns", "resolved"]);
        assert_eq!(first.duration_ps, vec![30_000_000, 10_000_000, 0]);
        assert_eq!(first.depth, vec![0, 1, 2]);
        assert_eq!(plane.lines[2].events.duration_ps, vec![35_000_000]);
    }

    #[test]
    fn sort_indexes_order_planes_and_lines() {
        // The JSON-array form; pid 9 sorts first, tid 1 last; pid 5 has no index.
        let json = r#"[
          {"ph":"M","pid":9,"name":"process_sort_index","args":{"sort_index":-1}},
          {"ph":"M","pid":2,"name":"process_sort_index","args":{"sort_index":"4"}},
          {"ph":"M","pid":2,"tid":1,"name":"thread_sort_index","args":{"sort_index":30}},
          {"ph":"M","pid":2,"tid":3,"name":"thread_sort_index","args":{"sort_index":10}},
          {"ph":"X","pid":2,"tid":1,"ts":"1","dur":1,"name":"a"},
          {"ph":"X","pid":2,"tid":2,"ts":1,"dur":1,"name":"b"},
          {"ph":"X","pid":2,"tid":3,"ts":1,"dur":1,"name":"c"},
          {"ph":"X","pid":5,"tid":1,"ts":1,"dur":1,"name":"d"},
          {"ph":"X","pid":9,"tid":1,"ts":1,"dur":1,"name":"e"}
        ]"#;
        let p = decode(json.as_bytes(), &mut |_| {}).unwrap();
        let names: Vec<&str> = p.planes.iter().map(|pl| p.str(pl.name)).collect();
        assert_eq!(names, ["pid 9", "pid 2", "pid 5"]);
        let lines: Vec<&str> = p.planes[1].lines.iter().map(|l| p.str(l.name)).collect();
        assert_eq!(lines, ["tid 2", "tid 3", "tid 1"]);
    }
}
