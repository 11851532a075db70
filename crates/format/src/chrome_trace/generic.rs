//! Any other trace-event file, XProf's legacy `trace.json.gz` included
//! (formats.md §4.11): each pid becomes a plane named by its `process_name`
//! (XProf writes plane names such as `/host:CPU` and `/device:GPU:0`), each
//! tid a line named by its `thread_name`. Complete (`X`), instant (`i`) and
//! begin/end (`B`/`E`) events are kept; XProf's `long_name` arg restores the
//! raw event name (the shown name becomes the display name), and integer
//! text args (XProf writes every arg as a string) become integers again.
//! Counter (`C`) events become the process's counter series.

use super::builder::{push_arg, PlaneAcc};
use super::counter_events;
use super::{rel_ps, RawEvent};
use crate::Progress;
use proflens_model::{Interner, Profile};
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;

pub(crate) fn build(events: &[RawEvent], progress: &mut dyn FnMut(Progress)) -> Profile {
    let mut profile = Profile { strings: Interner::new(), ..Profile::default() };
    let strings = &mut profile.strings;
    let t0 = events.iter().filter(|e| matches!(e.ph(), "X" | "i" | "I" | "B")).filter_map(RawEvent::ts_ps).min();
    let t0 = t0.unwrap_or(0);
    let mut process_names: FxHashMap<String, String> = FxHashMap::default();
    let mut thread_names: FxHashMap<(String, String), String> = FxHashMap::default();
    for e in events.iter().filter(|e| e.ph() == "M") {
        let Some(name) = e.arg_str("name") else { continue };
        match e.name() {
            "process_name" => {
                process_names.insert(e.pid().text, name.to_string());
            }
            "thread_name" => {
                thread_names.insert((e.pid().text, e.tid().text), name.to_string());
            }
            _ => {}
        }
    }
    // Planes keyed by pid text, in pid order for a stable layout.
    let mut planes: BTreeMap<(i64, String), PlaneAcc> = BTreeMap::new();
    // Open `B` events per (pid, tid): (start, event index).
    let mut open: FxHashMap<(String, String), Vec<(i64, usize)>> = FxHashMap::default();
    let total = events.len() as u64;
    for (n, e) in events.iter().enumerate() {
        if n % 65_536 == 0 {
            progress(Progress::Building { done: n as u64, total });
        }
        let Some(ts) = e.ts_ps() else { continue };
        let start = rel_ps(ts, t0);
        let (begin, dur) = match e.ph() {
            "X" => (n, rel_ps(e.dur_ps(), 0)),
            "i" | "I" => (n, 0),
            "C" => {
                let plane = plane_of(&mut planes, e, &process_names, strings);
                counter_events::push(plane, e, start, "");
                continue;
            }
            "B" => {
                open.entry((e.pid().text, e.tid().text)).or_default().push((start, n));
                continue;
            }
            "E" => match open.get_mut(&(e.pid().text, e.tid().text)).and_then(Vec::pop) {
                Some((begin_ts, b)) => {
                    emit(
                        &mut planes,
                        &events[b],
                        begin_ts,
                        start.saturating_sub(begin_ts),
                        &process_names,
                        &thread_names,
                        strings,
                    );
                    continue;
                }
                None => continue,
            },
            _ => continue,
        };
        emit(&mut planes, &events[begin], start, dur, &process_names, &thread_names, strings);
    }
    profile.planes.extend(planes.into_values().map(PlaneAcc::finish));
    progress(Progress::Building { done: total, total });
    profile
}

fn emit(
    planes: &mut BTreeMap<(i64, String), PlaneAcc>,
    e: &RawEvent,
    start: i64,
    dur: i64,
    process_names: &FxHashMap<String, String>,
    thread_names: &FxHashMap<(String, String), String>,
    strings: &mut Interner,
) {
    let tid = e.tid();
    let pid = e.pid();
    let plane = plane_of(planes, e, process_names, strings);
    let line = plane.line(
        &tid.text,
        || {
            let name = thread_names.get(&(pid.text.clone(), tid.text.clone())).cloned();
            (tid.number.unwrap_or(0), name.unwrap_or_else(|| format!("tid {}", tid.text)))
        },
        strings,
    );
    let long_name = e.arg_str("long_name");
    let meta = match long_name {
        Some(long) if long != e.name() => plane.metadata(long, Some(e.name()), e.cat(), strings),
        _ => plane.metadata(e.name(), None, e.cat(), strings),
    };
    plane.event(line, start, dur, meta, |stats| {
        for (k, v) in e.args() {
            if k != "long_name" {
                let key = strings.intern(k);
                push_arg(stats, key, v, true, strings);
            }
        }
    });
}

/// The plane of `e`'s process, created on first use.
fn plane_of<'a>(
    planes: &'a mut BTreeMap<(i64, String), PlaneAcc>,
    e: &RawEvent,
    process_names: &FxHashMap<String, String>,
    strings: &mut Interner,
) -> &'a mut PlaneAcc {
    let pid = e.pid();
    planes.entry((pid.number.unwrap_or(i64::MAX), pid.text.clone())).or_insert_with(|| {
        let name = match process_names.get(&pid.text) {
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
        assert_eq!((host.start_ps[0], host.duration_ps[0]), (0, 4_000_000));
    }
}
