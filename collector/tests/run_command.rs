//! `proflens-collect run` without a GPU: the traced program gets the
//! injection environment, its exit code is passed on, and a run that wrote
//! no profile says so.

use std::process::Command;

fn collect() -> Command {
    Command::new(env!("CARGO_BIN_EXE_proflens-collect"))
}

fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("proflens-collect-run-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn the_program_gets_the_injection_environment() {
    let dir = temp("env");
    let fake_library = dir.join("libfake.so");
    std::fs::write(&fake_library, b"not a library").unwrap();
    let logdir = dir.join("logs");
    let out = collect()
        .env("PROFLENS_INJECTION_PATH", &fake_library)
        .args(["run", "--duration-ms", "1500", "--logdir"])
        .arg(&logdir)
        .args([
            "--",
            "sh",
            "-c",
            "echo \"$CUDA_INJECTION64_PATH|$PROFLENS_LOGDIR|$PROFLENS_RUN|$PROFLENS_DURATION_MS\"; exit 3",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let fields: Vec<&str> = stdout.trim().split('|').collect();
    assert_eq!(fields.len(), 4, "{stdout}");
    assert_eq!(fields[0], fake_library.to_str().unwrap());
    assert_eq!(fields[1], logdir.to_str().unwrap());
    assert_eq!(fields[2].len(), "2026_01_01_00_00_00".len(), "a run name: {}", fields[2]);
    assert_eq!(fields[3], "1500");
    // Nothing initialised CUDA, so nothing was written, and that is said.
    assert!(!out.status.success());
    assert!(stderr.contains("no profile was written"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_missing_injection_library_is_explained() {
    let dir = temp("missing");
    let out = collect()
        .env("PROFLENS_INJECTION_PATH", dir.join("nope.so"))
        .args(["run", "--logdir"])
        .arg(&dir)
        .args(["--", "true"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("injection library") && stderr.contains("cargo build --release -p proflens-cupti-inject"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
