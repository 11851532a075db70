//! Host summaries and parallel hosts: every tool that combines a run's hosts
//! from their analyses prints the same JSON with one thread, with several
//! (`--jobs`), from summaries written beside the profiles
//! (`proflens summarize`), and from the summaries alone.

use crate::common;

use common::{data, proflens, NoHooks};
use proflens_analysis::context::summary::{HostSummary, COMBINED_FROM_SUMMARIES};
use proflens_analysis::context::{Format, HostContext, HostFile, ReadFile, Request};
use proflens_analysis::registry;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// A run folder under the temp dir, with the given (host, fixture) profiles.
fn make_run(name: &str, hosts: &[(&str, &str)]) -> (PathBuf, PathBuf) {
    let tmp = std::env::temp_dir().join(format!("proflens-summaries-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let run = tmp.join("plugins/profile/2026_01_01_00_00_00");
    std::fs::create_dir_all(&run).unwrap();
    for (host, fixture) in hosts {
        std::fs::copy(data(fixture), run.join(format!("{host}.xplane.pb"))).unwrap();
    }
    (tmp, run)
}

/// What `proflens tool` prints (parsed), or its failure.
fn tool(path: &Path, tool: &str, extra: &[&str]) -> Result<Value, String> {
    let mut args = vec!["tool", path.to_str().unwrap(), tool];
    args.extend_from_slice(extra);
    let out = proflens(&args);
    match out.status.success() {
        true => Ok(serde_json::from_slice(&out.stdout).expect("JSON output")),
        false => Err(String::from_utf8_lossy(&out.stderr).into_owned()),
    }
}

/// Every combining tool's output, Proflens's JSON and XProf's.
fn outputs(path: &Path, extra: &[&str]) -> Vec<(String, Result<Value, String>)> {
    let mut all = Vec::new();
    for id in COMBINED_FROM_SUMMARIES {
        for format in ["json", "xprof"] {
            let mut args = vec!["--format", format];
            args.extend_from_slice(extra);
            all.push((format!("{id} {format}"), tool(path, id, &args)));
        }
    }
    all
}

fn assert_same(what: &str, base: &[(String, Result<Value, String>)], other: &[(String, Result<Value, String>)]) {
    for ((id, a), (_, b)) in base.iter().zip(other) {
        assert!(a == b, "{what}: {id} differs:\n{a:?}\nvs\n{b:?}");
    }
}

fn summarize(path: &Path, jobs: &str) -> String {
    let out = proflens(&["summarize", path.to_str().unwrap(), "--jobs", jobs]);
    assert!(out.status.success(), "summarize: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// One thread, four threads, summaries beside the profiles, summaries alone.
fn check_run(name: &str, hosts: &[(&str, &str)]) {
    let (tmp, run) = make_run(name, hosts);
    let serial = outputs(&run, &["--jobs", "1"]);
    assert!(serial.iter().filter(|(_, r)| r.is_ok()).count() >= 8, "{name}: most tools answer: {serial:?}");
    assert_same(name, &serial, &outputs(&run, &["--jobs", "4"]));

    let written = summarize(&run, "3");
    assert_eq!(written.matches(": written").count(), hosts.len(), "{written}");
    for (host, _) in hosts {
        assert!(run.join(format!("{host}.proflens-summary.bin.gz")).is_file());
    }
    assert_eq!(summarize(&run, "2").matches(": up to date").count(), hosts.len());
    assert_same(&format!("{name} beside the profiles"), &serial, &outputs(&run, &["--jobs", "1"]));

    // The summaries alone, copied elsewhere: a run without any profile.
    let alone = tmp.join("alone/plugins/profile/2026_01_01_00_00_00");
    std::fs::create_dir_all(&alone).unwrap();
    for (host, _) in hosts {
        let file = format!("{host}.proflens-summary.bin.gz");
        std::fs::copy(run.join(&file), alone.join(&file)).unwrap();
    }
    assert_same(&format!("{name} from summaries alone"), &serial, &outputs(&alone, &[]));
    // A tool that needs the events says so.
    let e = tool(&alone, "trace_viewer", &["--host", hosts[0].0]).unwrap_err();
    assert!(e.contains("only its summary"), "{e}");
    std::fs::remove_dir_all(&tmp).unwrap();
}

#[test]
fn two_host_bert_run_is_the_same_every_way() {
    let bert = "xspace/external/34.83.195.179_6003.xplane.pb";
    check_run("bert", &[("34.83.195.179_6003", bert), ("34.83.195.180_6003", bert)]);
}

#[test]
fn runs_of_unlike_hosts_are_the_same_every_way() {
    check_run(
        "external",
        &[
            ("bert", "xspace/external/34.83.195.179_6003.xplane.pb"),
            ("mi300x", "xspace/external/chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb"),
            ("tpu", "xspace/external/tpu_inference_2.xplane.pb"),
            ("tw003", "xspace/external/tw003.xplane.pb"),
        ],
    );
    check_run(
        "local",
        &[
            ("custom_loop", "xspace/custom_loop/plugins/profile/2026_11_22_09_04_34/vm.xplane.pb"),
            ("custom_loop_xla", "xspace/custom_loop_xla/plugins/profile/2026_11_22_09_04_39/vm.xplane.pb"),
            ("input_bound", "xspace/input_bound/plugins/profile/2026_11_22_09_04_29/vm.xplane.pb"),
            ("jax_mlp", "xspace/jax_mlp/plugins/profile/2026_11_22_09_04_56/vm.xplane.pb"),
            ("keras_fit", "xspace/keras_fit/train/plugins/profile/2026_11_22_09_04_23/vm.xplane.pb"),
        ],
    );
}

#[test]
fn a_changed_profile_or_a_damaged_summary_is_not_read() {
    let bert = "xspace/external/34.83.195.179_6003.xplane.pb";
    let small = "xspace/external/tw003.xplane.pb";
    let (tmp, run) = make_run("stale", &[("a", bert), ("b", bert)]);
    let before = tool(&run, "overview_page", &["--jobs", "1"]).unwrap();
    summarize(&run, "2");
    // Host b's profile is replaced: its summary no longer describes it.
    std::fs::copy(data(small), run.join("b.xplane.pb")).unwrap();
    let out = proflens(&["tool", run.to_str().unwrap(), "overview_page", "--jobs", "1"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && stderr.contains("b.proflens-summary.bin.gz: not used"), "{stderr}");
    let fresh = make_run("fresh", &[("a", bert), ("b", small)]);
    let expected = tool(&fresh.1, "overview_page", &["--jobs", "1"]).unwrap();
    assert_eq!(serde_json::from_slice::<Value>(&out.stdout).unwrap(), expected);
    assert_ne!(expected, before);
    // A damaged summary: said, and the profile is read.
    std::fs::write(run.join("a.proflens-summary.bin.gz"), b"\x1f\x8b\x08\x00garbage").unwrap();
    let out = proflens(&["tool", run.to_str().unwrap(), "overview_page"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && stderr.contains("a.proflens-summary.bin.gz: not used"), "{stderr}");
    assert_eq!(serde_json::from_slice::<Value>(&out.stdout).unwrap(), expected);
    std::fs::remove_dir_all(&tmp).unwrap();
    std::fs::remove_dir_all(&fresh.0).unwrap();
}

#[test]
fn summarize_without_profiles_or_where_it_cannot_write_fails_clearly() {
    // Trace JSON that is no PyTorch trace has no summary.
    let (tmp, run) = make_run("chrome", &[]);
    std::fs::copy(data("chrome_trace/handwritten_training.trace.json"), run.join("training.json")).unwrap();
    let out = proflens(&["summarize", run.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no XSpace profiles (*.xplane.pb) or PyTorch traces"));
    assert!(!run.join("training.proflens-summary.bin.gz").exists());
    std::fs::remove_dir_all(&tmp).unwrap();

    let (tmp, run) = make_run("readonly", &[("a", "xspace/external/tw003.xplane.pb")]);
    let original = std::fs::metadata(&run).unwrap().permissions();
    let mut readonly = original.clone();
    readonly.set_readonly(true);
    std::fs::set_permissions(&run, readonly).unwrap();
    // Root writes to read-only folders: nothing to check there.
    let writable = std::fs::write(run.join("probe"), b"").is_ok();
    let out = proflens(&["summarize", run.to_str().unwrap()]);
    std::fs::set_permissions(&run, original).unwrap();
    if writable {
        eprintln!("skipped the read-only check: this user writes to read-only folders");
    } else {
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && stderr.contains("must be writable"), "{stderr}");
    }
    std::fs::remove_dir_all(&tmp).unwrap();
}

/// A host given its summary answers the tools of all hosts without reading
/// its file (no pass runs), and they print what the decoded hosts print.
#[test]
fn hosts_given_summaries_combine_without_reading_their_events() {
    let bert = data("xspace/external/34.83.195.179_6003.xplane.pb");
    let host = |name: &str, readable: bool| {
        let file = bert.clone();
        let read: ReadFile = match readable {
            true => Box::new(move || proflens_format::source::open_file(&file)),
            false => Box::new(|| Err("the events must not be read".into())),
        };
        let file = HostFile { path: format!("{name}.xplane.pb"), tool: None, read };
        Rc::new(HostContext::new(name, vec![file], Rc::new(NoHooks)))
    };
    let decoded = [host("a", true), host("b", true)];
    let summary = HostSummary::decode(&HostSummary::of(&decoded[0], None).unwrap().encode()).unwrap();
    let given = [host("a", false), host("b", false)];
    for h in &given {
        h.give_analysis(summary.analysis.clone());
    }
    for id in COMBINED_FROM_SUMMARIES {
        let tool = registry::find(id).unwrap();
        let run = |hosts: &[Rc<HostContext>]| {
            registry::run(tool, hosts, &Request::default()).and_then(|o| o.text(Format::Json))
        };
        assert_eq!(run(&given).unwrap(), run(&decoded).unwrap(), "{id}");
    }
    assert!(given.iter().all(|h| h.pass_runs().iter().all(|(_, n)| *n == 0)));
    let trace = registry::run(registry::find("trace_viewer").unwrap(), &given[..1], &Request::default());
    assert!(trace.is_err_and(|e| e.to_string().contains("must not be read")));
}
