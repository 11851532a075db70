//! Any bytes as each legacy TensorBoard tool file, shown by the tool that
//! reads it, through the registry as the CLI and the app run it: an error or
//! a view, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use proflens_analysis::context::{HostContext, HostFile, Hooks, Request};
use proflens_analysis::registry;
use proflens_format::legacy::LegacyTool;
use std::rc::Rc;

struct NoHooks;

impl Hooks for NoHooks {
    fn progress(&self, _: Option<f64>, _: &str) {}
    fn now_ms(&self) -> f64 {
        0.0
    }
}

fuzz_target!(|data: &[u8]| {
    for kind in LegacyTool::ALL {
        let path = format!("host.{}.{}", kind.file_stem(), kind.extensions()[0]);
        let bytes = data.to_vec();
        let file = HostFile { path, tool: Some(kind), read: Box::new(move || Ok(bytes.clone())) };
        let host = Rc::new(HostContext::new("host", vec![file], Rc::new(NoHooks)));
        if let Some(tool) = registry::tool_for_file(kind) {
            if let Ok(output) = registry::run(tool, &[host], &Request::default()) {
                let _ = output.text(proflens_analysis::context::Format::Xprof);
            }
        }
    }
});
