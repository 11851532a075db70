//! `run`: starts a program with the CUPTI injection library
//! (`CUDA_INJECTION64_PATH`), so an unmodified CUDA program is traced and
//! writes `LOGDIR/plugins/profile/<run>/<host>.xplane.pb` when it exits.
//!
//! The program comes first. Whatever keeps it from being traced (no
//! injection library, a logdir that cannot be created) is said on stderr and
//! the program runs untraced; its stdin, stdout and stderr are its own (the
//! collector writes only to stderr, before the program starts and after it
//! ends); its exit status is passed on as a shell reports it, and signals
//! sent to the collector reach it ([`child`]).

mod child;
mod signals;

pub use child::Exit;

use crate::logdir;
use std::ffi::OsString;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

/// The injection library's file name (cargo builds it beside `proflens-collect`).
pub const INJECTION_LIBRARY: &str = "libproflens_cupti_inject.so";

#[derive(Debug, Clone)]
pub struct RunOptions {
    pub logdir: PathBuf,
    /// Stop tracing after this long (the program keeps running).
    pub duration_ms: Option<u64>,
    /// The injection library; None: `PROFLENS_INJECTION_PATH`, else beside this executable.
    pub library: Option<PathBuf>,
}

pub fn injection_library(given: Option<&Path>) -> Result<PathBuf, String> {
    let path = match (given, std::env::var_os("PROFLENS_INJECTION_PATH")) {
        (Some(p), _) => p.to_path_buf(),
        (None, Some(p)) => PathBuf::from(p),
        (None, None) => std::env::current_exe()
            .map_err(|e| format!("cannot find this executable: {e}"))?
            .with_file_name(INJECTION_LIBRARY),
    };
    if !path.is_file() {
        return Err(format!(
            "the CUPTI injection library {} is missing; build it with `cargo build --release -p \
             proflens-cupti-inject` (it lands beside proflens-collect) or set PROFLENS_INJECTION_PATH",
            path.display()
        ));
    }
    std::path::absolute(&path).map_err(|e| format!("{}: {e}", path.display()))
}

/// libcupti for NVTX (`NVTX_INJECTION64_PATH`), when it can be found without
/// loading anything: NVTX ranges (step markers) are only seen through it.
fn nvtx_injection() -> Option<PathBuf> {
    let mut candidates: Vec<PathBuf> = std::env::var_os("PROFLENS_CUPTI_PATH").map(PathBuf::from).into_iter().collect();
    for home in ["CUDA_HOME", "CUDA_PATH"].iter().filter_map(std::env::var_os) {
        candidates.push(Path::new(&home).join("extras/CUPTI/lib64/libcupti.so"));
    }
    candidates.push(PathBuf::from("/usr/local/cuda/extras/CUPTI/lib64/libcupti.so"));
    candidates.into_iter().find(|p| p.is_file())
}

/// Everything a traced run needs, ready before the program starts.
struct Tracing {
    library: PathBuf,
    logdir: PathBuf,
    run: String,
    run_dir: PathBuf,
}

/// Finds the library and creates the run's directory: creating it here
/// proves the logdir is writable before the program starts, and gives
/// concurrent runs distinct names (`_2`, `_3`…).
fn prepare(opts: &RunOptions) -> Result<Tracing, String> {
    let library = injection_library(opts.library.as_deref())?;
    let logdir = std::path::absolute(&opts.logdir).map_err(|e| format!("{}: {e}", opts.logdir.display()))?;
    let (run, run_dir) = logdir::create_run_dir(&logdir, &logdir::run_name(SystemTime::now()))?;
    Ok(Tracing { library, logdir, run, run_dir })
}

impl Tracing {
    fn apply(&self, cmd: &mut Command, duration_ms: Option<u64>, say: &dyn Fn(&str)) {
        cmd.env("CUDA_INJECTION64_PATH", &self.library)
            .env("PROFLENS_LOGDIR", &self.logdir)
            .env("PROFLENS_RUN", &self.run);
        if let Some(ms) = duration_ms {
            cmd.env("PROFLENS_DURATION_MS", ms.to_string());
        }
        match nvtx_injection() {
            Some(cupti) if std::env::var_os("NVTX_INJECTION64_PATH").is_none() => {
                cmd.env("NVTX_INJECTION64_PATH", cupti);
            }
            Some(_) => {}
            None => say("NVTX ranges are not traced: set PROFLENS_CUPTI_PATH (or CUDA_HOME) to find libcupti.so"),
        }
    }

    /// After the program: names what was written, or says why nothing was.
    fn report(&self, exit: Exit, say: &dyn Fn(&str)) {
        let written = host_files(&self.run_dir);
        for path in &written {
            say(&format!("wrote {}", path.display()));
        }
        if written.is_empty() {
            // An empty run would be listed by Proflens as a run without hosts.
            let _ = std::fs::remove_dir(&self.run_dir);
            let why = match exit {
                Exit::Signal(_) => "the program was ended by a signal, so its exit handlers (which write it) never ran",
                Exit::Code(_) => {
                    "the program never initialised CUDA, left without running its exit handlers, or tracing \
                     failed (see the messages above)"
                }
            };
            say(&format!("no GPU profile was written to {}: {why}", self.run_dir.display()));
        }
    }
}

/// Runs `command`, traced when it can be, and returns the exit code to leave
/// with: the program's own, 128 + N when signal N ended it, 127 when it was
/// not found and 126 when it could not be started (as shells report them).
/// `say` gets the collector's own lines.
pub fn run(opts: &RunOptions, command: &[OsString], say: &dyn Fn(&str)) -> u8 {
    let Some((program, args)) = command.split_first() else {
        say("no program to run; write `run --logdir DIR -- PROGRAM ARGS…`");
        return 2;
    };
    let shown = program.to_string_lossy();
    // A bug in the collector must not keep the program from running.
    let tracing = match catch_unwind(AssertUnwindSafe(|| prepare(opts))) {
        Ok(Ok(tracing)) => Some(tracing),
        Ok(Err(why)) => {
            say(&format!("GPU tracing is off: {why}; running {shown} untraced"));
            None
        }
        Err(_) => {
            say(&format!("GPU tracing is off: the collector failed unexpectedly; running {shown} untraced"));
            None
        }
    };
    let mut cmd = Command::new(program);
    cmd.args(args);
    if let Some(t) = &tracing {
        t.apply(&mut cmd, opts.duration_ms, say);
        say(&format!("running {shown} with GPU tracing into {}", t.run_dir.display()));
    }
    let exit = match child::run(cmd) {
        Ok(exit) => exit,
        Err(e) => {
            if let Some(t) = &tracing {
                let _ = std::fs::remove_dir(&t.run_dir);
            }
            say(&e.message(program));
            return e.exit_code();
        }
    };
    if let Some(t) = &tracing {
        // The program has ended: nothing here may change its exit code.
        if catch_unwind(AssertUnwindSafe(|| t.report(exit, say))).is_err() {
            say("could not list the profiles written (the collector failed unexpectedly)");
        }
    }
    exit.shell_code()
}

fn host_files(run_dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(run_dir)
        .map(|entries| entries.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.to_string_lossy().ends_with(logdir::XSPACE_SUFFIX));
    files.sort();
    files
}
