//! Helpers of the `proflens-collect run` tests: the built binary, scratch
//! directories, and telling the collector's stderr lines from the program's.

#![allow(dead_code)] // each test file uses a different part

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub const PREFIX: &[u8] = b"proflens-collect: ";

pub fn collect() -> Command {
    Command::new(env!("CARGO_BIN_EXE_proflens-collect"))
}

/// A fresh scratch directory for one test.
pub fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("proflens-collect-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `proflens-collect run --logdir <dir>/logs -- program…` with tracing on:
/// the injection library is a stand-in file (without CUDA nothing loads it),
/// so the program gets the whole injection environment.
pub fn traced(dir: &Path, program: &[&str]) -> Command {
    traced_with(dir, &dir.join("logs"), &[], program)
}

/// [`traced`] with another logdir and more `run` options.
pub fn traced_with(dir: &Path, logdir: &Path, options: &[&str], program: &[&str]) -> Command {
    let library = dir.join("libstand-in.so");
    std::fs::write(&library, b"not a library: no CUDA driver loads it here").unwrap();
    let mut cmd = collect();
    cmd.env("PROFLENS_INJECTION_PATH", &library).env_remove("PROFLENS_DURATION_MS");
    cmd.arg("run").args(options).arg("--logdir").arg(logdir).arg("--").args(program);
    cmd
}

/// Runs `cmd` with `stdin` as its input (written from another thread, so a
/// program that writes before it reads cannot deadlock the test).
pub fn output_with_stdin(cmd: &mut Command, stdin: &[u8]) -> Output {
    let mut child = cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut input = child.stdin.take().unwrap();
    let bytes = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&bytes);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

/// Splits the collector's stderr into its own lines before the program,
/// the program's bytes, and its own lines after: the collector may only
/// speak before the program starts and after it ends.
pub fn split_stderr(stderr: &[u8]) -> (Vec<String>, Vec<u8>, Vec<String>) {
    let mut rest = stderr;
    let mut before = Vec::new();
    while rest.starts_with(PREFIX) {
        let end = rest.iter().position(|&b| b == b'\n').map_or(rest.len(), |i| i + 1);
        before.push(String::from_utf8_lossy(&rest[..end]).trim_end().to_string());
        rest = &rest[end..];
    }
    let mut after = Vec::new();
    loop {
        let body = rest.strip_suffix(b"\n").unwrap_or(rest);
        let start = body.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        if rest.is_empty() || !body[start..].starts_with(PREFIX) {
            break;
        }
        after.insert(0, String::from_utf8_lossy(&body[start..]).to_string());
        rest = &rest[..start];
    }
    (before, rest.to_vec(), after)
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}
