//! Any bytes as a Perfetto trace (`rank0.pftrace`: the `Trace` protobuf of
//! protos/perfetto/trace, raw or gzip) and through the general loader (which
//! must tell it by content): decoded, then shown by the trace viewer through
//! the registry as the CLI and the app run it, with the PyTorch views when
//! the trace maps onto them: an error or a view, never a panic.

use crate::common;
use proflens_analysis::context::{Format, Request};
use proflens_analysis::registry;
use proflens_format::{load_profile, load_profile_named, Limits};

pub fn run(data: &[u8]) {
    let limits = Limits { max_input_bytes: 8 << 20, max_decompressed_bytes: 64 << 20 };
    if let Ok(profile) = load_profile_named("rank0.pftrace", data, &limits, &mut |_| {}) {
        let index = proflens_analysis::passes::kineto::KinetoIndex::new(&profile);
        let _ = proflens_analysis::tools::overview::pytorch::overview(&index);
    }
    let _ = load_profile(data, &limits, &mut |_| {}).map(|p| p.event_count());
    let host = common::host("rank0.pftrace", None, data);
    if let Some(tool) = registry::find("trace_viewer") {
        if let Ok(output) = registry::run(tool, std::slice::from_ref(&host), &Request::default()) {
            let _ = output.text(Format::Json);
        }
    }
    common::trace_queries(&host);
}
