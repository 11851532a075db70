//! Any bytes as a host summary file (`<host>.proflens-summary.bin.gz`, raw
//! or gzipped), then, when they decode, the tools of all hosts on two hosts
//! that have only that summary: an error or a view, never a panic.

use super::common::NoHooks;
use proflens_analysis::context::summary::{HostSummary, COMBINED_FROM_SUMMARIES};
use proflens_analysis::context::{Format, HostContext, Request};
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
    for id in COMBINED_FROM_SUMMARIES {
        let Some(tool) = registry::find(id) else { continue };
        if let Ok(output) = registry::run(tool, &hosts, &Request::default()) {
            for format in [Format::Json, Format::Csv, Format::Xprof] {
                let _ = output.text(format);
            }
        }
    }
}
