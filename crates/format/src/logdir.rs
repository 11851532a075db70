//! Finding runs and hosts in a list of file paths, as a folder upload,
//! a drag-and-drop or a directory walk gives them.
//!
//! TensorBoard's layout is `<logdir>/[<sub>/]plugins/profile/<run>/<host>.xplane.pb`;
//! runs may sit at any depth (Keras writes `train/plugins/profile/…`). The
//! host name comes from the file name, never from inside the file: two hosts
//! of one job can record the same host name.

/// File name suffixes of XSpace host files.
const XSPACE_SUFFIXES: [&str; 2] = [".xplane.pb", ".xplane.pb.gz"];

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Logdir {
    pub runs: Vec<Run>,
    /// Files that are not profiles, with the reason.
    pub skipped: Vec<Skipped>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    pub name: String,
    pub hosts: Vec<Host>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Host {
    pub name: String,
    /// Index of the file in the list given to [`discover`].
    pub file: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    pub path: String,
    pub reason: &'static str,
}

/// Host name of an XSpace file name, if the name is one.
pub fn host_name(file_name: &str) -> Option<&str> {
    XSPACE_SUFFIXES.iter().find_map(|s| file_name.strip_suffix(s)).filter(|h| !h.is_empty())
}

/// Groups profile files into runs and hosts. `root_run` names the run of files
/// that are not under any directory (a plain multi-file selection).
pub fn discover<'a>(paths: impl IntoIterator<Item = &'a str>, root_run: &str) -> Logdir {
    let mut found: Vec<(Vec<String>, String, usize)> = Vec::new(); // (run dir parts, host, file)
    let mut skipped = Vec::new();
    for (file, path) in paths.into_iter().enumerate() {
        let parts: Vec<&str> = path.split(['/', '\\']).filter(|p| !p.is_empty() && *p != ".").collect();
        let Some((file_name, dirs)) = parts.split_last() else {
            continue;
        };
        match host_name(file_name) {
            Some(host) => found.push((dirs.iter().map(|d| d.to_string()).collect(), host.to_string(), file)),
            None => skipped.push(Skipped { path: path.to_string(), reason: reason_for(file_name) }),
        }
    }

    // Run name: the path below the directories all runs share, so a dropped
    // `logdir/` gives `train/<run>` and `validation/<run>` but a lone run is `<run>`.
    let run_dirs: Vec<Vec<String>> = found.iter().map(|(dirs, _, _)| run_identity(dirs)).collect();
    let common = common_prefix_len(&run_dirs);
    let mut runs: Vec<Run> = Vec::new();
    for ((_, host, file), dirs) in found.into_iter().zip(run_dirs) {
        let name = if dirs.is_empty() {
            root_run.to_string()
        } else {
            let shown = &dirs[common.min(dirs.len() - 1)..];
            shown.join("/")
        };
        let run = match runs.iter().position(|r| r.name == name) {
            Some(i) => &mut runs[i],
            None => {
                runs.push(Run { name, hosts: Vec::new() });
                runs.last_mut().expect("just pushed")
            }
        };
        run.hosts.push(Host { name: host, file });
    }
    runs.sort_by(|a, b| a.name.cmp(&b.name));
    for run in &mut runs {
        run.hosts.sort_by(|a, b| a.name.cmp(&b.name).then(a.file.cmp(&b.file)));
        dedupe_host_names(&mut run.hosts);
    }
    Logdir { runs, skipped }
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
/// `vm.xplane.pb.gz`) stay apart as `vm` and `vm (2)`.
fn dedupe_host_names(hosts: &mut [Host]) {
    for i in 1..hosts.len() {
        let base = hosts[i].name.clone();
        let mut n = 1;
        while hosts[..i].iter().any(|h| h.name == hosts[i].name) {
            n += 1;
            hosts[i].name = format!("{base} ({n})");
        }
    }
}

fn reason_for(file_name: &str) -> &'static str {
    if file_name.starts_with("events.out.tfevents") {
        "TensorBoard summary events, not a profile"
    } else if file_name.ends_with(".json") || file_name.ends_with(".json.gz") || file_name.ends_with(".pb") {
        "a profiler file of a format Proflens does not read yet (only *.xplane.pb)"
    } else {
        "not a profile file (*.xplane.pb)"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(l: &Logdir) -> Vec<(String, Vec<String>)> {
        l.runs.iter().map(|r| (r.name.clone(), r.hosts.iter().map(|h| h.name.clone()).collect())).collect()
    }

    #[test]
    fn keras_layout_below_the_dropped_folder() {
        let l = discover(
            ["keras_fit/train/plugins/profile/2026_11_22/vm.xplane.pb", "keras_fit/train/events.out.tfevents.1.v2"],
            "files",
        );
        assert_eq!(names(&l), vec![("2026_11_22".to_string(), vec!["vm".to_string()])]);
        assert_eq!(l.skipped.len(), 1);
        assert_eq!(l.runs[0].hosts[0].file, 0);
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
    fn host_names_from_file_names() {
        assert_eq!(host_name("34.83.195.179_6003.xplane.pb"), Some("34.83.195.179_6003"));
        assert_eq!(host_name(".xplane.pb"), None);
        assert_eq!(host_name("vm.trace.json.gz"), None);
    }
}
