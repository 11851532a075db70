//! The TensorBoard log directory layout the collector writes:
//! `LOGDIR/plugins/profile/<YYYY_MM_DD_HH_MM_SS>/<host>.xplane.pb`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// Where runs live inside a log directory.
pub const PROFILE_DIR: &str = "plugins/profile";
/// The suffix readers (Proflens, XProf) look for.
pub const XSPACE_SUFFIX: &str = ".xplane.pb";

/// The run name for a capture started at `at`: `YYYY_MM_DD_HH_MM_SS` in UTC
/// (TensorFlow uses local time; UTC keeps runs from several machines and
/// time zones in one order and needs no time-zone database).
pub fn run_name(at: SystemTime) -> String {
    let secs = at.duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!("{y:04}_{m:02}_{d:02}_{:02}_{:02}_{:02}", rem / 3600, rem / 60 % 60, rem % 60)
}

/// Gregorian date of a day count since 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// Creates a fresh run directory under `logdir`; a second capture within the
/// same second gets `_2`, `_3`… so it never mixes hosts with an earlier run.
pub fn create_run_dir(logdir: &Path, name: &str) -> Result<(String, PathBuf), String> {
    let profile = logdir.join(PROFILE_DIR);
    std::fs::create_dir_all(&profile).map_err(|e| format!("cannot create {}: {e}", profile.display()))?;
    for n in 1..1000 {
        let candidate = if n == 1 { name.to_string() } else { format!("{name}_{n}") };
        let dir = profile.join(&candidate);
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok((candidate, dir)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(format!("cannot create {}: {e}", dir.display())),
        }
    }
    Err(format!("{}: too many runs named {name}", profile.display()))
}

/// Writes `<run_dir>/<host>.xplane.pb` through a temporary file and a rename,
/// so a reader never sees half a profile.
pub fn write_host_file(run_dir: &Path, host: &str, bytes: &[u8]) -> Result<PathBuf, String> {
    let path = run_dir.join(format!("{host}{XSPACE_SUFFIX}"));
    let tmp = run_dir.join(format!(".{host}{XSPACE_SUFFIX}.partial"));
    let result = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&tmp, &path)
    })();
    result.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("cannot write {}: {e}", path.display())
    })?;
    Ok(path)
}

/// Writes one process's profile into a run that other processes share (one
/// per GPU, or any program that starts several): `<host>.xplane.pb` if no
/// process has claimed it yet, else `<host>_<pid>.xplane.pb`. Never replaces
/// another process's file, also when several finish at the same moment: the
/// temporary file is this process's own, and the shared name is claimed with
/// a hard link, which fails when the name exists (a check and then a rename
/// would let two processes both see it free and one profile replace the
/// other). Where hard links are refused (some network or FUSE file systems),
/// the profile goes to `<host>_<pid>.xplane.pb`.
pub fn write_process_host_file(run_dir: &Path, host: &str, pid: u32, bytes: &[u8]) -> Result<PathBuf, String> {
    let own = format!("{host}_{pid}");
    let tmp = run_dir.join(format!(".{own}{XSPACE_SUFFIX}.partial"));
    let own_path = run_dir.join(format!("{own}{XSPACE_SUFFIX}"));
    let written = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(format!("cannot write {}: {e}", own_path.display()));
    }
    let shared = run_dir.join(format!("{host}{XSPACE_SUFFIX}"));
    if std::fs::hard_link(&tmp, &shared).is_ok() {
        let _ = std::fs::remove_file(&tmp);
        return Ok(shared);
    }
    std::fs::rename(&tmp, &own_path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("cannot write {}: {e}", own_path.display())
    })?;
    Ok(own_path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn run_names_are_utc_calendar_times() {
        assert_eq!(run_name(UNIX_EPOCH), "1970_01_01_00_00_00");
        // 2024-02-29T23:59:58Z, a leap day.
        assert_eq!(run_name(UNIX_EPOCH + Duration::from_secs(1_709_251_198)), "2024_02_29_23_59_58");
        // 2026-11-23T05:50:42Z.
        assert_eq!(run_name(UNIX_EPOCH + Duration::from_secs(1_795_413_042)), "2026_11_23_05_50_42");
    }

    #[test]
    fn run_dirs_never_collide_and_files_are_whole() {
        let root = std::env::temp_dir().join(format!("proflens-collect-logdir-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let (a, dir_a) = create_run_dir(&root, "2026_01_01_00_00_00").unwrap();
        let (b, _) = create_run_dir(&root, "2026_01_01_00_00_00").unwrap();
        assert_eq!((a.as_str(), b.as_str()), ("2026_01_01_00_00_00", "2026_01_01_00_00_00_2"));
        let path = write_host_file(&dir_a, "w_1", b"abc").unwrap();
        assert_eq!(path, root.join("plugins/profile/2026_01_01_00_00_00/w_1.xplane.pb"));
        assert_eq!(std::fs::read(&path).unwrap(), b"abc");
        let names: Vec<_> = std::fs::read_dir(&dir_a).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names.len(), 1, "no temporary file is left behind: {names:?}");
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn processes_of_one_run_never_replace_each_others_profiles() {
        let root = std::env::temp_dir().join(format!("proflens-collect-procs-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let (_, dir) = create_run_dir(&root, "2026_01_01_00_00_00").unwrap();
        // Sixteen "processes" finishing at once, each with its own bytes.
        let barrier = std::sync::Barrier::new(16);
        let paths: Vec<PathBuf> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..16u32)
                .map(|pid| {
                    let (dir, barrier) = (&dir, &barrier);
                    s.spawn(move || {
                        let bytes = vec![pid as u8; 100_000 + pid as usize];
                        barrier.wait();
                        write_process_host_file(dir, "vm", 1000 + pid, &bytes).unwrap()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let shared = dir.join("vm.xplane.pb");
        assert_eq!(paths.iter().filter(|p| **p == shared).count(), 1, "one process gets the plain name: {paths:?}");
        let mut names: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        names.sort();
        assert_eq!(names.len(), 16, "one file per process, no temporary file left: {names:?}");
        for (pid, path) in (0..16u32).zip(&paths) {
            let bytes = std::fs::read(path).unwrap();
            assert_eq!(bytes.len(), 100_000 + pid as usize, "{}", path.display());
            assert!(bytes.iter().all(|&b| b == pid as u8), "{} holds another process's bytes", path.display());
            if *path != shared {
                assert_eq!(path.file_name().unwrap().to_str().unwrap(), format!("vm_{}.xplane.pb", 1000 + pid));
            }
        }
        std::fs::remove_dir_all(&root).unwrap();
    }
}
