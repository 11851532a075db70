//! Writing the traced session as `<logdir>/plugins/profile/<run>/<host>.xplane.pb`.
//! Runs inside the profiled program at its exit, so every failure (a logdir
//! that cannot be created, a full disk, a file size limit) is an error
//! returned to be said, never a panic or a signal.

use crate::cupti::Cupti;
use crate::device;
use crate::session::Session;
use proflens_collector::cupti::activity;
use proflens_collector::cupti::{to_xspace, ApiDomain, Capture, Record};
use proflens_collector::logdir;
use prost::Message;
use std::path::PathBuf;
use std::time::SystemTime;

pub fn write(cupti: &Cupti, session: Session, end_gpu_ns: u64, dropped: u64) -> Result<PathBuf, String> {
    let mut records = session.records;
    for r in &mut records {
        if let Record::Api(a) = r {
            let domain = if a.domain == ApiDomain::Driver { 1 } else { 2 };
            a.name = match cupti.callback_name(domain, a.cbid) {
                Some(name) => activity::api_name(a.domain, &name).to_string(),
                None => format!("CUDA API {}", a.cbid),
            };
        }
    }
    activity::resolve_sync_devices(&mut records);
    let mut errors = session.errors;
    let devices = device::query().unwrap_or_else(|e| {
        errors.push(format!("GPU capabilities unknown: {e}"));
        Vec::new()
    });
    let host = host_name();
    let capture = Capture {
        records,
        start_walltime_ns: session.start_walltime_ns,
        start_gpu_ns: session.start_gpu_ns,
        end_gpu_ns,
        dropped_records: dropped,
        errors,
    };
    let bytes = to_xspace(&capture, &devices, &host).encode_to_vec();
    fits_file_size_limit(bytes.len() as u64, file_size_limit())?;
    let config = session.config;
    let run_dir = match &config.run {
        Some(run) => {
            let dir = config.logdir.join(logdir::PROFILE_DIR).join(run);
            std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            dir
        }
        None => logdir::create_run_dir(&config.logdir, &logdir::run_name(SystemTime::now()))?.1,
    };
    // Several processes of one run (one per GPU) share the run: the first to
    // finish gets `<host>.xplane.pb`, the others add their pid.
    logdir::write_process_host_file(&run_dir, &host, std::process::id(), &bytes)
}

/// A file larger than `ulimit -f` would not fail quietly: the kernel sends
/// SIGXFSZ, whose default ends the process, so the program would die of our
/// write. It is refused beforehand instead.
fn fits_file_size_limit(bytes: u64, limit: Option<u64>) -> Result<(), String> {
    match limit {
        Some(limit) if bytes > limit => Err(format!(
            "the profile ({bytes} bytes) is larger than this process may write (file size limit, `ulimit -f`: \
             {limit} bytes)"
        )),
        _ => Ok(()),
    }
}

/// The soft RLIMIT_FSIZE in bytes, None when unlimited or unknown. Read
/// from /proc rather than getrlimit(2) so no C struct layout is assumed.
fn file_size_limit() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    parse_file_size_limit(&limits)
}

fn parse_file_size_limit(limits: &str) -> Option<u64> {
    // "Max file size             unlimited            unlimited            bytes"
    let line = limits.lines().find(|l| l.starts_with("Max file size"))?;
    line["Max file size".len()..].split_whitespace().next()?.parse().ok()
}

pub fn host_name() -> String {
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    let name: String =
        name.trim().chars().filter(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_')).collect();
    if name.is_empty() {
        "localhost".to_string()
    } else {
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_names_are_safe_file_names() {
        let h = host_name();
        assert!(!h.is_empty() && h.chars().all(|c| c.is_ascii_alphanumeric() || ".-_".contains(c)), "{h}");
    }

    #[test]
    fn the_file_size_limit_is_read_and_kept() {
        let unlimited = "Limit                     Soft Limit           Hard Limit           Units\n\
                         Max cpu time              unlimited            unlimited            seconds\n\
                         Max file size             unlimited            unlimited            bytes\n";
        assert_eq!(parse_file_size_limit(unlimited), None);
        let limited = unlimited.replace("Max file size             unlimited", "Max file size             4096     ");
        assert_eq!(parse_file_size_limit(&limited), Some(4096));
        assert!(fits_file_size_limit(4096, Some(4096)).is_ok());
        let e = fits_file_size_limit(4097, Some(4096)).unwrap_err();
        assert!(e.contains("ulimit -f") && e.contains("4097"), "{e}");
        assert!(fits_file_size_limit(u64::MAX, None).is_ok());
    }
}
