//! `run`: starts a program with the CUPTI injection library
//! (`CUDA_INJECTION64_PATH`), so an unmodified CUDA program is traced and
//! writes `LOGDIR/plugins/profile/<run>/<host>.xplane.pb` when it exits.

use crate::logdir;
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

/// What happened: the program's exit code and the profiles it wrote.
#[derive(Debug)]
pub struct RunReport {
    pub exit_code: i32,
    pub run_dir: PathBuf,
    pub written: Vec<PathBuf>,
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

/// Runs `command` traced; `say` gets progress lines.
pub fn run(opts: &RunOptions, command: &[String], say: &dyn Fn(&str)) -> Result<RunReport, String> {
    let (program, args) =
        command.split_first().ok_or("no program to run; write `run --logdir DIR -- PROGRAM ARGS…`")?;
    let library = injection_library(opts.library.as_deref())?;
    std::fs::create_dir_all(&opts.logdir).map_err(|e| format!("cannot create {}: {e}", opts.logdir.display()))?;
    let logdir = std::path::absolute(&opts.logdir).map_err(|e| format!("{}: {e}", opts.logdir.display()))?;
    let run = logdir::run_name(SystemTime::now());
    let run_dir = logdir.join(logdir::PROFILE_DIR).join(&run);
    let mut cmd = Command::new(program);
    cmd.args(args).env("CUDA_INJECTION64_PATH", &library).env("PROFLENS_LOGDIR", &logdir).env("PROFLENS_RUN", &run);
    if let Some(ms) = opts.duration_ms {
        cmd.env("PROFLENS_DURATION_MS", ms.to_string());
    }
    match nvtx_injection() {
        Some(cupti) if std::env::var_os("NVTX_INJECTION64_PATH").is_none() => {
            cmd.env("NVTX_INJECTION64_PATH", cupti);
        }
        Some(_) => {}
        None => say("NVTX ranges are not traced: set PROFLENS_CUPTI_PATH (or CUDA_HOME) to find libcupti.so"),
    }
    say(&format!("running {program} with GPU tracing into {}", run_dir.display()));
    let status = cmd.status().map_err(|e| format!("cannot start {program}: {e}"))?;
    let written = host_files(&run_dir);
    // A signal leaves no exit code; report it as the shell would (128 + signal) where known.
    let exit_code = status.code().unwrap_or(128);
    Ok(RunReport { exit_code, run_dir, written })
}

fn host_files(run_dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(run_dir)
        .map(|entries| entries.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.to_string_lossy().ends_with(logdir::XSPACE_SUFFIX));
    files.sort();
    files
}
