//! Any bytes as a host's trace JSON (a PyTorch/Kineto trace, XProf's
//! `trace.json.gz`, or a TensorBoard tool JSON named like a trace): every
//! tool in every format, the tools that combine ranks, and the trace
//! viewer's queries.

use crate::common;

pub fn run(data: &[u8]) {
    let host = common::host("rank0.pt.trace.json", None, data);
    common::run_everything(&host);
}
