//! Any bytes as a host's `*.xplane.pb`: every tool in every format, the
//! tools that combine hosts, and the trace viewer's queries.

use crate::common;

pub fn run(data: &[u8]) {
    let host = common::host("vm.xplane.pb", None, data);
    common::run_everything(&host);
}
