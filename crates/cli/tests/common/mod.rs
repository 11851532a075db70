//! What the `proflens` binary's tests share: fixtures and running the binary.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A path below tests/data.
pub fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data").join(rel)
}

pub fn proflens(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_proflens")).args(args).output().expect("proflens runs")
}

/// The JSON a successful run prints.
#[allow(dead_code)] // each test file uses the helpers it needs
pub fn json(args: &[&str]) -> Value {
    let out = proflens(args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("JSON output")
}
