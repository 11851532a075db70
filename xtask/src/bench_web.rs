//! `cargo xtask bench-web PATH [--runs N]`: builds the app and runs
//! tests/browser/bench_web.mjs on PATH in headless Chromium: N cold runs
//! (default 3) of file chosen → overview shown → each tool shown, with the
//! worker's breakdown and memory; the trace viewer's navigation once; and,
//! with `PROFLENS_XPROF_RS` naming the binary, xprof-rs's cold requests on
//! the same file, with the ratios. A measurement, never a test: CI builds
//! this command but does not run it.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::{dist, root, run, target_dir, tools};

/// What the command line asked for.
#[derive(Debug, PartialEq)]
struct Options {
    profile: PathBuf,
    runs: u32,
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut profile = None;
    let mut runs = 3;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--runs" => {
                let value = args.next().ok_or("--runs needs a number")?;
                runs = value.parse().ok().filter(|&n| n >= 1).ok_or(format!("bad --runs '{value}' (1 or more)"))?;
            }
            flag if flag.starts_with("--") => return Err(format!("unknown option '{flag}'")),
            path if profile.is_none() => profile = Some(PathBuf::from(path)),
            extra => return Err(format!("unexpected argument '{extra}'")),
        }
    }
    Ok(Options { profile: profile.ok_or("bench-web needs a PATH (a profile, or a run's folder)")?, runs })
}

pub fn bench_web(args: &[String]) -> Result<(), String> {
    let options = parse(args)?;
    let profile = std::fs::canonicalize(&options.profile).map_err(|e| format!("{}: {e}", options.profile.display()))?;
    tools::ensure_build_tools()?;
    tools::ensure_browser_tools()?;
    let dist = dist::build()?;
    let root = root();
    let json = target_dir().join("bench-web.json");
    run(Command::new("node")
        .arg(root.join("tests/browser/bench_web.mjs"))
        .arg(&dist)
        .arg(&profile)
        .args(["--runs", &options.runs.to_string(), "--json"])
        .arg(&json)
        .current_dir(root.join("tests/browser")))?;
    println!("xtask: the whole measurement is in {}", json.display());
    xprof_python(&root, &profile)
}

/// With `PROFLENS_XPROF_PYTHON`, XProf's own trace-viewer conversion of the same file.
fn xprof_python(root: &Path, profile: &Path) -> Result<(), String> {
    match std::env::var("PROFLENS_XPROF_PYTHON") {
        Ok(python) => run(Command::new(python).arg(root.join("tests/bench/xprof_trace_time.py")).arg(profile)),
        Err(_) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn runs_default_to_three_and_can_be_set() {
        assert_eq!(parse(&args(&["p.pb"])), Ok(Options { profile: "p.pb".into(), runs: 3 }));
        assert_eq!(parse(&args(&["--runs", "5", "p.pb"])), Ok(Options { profile: "p.pb".into(), runs: 5 }));
    }

    #[test]
    fn bad_command_lines_are_refused() {
        assert!(parse(&args(&[])).is_err());
        assert!(parse(&args(&["p.pb", "--runs", "0"])).is_err());
        assert!(parse(&args(&["p.pb", "--runs"])).is_err());
        assert!(parse(&args(&["p.pb", "q.pb"])).is_err());
        assert!(parse(&args(&["p.pb", "--fast"])).is_err());
    }
}
