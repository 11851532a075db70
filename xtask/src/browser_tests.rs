//! The browser tests (tests/browser, `node --test`) in one browser. Which files
//! and how many at once is tests/browser/suites.mjs's to say (every file in
//! Chromium; in Firefox the files that show every view and Firefox's own
//! paths): `node suites.mjs <browser>` prints the arguments of `node --test`.

use crate::{root, target_dir};
use std::path::Path;
use std::process::Command;

/// A browser the suite runs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Browser {
    /// Debian's Chromium, over CDP.
    Chromium,
    /// Firefox ESR, over WebDriver BiDi.
    Firefox,
}

impl Browser {
    /// As `PROFLENS_BROWSER` and suites.mjs name it.
    pub fn id(self) -> &'static str {
        match self {
            Browser::Chromium => "chromium",
            Browser::Firefox => "firefox",
        }
    }

    /// As people name it.
    pub fn name(self) -> &'static str {
        match self {
            Browser::Chromium => "Chromium",
            Browser::Firefox => "Firefox",
        }
    }
}

/// Runs the browser tests suites.mjs names for `browser` against the app in `dist`.
pub fn run(browser: Browser, dist: &Path) -> Result<(), String> {
    let dir = root().join("tests/browser");
    let args = node_test_args(browser, &dir)?;
    let (flags, files): (Vec<&String>, Vec<&String>) = args.iter().partition(|a| a.starts_with("--"));
    println!("xtask: browser tests in {}: {} files, {flags:?}", browser.name(), files.len());
    crate::run(
        Command::new("node")
            .arg("--test")
            .args(&args)
            .env("PROFLENS_BROWSER", browser.id())
            .env("PROFLENS_DIST", dist)
            .env("PROFLENS_COLLECT", target_dir().join("debug/proflens-collect"))
            .env("PROFLENS_CLI", target_dir().join("debug/proflens"))
            .current_dir(&dir),
    )
}

/// The arguments of `node --test` for `browser`, as `node suites.mjs <browser>` prints them (one a line).
fn node_test_args(browser: Browser, dir: &Path) -> Result<Vec<String>, String> {
    let shown = format!("node suites.mjs {}", browser.id());
    let out = Command::new("node")
        .args(["suites.mjs", browser.id()])
        .current_dir(dir)
        .output()
        .map_err(|e| format!("could not start {shown}: {e}"))?;
    if !out.status.success() {
        return Err(format!("{shown} failed ({}): {}", out.status, String::from_utf8_lossy(&out.stderr).trim()));
    }
    let args: Vec<String> = String::from_utf8_lossy(&out.stdout).lines().map(str::to_string).collect();
    if !args.iter().any(|a| a.ends_with(".test.mjs")) {
        return Err(format!("{shown} named no test file"));
    }
    Ok(args)
}
