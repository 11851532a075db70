//! The `proflens` program: [`proflens_cli::main`] with the process's arguments.
//!
//! The panic hook keeps even a bug from printing a backtrace at users.

use std::process::ExitCode;

fn main() -> ExitCode {
    std::panic::set_hook(Box::new(|info| {
        let location = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        eprintln!("proflens: internal error{location}; please report it with the file that caused it");
    }));
    ExitCode::from(proflens_cli::main(std::env::args_os()))
}
