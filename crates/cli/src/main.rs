//! `proflens`: the analysis core on the command line.
//!
//! Every failure is one line on stderr (`proflens: …`) and a non-zero exit;
//! the panic hook keeps even a bug from printing a backtrace at users.

mod info;
mod input;

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "proflens", version, about = "Analyse TensorFlow / JAX profiles (*.xplane.pb) offline")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print the runs, hosts, planes, lines and event counts of PATH as JSON.
    Info {
        /// A profile file, a run directory or a whole log directory.
        path: PathBuf,
    },
}

/// A user-facing failure: printed as one line, exit code 1.
#[derive(Debug)]
pub struct Failure(pub String);

impl<E: std::fmt::Display> From<E> for Failure {
    fn from(e: E) -> Self {
        Failure(e.to_string())
    }
}

fn main() -> ExitCode {
    std::panic::set_hook(Box::new(|info| {
        let location = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        eprintln!("proflens: internal error{location}; please report it with the file that caused it");
    }));
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Info { path } => info::run(&path),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure(message)) => {
            eprintln!("proflens: {message}");
            ExitCode::FAILURE
        }
    }
}
