//! The CLI as a library (`proflens_cli::capture`, what the Python package runs):
//! the program's output and messages, returned rather than printed; the
//! opened path kept between captured commands while its files are unchanged;
//! `info --list` and `summarize --output-dir`.

use crate::common::{data, json, proflens, untimed};
use std::ffi::OsString;
use std::path::Path;

fn capture(args: &[&str]) -> proflens_cli::Captured {
    proflens_cli::capture(std::iter::once("proflens").chain(args.iter().copied()).map(OsString::from))
}

fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("proflens-library-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn capture_returns_what_the_program_prints() {
    let bert = data("xspace/external/34.83.195.179_6003.xplane.pb");
    let b = bert.to_str().unwrap();
    for args in [&["tools", "--json"][..], &["tool", b, "framework_op_stats", "--format", "csv"], &["info", b]] {
        let (ours, program) = (capture(args), proflens(args));
        assert_eq!((ours.code, ours.error.as_deref()), (0, None), "{args:?}");
        assert_eq!(ours.stdout, program.stdout, "{args:?}");
    }
    // A failure: the program's message without its prefix, nothing printed, exit 1.
    let failed = capture(&["tool", b, "no_such_tool"]);
    let program = proflens(&["tool", b, "no_such_tool"]);
    assert_eq!(failed.code, 1);
    assert!(failed.stdout.is_empty());
    assert_eq!(format!("proflens: {}\n", failed.error.unwrap()), String::from_utf8_lossy(&program.stderr));
    // Help and usage errors are returned: the process goes on.
    let help = capture(&["--help"]);
    assert_eq!(help.code, 0);
    assert!(String::from_utf8_lossy(&help.stdout).contains("Usage"));
    let usage = capture(&["tool"]);
    assert_eq!(usage.code, 1);
    assert!(usage.error.unwrap().contains("Usage"));
}

#[test]
fn the_opened_path_is_kept_while_its_files_are_unchanged() {
    let dir = temp("kept");
    let file = dir.join("h.xplane.pb");
    std::fs::copy(data("xspace/external/34.83.195.179_6003.xplane.pb"), &file).unwrap();
    let f = file.to_str().unwrap();
    let first = capture(&["tool", f, "overview_page"]);
    // Kept: the second answer, from the kept host, is the program's.
    let again = capture(&["tool", f, "kernel_stats"]);
    assert_eq!(untimed(&again.stdout), untimed(&proflens(&["tool", f, "kernel_stats"]).stdout));
    // Another profile under the same name: read afresh, not the kept host's answer.
    std::fs::copy(data("xspace/input_bound/plugins/profile/2026_11_22_09_04_29/vm.xplane.pb"), &file).unwrap();
    let changed = capture(&["tool", f, "overview_page"]);
    assert_ne!(untimed(&changed.stdout), untimed(&first.stdout));
    assert_eq!(untimed(&changed.stdout), untimed(&proflens(&["tool", f, "overview_page"]).stdout));
}

#[test]
fn info_list_names_runs_hosts_and_files_without_reading_them() {
    let dir = temp("list");
    let run = dir.join("plugins/profile/run1");
    std::fs::create_dir_all(&run).unwrap();
    std::fs::copy(data("xspace/external/34.83.195.179_6003.xplane.pb"), run.join("a.xplane.pb")).unwrap();
    std::fs::write(run.join("b.xplane.pb"), b"\x0a\xff\xff\xff\xff\xff not a profile").unwrap();
    let d = dir.to_str().unwrap();
    let listed = json(&["info", d, "--list"]);
    assert_eq!(listed["runs"][0]["name"], "run1");
    let hosts: Vec<&str> =
        listed["runs"][0]["hosts"].as_array().unwrap().iter().map(|h| h["name"].as_str().unwrap()).collect();
    assert_eq!(hosts, ["a", "b"]);
    let file = listed["runs"][0]["hosts"][1]["files"][0].as_str().unwrap();
    assert!(Path::new(file).ends_with("plugins/profile/run1/b.xplane.pb"), "{file}");
    // Reading them fails on the damaged host; listing did not read it.
    assert!(!proflens(&["info", d]).status.success());
}

#[test]
fn summarize_writes_under_output_dir_in_the_runs_folder() {
    let dir = temp("output-dir");
    let run = dir.join("logs/plugins/profile/run1");
    std::fs::create_dir_all(&run).unwrap();
    for host in ["a", "b"] {
        std::fs::copy(data("xspace/external/34.83.195.179_6003.xplane.pb"), run.join(format!("{host}.xplane.pb")))
            .unwrap();
    }
    let (logs, out) = (dir.join("logs"), dir.join("out"));
    let done = proflens(&["summarize", logs.to_str().unwrap(), "--output-dir", out.to_str().unwrap()]);
    assert!(done.status.success(), "{}", String::from_utf8_lossy(&done.stderr));
    let written = out.join("plugins/profile/run1");
    for host in ["a", "b"] {
        assert!(written.join(format!("{host}.proflens-summary.bin.gz")).is_file(), "{host}");
        assert!(!run.join(format!("{host}.proflens-summary.bin.gz")).exists(), "{host}: beside the profile");
    }
    // The summaries alone answer as the profiles.
    let from_summaries = json(&["tool", out.to_str().unwrap(), "overview_page"]);
    let from_profiles = json(&["tool", logs.to_str().unwrap(), "overview_page"]);
    assert_eq!(from_summaries["input"], from_profiles["input"]);
    assert_eq!(from_summaries["run_environment"], from_profiles["run_environment"]);
}
