//! Installing what the build and the tests need, when it is missing.

use crate::{root, run};
use std::process::Command;

const WASM_TARGET: &str = "wasm32-unknown-unknown";

/// The wasm target and the wasm-bindgen CLI of the version Cargo.lock pins.
pub fn ensure_build_tools() -> Result<(), String> {
    let installed = output(Command::new("rustup").args(["target", "list", "--installed"])).unwrap_or_default();
    if !installed.lines().any(|l| l.trim() == WASM_TARGET) {
        run(Command::new("rustup").args(["target", "add", WASM_TARGET]))?;
    }
    let wanted = locked_version("wasm-bindgen")?;
    let have = output(Command::new("wasm-bindgen").arg("--version")).unwrap_or_default();
    if have.split_whitespace().nth(1) != Some(wanted.as_str()) {
        // No --locked: the CLI's own lockfile names a crate version the registry no longer serves.
        run(Command::new("cargo").args(["install", "wasm-bindgen-cli", "--version", &wanted]))?;
    }
    Ok(())
}

/// Chromium with its driver and Firefox ESR (Debian packages), and the browser tests' npm packages.
pub fn ensure_browser_tools() -> Result<(), String> {
    let mut packages = Vec::new();
    if !std::path::Path::new("/usr/bin/chromium").exists() {
        packages.push("chromium");
    }
    // Playwright drives stock Firefox over WebDriver BiDi: no geckodriver needed.
    if !std::path::Path::new("/usr/bin/firefox-esr").exists() {
        packages.push("firefox-esr");
    }
    if !std::path::Path::new("/usr/bin/chromedriver").exists() {
        packages.push("chromium-driver");
    }
    if output(Command::new("node").arg("--version")).is_none() {
        packages.extend(["nodejs", "npm"]);
    }
    if !packages.is_empty() {
        run(Command::new("apt-get").arg("update"))?;
        run(Command::new("apt-get").args(["install", "-y", "--no-install-recommends"]).args(&packages))?;
    }
    let browser_tests = root().join("tests/browser");
    if !browser_tests.join("node_modules/playwright-core").exists() {
        run(Command::new("npm").args(["ci", "--no-audit", "--no-fund"]).current_dir(&browser_tests))?;
    }
    Ok(())
}

/// The JAX the collector's integration test runs a real profiler server
/// with (CPU wheels; this version answers with the profile inline, the way a
/// remote server must, and supports Python 3.11).
const JAX_VERSION: &str = "0.10.2";

/// Python's `jax` at [`JAX_VERSION`], installed with pip when missing or different.
pub fn ensure_python_tools() -> Result<(), String> {
    let check = format!("import jax, sys; sys.exit(jax.__version__ != '{JAX_VERSION}')");
    if output(Command::new("python3").args(["-c", &check])).is_none() {
        let pin = format!("jax=={JAX_VERSION}");
        run(Command::new("python3").args(["-m", "pip", "install", "--quiet", &pin]))?;
    }
    Ok(())
}

/// The version of `package` in Cargo.lock.
pub fn locked_version(package: &str) -> Result<String, String> {
    let lock = std::fs::read_to_string(root().join("Cargo.lock")).map_err(|e| format!("Cargo.lock: {e}"))?;
    let needle = format!("name = \"{package}\"\nversion = \"");
    let start = lock.find(&needle).ok_or_else(|| format!("{package} is not in Cargo.lock"))? + needle.len();
    let end = lock[start..].find('"').ok_or("malformed Cargo.lock")?;
    Ok(lock[start..start + end].to_string())
}

/// A command's stdout, if it ran and succeeded.
fn output(cmd: &mut Command) -> Option<String> {
    let out = cmd.output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}
