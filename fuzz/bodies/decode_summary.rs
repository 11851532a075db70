//! Any bytes as a summary file (`<host>.proflens-summary.bin.gz`, raw or
//! gzipped: a host's or a PyTorch rank's), then, when they decode, the
//! tools of all hosts (or ranks) on two hosts that have only that summary:
//! an error or a view, never a panic.

use super::common::{run_in_every_format, NoHooks};
use proflens_analysis::context::summary::COMBINED_FROM_SUMMARIES;
use proflens_analysis::context::HostContext;
use proflens_analysis::rank_summary::{Summary, COMBINED_FROM_RANK_SUMMARIES};
use proflens_analysis::registry;
use std::rc::Rc;

pub fn run(data: &[u8]) {
    let Ok(summary) = Summary::decode(data) else { return };
    let (names, tools) = match &summary {
        Summary::Host(_) => (vec!["a".to_string(), "b".to_string()], &COMBINED_FROM_SUMMARIES[..]),
        // A rank summary is given only to the host it names.
        Summary::Rank(s) => (vec![s.host.clone(); 2], &COMBINED_FROM_RANK_SUMMARIES[..]),
    };
    let hosts: Vec<Rc<HostContext>> = names
        .iter()
        .map(|name| {
            let host = Rc::new(HostContext::new(name.clone(), Vec::new(), Rc::new(NoHooks)));
            // Given to its own host, a summary is always taken.
            summary.clone().give(&host).expect("a summary is given to the host it names");
            host
        })
        .collect();
    for tool in tools.iter().filter_map(|id| registry::find(id)) {
        run_in_every_format(tool, &hosts);
    }
}
