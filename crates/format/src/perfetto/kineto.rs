//! What Kineto's Perfetto writer (libkineto `PerfettoTraceBuilder`, beside
//! its `ChromeTraceLogger`) puts where its JSON trace has it, moved back:
//!
//! * `handleTraceStart` writes each trace metadata entry as an instant named
//!   `trace_metadata` with one string annotation, the value as the JSON
//!   logger writes it at the top level (raw JSON text), and the device
//!   properties as an instant `device_properties` whose `properties`
//!   annotation is the JSON list's items. These become the top-level keys
//!   again (`deviceProperties` as the list), not events: they carry no
//!   timestamp. A `baseTimeNanoseconds` is left out: it is what the JSON's
//!   relative µs add to, and the Perfetto writer's times are absolute ns.
//! * `handleActivity` writes an activity's `metadataJson()` (the text the
//!   JSON logger writes inside its `"args": {…}`) as one string annotation
//!   `metadata`, and its correlation id as an annotation `correlation_id`.
//!   The metadata's keys become the args again; `correlation_id` is dropped
//!   when the metadata has the JSON's own `correlation` arg (the same id).

use super::event::{Event, Kind};
use serde_json::{Map, Value};

const METADATA_EVENT: &str = "trace_metadata";
const DEVICE_PROPERTIES_EVENT: &str = "device_properties";

/// Takes the trace metadata instants out of `events`; returns the
/// top-level keys they stand for.
pub(crate) fn take_head(events: &mut Vec<Event>) -> Map<String, Value> {
    let mut head = Map::new();
    events.retain(|e| {
        let metadata = e.kind == Kind::Instant && matches!(e.name.as_str(), METADATA_EVENT | DEVICE_PROPERTIES_EVENT);
        if !metadata || !e.args.iter().all(|(_, v)| v.is_string()) {
            return true;
        }
        for (key, value) in &e.args {
            let text = value.as_str().unwrap_or_default();
            if e.name == DEVICE_PROPERTIES_EVENT {
                if let Ok(list) = serde_json::from_str::<Value>(&format!("[{text}]")) {
                    head.insert("deviceProperties".to_string(), list);
                }
            } else if key != "traceEvents" && key != "baseTimeNanoseconds" {
                let parsed = serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_string()));
                head.insert(key.clone(), parsed);
            }
        }
        false
    });
    head
}

/// An activity's args as the JSON trace has them (see the module docs).
pub(crate) fn expand_args(args: &mut Map<String, Value>) {
    let Some(Value::String(text)) = args.get("metadata") else { return };
    let Ok(Value::Object(inner)) = serde_json::from_str::<Value>(&format!("{{{text}}}")) else { return };
    args.remove("metadata");
    if inner.contains_key("correlation") {
        args.remove("correlation_id");
    }
    args.extend(inner);
}
