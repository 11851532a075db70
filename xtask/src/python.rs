//! The Python package (crates/python): `cargo xtask wheel` builds its wheel
//! with maturin, the built page inside; `cargo xtask test` builds it, installs
//! it into a fresh venv and runs its pytest suite (crates/python/tests), in two
//! halves ([`prepare`] beside the wasm build, [`test`] beside Firefox's tests).

use crate::{root, run, target_dir};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The Python packages the build and the tests use, pinned.
const MATURIN: &str = "maturin==1.16.0";
const TEST_PACKAGES: &[&str] = &["pandas==3.1.1", "pytest==9.2.0", "ray==2.60.0"];

/// How the extension module is compiled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Build {
    /// Optimised, for people (`cargo xtask wheel`).
    Release,
    /// Cargo's dev profile with clippy's lints, as the native test phase builds the
    /// workspace: the wheel links what that phase compiled.
    Tested,
}

/// Builds the wheel with `dist` (the built page) inside; returns its path.
pub fn wheel(dist: &Path, build: Build) -> Result<PathBuf, String> {
    let page = root().join("crates/python/python/proflens/page");
    clear(&page)?;
    copy_dir(dist, &page, &[SINGLE_FILE])?;
    let out = target_dir().join("python/wheels");
    clear(&out)?;
    maturin(build, &out)?;
    let wheel = std::fs::read_dir(&out)
        .map_err(|e| format!("{}: {e}", out.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .ok_or_else(|| format!("maturin wrote no wheel to {}", out.display()))?;
    let size = std::fs::metadata(&wheel).map_err(|e| e.to_string())?.len();
    println!("xtask: wheel {} ({size} bytes)", wheel.display());
    Ok(wheel)
}

/// `cargo xtask test`'s first half, beside the wasm build (whose long
/// single-threaded links leave a core free): the extension module compiled
/// as the tested wheel's (maturin builds the package alone, so cargo's
/// feature unification differs from the workspace's and the native phase's
/// builds are not reused), and the fresh test venv with its packages.
pub fn prepare() -> Result<(), String> {
    maturin(Build::Tested, &target_dir().join("python/compiled"))?;
    venv(&test_venv(), TEST_PACKAGES, true).map(|_| ())
}

/// The second half, once the page is built: the wheel (maturin finds the
/// module compiled), installed into the test venv, and the package's tests.
pub fn test(dist: &Path) -> Result<(), String> {
    let wheel = wheel(dist, Build::Tested)?;
    let python = test_venv().join("bin/python");
    run(Command::new(&python).args(["-m", "pip", "install", "--quiet", "--no-deps"]).arg(&wheel))?;
    run(Command::new(&python)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider", "crates/python/tests"])
        .env("PROFLENS_TEST_DATA", root().join("tests/data"))
        .env("PROFLENS_WHEEL", &wheel)
        .current_dir(root()))
}

fn test_venv() -> PathBuf {
    target_dir().join("python/test")
}

/// Runs maturin (from a venv of its own) on the package, the wheel to `out`.
fn maturin(build: Build, out: &Path) -> Result<(), String> {
    let python = venv(&target_dir().join("python/build"), &[MATURIN], false)?;
    let mut cmd = Command::new(python.with_file_name("maturin"));
    cmd.args(["build", "--manifest-path", "crates/python/Cargo.toml", "--interpreter"])
        .arg(&python)
        .arg("--out")
        .arg(out)
        .current_dir(root());
    match build {
        Build::Release => cmd.args(["--release", "--strip"]),
        Build::Tested => crate::clippy_linted(cmd.args(["--profile", "dev"])),
    };
    run(&mut cmd)
}

/// Removes the folder `dir` if it is there.
fn clear(dir: &Path) -> Result<(), String> {
    match std::fs::remove_dir_all(dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(format!("clearing {}: {e}", dir.display())),
        _ => Ok(()),
    }
}

/// A venv at `dir` with `packages` (made fresh when `fresh`); its python.
fn venv(dir: &Path, packages: &[&str], fresh: bool) -> Result<PathBuf, String> {
    let python = dir.join("bin/python");
    if fresh {
        clear(dir)?;
    }
    if !python.exists() {
        run(Command::new("python3").args(["-m", "venv"]).arg(dir))?;
        run(Command::new(&python)
            .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check"])
            .args(packages))?;
    }
    Ok(python)
}

/// dist/'s single-file page: `serve` serves the page's files, so the wheel leaves it out.
const SINGLE_FILE: &str = "proflens.html";

/// Copies the folder `from` to `to`, subfolders too, but the files named in `except`.
fn copy_dir(from: &Path, to: &Path, except: &[&str]) -> Result<(), String> {
    std::fs::create_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
    for entry in std::fs::read_dir(from).map_err(|e| format!("{}: {e}", from.display()))? {
        let path = entry.map_err(|e| e.to_string())?.path();
        let name = path.file_name().expect("an entry has a name");
        if except.iter().any(|e| name == *e) {
            continue;
        }
        let target = to.join(name);
        if path.is_dir() {
            copy_dir(&path, &target, except)?;
        } else {
            std::fs::copy(&path, &target).map_err(|e| format!("{}: {e}", path.display()))?;
        }
    }
    Ok(())
}
