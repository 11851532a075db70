//! Helpers shared by the cross-crate tests.

use std::path::{Path, PathBuf};

/// `tests/data`, wherever the tests run from.
pub fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data")
}

/// Every `*.xplane.pb` file below `dir`, sorted.
pub fn xplane_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("readable test data") {
            let path = entry.expect("dir entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.to_string_lossy().ends_with(".xplane.pb") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

pub fn load(path: &Path) -> Result<proflens_model::Profile, proflens_format::Error> {
    let bytes = std::fs::read(path).expect("readable fixture");
    proflens_format::load_xspace(&bytes, &proflens_format::Limits::default(), &mut |_| {})
}

/// The cell values of a DataTable's rows (XProf's JSON tables).
pub fn table_rows(table: &serde_json::Value) -> Vec<Vec<serde_json::Value>> {
    table["rows"]
        .as_array()
        .map(|rows| {
            rows.iter()
                .map(|r| r["c"].as_array().map(|c| c.iter().map(|c| c["v"].clone()).collect()).unwrap_or_default())
                .collect()
        })
        .unwrap_or_default()
}
