//! Summaries on disk (a host's, or a PyTorch rank's): found beside a
//! profile, read instead of its events when it still describes the
//! profile, and written atomically (`proflens summarize`).

use proflens_analysis::context::summary::Source;
use proflens_analysis::context::HostContext;
use proflens_analysis::rank_summary::Summary;
use proflens_format::logdir;
use std::path::{Path, PathBuf};

/// A summary file past this size is not read (a real one is well under a MiB
/// gzipped).
const MAX_SUMMARY_BYTES: u64 = 64 << 20;

/// Gives the host its summary at `path` (an analysis, or a rank's parts), when the summary
/// still describes the host's `profile` (or the host has only the summary);
/// says on stderr why a summary found was not used.
pub fn give(path: &Path, profile: Option<&Path>, host: &HostContext) {
    match read(path).and_then(|summary| check(profile, summary)).and_then(|summary| summary.give(host)) {
        Ok(()) => {}
        Err(why) => {
            let fallback = if profile.is_none() { "the host has nothing else" } else { "the profile is read" };
            eprintln!("proflens: {}: not used ({why}); {fallback}", path.display());
        }
    }
}

/// The summary of a file, if the file is one Proflens can read.
pub fn read(path: &Path) -> Result<Summary, String> {
    let size = std::fs::metadata(path).map_err(|e| e.to_string())?.len();
    if size > MAX_SUMMARY_BYTES {
        return Err(format!("{size} bytes, more than a summary can be"));
    }
    Summary::decode(&std::fs::read(path).map_err(|e| e.to_string())?)
}

/// The summary, if it describes the host's profile now (or the host has
/// only the summary).
fn check(profile: Option<&Path>, summary: Summary) -> Result<Summary, String> {
    let Some(profile) = profile else { return Ok(summary) };
    match source_of(profile) {
        Some(now) if summary.describes(&now) => Ok(summary),
        _ => Err(format!("{} changed since it was summarised", profile.display())),
    }
}

/// A profile's name, size and modification time.
pub fn source_of(path: &Path) -> Option<Source> {
    let meta = std::fs::metadata(path).ok()?;
    let modified_ms =
        meta.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()).map(|d| d.as_millis() as u64);
    Some(Source { name: path.file_name()?.to_string_lossy().into_owned(), bytes: meta.len(), modified_ms })
}

/// Where the summary of an XSpace profile or a trace goes: beside it, named
/// by the host its file name gives (`h.xplane.pb` → `h.proflens-summary.bin.gz`,
/// `rank0.pt.trace.json.gz` → `rank0.proflens-summary.bin.gz`), which
/// discovery then joins to the host.
pub fn path_for(profile: &Path) -> Option<PathBuf> {
    let name = profile.file_name()?.to_str()?;
    let host = logdir::host_name(name).or_else(|| logdir::trace_host_name(name))?;
    Some(profile.with_file_name(format!("{host}{}", logdir::SUMMARY_SUFFIX)))
}

/// Writes `bytes` to `path` whole or not at all: a temporary file beside it,
/// renamed over it (a reader never sees half a summary).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let temp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let cannot = |e: std::io::Error| {
        let folder = path.parent().map(|p| p.display().to_string()).unwrap_or_default();
        let hint = match e.kind() {
            std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem => {
                format!("; the summary is written beside the profile, so {folder} must be writable")
            }
            _ => String::new(),
        };
        format!("{}: cannot write ({e}){hint}", path.display())
    };
    std::fs::write(&temp, bytes).map_err(cannot)?;
    std::fs::rename(&temp, path).map_err(|e| {
        let _ = std::fs::remove_file(&temp);
        cannot(e)
    })
}
