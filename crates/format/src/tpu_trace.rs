//! `<host>.trace`: the `Trace` protobuf (trace_events.proto) that the TPU
//! profiler (`capture_tpu_profile`) wrote for TensorBoard's trace viewer.
//!
//! A trace has devices (each with resources: a TPU core's units, a host's
//! threads) and events on a device's resource, timed in picoseconds, with
//! string arguments. It becomes the Chrome trace-event JSON it stands for
//! (a device is a process, a resource a thread) and is read by the trace
//! importer, so the trace viewer shows it like any trace.
//!
//! Such a file's framing looks like an XSpace's (length-delimited fields 1
//! and 4), so its name decides: [`is_trace_file`].

use crate::{chrome_trace, inflate, proto, Error, Limits, Progress};
use proflens_model::Profile;
use prost::Message;
use serde_json::json;
use std::fmt::Write as _;

const SUFFIXES: [&str; 2] = [".trace", ".trace.gz"];

/// Host name of a TPU profiler trace file name (`10.0.0.2.trace` → `10.0.0.2`).
pub fn host_name(file_name: &str) -> Option<&str> {
    let name = file_name.rsplit(['/', '\\']).next().unwrap_or(file_name);
    SUFFIXES.iter().find_map(|s| name.strip_suffix(s)).filter(|h| !h.is_empty())
}

/// Whether a file is named as a TPU profiler trace (`<host>.trace`, or gzip `<host>.trace.gz`).
pub fn is_trace_file(file_name: &str) -> bool {
    host_name(file_name).is_some()
}

/// Decodes a `Trace` protobuf (raw or gzip) into a profile.
pub fn decode(bytes: &[u8], limits: &Limits, progress: &mut dyn FnMut(Progress)) -> Result<Profile, Error> {
    if bytes.len() as u64 > limits.max_input_bytes {
        return Err(Error::TooLarge { what: "file", limit: limits.max_input_bytes });
    }
    let raw = if bytes.starts_with(&[0x1f, 0x8b]) {
        std::borrow::Cow::Owned(inflate::gunzip(bytes, limits.max_decompressed_bytes, progress)?)
    } else {
        std::borrow::Cow::Borrowed(bytes)
    };
    if raw.is_empty() {
        return Err(Error::Empty);
    }
    progress(Progress::Parsing);
    let trace = proto::Trace::decode(raw.as_ref()).map_err(|e| Error::Corrupt {
        detail: format!("it is named like a TPU profiler trace (*.trace), but is not a Trace protobuf ({e})"),
    })?;
    if trace.trace_events.is_empty() {
        return Err(Error::NoEvents {
            detail: format!("the TPU profiler trace has {} devices and no events", trace.devices.len()),
        });
    }
    chrome_trace::decode(&to_trace_json(&trace), progress)
}

/// Picoseconds as exact decimal microseconds (`1234567` → `1.234567`).
fn micros(ps: u64) -> String {
    format!("{}.{:06}", ps / 1_000_000, ps % 1_000_000)
}

/// The trace as Chrome trace-event JSON: per device a `process_name` and
/// `process_sort_index` (the device id), per resource a `thread_name` and
/// `thread_sort_index` (its sort index, else its id); complete events
/// (`X`) for events with a duration, thread-scoped instants (`i`) without.
pub fn to_trace_json(trace: &proto::Trace) -> Vec<u8> {
    let mut out = String::from("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
    let mut first = true;
    let mut push = |out: &mut String, event: &str| {
        if !std::mem::take(&mut first) {
            out.push(',');
        }
        out.push_str(event);
    };
    let mut devices: Vec<(&u32, &proto::Device)> = trace.devices.iter().collect();
    devices.sort_by_key(|(id, _)| **id);
    for (&pid, device) in devices {
        let meta = |name: &str, tid: u32, args: serde_json::Value| {
            json!({"ph": "M", "name": name, "pid": pid, "tid": tid, "args": args}).to_string()
        };
        push(&mut out, &meta("process_name", 0, json!({"name": device.name})));
        push(&mut out, &meta("process_sort_index", 0, json!({"sort_index": pid})));
        let mut resources: Vec<(&u32, &proto::Resource)> = device.resources.iter().collect();
        resources.sort_by_key(|(id, _)| **id);
        for (&tid, resource) in resources {
            let sort_index = if resource.sort_index != 0 { resource.sort_index } else { tid };
            push(&mut out, &meta("thread_name", tid, json!({"name": resource.name})));
            push(&mut out, &meta("thread_sort_index", tid, json!({"sort_index": sort_index})));
        }
    }
    for e in &trace.trace_events {
        let mut args: Vec<(&String, &String)> = e.args.iter().collect();
        args.sort();
        let args: serde_json::Map<String, serde_json::Value> =
            args.into_iter().map(|(k, v)| (k.clone(), json!(v))).collect();
        let mut event = format!(
            "{{\"pid\":{},\"tid\":{},\"name\":{},\"ts\":{},\"args\":{}",
            e.device_id,
            e.resource_id,
            json!(e.name),
            micros(e.timestamp_ps),
            serde_json::Value::Object(args)
        );
        if e.duration_ps > 0 {
            let _ = write!(event, ",\"ph\":\"X\",\"dur\":{}}}", micros(e.duration_ps));
        } else {
            event.push_str(",\"ph\":\"i\",\"s\":\"t\"}");
        }
        push(&mut out, &event);
    }
    out.push_str("]}");
    out.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// A small SYNTHETIC trace, encoded from the message definition (no
    /// real `*.trace` file is at hand).
    fn synthetic() -> proto::Trace {
        let core = proto::Device {
            name: "TPU Core 0".into(),
            device_id: 1,
            resources: HashMap::from([
                (2, proto::Resource { name: "Step".into(), resource_id: 2, sort_index: 0 }),
                (3, proto::Resource { name: "XLA Ops".into(), resource_id: 3, sort_index: 1 }),
            ]),
        };
        let event = |resource_id, name: &str, timestamp_ps, duration_ps| proto::TraceEvent {
            device_id: 1,
            resource_id,
            name: name.into(),
            timestamp_ps,
            duration_ps,
            args: HashMap::from([("long_name".to_string(), format!("%{name} = f32[8] fusion()"))]),
        };
        proto::Trace {
            devices: HashMap::from([(1, core)]),
            trace_events: vec![
                event(2, "0", 1_000_000_000, 5_000_000_000),
                event(3, "fusion.1", 1_250_000_001, 2_000_000),
                event(3, "marker", 3_000_000_000, 0),
            ],
        }
    }

    #[test]
    fn devices_resources_and_events_become_a_profile() {
        let bytes = synthetic().encode_to_vec();
        let profile = decode(&bytes, &Limits::default(), &mut |_| {}).unwrap();
        assert_eq!(profile.event_count(), 3);
        // A device is a process: named as the trace importer names processes.
        let plane =
            profile.planes.iter().find(|p| profile.strings.get(p.name) == "TPU Core 0 (pid 1)").expect("device plane");
        let names: Vec<&str> = plane.lines.iter().map(|l| profile.strings.get(l.name)).collect();
        assert!(names.contains(&"Step") && names.contains(&"XLA Ops"), "{names:?}");
    }

    #[test]
    fn times_stay_exact_picoseconds() {
        assert_eq!(micros(1_250_000_001), "1250.000001");
        assert_eq!(micros(0), "0.000000");
        let text = String::from_utf8(to_trace_json(&synthetic())).unwrap();
        assert!(text.contains("\"ts\":1250.000001"), "{text}");
        assert!(text.contains("\"ph\":\"i\""));
    }

    #[test]
    fn names_and_bad_content() {
        assert_eq!(host_name("logs/10.0.0.2.trace"), Some("10.0.0.2"));
        assert_eq!(host_name("vm.trace.gz"), Some("vm"));
        assert_eq!(host_name(".trace"), None);
        assert!(!is_trace_file("vm.trace.json.gz"));
        let limits = Limits::default();
        assert_eq!(decode(&[], &limits, &mut |_| {}).unwrap_err(), Error::Empty);
        let broken = decode(&[0x0a, 0xff], &limits, &mut |_| {}).unwrap_err().to_string();
        assert!(broken.contains("not a Trace protobuf"), "{broken}");
        let empty = proto::Trace { devices: synthetic().devices, trace_events: vec![] }.encode_to_vec();
        let none = decode(&empty, &limits, &mut |_| {}).unwrap_err().to_string();
        assert!(none.contains("1 devices and no events"), "{none}");
    }

    /// Every truncation and every one-byte change of the synthetic trace is
    /// a profile or an error, never a panic (the fuzz target
    /// `decode_tpu_trace` does this at random, at length).
    #[test]
    fn damaged_traces_never_panic() {
        let bytes = synthetic().encode_to_vec();
        let limits = Limits::default();
        for cut in 0..bytes.len() {
            let _ = decode(&bytes[..cut], &limits, &mut |_| {});
        }
        for at in 0..bytes.len() {
            for value in [0x00, 0x7f, 0x80, 0xff] {
                let mut changed = bytes.clone();
                changed[at] = value;
                let _ = decode(&changed, &limits, &mut |_| {});
            }
        }
    }
}
