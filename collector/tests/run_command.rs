//! `proflens-collect run` without a GPU, where something is missing: the
//! program still runs (untraced, with the reason on stderr) when the
//! injection library is missing or the logdir cannot be created; a program
//! that cannot be started exits 127/126 as in a shell.

use crate::common;
use common::*;

#[test]
fn the_program_gets_the_injection_environment() {
    let dir = temp("env");
    let logdir = dir.join("logs");
    let out = traced(
        &dir,
        &["sh", "-c", "echo \"$CUDA_INJECTION64_PATH|$PROFLENS_LOGDIR|$PROFLENS_RUN|$PROFLENS_DURATION_MS\"; exit 3"],
    )
    .output()
    .unwrap();
    let stdout = text(&out.stdout);
    let stderr = text(&out.stderr);
    let fields: Vec<&str> = stdout.trim().split('|').collect();
    assert_eq!(fields.len(), 4, "{stdout}");
    assert_eq!(fields[0], dir.join("libstand-in.so").to_str().unwrap());
    assert_eq!(fields[1], logdir.to_str().unwrap());
    assert_eq!(fields[2].len(), "2026_01_01_00_00_00".len(), "a run name: {}", fields[2]);
    assert_eq!(fields[3], "", "no --duration-ms, no PROFLENS_DURATION_MS");
    // Nothing initialised CUDA, so nothing was written: that is said, the
    // program's exit code is still the exit code, and no empty run is left.
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("proflens-collect: no GPU profile was written"), "{stderr}");
    let runs: Vec<_> = std::fs::read_dir(logdir.join("plugins/profile")).unwrap().collect();
    assert!(runs.is_empty(), "the empty run directory is removed: {runs:?}");

    let options = ["--duration-ms", "1500"];
    let out = traced_with(&dir, &logdir, &options, &["sh", "-c", "echo \"$PROFLENS_DURATION_MS\""]).output().unwrap();
    assert_eq!(text(&out.stdout), "1500\n");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_missing_injection_library_runs_the_program_untraced() {
    let dir = temp("missing");
    let logdir = dir.join("logs");
    let out = collect()
        .env("PROFLENS_INJECTION_PATH", dir.join("nope.so"))
        .args(["run", "--logdir"])
        .arg(&logdir)
        .args(["--", "sh", "-c", "echo \"${CUDA_INJECTION64_PATH-unset} ${PROFLENS_LOGDIR-unset}\"; exit 3"])
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert_eq!(text(&out.stdout), "unset unset\n", "an untraced program gets no injection environment");
    assert!(
        stderr.starts_with("proflens-collect: GPU tracing is off: the CUPTI injection library")
            && stderr.contains("nope.so is missing")
            && stderr.contains("cargo build --release -p proflens-cupti-inject")
            && stderr.contains("running sh untraced"),
        "{stderr}"
    );
    assert!(!logdir.exists(), "nothing is created for an untraced run");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_logdir_that_cannot_be_created_runs_the_program_untraced() {
    // Below a regular file: refused to root too, unlike a chmod-ed directory.
    let dir = temp("logdir");
    std::fs::write(dir.join("file"), b"").unwrap();
    let program = ["sh", "-c", "echo \"${CUDA_INJECTION64_PATH-unset}\"; echo err >&2; exit 4"];
    let out = traced_with(&dir, &dir.join("file/logs"), &[], &program).output().unwrap();
    let (before, program_stderr, after) = split_stderr(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{before:?}");
    assert_eq!(text(&out.stdout), "unset\n");
    assert_eq!(program_stderr, b"err\n");
    assert_eq!(before.len(), 1, "{before:?}");
    assert!(
        before[0].contains("GPU tracing is off: cannot create")
            && before[0].contains("file/logs/plugins/profile")
            && before[0].ends_with("running sh untraced"),
        "{before:?}"
    );
    assert!(after.is_empty(), "{after:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_program_that_is_not_there_exits_127() {
    let dir = temp("notfound");
    for program in ["proflens-no-such-program", "/nonexistent/dir/program"] {
        let out = traced(&dir, &[program, "arg"]).output().unwrap();
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(127), "{program}: {stderr}");
        assert!(stderr.contains(&format!("proflens-collect: cannot run {program}:")), "{stderr}");
        assert!(out.stdout.is_empty());
    }
    assert!(stderr_of(&dir, "proflens-no-such-program").contains("command not found in PATH"));
    // The run directory made for it is gone again.
    let runs: Vec<_> = std::fs::read_dir(dir.join("logs/plugins/profile")).unwrap().collect();
    assert!(runs.is_empty(), "{runs:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

fn stderr_of(dir: &std::path::Path, program: &str) -> String {
    text(&traced(dir, &[program]).output().unwrap().stderr)
}

#[test]
fn a_program_that_cannot_be_executed_exits_126() {
    // No execute bit at all: execve refuses it to root as well.
    let dir = temp("noexec");
    let script = dir.join("script.sh");
    std::fs::write(&script, "#!/bin/sh\necho ran\n").unwrap();
    let out = traced(&dir, &[script.to_str().unwrap()]).output().unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(126), "{stderr}");
    assert!(stderr.contains("permission denied"), "{stderr}");
    assert!(out.stdout.is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_stderr_nobody_reads_does_not_change_the_exit_code() {
    // The collector's own lines fail with EPIPE (Rust ignores SIGPIPE):
    // dropped, not a panic (exit 101) before or after the program.
    let dir = temp("epipe");
    let mut child = traced(&dir, &["sh", "-c", "echo out; exit 3"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stderr.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(out.stdout, b"out\n");
    std::fs::remove_dir_all(&dir).unwrap();
}
