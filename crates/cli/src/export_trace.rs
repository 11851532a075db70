//! `proflens export-trace PATH -o FILE`: the timeline as Chrome Trace Event
//! JSON, which Perfetto and about:tracing open. With `--host`, or on a run of
//! one host, one host's timeline; else every host of the run, one process
//! per (host, plane) on the run's clock.

use crate::{hosts, output, Failure};
use proflens_analysis::context::HostContext;
use proflens_analysis::passes::trace::export::write_chrome_trace;
use proflens_analysis::passes::trace::export_run::{write_run_chrome_trace, HostPlacement};
use proflens_analysis::passes::trace::run::offsets_ps;
use std::path::Path;
use std::rc::Rc;

pub fn run(path: &Path, out: &Path, run: Option<&str>, host: Option<&str>) -> Result<(), Failure> {
    let mut opened = hosts::open(path)?;
    let (_, chosen) = crate::combine::choose(&mut opened, run, host, path)?;
    let [host] = chosen.as_slice() else {
        return all_hosts(&chosen, out);
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

/// Every host of a run in one file, each host loaded in turn (the CLI keeps
/// one host's events in memory).
fn all_hosts(hosts: &[Rc<HostContext>], out: &Path) -> Result<(), Failure> {
    let origins = hosts.iter().map(|h| Ok(h.profile()?.origin_ns)).collect::<Result<Vec<_>, String>>()?;
    let placements: Vec<HostPlacement> = hosts
        .iter()
        .zip(offsets_ps(&origins))
        .map(|(h, offset_ps)| HostPlacement { name: h.name().to_string(), offset_ps })
        .collect();
    let mut events = 0;
    output::write_file(out, |w| {
        let mut write_host = |h: usize, window: Option<(i64, i64)>, w: &mut dyn std::io::Write| {
            let host = &hosts[h];
            let loaded = (host.profile(), host.grouping(), host.trace());
            let (Ok(profile), Ok(grouping), Ok(trace)) = loaded else {
                return Err(std::io::Error::other(format!("host “{}” could not be read", host.name())));
            };
            write_chrome_trace(&profile, &grouping, &trace.trace, window, w)
        };
        events = write_run_chrome_trace(&placements, None, &mut write_host, w)?;
        Ok(())
    })?;
    eprintln!("proflens: wrote {events} events of {} hosts to {}", hosts.len(), out.display());
    Ok(())
}
