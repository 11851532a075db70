//! `proflens export-trace PATH -o FILE`: the timeline as Chrome Trace Event
//! JSON, which Perfetto and about:tracing open.

use crate::input;
use crate::Failure;
use proflens_analysis::passes::grouping::group_events;
use proflens_analysis::passes::trace::{export::write_chrome_trace, Trace};
use proflens_analysis::passes::xla_ops::GpuHlo;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

pub fn run(path: &Path, output: &Path, run: Option<&str>, host: Option<&str>) -> Result<(), Failure> {
    let input = input::resolve(path)?;
    let files = crate::tool::choose_hosts(&input, run, host, path)?;
    let [(file, _)]: [(PathBuf, String); 1] = files.try_into().map_err(|files: Vec<(PathBuf, String)>| {
        Failure(format!("the run has {} hosts; choose one with --host (a trace is one host's timeline)", files.len()))
    })?;
    let profile = input::load(&file)?;
    let grouping = group_events(&profile);
    let modules = proflens_format::hlo::hlo_modules(&profile).modules;
    let trace = Trace::with_hlo(&profile, &grouping, &GpuHlo::new(&modules));
    let io_error = |e: std::io::Error| Failure(format!("{}: {e}", output.display()));
    let mut out = BufWriter::new(std::fs::File::create(output).map_err(io_error)?);
    let events = write_chrome_trace(&profile, &grouping, &trace, None, &mut out).map_err(io_error)?;
    out.flush().map_err(io_error)?;
    eprintln!("proflens: wrote {events} events to {}", output.display());
    Ok(())
}
