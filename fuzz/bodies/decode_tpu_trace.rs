//! Any bytes as the TPU profiler's `<host>.trace` (the `Trace` protobuf of
//! trace_events.proto, raw or gzip): decoded, then shown by the trace viewer
//! through the registry as the CLI and the app run it: an error or a view,
//! never a panic.

use crate::common;
use proflens_analysis::context::{Format, Request};
use proflens_analysis::registry;
use proflens_format::{load_profile_named, Limits};

pub fn run(data: &[u8]) {
    let limits = Limits { max_input_bytes: 8 << 20, max_decompressed_bytes: 64 << 20 };
    let _ = load_profile_named("host.trace", data, &limits, &mut |_| {}).map(|p| p.event_count());
    let host = common::host("host.trace", None, data);
    if let Some(tool) = registry::find("trace_viewer") {
        if let Ok(output) = registry::run(tool, std::slice::from_ref(&host), &Request::default()) {
            let _ = output.text(Format::Json);
        }
    }
    common::trace_queries(&host);
}
