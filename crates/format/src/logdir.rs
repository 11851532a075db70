//! Finding runs and hosts in a list of file paths, as a folder upload,
//! a drag-and-drop or a directory walk gives them.
//!
//! TensorBoard's layout is `<logdir>/[<sub>/]plugins/profile/<run>/<host>.xplane.pb`;
//! runs may sit at any depth (Keras writes `train/plugins/profile/…`). The
//! host name comes from the file name, never from inside the file: two hosts
//! of one job can record the same host name.

use crate::legacy::LegacyTool;

/// File name suffixes of XSpace host files.
const XSPACE_SUFFIXES: [&str; 2] = [".xplane.pb", ".xplane.pb.gz"];

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    pub path: String,
    pub reason: &'static str,
}

/// Host name of an XSpace file name, if the name is one.
pub fn host_name(file_name: &str) -> Option<&str> {
    XSPACE_SUFFIXES.iter().find_map(|s| file_name.strip_suffix(s)).filter(|h| !h.is_empty())
}

/// What the files of a host are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostFiles {
    /// One file of events: XSpace, or trace-event JSON (Chrome, PyTorch/Kineto).
    Events(usize),
    /// TensorBoard's legacy per-tool files (`<host>.overview_page.pb` …),
    /// with the host's `<host>.trace.json.gz` if it has one.
    Tools { tools: Vec<(LegacyTool, usize)>, trace: Option<usize> },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Host {
    pub name: String,
    pub files: HostFiles,
    /// Counter logs beside a file of events (nvidia-smi CSV: [`is_counter_log`]),
    /// read with the events and drawn as counter tracks.
    pub counter_logs: Vec<usize>,
    /// The host's summary written by `proflens summarize`
    /// ([`SUMMARY_SUFFIX`]): its analysis, read instead of the events by the
    /// tools of all hosts. A summary without a profile is a host of its own
    /// (`HostFiles::Tools` with no tools): runs too large for one machine
    /// are analysed from their summaries.
    pub summary: Option<usize>,
}

/// The file name suffix of a host's summary, written beside its profile.
pub const SUMMARY_SUFFIX: &str = ".proflens-summary.bin.gz";

/// The suffix of the JSON summaries of earlier releases, skipped with a word.
const JSON_SUMMARY_SUFFIX: &str = ".proflens-summary.json.gz";

/// Host name of a summary file name (`host0.proflens-summary.bin.gz` → `host0`).
pub fn summary_host_name(file_name: &str) -> Option<&str> {
    file_name.strip_suffix(SUMMARY_SUFFIX).filter(|h| !h.is_empty())
}

/// Whether a file name may be a counter log (`*.csv`; the content decides,
/// see [`crate::nvidia_smi::is_log`]). Such a file joins every host of
/// events of its run.
pub fn is_counter_log(file_name: &str) -> bool {
    file_name.to_ascii_lowercase().ends_with(".csv")
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    pub name: String,
    pub hosts: Vec<Host>,
}

/// Runs and hosts of every kind of profile file Proflens reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Logdir {
    pub runs: Vec<Run>,
    pub skipped: Vec<Skipped>,
}

/// File name suffixes of trace-event JSON, longest first so that host names
/// drop the whole suffix.
const TRACE_SUFFIXES: [&str; 6] =
    [".pt.trace.json.gz", ".pt.trace.json", ".trace.json.gz", ".trace.json", ".json.gz", ".json"];

/// Host name of a trace-event JSON file name (`rank0.pt.trace.json.gz` → `rank0`).
pub fn trace_host_name(file_name: &str) -> Option<&str> {
    TRACE_SUFFIXES.iter().find_map(|s| file_name.strip_suffix(s)).filter(|h| !h.is_empty())
}

/// Runs and hosts of a list of paths: the one naming rule of the CLI (a
/// walked folder), the app (a folder pick, a drop, a served logdir's index)
/// and the collector's index. Every format: XSpace hosts, trace-event JSON files
/// (one host per file: a PyTorch job writes one per rank) and legacy tool
/// files (one host per `<host>.` prefix). Names decide here; the content is
/// checked when a host is opened. A legacy `<host>.trace.json.gz` beside an
/// XSpace of the same host is left out: the XSpace has the same events.
///
/// One file whose name says nothing is still one host (named by the file
/// without its last extension), so that its content can decide what it is.
pub fn discover<'a>(paths: impl IntoIterator<Item = &'a str>, root_run: &str) -> Logdir {
    let paths: Vec<&str> = paths.into_iter().collect();
    let found = discover_by_name(paths.iter().copied(), root_run);
    match paths.as_slice() {
        [only] if found.runs.is_empty() => Logdir {
            runs: vec![Run {
                name: root_run.to_string(),
                hosts: vec![Host {
                    name: loose_host_name(only),
                    files: HostFiles::Events(0),
                    counter_logs: Vec::new(),
                    summary: None,
                }],
            }],
            skipped: Vec::new(),
        },
        _ => found,
    }
}

/// `dir/name.ext` → `name`; a name that is all extension stays whole.
pub fn loose_host_name(path: &str) -> String {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    match name.rfind('.') {
        Some(dot) if dot > 0 => name[..dot].to_string(),
        _ if name.is_empty() => "file".to_string(),
        _ => name.to_string(),
    }
}

fn discover_by_name<'a>(paths: impl IntoIterator<Item = &'a str>, root_run: &str) -> Logdir {
    enum Kind {
        XSpace,
        Trace { legacy: bool },
        Tool(LegacyTool),
        CounterLog,
        Summary,
    }
    let mut found: Vec<(Vec<String>, String, (Kind, usize))> = Vec::new();
    let mut skipped = Vec::new();
    for (file, path) in paths.into_iter().enumerate() {
        let parts: Vec<&str> = path.split(['/', '\\']).filter(|p| !p.is_empty() && *p != ".").collect();
        let Some((file_name, dirs)) = parts.split_last() else {
            continue;
        };
        let dirs: Vec<String> = dirs.iter().map(|d| d.to_string()).collect();
        if let Some(host) = host_name(file_name) {
            found.push((dirs, host.to_string(), (Kind::XSpace, file)));
        } else if let Some(host) = summary_host_name(file_name) {
            found.push((dirs, host.to_string(), (Kind::Summary, file)));
        } else if file_name.ends_with(JSON_SUMMARY_SUFFIX) {
            // Not a trace JSON, though it ends like one.
            skipped.push(Skipped { path: path.to_string(), reason: reason_for(file_name) });
        } else if let Some((host, tool)) = crate::legacy::tool_file(file_name) {
            let host = if host.is_empty() { "host".to_string() } else { host };
            found.push((dirs, host, (Kind::Tool(tool), file)));
        } else if let Some(host) = crate::tpu_trace::host_name(file_name) {
            // The TPU profiler's `<host>.trace`: the trace of a host of tool files.
            found.push((dirs, host.to_string(), (Kind::Trace { legacy: true }, file)));
        } else if let Some(host) = crate::perfetto::host_name(file_name) {
            found.push((dirs, host.to_string(), (Kind::Trace { legacy: false }, file)));
        } else if let Some(host) = trace_host_name(file_name) {
            let legacy = file_name.ends_with(".trace.json.gz") && !file_name.ends_with(".pt.trace.json.gz");
            found.push((dirs, host.to_string(), (Kind::Trace { legacy }, file)));
        } else if is_counter_log(file_name) {
            found.push((dirs, String::new(), (Kind::CounterLog, file)));
        } else {
            skipped.push(Skipped { path: path.to_string(), reason: reason_for(file_name) });
        }
    }
    let runs = group(found, root_run)
        .into_iter()
        .map(|(name, files)| {
            let mut hosts: Vec<Host> = Vec::new();
            // Hosts that have an XSpace or a (non-legacy) trace are one host per file.
            let has_xspace = |host: &str| files.iter().any(|(h, (k, _))| h == host && matches!(k, Kind::XSpace));
            for (host, (kind, file)) in &files {
                match kind {
                    Kind::XSpace | Kind::Trace { legacy: false } => hosts.push(Host {
                        name: host.clone(),
                        files: HostFiles::Events(*file),
                        counter_logs: Vec::new(),
                        summary: None,
                    }),
                    Kind::CounterLog | Kind::Summary => {}
                    Kind::Trace { legacy: true } if has_xspace(host) => {}
                    Kind::Trace { legacy: true } | Kind::Tool(_) => {
                        let at =
                            hosts.iter().position(|h| &h.name == host && matches!(h.files, HostFiles::Tools { .. }));
                        let index = at.unwrap_or_else(|| {
                            hosts.push(Host {
                                name: host.clone(),
                                files: HostFiles::Tools { tools: Vec::new(), trace: None },
                                counter_logs: Vec::new(),
                                summary: None,
                            });
                            hosts.len() - 1
                        });
                        if let HostFiles::Tools { tools, trace } = &mut hosts[index].files {
                            match kind {
                                Kind::Tool(tool) => tools.push((*tool, *file)),
                                _ => *trace = Some(*file),
                            }
                        }
                    }
                }
            }
            let logs: Vec<usize> =
                files.iter().filter(|(_, (k, _))| matches!(k, Kind::CounterLog)).map(|(_, (_, f))| *f).collect();
            for host in &mut hosts {
                if matches!(host.files, HostFiles::Events(_)) {
                    host.counter_logs.clone_from(&logs);
                }
            }
            for (host, (kind, file)) in &files {
                if !matches!(kind, Kind::Summary) {
                    continue;
                }
                match hosts.iter_mut().find(|h| &h.name == host && h.summary.is_none()) {
                    Some(found) => found.summary = Some(*file),
                    None => hosts.push(Host {
                        name: host.clone(),
                        files: HostFiles::Tools { tools: Vec::new(), trace: None },
                        counter_logs: Vec::new(),
                        summary: Some(*file),
                    }),
                }
            }
            Run { name, hosts: dedupe_host_names(hosts) }
        })
        .filter(|run| !run.hosts.is_empty())
        .collect();
    Logdir { runs, skipped }
}

/// Files grouped by run (sorted by name), each with its host name and
/// payload, in file order.
fn group<T>(found: Vec<(Vec<String>, String, T)>, root_run: &str) -> Vec<(String, Vec<(String, T)>)> {
    // Run name: the path below the directories all runs share, so a dropped
    // `logdir/` gives `train/<run>` and `validation/<run>` but a lone run is `<run>`.
    let run_dirs: Vec<Vec<String>> = found.iter().map(|(dirs, _, _)| run_identity(dirs)).collect();
    let common = common_prefix_len(&run_dirs);
    let mut runs: Vec<(String, Vec<(String, T)>)> = Vec::new();
    for ((_, host, payload), dirs) in found.into_iter().zip(run_dirs) {
        let name = if dirs.is_empty() {
            root_run.to_string()
        } else {
            let shown = &dirs[common.min(dirs.len() - 1)..];
            shown.join("/")
        };
        match runs.iter().position(|r| r.0 == name) {
            Some(i) => runs[i].1.push((host, payload)),
            None => runs.push((name, vec![(host, payload)])),
        }
    }
    runs.sort_by(|a, b| a.0.cmp(&b.0));
    runs
}

/// The directories that identify a run: `plugins/profile` is dropped from
/// `…/<sub>/plugins/profile/<run>`, other layouts keep the whole directory.
fn run_identity(dirs: &[String]) -> Vec<String> {
    let n = dirs.len();
    if n >= 3 && dirs[n - 3] == "plugins" && dirs[n - 2] == "profile" {
        let mut id = dirs[..n - 3].to_vec();
        id.push(dirs[n - 1].clone());
        id
    } else {
        dirs.to_vec()
    }
}

fn common_prefix_len(all: &[Vec<String>]) -> usize {
    let Some(first) = all.first() else { return 0 };
    (0..first.len()).take_while(|&i| all.iter().all(|d| d.get(i) == first.get(i))).count()
}

/// Two files naming the same host in one run (say `vm.xplane.pb` and
/// `vm.xplane.pb.gz`) stay apart as `vm` and `vm (2)`; hosts sorted by name.
fn dedupe_host_names(mut hosts: Vec<Host>) -> Vec<Host> {
    hosts.sort_by(|a, b| a.name.cmp(&b.name));
    let names = unique_names(hosts.iter().map(|h| h.name.clone()).collect());
    hosts.iter_mut().zip(names).for_each(|(h, n)| h.name = n);
    hosts
}

fn unique_names(mut names: Vec<String>) -> Vec<String> {
    for i in 1..names.len() {
        let base = names[i].clone();
        let mut n = 1;
        while names[..i].contains(&names[i]) {
            n += 1;
            names[i] = format!("{base} ({n})");
        }
    }
    names
}

fn reason_for(file_name: &str) -> &'static str {
    if file_name.starts_with("events.out.tfevents") {
        "TensorBoard summary events, not a profile"
    } else if file_name.ends_with(JSON_SUMMARY_SUFFIX) {
        "a host summary of an earlier Proflens (JSON): run `proflens summarize` again"
    } else if file_name.ends_with(".pb") {
        "a protobuf file that is neither an XSpace (*.xplane.pb) nor a TensorBoard tool file (<host>.<tool>.pb)"
    } else {
        "not a profile file (*.xplane.pb, trace JSON, or a TensorBoard tool file)"
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_summary_joins_its_host_or_stands_alone() {
        let found = discover(
            [
                "run/plugins/profile/r1/a.xplane.pb",
                "run/plugins/profile/r1/a.proflens-summary.bin.gz",
                "run/plugins/profile/r1/b.proflens-summary.bin.gz",
                "run/plugins/profile/r1/a.proflens-summary.json.gz",
            ],
            "root",
        );
        let hosts = &found.runs[0].hosts;
        let named: Vec<(&str, Option<usize>)> = hosts.iter().map(|h| (h.name.as_str(), h.summary)).collect();
        assert_eq!(named, vec![("a", Some(1)), ("b", Some(2))]);
        assert_eq!(hosts[0].files, HostFiles::Events(0));
        assert_eq!(hosts[1].files, HostFiles::Tools { tools: Vec::new(), trace: None });
        // An earlier release's JSON summary is neither a summary nor a trace.
        assert_eq!(found.skipped.len(), 1);
        assert!(found.skipped[0].reason.contains("summarize` again"), "{:?}", found.skipped);
    }

    #[test]
    fn one_unnamed_file_is_one_host() {
        let found = super::discover(["dir/vm.bin"], "Selected files");
        assert_eq!(found.runs[0].hosts[0].name, "vm");
        assert_eq!(super::loose_host_name("random"), "random");
        assert_eq!(super::loose_host_name(".hidden"), ".hidden");
        assert_eq!(super::loose_host_name("a.b.c"), "a.b");
    }

    use super::*;

    fn names(l: &Logdir) -> Vec<(String, Vec<String>)> {
        l.runs.iter().map(|r| (r.name.clone(), r.hosts.iter().map(|h| h.name.clone()).collect())).collect()
    }

    #[test]
    fn a_csv_log_joins_the_hosts_of_events_of_its_run() {
        let l =
            discover(["job/rank-0.pt.trace.json", "job/gpus.csv", "job/rank-1.pt.trace.json", "other/x.csv"], "files");
        assert_eq!(names(&l), vec![("job".to_string(), vec!["rank-0".to_string(), "rank-1".to_string()])]);
        assert!(l.runs[0].hosts.iter().all(|h| h.counter_logs == vec![1]), "{:?}", l.runs[0].hosts);
        assert!(l.skipped.is_empty(), "a log without a profile is no run: {:?}", l.skipped);
    }

    #[test]
    fn keras_layout_below_the_dropped_folder() {
        let l = discover(
            ["keras_fit/train/plugins/profile/2026_11_22/vm.xplane.pb", "keras_fit/train/events.out.tfevents.1.v2"],
            "files",
        );
        assert_eq!(names(&l), vec![("2026_11_22".to_string(), vec!["vm".to_string()])]);
        assert_eq!(l.skipped.len(), 1);
        assert_eq!(l.runs[0].hosts[0].files, HostFiles::Events(0));
    }

    #[test]
    fn sibling_subdirectories_keep_their_names() {
        let l = discover(
            [
                "logs/train/plugins/profile/r1/a.xplane.pb",
                "logs/validation/plugins/profile/r1/a.xplane.pb",
                "logs/plugins/profile/r2/b.xplane.pb.gz",
            ],
            "files",
        );
        let runs: Vec<_> = l.runs.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(runs, vec!["r2", "train/r1", "validation/r1"]);
    }

    #[test]
    fn two_hosts_one_run_and_loose_files() {
        let l = discover(["run/h2.xplane.pb", "run/h1.xplane.pb", "x.xplane.pb", "x.xplane.pb.gz"], "selected files");
        assert_eq!(
            names(&l),
            vec![
                ("run".to_string(), vec!["h1".to_string(), "h2".to_string()]),
                ("selected files".to_string(), vec!["x".to_string(), "x (2)".to_string()]),
            ]
        );
    }

    #[test]
    fn every_format_is_found_with_its_host() {
        let l = discover(
            [
                "logs/plugins/profile/r1/localhost.overview_page.pb",
                "logs/plugins/profile/r1/localhost.input_pipeline.pb",
                "logs/plugins/profile/r1/localhost.trace.json.gz",
                "logs/plugins/profile/r2/vm.xplane.pb",
                "logs/plugins/profile/r2/vm.trace.json.gz",
                "logs/pytorch/rank-0.pt.trace.json.gz",
                "logs/pytorch/rank-1.json",
                "logs/pytorch/notes.txt",
            ],
            "files",
        );
        let shown: Vec<(String, Vec<(String, HostFiles)>)> = l
            .runs
            .iter()
            .map(|r| (r.name.clone(), r.hosts.iter().map(|h| (h.name.clone(), h.files.clone())).collect()))
            .collect();
        assert_eq!(
            shown,
            vec![
                (
                    "pytorch".to_string(),
                    vec![("rank-0".into(), HostFiles::Events(5)), ("rank-1".into(), HostFiles::Events(6))]
                ),
                (
                    "r1".to_string(),
                    vec![(
                        "localhost".into(),
                        HostFiles::Tools {
                            tools: vec![(LegacyTool::OverviewPage, 0), (LegacyTool::InputPipeline, 1)],
                            trace: Some(2)
                        }
                    )]
                ),
                // The legacy trace beside an XSpace of the same host is left out.
                ("r2".to_string(), vec![("vm".into(), HostFiles::Events(3))]),
            ]
        );
        assert_eq!(l.skipped.len(), 1);
        assert_eq!(trace_host_name("w0.1623143089861.pt.trace.json.gz"), Some("w0.1623143089861"));
    }

    #[test]
    fn a_tpu_profiler_trace_is_its_hosts_trace() {
        let l = discover(["run/10.0.0.2.op_profile.json", "run/10.0.0.2.trace", "other/vm.trace.gz"], "files");
        let hosts: Vec<(String, HostFiles)> =
            l.runs.iter().flat_map(|r| r.hosts.iter().map(|h| (h.name.clone(), h.files.clone()))).collect();
        assert_eq!(
            hosts,
            vec![
                ("vm".to_string(), HostFiles::Tools { tools: vec![], trace: Some(2) }),
                ("10.0.0.2".to_string(), HostFiles::Tools { tools: vec![(LegacyTool::OpProfile, 0)], trace: Some(1) }),
            ]
        );
        assert!(l.skipped.is_empty());
    }

    #[test]
    fn host_names_from_file_names() {
        assert_eq!(host_name("34.83.195.179_6003.xplane.pb"), Some("34.83.195.179_6003"));
        assert_eq!(host_name(".xplane.pb"), None);
        assert_eq!(host_name("vm.trace.json.gz"), None);
    }
}
