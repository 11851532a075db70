//! Any bytes as a host summary file (`<host>.proflens-summary.bin.gz`, raw
//! or gzipped), then, when they decode, the tools of all hosts on two hosts
//! that have only that summary: an error or a view, never a panic.

use super::common::{run_in_every_format, NoHooks};
use proflens_analysis::context::summary::{HostSummary, COMBINED_FROM_SUMMARIES};
use proflens_analysis::context::HostContext;
use proflens_analysis::registry;
use std::rc::Rc;

pub fn run(data: &[u8]) {
    let Ok(summary) = HostSummary::decode(data) else { return };
    let hosts: Vec<Rc<HostContext>> = ["a", "b"]
        .iter()
        .map(|name| {
            let host = Rc::new(HostContext::new(*name, Vec::new(), Rc::new(NoHooks)));
            host.give_analysis(summary.analysis.clone());
            host
        })
        .collect();
    for tool in COMBINED_FROM_SUMMARIES.iter().filter_map(|id| registry::find(id)) {
        run_in_every_format(tool, &hosts);
    }
}
