//! `proflens-index.json`: the list of a log directory's profiles, written by
//! `proflens-collect index LOGDIR` so that a Proflens page hosted beside the
//! log directory (`?logdir=URL`) can list its runs without an upload.
//!
//! ```json
//! {"version": 1, "runs": [{"name": "2026_11_23_06_00_00",
//!   "hosts": [{"name": "worker0", "path": "plugins/profile/2026_11_23_06_00_00/worker0.xplane.pb", "bytes": 123}]}]}
//! ```
//! Paths are relative to the log directory, with `/` separators.

use serde::{Deserialize, Serialize};

/// The index's file name, at the top of the log directory.
pub const FILE_NAME: &str = "proflens-index.json";

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Index {
    pub version: u32,
    pub runs: Vec<IndexRun>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexRun {
    pub name: String,
    pub hosts: Vec<IndexHost>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexHost {
    pub name: String,
    pub path: String,
    #[serde(default)]
    pub bytes: u64,
}

/// The profile paths an index lists, each checked to stay inside the log
/// directory (no absolute paths, no `..`, no other origin).
pub fn paths(bytes: &[u8]) -> Result<Vec<String>, String> {
    let index: Index = serde_json::from_slice(bytes).map_err(|e| format!("its JSON does not describe runs ({e})"))?;
    let mut out = Vec::new();
    for host in index.runs.iter().flat_map(|r| &r.hosts) {
        if !is_inside(&host.path) {
            return Err(format!("the path “{}” leaves the log directory", host.path));
        }
        out.push(host.path.clone());
    }
    if out.is_empty() {
        return Err("it lists no profiles".to_string());
    }
    Ok(out)
}

/// Deeper trees are not log directories; this also stops symlink loops.
const MAX_DEPTH: usize = 16;
/// The index format [`build`] writes.
const VERSION: u32 = 1;

/// The index of every XSpace profile under `logdir`, its runs and hosts
/// named and grouped as the app groups a dropped folder
/// ([`crate::logdir::discover`]): what `proflens-collect index` writes and
/// `proflens serve` answers.
pub fn build(logdir: &std::path::Path) -> Result<Index, String> {
    use crate::logdir::HostFiles;
    let mut files = Vec::new();
    walk(logdir, std::path::PathBuf::new(), 0, &mut files)?;
    files.sort();
    let size = |rel: &str| std::fs::metadata(logdir.join(rel)).map(|m| m.len()).unwrap_or(0);
    let found = crate::logdir::discover(files.iter().map(String::as_str), ".");
    let runs = found.runs.into_iter().map(|run| IndexRun {
        name: run.name,
        hosts: run
            .hosts
            .into_iter()
            // Only XSpace files are walked: every host is one file of events.
            .filter_map(|h| match h.files {
                HostFiles::Events(file) => {
                    Some(IndexHost { name: h.name, path: files[file].clone(), bytes: size(&files[file]) })
                }
                HostFiles::Tools { .. } => None,
            })
            .collect(),
    });
    Ok(Index { version: VERSION, runs: runs.collect() })
}

/// Collects the relative paths of the XSpace files below `root/rel`.
fn walk(root: &std::path::Path, rel: std::path::PathBuf, depth: usize, out: &mut Vec<String>) -> Result<(), String> {
    let dir = root.join(&rel);
    let entries = std::fs::read_dir(&dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue; // temporary files, editor and VCS folders
        }
        let rel = rel.join(&name);
        let Ok(kind) = std::fs::metadata(root.join(&rel)).map(|m| m.file_type()) else {
            continue; // dangling link
        };
        if kind.is_dir() && depth < MAX_DEPTH {
            walk(root, rel, depth + 1, out)?;
        } else if kind.is_file() && crate::logdir::host_name(&name).is_some() {
            let parts: Vec<String> = rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
            out.push(parts.join("/"));
        }
    }
    Ok(())
}

/// Whether an index's path stays inside the log directory: relative, `/`
/// separated, no `.` or `..` part, no drive or scheme.
pub fn is_inside(path: &str) -> bool {
    !path.is_empty()
        && !path.starts_with('/')
        && !path.contains(':')
        && !path.contains('\\')
        && path.split('/').all(|part| !part.is_empty() && part != "." && part != "..")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index(path: &str) -> Vec<u8> {
        serde_json::to_vec(&Index {
            version: 1,
            runs: vec![IndexRun {
                name: "r".into(),
                hosts: vec![IndexHost { name: "h".into(), path: path.into(), bytes: 1 }],
            }],
        })
        .unwrap()
    }

    #[test]
    fn lists_the_paths_of_every_run() {
        assert_eq!(paths(&index("plugins/profile/r/h.xplane.pb")).unwrap(), ["plugins/profile/r/h.xplane.pb"]);
    }

    #[test]
    fn refuses_paths_outside_the_log_directory() {
        for bad in ["/etc/passwd", "../x.xplane.pb", "a/../../b", "https://evil/x", "a//b", "a\\b", ""] {
            assert!(paths(&index(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn refuses_other_json_and_empty_indexes() {
        assert!(paths(b"{\"traceEvents\": []}").is_err());
        assert!(paths(b"{\"version\":1,\"runs\":[]}").unwrap_err().contains("no profiles"));
        assert!(paths(b"garbage").is_err());
    }
}
