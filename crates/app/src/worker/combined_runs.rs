//! Runs captured together, offered as one run more ("combined: A + B"): a
//! multi-host JAX job writes each host under a run folder of its own
//! (vllm-project/tpu-inference#2521), and runs whose capture windows overlap
//! (`proflens_analysis::context::overlap`, as the CLI's `--run A+B`) are
//! one job's hosts. Each picked XSpace's window is read from its Task
//! Environment plane without decoding it
//! (`proflens_format::capture_window`): a few small reads of each file.

use proflens_analysis::context::{overlap, ReadFile};
use proflens_format::logdir::{HostFiles, Logdir};

/// The most hosts whose windows are read when files are opened: each costs
/// a few reads of its file (a few ms each in a worker), and a log
/// directory of many runs is rarely one job's.
const MAX_SCANNED_HOSTS: usize = 64;

/// The groups of runs (indexes into `found.runs`) whose capture windows
/// overlap. A run counts when each of its hosts is one raw XSpace file
/// (`listed` names them) that records its window.
pub fn groups(found: &Logdir, listed: &[String], read: &impl Fn(usize) -> ReadFile) -> Vec<Vec<usize>> {
    let hosts: usize = found.runs.iter().map(|r| r.hosts.len()).sum();
    if found.runs.len() < 2 || hosts > MAX_SCANNED_HOSTS {
        return Vec::new();
    }
    let windows: Vec<Option<(u64, u64)>> = found
        .runs
        .iter()
        .map(|run| {
            let mut window: Option<(u64, u64)> = None;
            for host in &run.hosts {
                let HostFiles::Events(i) = host.files else { return None };
                if !listed[i].ends_with(".xplane.pb") {
                    return None;
                }
                let source = read(i)().ok()?;
                let (start, end) = proflens_format::capture_window::of_source(&*source)?;
                window = Some(window.map_or((start, end), |(s, e)| (s.min(start), e.max(end))));
            }
            window
        })
        .collect();
    overlap::overlapping(&windows)
}

/// The name of the combined run of `group`, and its hosts: (run index, host
/// index, the name it is shown by). A host name two of the runs share is
/// told apart by its run (`vm (2026_01_01_00_00_03)`).
pub fn hosts_of(found: &Logdir, group: &[usize]) -> (String, Vec<(usize, usize, String)>) {
    let names: Vec<&str> = group.iter().map(|&r| found.runs[r].name.as_str()).collect();
    let shared = |host: &str| group.iter().filter(|&&r| found.runs[r].hosts.iter().any(|h| h.name == host)).count() > 1;
    let mut hosts = Vec::new();
    for &r in group {
        let run = &found.runs[r];
        for (h, host) in run.hosts.iter().enumerate() {
            let shown = if shared(&host.name) { format!("{} ({})", host.name, run.name) } else { host.name.clone() };
            hosts.push((r, h, shown));
        }
    }
    (format!("combined: {}", names.join(" + ")), hosts)
}
