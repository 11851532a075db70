//! `cargo xtask serve | test | dist | check-arch`: the project's automation, in Rust.
//!
//! Both entry points a newcomer runs install what is missing first
//! (the wasm target, the wasm-bindgen CLI matching Cargo.lock, Chromium, Firefox ESR and
//! the browser-test packages), so they work on a fresh machine.

mod arch;
mod bench_web;
mod browser_tests;
mod dist;
mod phases;
mod python;
mod serve;
mod tools;
mod wasm_size;

use browser_tests::Browser;
use phases::Phases;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

const USAGE: &str = "usage: cargo xtask <command>

commands:
  serve [--port N]   install what is missing, build, serve the app on 127.0.0.1 (default port 8000)
  test               install what is missing, run every test (format, architecture, lint, native, browser:
                     every file in Chromium, in Firefox those tests/browser/suites.mjs lists; the Python
                     package's wheel in a fresh venv with its pytest suite) and print the time of each phase
  check-arch         check the architecture from the source text: no module circles, the layer
                     order crate roots declare (//! Layers: a < b), no file over 600 lines
  dist               build the static app into dist/ (plus the single-file dist/proflens.html)
  test-python        the Python phase of `test` alone, with the dist/ built before
  wheel              build dist/ and the Python package's wheel (the page inside) into
                     target/python/wheels: pip install it, then `proflens serve LOGDIR`
  bench-web PATH [--runs N]
                     in headless Chromium, N cold runs (default 3) of PATH (a profile, or a folder of
                     a run's hosts): file chosen → overview shown, then each tool chosen → shown, with
                     the worker's breakdown (file read, each pass, the tool, to JS, transfer, render)
                     and memory; the trace viewer's first frame and navigation once; tables of medians
                     on stdout, JSON in target/bench-web.json. With PROFLENS_XPROF_RS naming the xprof-rs
                     binary, its cold requests on the same file in the same run, and the ratios (with
                     PROFLENS_XPROF_PYTHON, a Python with the xprof package, XProf's trace_viewer
                     conversion time too). A measurement, not a test";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("dist") => tools::ensure_build_tools().and_then(|()| dist::build().map(|_| ())),
        Some("serve") => serve_command(&args[1..]),
        // The Python phase of `test` alone, on the dist/ built before.
        Some("test-python") => python::prepare().and_then(|()| python::test(&root().join("dist"))),
        Some("wheel") => tools::ensure_build_tools()
            .and_then(|()| dist::build())
            .and_then(|dist| python::wheel(&dist, python::Build::Release).map(|_| ())),
        Some("test") => test_command(),
        Some("check-arch") => arch::check(&root()),
        Some("bench-web") if args.len() > 1 => bench_web::bench_web(&args[1..]),
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: {message}");
            ExitCode::FAILURE
        }
    }
}

fn serve_command(args: &[String]) -> Result<(), String> {
    let port = match args {
        [] => 8000,
        [flag, value] if flag == "--port" => value.parse().map_err(|_| format!("bad port '{value}'"))?,
        _ => return Err(format!("unexpected arguments {args:?}\n{USAGE}")),
    };
    tools::ensure_build_tools()?;
    let dist = dist::build()?;
    serve::serve(&dist, port)
}

fn test_command() -> Result<(), String> {
    let mut phases = Phases::default();
    let result = test_phases(&mut phases);
    // The time of each phase, also when one failed (the phases done so far).
    print!("{}", phases.table());
    result
}

/// Every test, phase by phase (as `phases` times them); the first failure ends the run.
fn test_phases(phases: &mut Phases) -> Result<(), String> {
    phases.run("install what is missing", || {
        tools::ensure_build_tools()?;
        tools::ensure_browser_tools()?;
        tools::ensure_python_tools()
    })?;
    let root = root();
    phases.run("fmt", || run(Command::new("cargo").args(["fmt", "--all", "--", "--check"]).current_dir(&root)))?;
    // Static and fast: an architecture slip fails before the long lint and test runs.
    phases.run("check-arch", || arch::check(&root))?;
    let ((), dist) = phases.run_both(
        // The native build both lints and compiles: clippy's driver compiles the workspace's
        // crates (warnings denied) as `cargo clippy --workspace --all-targets` checks them,
        // so they are not compiled twice. Also builds the binaries the browser tests run
        // (`proflens`, `proflens-collect`): the CLI's and the collector's tests need them.
        // Then the Python package's module and test venv (`python::prepare`).
        ("clippy + cargo test (native), python module", || {
            run(clippy_linted(Command::new("cargo").args(["test", "--workspace"])).current_dir(&root))?;
            python::prepare()
        }),
        // Beside it (no shared build directory: cargo locks target/debug and target/<profile>
        // apart), so its single-threaded stretches (a long test, an LTO link) leave a core to
        // the other. The wasm lints run on the page's profile, whose build scripts and
        // macros the dist build then reuses; the dist build itself is plain rustc (clippy's
        // driver turns MIR optimisations off). The two runs' output interleaves.
        ("clippy + dist + wasm size (wasm)", || {
            run(Command::new("cargo")
                .args([
                    "clippy",
                    "-p",
                    "proflens-app",
                    "--target",
                    "wasm32-unknown-unknown",
                    "--profile",
                    "wasm-release",
                ])
                .args(["--", "-D", "warnings"])
                .current_dir(&root))?;
            let dist = dist::build()?;
            // Each wasm (the page's, the worker's) at most 1.5 MB gzip.
            wasm_size::check(&dist::wasm_sizes(&dist)?)?;
            Ok(dist)
        }),
    )?;
    // Every browser test in Chromium (over CDP); in Firefox ESR (over WebDriver BiDi) the
    // files tests/browser/suites.mjs lists, which show every view and Firefox's own paths;
    // beside Firefox's, the Python package: its wheel (the module the native half
    // compiled, the page inside) installed in the fresh test venv, and its tests.
    phases.run("browser tests in Chromium", || browser_tests::run(Browser::Chromium, &dist))?;
    phases.run_both(
        ("browser tests in Firefox", || browser_tests::run(Browser::Firefox, &dist)),
        ("python package", || python::test(&dist)),
    )?;
    Ok(())
}

/// The workspace root (xtask lives one level below it).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask is inside the workspace").to_path_buf()
}

/// Cargo's target directory: `CARGO_TARGET_DIR` when set (a shared build
/// cache), else `target/` in the workspace.
pub fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) if !dir.is_empty() => root().join(dir),
        _ => root().join("target"),
    }
}

/// `cmd` (a cargo build) with clippy's lints on the workspace's crates, warnings
/// denied: clippy's driver as the workspace's rustc, as `cargo clippy` sets it up.
fn clippy_linted(cmd: &mut Command) -> &mut Command {
    cmd.env("RUSTC_WORKSPACE_WRAPPER", "clippy-driver")
        .env("CLIPPY_ARGS", "-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__")
}

/// Runs a command with inherited output; a failure names the command.
pub fn run(cmd: &mut Command) -> Result<(), String> {
    let shown = format!("{cmd:?}");
    println!("xtask: running {shown}");
    let status = cmd.status().map_err(|e| format!("could not start {shown}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{shown} failed ({status})"))
    }
}
