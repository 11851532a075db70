//! Turning a PATH argument into runs and hosts, and reading host files.

use crate::Failure;
use proflens_format::logdir::{self, Logdir};
use std::path::{Path, PathBuf};

/// Runs and hosts under PATH, with the file behind each host.
pub struct Input {
    pub logdir: Logdir,
    pub files: Vec<PathBuf>,
}

/// Deepest directory level searched for runs.
const MAX_DEPTH: usize = 32;

pub fn resolve(path: &Path) -> Result<Input, Failure> {
    let meta = std::fs::metadata(path).map_err(|e| Failure(format!("{}: {e}", path.display())))?;
    if meta.is_file() {
        return Ok(single_file(path));
    }
    let mut files = Vec::new();
    walk(path, 0, &mut files).map_err(|e| Failure(format!("{}: {e}", path.display())))?;
    files.sort();
    let relative: Vec<String> =
        files.iter().map(|f| f.strip_prefix(path).unwrap_or(f).to_string_lossy().replace('\\', "/")).collect();
    let root_run = dir_name(path);
    let logdir = logdir::discover(relative.iter().map(String::as_str), &root_run);
    if logdir.runs.is_empty() {
        return trace_files(path, root_run, files);
    }
    Ok(Input { logdir, files })
}

/// Whether the file's name says trace-event JSON (`*.json`, `*.json.gz`).
pub fn is_trace_json(path: &Path) -> bool {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    logdir::trace_host_name(&name).is_some()
}

/// A folder without XSpace: the trace JSON files directly in it (say, one
/// per rank of a PyTorch job; subfolders hold other things) form one run,
/// one host per file.
fn trace_files(path: &Path, run: String, files: Vec<PathBuf>) -> Result<Input, Failure> {
    let traces: Vec<PathBuf> = files.into_iter().filter(|f| is_trace_json(f) && f.parent() == Some(path)).collect();
    if traces.is_empty() {
        return Err(Failure(format!(
            "{}: no profiles (*.xplane.pb, or trace JSON *.json / *.json.gz) found in this directory",
            path.display()
        )));
    }
    let hosts = traces
        .iter()
        .enumerate()
        .map(|(file, f)| {
            let name = f.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            logdir::Host { name: logdir::trace_host_name(&name).unwrap_or(&name).to_string(), file }
        })
        .collect();
    Ok(Input { logdir: Logdir { runs: vec![logdir::Run { name: run, hosts }], skipped: Vec::new() }, files: traces })
}

/// A single file is one run with one host, whatever its name: its content decides.
fn single_file(path: &Path) -> Input {
    let file_name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let host = logdir::host_name(&file_name)
        .or_else(|| logdir::trace_host_name(&file_name))
        .map(str::to_owned)
        .unwrap_or_else(|| path.file_stem().map_or(file_name.clone(), |s| s.to_string_lossy().into_owned()));
    let run = path.parent().map(dir_name).unwrap_or_else(|| ".".into());
    Input {
        logdir: Logdir {
            runs: vec![logdir::Run { name: run, hosts: vec![logdir::Host { name: host, file: 0 }] }],
            skipped: Vec::new(),
        },
        files: vec![path.to_path_buf()],
    }
}

fn dir_name(path: &Path) -> String {
    let absolute = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    absolute.file_name().map_or_else(|| ".".into(), |n| n.to_string_lossy().into_owned())
}

/// Every file below `dir`, at most [`MAX_DEPTH`] folders down.
pub(crate) fn walk(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    if depth > MAX_DEPTH {
        return Ok(());
    }
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        if kind.is_dir() {
            walk(&entry.path(), depth + 1, out)?;
        } else if kind.is_file() {
            out.push(entry.path());
        }
    }
    Ok(())
}

/// Reads a host file and decodes it (XSpace or trace JSON, raw or gzip),
/// naming the file in any error.
pub fn load(path: &Path) -> Result<proflens_model::Profile, Failure> {
    let limits = proflens_format::Limits::default();
    let size = std::fs::metadata(path).map_err(|e| Failure(format!("{}: {e}", path.display())))?.len();
    if size > limits.max_input_bytes {
        let e = proflens_format::Error::TooLarge { what: "file", limit: limits.max_input_bytes };
        return Err(Failure(format!("{}: {e}", path.display())));
    }
    let bytes = std::fs::read(path).map_err(|e| Failure(format!("{}: {e}", path.display())))?;
    proflens_format::load_profile(&bytes, &limits, &mut |_| {}).map_err(|e| Failure(format!("{}: {e}", path.display())))
}

/// The step tools' analysis of one profile, with the HLO of its XLA programs
/// (a module that fails to decode is reported and left out).
pub fn host_analysis(profile: &proflens_model::Profile) -> proflens_analysis::passes::host_analysis::HostAnalysis {
    let decoded = proflens_format::hlo::hlo_modules(profile);
    for e in &decoded.errors {
        eprintln!("proflens: warning: {e}");
    }
    proflens_analysis::passes::host_analysis::HostAnalysis::with_hlo(profile, &decoded.modules)
}
