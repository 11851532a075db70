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

fn is_inside(path: &str) -> bool {
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
