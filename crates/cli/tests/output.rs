//! Where output goes: a reader that goes away, and `-o` at something that
//! is not a file.

use crate::common;

use common::data;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const PROFLENS: &str = env!("CARGO_BIN_EXE_proflens");

#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    // `proflens tool … | head -c0`: the reader is gone before the answer.
    let mut child = Command::new(PROFLENS)
        .args(["tool", data("xspace/external/34.83.195.179_6003.xplane.pb").to_str().unwrap(), "kernel_stats"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("internal error"), "{stderr}");
    assert_eq!(out.status.code(), Some(0), "{stderr}");
}

#[cfg(unix)]
#[test]
fn output_to_a_fifo_is_refused_not_blocked_on() {
    let dir = std::env::temp_dir().join(format!("proflens-fifo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("out");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let mut child = Command::new(PROFLENS)
        .args(["tool", data("xspace/external/tw003.xplane.pb").to_str().unwrap(), "overview_page", "-o"])
        .arg(&fifo)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > Duration::from_secs(60) {
            child.kill().unwrap();
            panic!("proflens blocked on a FIFO given as -o");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(status.code(), Some(1));
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(stderr.contains("not a regular file"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_failed_write_leaves_the_previous_file_whole() {
    // `-o` into a folder that does not exist fails before touching anything;
    // a file that exists is replaced only by a complete answer.
    let dir = std::env::temp_dir().join(format!("proflens-out-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("overview.json");
    std::fs::write(&file, "previous").unwrap();
    let profile = data("xspace/external/tw003.xplane.pb");
    let failed = Command::new(PROFLENS)
        .args(["tool", profile.to_str().unwrap(), "no_such_tool", "-o"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(failed.status.code(), Some(1));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "previous");
    let ok = Command::new(PROFLENS)
        .args(["tool", profile.to_str().unwrap(), "overview_page", "-o"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(ok.status.success());
    let written: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert!(written.get("input").is_some());
    assert!(std::fs::read_dir(&dir).unwrap().count() == 1, "no partial file is left beside it");
    std::fs::remove_dir_all(&dir).unwrap();
}
