//! The records as the Chrome trace-event JSON they stand for, read by the
//! trace importer as any trace file (as [`crate::tpu_trace`] does for the
//! TPU profiler's protobuf): `process_name`/`thread_name` metadata from the
//! track descriptors, `X` slices, thread-scoped `i` instants, `C` counter
//! samples (one arg, `value`, so the series is named by its track), and
//! flows as `bind_id` with `flow_in`/`flow_out` on the slices (the form
//! Perfetto's own JSON export writes, trace_processor/export_json.cc).
//! Categories are joined with `,`, as that export joins them. Times are ns,
//! written as exact µs with three decimals.

use super::slices::Record;
use super::tracks::{Place, Tracks};
use rustc_hash::FxHashMap;
use serde_json::{json, Map, Value};
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// The trace JSON of `records`, with `head` as its top-level keys.
pub(crate) fn trace_json(head: Map<String, Value>, records: &[Record], tracks: &Tracks) -> Vec<u8> {
    let mut places: FxHashMap<u64, Place> = FxHashMap::default();
    for r in records {
        places.entry(r.track).or_insert_with(|| tracks.place(r.track));
    }
    let mut out = String::from("{");
    for (key, value) in &head {
        let _ = write!(out, "{}:{},", Value::from(key.as_str()), value);
    }
    out.push_str("\"traceEvents\":[");
    let mut first = true;
    let mut push = |out: &mut String, event: &str| {
        if !std::mem::take(&mut first) {
            out.push(',');
        }
        out.push_str(event);
    };
    let pids: BTreeSet<String> = places.values().map(|p| p.pid.to_string()).collect();
    for (pid, name) in tracks.process_names() {
        if pids.contains(&pid.to_string()) {
            let e = json!({"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "args": {"name": name}});
            push(&mut out, &e.to_string());
        }
    }
    let mut lines: Vec<&Place> = places.values().collect();
    lines.sort_by_key(|p| (p.pid.to_string(), p.tid.to_string()));
    lines.dedup_by_key(|p| (p.pid.to_string(), p.tid.to_string()));
    for p in lines {
        let e = json!({"ph": "M", "name": "thread_name", "pid": p.pid, "tid": p.tid, "args": {"name": p.line_name}});
        push(&mut out, &e.to_string());
    }
    let mut e = String::new();
    for r in records {
        let place = &places[&r.track];
        e.clear();
        let _ = write!(e, "{{\"ph\":\"{}\",\"name\":{}", r.ph, Value::from(r.name.as_str()));
        if !r.cat.is_empty() {
            let _ = write!(e, ",\"cat\":{}", Value::from(r.cat.as_str()));
        }
        let _ = write!(e, ",\"pid\":{},\"tid\":{},\"ts\":{}", place.pid, place.tid, micros(r.ts));
        match r.ph {
            "X" => {
                let _ = write!(e, ",\"dur\":{}", micros(r.dur));
            }
            "i" => e.push_str(",\"s\":\"t\""),
            _ => {}
        }
        if let Some((key, flow_in, flow_out)) = &r.flow {
            let _ =
                write!(e, ",\"bind_id\":{},\"flow_in\":{flow_in},\"flow_out\":{flow_out}", Value::from(key.as_str()));
        }
        let _ = write!(e, ",\"args\":{}}}", serde_json::to_string(&r.args).unwrap_or_else(|_| "{}".into()));
        push(&mut out, &e);
    }
    out.push_str("]}");
    out.into_bytes()
}

/// ns as exact decimal µs (`1234567` → `1234.567`): written as text, since
/// an `f64` loses the last ns of epoch times.
fn micros(ns: i128) -> String {
    let sign = if ns < 0 { "-" } else { "" };
    let abs = ns.unsigned_abs();
    format!("{sign}{}.{:03}", abs / 1000, abs % 1000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_exact_micros() {
        assert_eq!(micros(1_234_567), "1234.567");
        assert_eq!(micros(-1_500), "-1.500");
        assert_eq!(micros(1_700_000_000_123_456_789), "1700000000123456.789");
    }
}
