//! Ordinary programs under `proflens-collect run` (tracing on, no GPU) and
//! run directly: exit codes, the bytes of stdout and stderr, stdin and
//! arguments must be the same both ways, the collector's own lines only
//! before and after the program's stderr.

use crate::common;
use common::*;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Output};

/// Runs `program` directly and traced, with the same stdin; returns both.
fn both_ways(name: &str, program: &[&str], stdin: &[u8]) -> (Output, Output) {
    let dir = temp(name);
    let direct = output_with_stdin(Command::new(program[0]).args(&program[1..]), stdin);
    let traced = output_with_stdin(&mut traced(&dir, program), stdin);
    std::fs::remove_dir_all(&dir).unwrap();
    (direct, traced)
}

/// The same stdout bytes; the same stderr once the collector's lines,
/// which must all come before or after it, are taken off.
fn assert_same_output(direct: &Output, traced: &Output) {
    assert_eq!(traced.stdout, direct.stdout, "stdout: {:?} vs {:?}", text(&traced.stdout), text(&direct.stdout));
    let (before, program, after) = split_stderr(&traced.stderr);
    assert_eq!(program, direct.stderr, "the program's stderr, between {before:?} and {after:?}");
    assert!(before.iter().any(|l| l.contains("with GPU tracing into")), "the collector says it is tracing: {before:?}");
}

#[test]
fn exit_codes_pass_through_exactly() {
    for code in [0, 3, 255] {
        let script = format!("echo out {code}; echo err {code} >&2; exit {code}");
        let (direct, traced) = both_ways("code", &["sh", "-c", &script], b"");
        assert_eq!(direct.status.code(), Some(code));
        assert_eq!(traced.status.code(), Some(code), "{}", text(&traced.stderr));
        assert_same_output(&direct, &traced);
        // The collector's closing line, after the program's own stderr.
        let (_, _, after) = split_stderr(&traced.stderr);
        assert!(after.iter().any(|l| l.contains("no GPU profile was written")), "{after:?}");
    }
}

#[test]
fn a_program_ended_by_a_signal_exits_128_plus_the_signal() {
    for (signal, name) in [(9, "KILL"), (10, "USR1"), (15, "TERM")] {
        let script = format!("echo before; kill -{name} $$; echo after");
        let (direct, traced) = both_ways("signal", &["sh", "-c", &script], b"");
        assert_eq!(direct.status.signal(), Some(signal), "the shell itself is ended by SIG{name}");
        assert_eq!(traced.status.code(), Some(128 + signal), "SIG{name}: {}", text(&traced.stderr));
        assert_same_output(&direct, &traced);
        assert!(text(&traced.stderr).contains("ended by a signal"), "{}", text(&traced.stderr));
    }
}

#[test]
fn bytes_pass_through_unchanged() {
    // NUL, invalid UTF-8, a carriage return, no final newline on stdout.
    let script = r#"printf 'a\000b\377\r\n'; printf 'err\000\376\n' >&2; printf 'no newline'"#;
    let (direct, traced) = both_ways("bytes", &["sh", "-c", script], b"");
    assert_eq!(direct.stdout, b"a\0b\xff\r\nno newline");
    assert_eq!(traced.status.code(), Some(0));
    assert_same_output(&direct, &traced);
}

#[test]
fn stdin_passes_through() {
    let input: Vec<u8> = (0..200_000u32).map(|i| (i * 7 % 256) as u8).collect();
    let (direct, traced) = both_ways("stdin", &["cat"], &input);
    assert_eq!(direct.stdout, input);
    assert_eq!(traced.status.code(), Some(0));
    assert_same_output(&direct, &traced);
}

#[test]
fn arguments_pass_through_byte_for_byte() {
    let dir = temp("args");
    let odd = std::ffi::OsStr::from_bytes(b"caf\xe9 --help \xff");
    let out =
        traced(&dir, &["sh", "-c", r#"printf '%s|' "$@""#, "sh", "plain", "--", "", "-x"]).arg(odd).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(out.stdout, b"plain|--||-x|caf\xe9 --help \xff|");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Threads that write to stderr in turn, a result printed from the main
/// thread, stdin read back reversed, exit code 3.
const THREADED: &str = r#"
import sys, threading
turns = [threading.Event() for _ in range(9)]
results = [0] * 8
def work(i):
    total = sum(range(i * 20000))
    turns[i].wait()
    sys.stderr.write(f"thread {i} done\n"); sys.stderr.flush()
    results[i] = total
    turns[i + 1].set()
threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
for t in threads: t.start()
turns[0].set()
for t in threads: t.join()
print(" ".join(map(str, results)), flush=True)
sys.stdout.buffer.write(sys.stdin.buffer.read()[::-1])
sys.exit(3)
"#;

#[test]
fn a_threaded_python_program_runs_as_it_does_alone() {
    let (direct, traced) = both_ways("python", &["python3", "-c", THREADED], b"\x00stdin bytes\xfe");
    assert_eq!(direct.status.code(), Some(3), "{}", text(&direct.stderr));
    assert!(direct.stdout.ends_with(b"\xfesetyb nidts\x00"), "{}", text(&direct.stdout));
    assert_eq!(text(&direct.stderr).lines().count(), 8);
    assert_eq!(traced.status.code(), Some(3), "{}", text(&traced.stderr));
    assert_same_output(&direct, &traced);
}
