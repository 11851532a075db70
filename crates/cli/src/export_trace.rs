//! `proflens export-trace PATH -o FILE`: the timeline as Chrome Trace Event
//! JSON, which Perfetto and about:tracing open.

use crate::{hosts, output, Failure};
use proflens_analysis::passes::trace::export::write_chrome_trace;
use std::path::Path;

pub fn run(path: &Path, out: &Path, run: Option<&str>, host: Option<&str>) -> Result<(), Failure> {
    let opened = hosts::open(path)?;
    let (_, chosen) = hosts::choose(&opened, run, host, path)?;
    let [host] = chosen.as_slice() else {
        return Err(Failure(format!(
            "the run has {} hosts; choose one with --host (a trace is one host's timeline)",
            chosen.len()
        )));
    };
    let (profile, grouping, trace) = (host.profile()?, host.grouping()?, host.trace()?);
    let mut events = 0;
    output::write_file(out, |w| {
        events = write_chrome_trace(&profile, &grouping, &trace.trace, None, w)?;
        Ok(())
    })?;
    eprintln!("proflens: wrote {events} events to {}", out.display());
    Ok(())
}
