//! What the `proflens` binary's tests share: fixtures and running the binary.

// Each test file uses the helpers it needs.
#![allow(dead_code)]

use proflens_analysis::context::{Hooks, HostContext, HostFile};
use proflens_format::logdir::{discover, HostFiles};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::rc::Rc;

/// A path below tests/data.
pub fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data").join(rel)
}

pub fn proflens(args: &[&str]) -> Output {
    spawn(args).wait_with_output().expect("proflens runs")
}

/// `proflens` started with its output piped, to wait for later.
pub fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_proflens"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("proflens starts")
}

/// The JSON a successful run prints.
pub fn json(args: &[&str]) -> Value {
    let out = proflens(args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("JSON output")
}

/// Hooks that report nothing.
pub struct NoHooks;

impl Hooks for NoHooks {
    fn progress(&self, _: Option<f64>, _: &str) {}
    fn now_ms(&self) -> f64 {
        0.0
    }
}

/// One picked file, as the worker opens it: named by discovery from its
/// file name (a file picker gives no folders).
pub fn app_host(path: &Path) -> Rc<HostContext> {
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let found = discover([name.as_str()], "Selected files");
    let host = &found.runs[0].hosts[0];
    let tool = match &host.files {
        HostFiles::Events(_) => None,
        // A legacy tool file, or the trace of a legacy tool set.
        HostFiles::Tools { tools, .. } => tools.first().map(|(t, _)| *t),
    };
    let file = path.to_path_buf();
    let read = Box::new(move || proflens_format::source::open_file(&file));
    Rc::new(HostContext::new(host.name.clone(), vec![HostFile { path: name, tool, read }], Rc::new(NoHooks)))
}

/// Every profile and tool file in tests/data (no goldens).
pub fn fixtures() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in ["xspace", "kineto", "chrome_trace", "legacy"] {
        walk(&data(dir), &mut files);
    }
    files.retain(|f| {
        let name = f.to_string_lossy();
        !name.contains("/goldens/") && (name.ends_with(".pb") || name.ends_with(".json.gz") || name.ends_with(".trace"))
    });
    files.sort();
    files
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            walk(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// Printed JSON without what measures this run's time (the trace
/// viewer's build time, the decode time in the profile info).
pub fn untimed(text: &[u8]) -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(map) => {
                map.retain(|k, _| k != "build_ms" && k != "decode_ms");
                map.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut value: Value = serde_json::from_slice(text).expect("JSON");
    strip(&mut value);
    value
}
