//! Signals sent to `proflens-collect run` while its program runs: they reach
//! the program once, and the collector waits for it and leaves with its exit
//! code (a collector ended by the signal would leave with the signal, and
//! its program orphaned).

use crate::common;
use common::*;
use std::io::{BufRead, BufReader};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, Stdio};

/// Counts the signal argv[1] it gets; after the first (or argv[2] seconds
/// without one) waits a little for a second copy, prints the count and
/// exits 5. With argv[3] == "own-group" it first leaves its process group,
/// as a shell's job would, out of reach of the terminal's Ctrl-C.
const COUNTER: &str = r#"
import os, signal, sys, time
if sys.argv[3:] == ["own-group"]:
    os.setpgid(0, 0)
got = []
signal.signal(getattr(signal, sys.argv[1]), lambda *_: got.append(1))
print("ready", flush=True)
deadline = time.time() + float(sys.argv[2])
while not got and time.time() < deadline:
    time.sleep(0.01)
time.sleep(0.3)
print("signals", len(got), flush=True)
sys.exit(5)
"#;

extern "C" {
    fn signal(signum: std::ffi::c_int, handler: usize) -> usize;
}

/// Starts the counter under the collector in a process group of its own
/// (as a job of its own, not the test's), once it is ready for signals.
/// The collector starts with SIGINT handled by default, as from a shell:
/// one that inherits it ignored keeps it ignored (the test runner's, when
/// it was started in the background of a script).
fn start_counter(dir: &std::path::Path, name: &str) -> (Child, BufReader<std::process::ChildStdout>) {
    const SIGINT: std::ffi::c_int = 2;
    const SIG_DFL: usize = 0;
    let mut command = traced(dir, &["python3", "-c", COUNTER, name, "3"]);
    // SAFETY: between fork and exec, `signal` is async-signal-safe.
    unsafe {
        command.pre_exec(|| {
            signal(SIGINT, SIG_DFL);
            Ok(())
        });
    }
    let mut child = command.process_group(0).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert_eq!(line, "ready\n");
    (child, stdout)
}

fn send(signal: &str, target: &str) {
    // The shell's own kill: no procps needed.
    let status = std::process::Command::new("sh").args(["-c", &format!("kill -{signal} {target}")]).status().unwrap();
    assert!(status.success());
}

fn finish(child: Child, mut stdout: BufReader<std::process::ChildStdout>) -> (Option<i32>, Option<i32>, String) {
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stdout, &mut rest).unwrap();
    let out = child.wait_with_output().unwrap();
    (out.status.code(), out.status.signal(), rest + &text(&out.stderr))
}

#[test]
fn sigterm_to_the_collector_reaches_the_program_and_is_waited_for() {
    let dir = temp("sigterm");
    let (child, stdout) = start_counter(&dir, "SIGTERM");
    send("TERM", &child.id().to_string());
    let (code, signal, output) = finish(child, stdout);
    assert_eq!((code, signal), (Some(5), None), "{output}");
    assert!(output.starts_with("signals 1\n"), "{output}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sigint_to_the_collector_outside_a_terminal_reaches_the_program() {
    let dir = temp("sigint");
    let (child, stdout) = start_counter(&dir, "SIGINT");
    send("INT", &child.id().to_string());
    let (code, signal, output) = finish(child, stdout);
    assert_eq!((code, signal), (Some(5), None), "{output}");
    assert!(output.starts_with("signals 1\n"), "{output}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Ctrl-C typed into a terminal (a pseudo-terminal made by Python's `pty`)
/// where the collector is the foreground job: the terminal interrupts both
/// processes, and the program must see one SIGINT, not a second forwarded one.
const CTRL_C: &str = r#"
import os, pty, sys
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
seen = b""
while b"ready" not in seen:
    seen += os.read(fd, 1024)
os.write(fd, b"\x03")
while True:
    try:
        chunk = os.read(fd, 1024)
    except OSError:  # EIO: the terminal's last user is gone
        break
    if not chunk:
        break
    seen += chunk
_, status = os.waitpid(pid, 0)
sys.stdout.write(seen.decode(errors="replace").replace("\r\n", "\n"))
print("collector exit", os.waitstatus_to_exitcode(status))
"#;

/// Types Ctrl-C into a terminal whose foreground job is the collector
/// running the counter; returns what the terminal showed.
fn ctrl_c(name: &str, counter_args: &[&str]) -> String {
    let dir = temp(name);
    let collector = env!("CARGO_BIN_EXE_proflens-collect");
    let library = dir.join("libstand-in.so");
    std::fs::write(&library, b"stand-in").unwrap();
    let logdir = dir.join("logs");
    let out = std::process::Command::new("python3")
        .args(["-c", CTRL_C, collector, "run", "--logdir", logdir.to_str().unwrap(), "--"])
        .args(["python3", "-c", COUNTER, "SIGINT"])
        .args(counter_args)
        .env("PROFLENS_INJECTION_PATH", &library)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}{}", text(&out.stdout), text(&out.stderr));
    std::fs::remove_dir_all(&dir).unwrap();
    text(&out.stdout)
}

#[test]
fn ctrl_c_in_a_terminal_reaches_the_program() {
    let shown = ctrl_c("ctrl-c", &["3"]);
    assert!(shown.contains("signals 1\n"), "{shown}");
    assert!(shown.ends_with("collector exit 5\n"), "{shown}");
}

#[test]
fn ctrl_c_in_a_terminal_is_not_passed_on_a_second_time() {
    // The terminal already interrupts every process of the job; a copy from
    // the collector would be a second one. Seen here with a program that left
    // the job's process group: the terminal's Ctrl-C misses it, as it would
    // without the collector, so any signal it counts was passed on.
    let shown = ctrl_c("ctrl-c-once", &["1", "own-group"]);
    assert!(shown.contains("signals 0\n"), "{shown}");
    assert!(shown.ends_with("collector exit 5\n"), "{shown}");
}

#[test]
fn a_signal_ignored_by_whoever_started_the_collector_stays_ignored() {
    // As under nohup: the program must inherit SIGHUP ignored, not reset to
    // its default (which would end it here).
    let dir = temp("ignored");
    let collector = env!("CARGO_BIN_EXE_proflens-collect");
    let logdir = dir.join("logs");
    let out = std::process::Command::new("sh")
        .args(["-c", r#"trap '' HUP; exec "$@""#, "sh", collector, "run", "--logdir", logdir.to_str().unwrap()])
        .args(["--", "sh", "-c", "kill -HUP $$; echo still running"])
        .env("PROFLENS_INJECTION_PATH", dir.join("missing.so"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "still running\n");
    std::fs::remove_dir_all(&dir).unwrap();
}
