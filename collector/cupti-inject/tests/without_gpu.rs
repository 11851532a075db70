//! The injection library inside an ordinary program, without a GPU: a
//! Python program loads the built library with ctypes and calls
//! `InitializeInjection`, as the CUDA driver would during `cuInit`, with a
//! stand-in libcupti (fake_cupti.c, compiled here with `cc`; it records
//! nothing) or with none. Checked: the program's exit code and stdout stay
//! its own, a failure is a `proflens-collect:` line on its stderr, success
//! prints nothing, and the profile written at exit decodes as an XSpace.
//! Real CUPTI and a GPU are not exercised.

use prost::Message;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

const RUN: &str = "2026_01_01_00_00_00";
const PREFIX: &str = "proflens-collect: ";

/// The program: loads the library, calls the driver's entry point, runs
/// the test's `body`, writes one line to each stream and exits 3.
fn program(body: &str) -> String {
    format!(
        "import ctypes, os, sys\n\
         lib = ctypes.CDLL(os.environ['INJECT_LIBRARY'])\n\
         print('initialised:', lib.InitializeInjection(), flush=True)\n\
         {body}\n\
         print('last line', flush=True)\n\
         sys.stderr.write('own error line\\n')\n\
         sys.exit(3)\n"
    )
}

/// The cdylib cargo built for this package's tests, beside target/<profile>/deps.
fn library() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    [deps.join("libproflens_cupti_inject.so"), deps.parent().unwrap().join("libproflens_cupti_inject.so")]
        .into_iter()
        .find(|p| p.is_file())
        .expect("cargo builds the injection library before its integration tests")
}

/// The stand-in libcupti, compiled once per test run into cargo's scratch
/// directory (built aside and renamed, so a concurrent run never loads half a file).
fn fake_cupti() -> &'static Path {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fake-cupti");
        std::fs::create_dir_all(&dir).unwrap();
        let so = dir.join("libcupti.so");
        let building = dir.join(format!("libcupti.so.{}", std::process::id()));
        let source = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fake_cupti.c");
        let status = Command::new("cc").args(["-shared", "-fPIC", "-o"]).arg(&building).arg(source).status().unwrap();
        assert!(status.success(), "cc builds the stand-in libcupti");
        std::fs::rename(&building, &so).unwrap();
        so
    })
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("proflens-inject-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `program(body)` with the environment `proflens-collect run` sets.
fn run(logdir: &Path, cupti: &Path, body: &str, env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new("python3");
    cmd.args(["-c", &program(body)])
        .env("INJECT_LIBRARY", library())
        .env("PROFLENS_LOGDIR", logdir)
        .env("PROFLENS_RUN", RUN)
        .env("PROFLENS_CUPTI_PATH", cupti)
        .env("HOST_FILE", host_file())
        .env_remove("PROFLENS_DURATION_MS");
    for (key, value) in env {
        cmd.env(key, value);
    }
    cmd.output().unwrap()
}

/// The library's file name for this host (its host_name(): the host name
/// with only `[A-Za-z0-9._-]` kept).
fn host_file() -> String {
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    let name: String = name.trim().chars().filter(|c| c.is_ascii_alphanumeric() || ".-_".contains(*c)).collect();
    format!("{}.xplane.pb", if name.is_empty() { "localhost" } else { &name })
}

/// The program's own output came through, and its exit code; returns the
/// library's lines (all of stderr but the program's own line).
fn assert_program_unchanged(out: &Output, extra_stdout: &str) -> Vec<String> {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), format!("initialised: 1\n{extra_stdout}last line\n"));
    let (own, ours): (Vec<&str>, Vec<&str>) = stderr.lines().partition(|l| !l.starts_with(PREFIX));
    assert_eq!(own, ["own error line"], "{stderr}");
    ours.into_iter().map(str::to_string).collect()
}

fn profile(logdir: &Path) -> PathBuf {
    logdir.join("plugins/profile").join(RUN).join(host_file())
}

/// Decodes with the XSpace type `to_xspace` returns (this crate does not
/// depend on proflens-format to name it).
fn decode_like<
    T: Message + Default,
    F: Fn(&proflens_collector::cupti::Capture, &[proflens_collector::cupti::DeviceInfo], &str) -> T,
>(
    _: F,
    bytes: &[u8],
) -> T {
    T::decode(bytes).unwrap()
}

#[test]
fn a_profile_is_written_at_exit_and_nothing_is_said() {
    let dir = temp("written");
    let logdir = dir.join("logs");
    // A second call (the driver makes one) must not register CUPTI twice.
    let body = "cupti = ctypes.CDLL(os.environ['PROFLENS_CUPTI_PATH'])\n\
                print('again:', lib.InitializeInjection(), 'registered:', cupti.fake_cupti_registrations(), flush=True)";
    let out = run(&logdir, fake_cupti(), body, &[]);
    let said = assert_program_unchanged(&out, "again: 1 registered: 1\n");
    assert!(said.is_empty(), "success is silent: {said:?}");
    let bytes = std::fs::read(profile(&logdir)).unwrap();
    let space = decode_like(proflens_collector::cupti::to_xspace, &bytes);
    assert_eq!(space.hostnames, [host_file().trim_end_matches(".xplane.pb")]);
    let planes: Vec<&str> = space.planes.iter().map(|p| p.name.as_str()).collect();
    assert!(planes.contains(&"/host:CPU"), "{planes:?}");
    assert!(space.errors.iter().any(|e| e.contains("GPU capabilities unknown")), "no libcuda here: {:?}", space.errors);
    let names: Vec<_> = std::fs::read_dir(logdir.join("plugins/profile").join(RUN)).unwrap().collect();
    assert_eq!(names.len(), 1, "no temporary file is left: {names:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn without_libcupti_the_program_runs_on_with_one_line() {
    let dir = temp("no-cupti");
    let logdir = dir.join("logs");
    let out = run(&logdir, &dir.join("nowhere/libcupti.so"), "", &[]);
    let said = assert_program_unchanged(&out, "");
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(said[0].starts_with("proflens-collect: GPU tracing is off: CUPTI (libcupti.so) was not found"));
    assert!(said[0].contains("nowhere/libcupti.so"), "{said:?}");
    assert!(!logdir.exists());
    // Loaded without `proflens-collect run` (no PROFLENS_LOGDIR): said, too.
    let mut cmd = Command::new("python3");
    let out = cmd.args(["-c", &program("")]).env("INJECT_LIBRARY", library()).env_remove("PROFLENS_LOGDIR").output();
    let said = assert_program_unchanged(&out.unwrap(), "");
    assert!(said.len() == 1 && said[0].contains("PROFLENS_LOGDIR is not set"), "{said:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn cupti_errors_turn_tracing_off_and_are_said() {
    let dir = temp("cupti-errors");
    let logdir = dir.join("logs");
    let out = run(&logdir, fake_cupti(), "", &[("FAKE_CUPTI_ENABLE_KERNEL", "35")]);
    let said = assert_program_unchanged(&out, "");
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(
        said[0].contains(
            "GPU tracing is off: cuptiActivityEnable(CONCURRENT_KERNEL) failed with \
                          CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"
        ) && said[0].contains("NVreg_RestrictProfilingToAdminUsers"),
        "{said:?}"
    );
    let out = run(&logdir, fake_cupti(), "", &[("FAKE_CUPTI_REGISTER", "1")]);
    let said = assert_program_unchanged(&out, "");
    assert!(said.len() == 1 && said[0].contains("cuptiActivityRegisterCallbacks failed"), "{said:?}");
    assert!(!logdir.exists(), "no profile without tracing");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_logdir_that_cannot_be_written_at_exit_is_said() {
    // Below a regular file: refused to root too.
    let dir = temp("unwritable");
    std::fs::write(dir.join("file"), b"").unwrap();
    let out = run(&dir.join("file/logs"), fake_cupti(), "", &[]);
    let said = assert_program_unchanged(&out, "");
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(said[0].starts_with("proflens-collect: no GPU profile written: cannot create"), "{said:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_full_disk_at_exit_is_said() {
    // The profile's temporary file (`.<host>_<pid>.xplane.pb.partial`, the
    // process's own) is made a link to /dev/full, where every
    // write fails with ENOSPC, as on a full disk.
    let dir = temp("full");
    let logdir = dir.join("logs");
    let body = "run_dir = os.path.join(os.environ['PROFLENS_LOGDIR'], 'plugins/profile', os.environ['PROFLENS_RUN'])\n\
                os.makedirs(run_dir)\n\
                tmp = os.environ['HOST_FILE'].replace('.xplane.pb', '_%d.xplane.pb.partial' % os.getpid())\n\
                os.symlink('/dev/full', os.path.join(run_dir, '.' + tmp))";
    let out = run(&logdir, fake_cupti(), body, &[]);
    let said = assert_program_unchanged(&out, "");
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(said[0].contains("no GPU profile written: cannot write") && said[0].contains("No space left"), "{said:?}");
    assert!(!profile(&logdir).exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_file_size_limit_is_respected_not_exceeded() {
    // Over `ulimit -f` the kernel would end the program with SIGXFSZ.
    let dir = temp("fsize");
    let logdir = dir.join("logs");
    let body = "import resource\n\
                resource.setrlimit(resource.RLIMIT_FSIZE, (16, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))";
    let out = run(&logdir, fake_cupti(), body, &[]);
    let said = assert_program_unchanged(&out, "");
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(said[0].contains("file size limit") && said[0].contains("16 bytes"), "{said:?}");
    assert!(!profile(&logdir).exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_threaded_program_with_a_duration_gets_one_whole_profile() {
    // PROFLENS_DURATION_MS=0: the timer thread starts the write at once, its
    // flush takes 300 ms, and the program's threads end and it exits long
    // before: the exit handler must wait for that write, not cut it off.
    let dir = temp("duration");
    let logdir = dir.join("logs");
    let body = "import threading, time\n\
                threads = [threading.Thread(target=time.sleep, args=(0.02,)) for _ in range(4)]\n\
                [t.start() for t in threads]\n\
                [t.join() for t in threads]";
    let out = run(&logdir, fake_cupti(), body, &[("PROFLENS_DURATION_MS", "0"), ("FAKE_CUPTI_FLUSH_MS", "300")]);
    let said = assert_program_unchanged(&out, "");
    assert!(said.is_empty(), "{said:?}");
    let names: Vec<_> = std::fs::read_dir(logdir.join("plugins/profile").join(RUN)).unwrap().collect();
    assert_eq!(names.len(), 1, "one profile, written once: {names:?}");
    decode_like(proflens_collector::cupti::to_xspace, &std::fs::read(profile(&logdir)).unwrap());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_clock_that_goes_backwards_does_not_panic() {
    let dir = temp("clock");
    let logdir = dir.join("logs");
    let out = run(&logdir, fake_cupti(), "", &[("FAKE_CUPTI_CLOCK_BACKWARDS", "1")]);
    let said = assert_program_unchanged(&out, "");
    assert!(said.is_empty(), "{said:?}");
    assert!(profile(&logdir).is_file());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_message_to_a_stderr_nobody_reads_is_dropped_not_a_crash() {
    // The program's stderr is a pipe whose reader is gone (`… 2>&1 | head -1`
    // after head exits). Python ignores SIGPIPE, so the write at exit fails
    // with EPIPE; `eprintln!` would panic in the exit handler and abort.
    let dir = temp("epipe");
    std::fs::write(dir.join("file"), b"").unwrap();
    let quiet = "import ctypes, os, sys\n\
                 ctypes.CDLL(os.environ['INJECT_LIBRARY']).InitializeInjection()\n\
                 print('last line', flush=True)\n\
                 sys.exit(3)\n";
    let mut child = Command::new("python3")
        .args(["-c", quiet])
        .env("INJECT_LIBRARY", library())
        .env("PROFLENS_LOGDIR", dir.join("file/logs"))
        .env("PROFLENS_CUPTI_PATH", fake_cupti())
        .env_remove("PROFLENS_DURATION_MS")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stderr.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(3), "not an abort (134)");
    assert_eq!(out.stdout, b"last line\n");
    std::fs::remove_dir_all(&dir).unwrap();
}
