//! Any bytes as each legacy TensorBoard tool file, shown by the tool that
//! reads it, through the registry as the CLI and the app run it: an error or
//! a view, never a panic.

use crate::common;
use proflens_analysis::context::{Format, Request};
use proflens_analysis::registry;
use proflens_format::legacy::LegacyTool;

pub fn run(data: &[u8]) {
    for kind in LegacyTool::ALL {
        let path = format!("host.{}.{}", kind.file_stem(), kind.extensions()[0]);
        let host = common::host(&path, Some(kind), data);
        if let Some(tool) = registry::tool_for_file(kind) {
            if let Ok(output) = registry::run(tool, &[host], &Request::default()) {
                let _ = output.text(Format::Xprof);
            }
        }
    }
}
