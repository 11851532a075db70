//! `--run RUN1+RUN2`: runs whose capture windows overlap, combined as one
//! run (`proflens_analysis::context::overlap`: a multi-host JAX job writes
//! each host under a run folder of its own), and the combinations `info`
//! offers.

use crate::hosts::{self, names, Opened, Run};
use crate::Failure;
use proflens_analysis::context::overlap::{self, SEPARATOR};
use proflens_analysis::context::HostContext;
use std::path::Path;
use std::rc::Rc;

/// [`hosts::choose`], once the run a `RUN1+RUN2` names is added.
pub fn choose<'a>(
    opened: &'a mut Opened,
    run: Option<&str>,
    host: Option<&str>,
    path: &Path,
) -> Result<(&'a Run, Vec<Rc<HostContext>>), Failure> {
    if let Some(name) = run {
        add(opened, name, path)?;
    }
    hosts::choose(opened, run, host, path)
}

/// Adds to `opened` the run `name` combines, when `name` is no run of its
/// own but runs joined by `+`; an error when one of them is no run, or
/// their windows do not overlap.
pub fn add(opened: &mut Opened, name: &str, path: &Path) -> Result<(), Failure> {
    if opened.runs.iter().any(|r| r.name == name) || !name.contains(SEPARATOR) {
        return Ok(());
    }
    let mut chosen: Vec<usize> = Vec::new();
    for part in name.split(SEPARATOR) {
        let at = opened.runs.iter().position(|r| r.name == part).ok_or_else(|| {
            Failure(format!(
                "{}: no run {} to combine; the runs are: {}",
                path.display(),
                proflens_format::quoted(part),
                names(opened.runs.iter().map(|r| r.name.as_str()))
            ))
        })?;
        if !chosen.contains(&at) {
            chosen.push(at);
        }
    }
    if chosen.len() < 2 {
        return Ok(());
    }
    let windows: Vec<Option<(u64, u64)>> = chosen
        .iter()
        .map(|&i| overlap::run_window(&opened.runs[i].hosts).map_err(|e| Failure(format!("{}: {e}", path.display()))))
        .collect::<Result<_, _>>()?;
    if let Some(k) = windows.iter().position(Option::is_none) {
        return Err(Failure(format!(
            "run {} records no wall-clock time, so whether it overlaps the others cannot be told; it is not combined",
            proflens_format::quoted(&opened.runs[chosen[k]].name)
        )));
    }
    let groups = overlap::overlapping(&windows);
    if groups.len() != 1 || groups[0].len() != chosen.len() {
        return Err(Failure(format!(
            "the runs do not overlap in time ({}); only runs captured together (the hosts of one job) are combined",
            described(opened, &chosen, &windows)
        )));
    }
    let run = combined(opened, name, &chosen);
    opened.runs.push(run);
    Ok(())
}

/// Each run's window, in seconds from the earliest start.
fn described(opened: &Opened, chosen: &[usize], windows: &[Option<(u64, u64)>]) -> String {
    let first = windows.iter().flatten().map(|w| w.0).min().unwrap_or(0);
    let seconds = |ns: u64| (ns - first) as f64 / 1e9;
    let each = chosen.iter().zip(windows).filter_map(|(&i, w)| {
        let (start, end) = (*w)?;
        Some(format!("{}: {:.3}–{:.3} s", opened.runs[i].name, seconds(start), seconds(end)))
    });
    each.collect::<Vec<_>>().join(", ")
}

/// The hosts of the `chosen` runs as one run named `name`, sorted by name
/// as discovery sorts a run's hosts. A host name two of them share is told
/// apart by its run (`vm (2026_01_01_00_00_01)`), in a context of its own.
fn combined(opened: &Opened, name: &str, chosen: &[usize]) -> Run {
    let shared =
        |host: &str| chosen.iter().filter(|&&i| opened.runs[i].specs.iter().any(|s| s.name == host)).count() > 1;
    let mut hosts = Vec::new();
    for &i in chosen {
        let from = &opened.runs[i];
        for ((host, files), spec) in from.hosts.iter().zip(&from.files).zip(&from.specs) {
            let (host, spec) = if shared(&spec.name) {
                let mut renamed = spec.clone();
                renamed.name = format!("{} ({})", spec.name, from.name);
                (opened.context(&renamed), renamed)
            } else {
                (host.clone(), spec.clone())
            };
            hosts.push((host, files.clone(), spec));
        }
    }
    hosts.sort_by(|a, b| a.2.name.cmp(&b.2.name));
    let mut run = Run { name: name.to_string(), hosts: Vec::new(), files: Vec::new(), specs: Vec::new() };
    for (host, files, spec) in hosts {
        run.hosts.push(host);
        run.files.push(files);
        run.specs.push(spec);
    }
    run
}

/// The combinations of runs whose windows overlap (`RUN1+RUN2`, earliest
/// first), for `info` to offer; decodes each host the first time.
pub fn offered(opened: &Opened) -> Vec<String> {
    if opened.runs.len() < 2 {
        return Vec::new();
    }
    let windows: Vec<Option<(u64, u64)>> =
        opened.runs.iter().map(|r| overlap::run_window(&r.hosts).ok().flatten()).collect();
    let groups = overlap::overlapping(&windows);
    groups
        .iter()
        .map(|group| {
            let names: Vec<&str> = group.iter().map(|&i| opened.runs[i].name.as_str()).collect();
            overlap::combined_name(&names)
        })
        .collect()
}
