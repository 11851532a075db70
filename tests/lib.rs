//! Helpers shared by the cross-crate tests.

use std::path::{Path, PathBuf};

pub mod json_diff;

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

struct Quiet;

impl proflens_analysis::context::Hooks for Quiet {
    fn progress(&self, _: Option<f64>, _: &str) {}
    fn now_ms(&self) -> f64 {
        0.0
    }
}

/// A host context named `name` over one file of events, as the CLI opens
/// it, for tests that go through `registry::run`.
pub fn host_context(name: &str, path: &Path) -> std::rc::Rc<proflens_analysis::context::HostContext> {
    host_context_with(name, path, std::rc::Rc::new(Quiet))
}

/// As [`host_context`], with `left` bytes of memory left, as a browser
/// worker's hooks report it: tools that would not fit are refused.
pub fn host_context_with_room(
    name: &str,
    path: &Path,
    left: u64,
) -> std::rc::Rc<proflens_analysis::context::HostContext> {
    host_context_with(name, path, std::rc::Rc::new(Bounded(left)))
}

fn host_context_with(
    name: &str,
    path: &Path,
    hooks: std::rc::Rc<dyn proflens_analysis::context::Hooks>,
) -> std::rc::Rc<proflens_analysis::context::HostContext> {
    use proflens_analysis::context::{HostContext, HostFile};
    let file = path.to_path_buf();
    let read = Box::new(move || proflens_format::source::open_file(&file));
    let files = vec![HostFile { path: path.display().to_string(), tool: None, read }];
    std::rc::Rc::new(HostContext::new(name, files, hooks))
}

/// Hooks that report a fixed amount of memory left, as a browser worker's do.
struct Bounded(u64);

impl proflens_analysis::context::Hooks for Bounded {
    fn progress(&self, _: Option<f64>, _: &str) {}
    fn now_ms(&self) -> f64 {
        0.0
    }
    fn memory_left(&self) -> Option<u64> {
        Some(self.0)
    }
}
