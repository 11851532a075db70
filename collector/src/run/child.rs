//! The profiled program as a child process: started with the collector's
//! stdin, stdout and stderr (inherited, never piped, so its bytes and its
//! terminal are its own), waited for while signals sent to the collector are
//! passed on ([`super::signals`]), and its end reported as a shell does.

use super::signals;
use std::ffi::OsStr;
use std::io;
use std::process::{Command, ExitStatus};

/// How the program ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// It exited with this code.
    Code(i32),
    /// This signal ended it.
    Signal(i32),
}

impl Exit {
    fn from_status(status: ExitStatus) -> Exit {
        #[cfg(unix)]
        {
            use std::os::unix::process::ExitStatusExt;
            if let Some(signal) = status.signal() {
                return Exit::Signal(signal);
            }
        }
        // Neither a code nor a signal cannot happen on Unix after wait; 1 says "failed".
        Exit::Code(status.code().unwrap_or(1))
    }

    /// The status a shell gives the same ending: the code itself, or 128 + signal.
    pub fn shell_code(self) -> u8 {
        match self {
            // Unix exit codes are 0..=255; the mask only matters elsewhere.
            Exit::Code(code) => (code & 0xff) as u8,
            Exit::Signal(signal) => (128 + (signal & 0x7f)) as u8,
        }
    }
}

/// Why the program did not run.
#[derive(Debug)]
pub enum StartError {
    /// It could not be started (not found, not executable…).
    Spawn(io::Error),
    /// It ran, but its status could not be read (SIGCHLD ignored by whoever started us).
    Wait(io::Error),
}

impl StartError {
    /// 127 for a program that is not there, 126 for one that cannot be run, as shells exit.
    pub fn exit_code(&self) -> u8 {
        match self {
            StartError::Spawn(e) if e.kind() == io::ErrorKind::NotFound => 127,
            StartError::Spawn(_) => 126,
            StartError::Wait(_) => 1,
        }
    }

    pub fn message(&self, program: &OsStr) -> String {
        let shown = program.to_string_lossy();
        match self {
            StartError::Spawn(e) if e.kind() == io::ErrorKind::NotFound => {
                if shown.contains('/') && std::path::Path::new(program).exists() {
                    format!("cannot run {shown}: its interpreter (the #! line) was not found ({e})")
                } else if shown.contains('/') {
                    format!("cannot run {shown}: no such file ({e})")
                } else {
                    format!("cannot run {shown}: command not found in PATH ({e})")
                }
            }
            StartError::Spawn(e) if e.kind() == io::ErrorKind::PermissionDenied => {
                format!("cannot run {shown}: permission denied; is it an executable file? ({e})")
            }
            StartError::Spawn(e) => format!("cannot run {shown}: {e}"),
            StartError::Wait(e) => format!("{shown} ran, but its exit status could not be read: {e}"),
        }
    }
}

/// Starts `cmd` and waits for it, passing on signals sent to the collector.
pub fn run(mut cmd: Command) -> Result<Exit, StartError> {
    // Before the spawn: a signal between the spawn and the handlers would
    // otherwise end the collector and leave the program orphaned.
    signals::install();
    let mut child = cmd.spawn().map_err(StartError::Spawn)?;
    signals::forward_to(child.id());
    signals::wait_without_reaping(child.id());
    signals::program_ended();
    // `wait` retries when a handled signal interrupts it.
    let status = child.wait();
    status.map(Exit::from_status).map_err(StartError::Wait)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endings_map_to_shell_codes() {
        assert_eq!(Exit::Code(0).shell_code(), 0);
        assert_eq!(Exit::Code(255).shell_code(), 255);
        assert_eq!(Exit::Signal(9).shell_code(), 137);
        assert_eq!(Exit::Signal(15).shell_code(), 143);
        let missing = StartError::Spawn(io::Error::from(io::ErrorKind::NotFound));
        assert_eq!(missing.exit_code(), 127);
        assert!(missing.message(OsStr::new("nope")).contains("command not found"), "{}", missing.message("x".as_ref()));
        assert_eq!(StartError::Spawn(io::Error::from(io::ErrorKind::PermissionDenied)).exit_code(), 126);
    }
}
