//! Any bytes as each kind of legacy TensorBoard tool file, under each name
//! the profiler gave it: every tool in every format on that host (the tool
//! that shows the file, and the others' refusals).

use crate::common;
use proflens_format::legacy::LegacyTool;

pub fn run(data: &[u8]) {
    for kind in LegacyTool::ALL {
        for ext in kind.extensions() {
            let path = format!("host.{}.{ext}", kind.file_stem());
            let host = common::host(&path, Some(kind), data);
            common::run_everything(&host);
        }
    }
}
