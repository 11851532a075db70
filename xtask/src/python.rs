//! The Python package (crates/python): `cargo xtask wheel` builds its wheel
//! with maturin, the built page inside; `cargo xtask test` builds it, installs
//! it into a fresh venv and runs its pytest suite (crates/python/tests).

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
    let python = venv(&target_dir().join("python/build"), &[MATURIN], false)?;
    let page = root().join("crates/python/python/proflens/page");
    if page.exists() {
        std::fs::remove_dir_all(&page).map_err(|e| format!("clearing {}: {e}", page.display()))?;
    }
    copy_dir(dist, &page, &[SINGLE_FILE])?;
    let out = target_dir().join("python/wheels");
    if out.exists() {
        std::fs::remove_dir_all(&out).map_err(|e| format!("clearing {}: {e}", out.display()))?;
    }
    let maturin = python.with_file_name("maturin");
    let mut cmd = Command::new(&maturin);
    cmd.args(["build", "--manifest-path", "crates/python/Cargo.toml", "--interpreter"])
        .arg(&python)
        .arg("--out")
        .arg(&out)
        .current_dir(root());
    match build {
        Build::Release => cmd.args(["--release", "--strip"]),
        Build::Tested => crate::clippy_linted(cmd.args(["--profile", "dev"])),
    };
    run(&mut cmd)?;
    let wheel = std::fs::read_dir(&out)
        .map_err(|e| format!("{}: {e}", out.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .ok_or_else(|| format!("maturin wrote no wheel to {}", out.display()))?;
    let size = std::fs::metadata(&wheel).map_err(|e| e.to_string())?.len();
    println!("xtask: wheel {} ({size} bytes)", wheel.display());
    Ok(wheel)
}

/// Builds the wheel, installs it into a fresh venv with pandas, pytest and
/// Ray, and runs the package's tests there.
pub fn test(dist: &Path) -> Result<(), String> {
    let wheel = wheel(dist, Build::Tested)?;
    let python = venv(&target_dir().join("python/test"), TEST_PACKAGES, true)?;
    run(Command::new(&python).args(["-m", "pip", "install", "--quiet", "--no-deps"]).arg(&wheel))?;
    run(Command::new(&python)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider", "crates/python/tests"])
        .env("PROFLENS_TEST_DATA", root().join("tests/data"))
        .env("PROFLENS_WHEEL", &wheel)
        .current_dir(root()))
}

/// A venv at `dir` with `packages` (made fresh when `fresh`); its python.
fn venv(dir: &Path, packages: &[&str], fresh: bool) -> Result<PathBuf, String> {
    let python = dir.join("bin/python");
    if fresh && dir.exists() {
        std::fs::remove_dir_all(dir).map_err(|e| format!("clearing {}: {e}", dir.display()))?;
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
