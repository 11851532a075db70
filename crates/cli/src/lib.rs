//! `proflens`: the analysis core on the command line, as a library so that
//! the Python package runs the same commands in its own process
//! ([`capture`]) and as its `proflens` console command ([`main`]).
//!
//! Every failure is one line (`proflens: …`) and a non-zero exit.

mod advise;
mod archives;
mod bench;
mod cli;
mod combine;
mod compare;
mod export_trace;
mod hosts;
mod info;
mod output;
mod parallel;
mod serve;
mod session;
mod static_files;
mod summaries;
mod summarize;
mod tool;
mod tools;

use clap::Parser;
use std::ffi::OsString;

/// A user-facing failure: printed as one line, exit code 1.
#[derive(Debug)]
pub struct Failure(pub String);

impl<E: std::fmt::Display> From<E> for Failure {
    fn from(e: E) -> Self {
        Failure(e.to_string())
    }
}

/// Runs the command line `args` (the program's name first) as the `proflens`
/// program does, printing to standard output and error; returns the exit
/// code. `--help` and `--version` print and end the process, as clap does.
pub fn main(args: impl IntoIterator<Item = OsString>) -> u8 {
    let cli = match cli::Cli::try_parse_from(args) {
        Ok(cli) => cli,
        // Usage errors exit 1 like every failure: 2 is `compare`'s "slower"
        // and `advise`'s "found".
        Err(e) if e.use_stderr() => {
            let _ = e.print();
            return 1;
        }
        Err(e) => e.exit(),
    };
    match cli::dispatch(cli) {
        Ok(code) => code,
        Err(Failure(message)) => {
            eprintln!("proflens: {}", plain(&message));
            1
        }
    }
}

/// What a command run by [`capture`] gave.
#[derive(Debug)]
pub struct Captured {
    /// The exit code the program would have ended with.
    pub code: u8,
    /// What it would have printed on standard output.
    pub stdout: Vec<u8>,
    /// The failure's message (without `proflens: `), when it failed.
    pub error: Option<String>,
}

/// Runs the command line `args` (the program's name first) in this process
/// and returns what it printed instead of printing it: warnings still go to
/// standard error. `--help` and usage errors are returned, never exit, and
/// a panic is returned as a failure.
pub fn capture(args: impl IntoIterator<Item = OsString>) -> Captured {
    let args: Vec<OsString> = args.into_iter().collect();
    let (result, stdout) = output::captured(|| {
        std::panic::catch_unwind(|| match cli::Cli::try_parse_from(args) {
            Ok(cli) => cli::dispatch(cli),
            Err(e) if e.use_stderr() => Err(Failure(e.to_string().trim_end().to_string())),
            Err(e) => output::print(&e.to_string()).map(|()| 0),
        })
    });
    let result = result
        .unwrap_or_else(|_| Err(Failure("internal error; please report it with the file that caused it".to_string())));
    match result {
        Ok(code) => Captured { code, stdout, error: None },
        Err(Failure(message)) => Captured { code: 1, stdout, error: Some(plain(&message)) },
    }
}

/// Paths and names in a message come from files: one line, no terminal escapes.
fn plain(message: &str) -> String {
    proflens_format::escape_controls(message).into_owned()
}
