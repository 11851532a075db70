//! `index LOGDIR`: writes `LOGDIR/proflens-index.json`, the list of runs and
//! hosts a log directory holds, so a web server that cannot list directories
//! can still offer the whole logdir to the app.
//!
//! The shape is the app's (`proflens_format::logdir_index`): `{"version":1,
//! "runs":[{"name":…,"hosts":[{"name":…,"path":"plugins/profile/<run>/<host>.xplane.pb",
//! "bytes":N}]}]}`, paths relative to LOGDIR with `/` separators. Runs and
//! hosts are named and grouped exactly as the app groups a dropped folder
//! (`proflens_format::logdir::discover`).

pub use proflens_format::logdir_index::build;
use proflens_format::logdir_index::Index;
pub use proflens_format::logdir_index::FILE_NAME as INDEX_FILE;
use std::path::{Path, PathBuf};

/// Builds the index and writes it (through a rename, so the app never reads half of it).
pub fn write(logdir: &Path) -> Result<(PathBuf, Index), String> {
    let index = build(logdir)?;
    let text = serde_json::to_string_pretty(&index).map_err(|e| e.to_string())? + "\n";
    let path = logdir.join(INDEX_FILE);
    let tmp = logdir.join(format!(".{INDEX_FILE}.partial"));
    std::fs::write(&tmp, text)
        .and_then(|()| std::fs::rename(&tmp, &path))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok((path, index))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_runs_and_hosts_with_relative_paths() {
        let root = std::env::temp_dir().join(format!("proflens-collect-index-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for f in [
            "plugins/profile/2026_01_02_00_00_00/b_1.xplane.pb",
            "plugins/profile/2026_01_02_00_00_00/a_1.xplane.pb",
            "plugins/profile/2026_01_01_00_00_00/a_1.xplane.pb.gz",
            "plugins/profile/2026_01_01_00_00_00/.a_2.xplane.pb.partial",
            "plugins/profile/2026_01_01_00_00_00/notes.txt",
            "events.out.tfevents.1",
        ] {
            let p = root.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, b"x").unwrap();
        }
        let (path, index) = write(&root).unwrap();
        let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"version": 1, "runs": [
                {"name": "2026_01_01_00_00_00", "hosts": [
                    {"name": "a_1", "path": "plugins/profile/2026_01_01_00_00_00/a_1.xplane.pb.gz", "bytes": 1}]},
                {"name": "2026_01_02_00_00_00", "hosts": [
                    {"name": "a_1", "path": "plugins/profile/2026_01_02_00_00_00/a_1.xplane.pb", "bytes": 1},
                    {"name": "b_1", "path": "plugins/profile/2026_01_02_00_00_00/b_1.xplane.pb", "bytes": 1}]}
            ]})
        );
        // The app's own reader accepts it.
        let listed = proflens_format::logdir_index::paths(&std::fs::read(root.join(INDEX_FILE)).unwrap()).unwrap();
        assert_eq!(listed.len(), 3);
        // Writing again does not index the index or its temporary file.
        assert_eq!(write(&root).unwrap().1, index);
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn missing_logdir_is_an_error_that_names_it() {
        let err = build(Path::new("/nonexistent/proflens")).unwrap_err();
        assert!(err.contains("/nonexistent/proflens"), "{err}");
    }
}
