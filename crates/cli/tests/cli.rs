//! The `proflens` binary on real fixtures and on the bad-input corpus.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data").join(rel)
}

fn proflens(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_proflens")).args(args).output().expect("proflens runs")
}

fn info(path: &Path) -> Value {
    let out = proflens(&["info".as_ref(), path.as_os_str()]);
    assert!(out.status.success(), "{}: {}", path.display(), String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("info prints JSON")
}

/// (plane name, lines, events) of every plane of a host.
fn planes(host: &Value) -> Vec<(String, u64, u64)> {
    host["planes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["name"].as_str().unwrap().to_string(), p["lines"].as_u64().unwrap(), p["events"].as_u64().unwrap()))
        .collect()
}

#[test]
fn info_matches_the_reference_counts_for_file_run_and_logdir() {
    for case in ["custom_loop", "custom_loop_xla", "input_bound", "jax_mlp", "keras_fit"] {
        let summary: Value =
            serde_json::from_slice(&std::fs::read(data(&format!("xspace/{case}/xplane_summary.json"))).unwrap())
                .unwrap();
        let expected: Vec<(String, u64, u64)> = summary["planes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                (
                    p["name"].as_str().unwrap().to_string(),
                    p["num_lines"].as_u64().unwrap(),
                    p["num_events"].as_u64().unwrap(),
                )
            })
            .collect();

        // As a logdir: one run named after its capture directory, one host `vm`.
        let logdir = info(&data(&format!("xspace/{case}")));
        let runs = logdir["runs"].as_array().unwrap();
        assert_eq!(runs.len(), 1, "{case}");
        let run_name = runs[0]["name"].as_str().unwrap();
        assert!(run_name.starts_with("2026_11_22_"), "{case}: run {run_name}");
        assert_eq!(runs[0]["hosts"][0]["name"], "vm");
        assert_eq!(planes(&runs[0]["hosts"][0]), expected, "{case}");

        // As the run directory and as the single file: the same numbers.
        let run_dir = std::fs::read_dir(data(&format!("xspace/{case}")))
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.is_dir())
            .unwrap();
        let file = walk_xplane(&run_dir);
        let run_dir = file.parent().unwrap();
        for path in [run_dir, file.as_path()] {
            let out = info(path);
            assert_eq!(out["runs"][0]["name"], run_name, "{}", path.display());
            assert_eq!(planes(&out["runs"][0]["hosts"][0]), expected, "{}", path.display());
        }
    }
}

fn walk_xplane(dir: &Path) -> PathBuf {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            return walk_xplane(&path);
        }
        if path.to_string_lossy().ends_with(".xplane.pb") {
            return path;
        }
    }
    panic!("no xplane below {}", dir.display());
}

#[test]
fn two_hosts_with_the_same_inner_host_name_stay_apart() {
    // external/tf-gpu-multiworker-bert-xplane: two workers, identical bytes.
    let tmp = std::env::temp_dir().join(format!("proflens-cli-two-hosts-{}", std::process::id()));
    let run = tmp.join("plugins/profile/2020_06_09_12_00_00");
    std::fs::create_dir_all(&run).unwrap();
    for host in ["34.83.195.179_6003", "34.83.195.180_6003"] {
        std::fs::copy(data("xspace/external/34.83.195.179_6003.xplane.pb"), run.join(format!("{host}.xplane.pb")))
            .unwrap();
    }
    let out = info(&tmp);
    std::fs::remove_dir_all(&tmp).unwrap();
    let hosts = out["runs"][0]["hosts"].as_array().unwrap();
    let names: Vec<_> = hosts.iter().map(|h| h["name"].as_str().unwrap()).collect();
    assert_eq!(names, vec!["34.83.195.179_6003", "34.83.195.180_6003"]);
    let cpu = |h: &Value| planes(h).into_iter().find(|p| p.0 == "/host:CPU").unwrap();
    assert_eq!(cpu(&hosts[0]), ("/host:CPU".to_string(), 22, 15_354));
    assert_eq!(cpu(&hosts[0]), cpu(&hosts[1]));
}

#[test]
fn bad_input_fails_with_one_clear_line() {
    let cases = [
        ("bad/empty.xplane.pb", "is empty"),
        ("bad/random.xplane.pb", "not an XSpace profile"),
        ("bad/truncated.xplane.pb", "truncated"),
        ("bad/truncated.xplane.pb.gz", "truncated"),
        ("bad/bomb.xplane.pb.gz", "gzip bomb"),
        ("bad/legacy_overview_page.xplane.pb", "protobuf message of another kind"),
        ("does-not-exist.xplane.pb", "No such file"),
    ];
    let no_profiles = std::env::temp_dir().join(format!("proflens-cli-empty-{}", std::process::id()));
    std::fs::create_dir_all(no_profiles.join("plugins/profile/run")).unwrap();
    std::fs::write(no_profiles.join("plugins/profile/run/notes.txt"), "not a profile").unwrap();
    let paths = cases.iter().map(|(rel, phrase)| (data(rel), *rel, *phrase));
    for (path, rel, phrase) in paths.chain([(no_profiles.clone(), "a folder without profiles", "no profiles")]) {
        let out = proflens(&["info".as_ref(), path.as_os_str()]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{rel}: {stderr}");
        assert!(out.stdout.is_empty(), "{rel}");
        assert_eq!(stderr.lines().count(), 1, "{rel}: one line, got {stderr}");
        assert!(stderr.starts_with("proflens: "), "{rel}: {stderr}");
        assert!(stderr.contains(phrase), "{rel}: expected '{phrase}' in {stderr}");
        assert!(!stderr.contains("panicked"), "{rel}: {stderr}");
    }
    std::fs::remove_dir_all(no_profiles).unwrap();
}

#[test]
fn tool_prints_xprof_json_own_json_and_csv() {
    let path = data("xspace/input_bound");
    let run = |args: &[&str]| {
        let mut all: Vec<&std::ffi::OsStr> = vec!["tool".as_ref(), path.as_os_str()];
        all.extend(args.iter().map(|a| std::ffi::OsStr::new(*a)));
        proflens(&all)
    };
    let out = run(&["overview_page", "--format", "xprof"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let xprof: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(xprof.as_array().unwrap().len(), 7);
    assert_eq!(xprof[3]["p"]["bottleneck"], "host");
    assert_eq!(xprof[1]["rows"].as_array().unwrap().len(), 10);

    let out = run(&["input_pipeline_analyzer"]);
    let own: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(own["input_ops"][0]["name"], "Iterator::Root::Prefetch::MapAndBatch::ParallelMapV2");
    assert_eq!(own["bottleneck"]["input_classification"], "host");

    let file = std::env::temp_dir().join(format!("proflens-ops-{}.csv", std::process::id()));
    let out = run(&["framework_op_stats", "--format", "csv", "-o", file.to_str().unwrap()]);
    assert!(out.status.success() && out.stdout.is_empty());
    let csv = std::fs::read_to_string(&file).unwrap();
    std::fs::remove_file(&file).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert!(lines[0].starts_with("Rank,"), "{}", lines[0]);
    assert!(lines.len() > 20);
    assert!(lines.iter().any(|l| l.contains("EagerPyFunc")));
}

#[test]
fn tool_refuses_unknown_tools_and_ambiguous_hosts() {
    let out = proflens(&["tool".as_ref(), data("xspace/input_bound").as_os_str(), "trace_everything".as_ref()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("overview_page"));

    let out = proflens(&["tool".as_ref(), data("xspace").as_os_str(), "overview_page".as_ref()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("choose one with --run") && stderr.lines().count() == 1, "{stderr}");

    let out = proflens(&[
        "tool".as_ref(),
        data("xspace").as_os_str(),
        "overview_page".as_ref(),
        "--run".as_ref(),
        "external".as_ref(),
        "--host".as_ref(),
        "nowhere".as_ref(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("no host 'nowhere'") && stderr.contains("tw003"), "{stderr}");
}

#[test]
fn tool_combines_all_hosts_of_a_run_unless_one_is_chosen() {
    let tmp = std::env::temp_dir().join(format!("proflens-cli-all-hosts-{}", std::process::id()));
    let run = tmp.join("plugins/profile/2020_06_09_12_00_00");
    std::fs::create_dir_all(&run).unwrap();
    for host in ["34.83.195.179_6003", "34.83.195.180_6003"] {
        std::fs::copy(data("xspace/external/34.83.195.179_6003.xplane.pb"), run.join(format!("{host}.xplane.pb")))
            .unwrap();
    }
    let overview = |extra: &[&str]| {
        let mut args: Vec<&std::ffi::OsStr> = vec!["tool".as_ref(), tmp.as_os_str(), "overview_page".as_ref()];
        args.extend(["--format", "xprof"].iter().chain(extra).map(|a| std::ffi::OsStr::new(*a)));
        let out = proflens(&args);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    let all = overview(&[]);
    let one = overview(&["--host", "34.83.195.180_6003"]);
    std::fs::remove_dir_all(&tmp).unwrap();
    assert_eq!(all[2]["p"]["device_core_count"], "16");
    assert_eq!(all[2]["p"]["task_count"], "2 (num tasks per host = 2)");
    assert_eq!(one[2]["p"]["device_core_count"], "8");
    assert_eq!(all[1]["p"]["steptime_ms_average"], one[1]["p"]["steptime_ms_average"]);
}

#[test]
fn export_trace_writes_chrome_json() {
    let file = std::env::temp_dir().join(format!("proflens-trace-{}.json", std::process::id()));
    let out =
        proflens(&["export-trace".as_ref(), data("xspace/input_bound").as_os_str(), "-o".as_ref(), file.as_os_str()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    std::fs::remove_file(&file).unwrap();
    let complete = json["traceEvents"].as_array().unwrap().iter().filter(|e| e["ph"] == "X").count();
    let regions = json["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == "X" && e["name"] == "ThreadpoolListener::Region")
        .count();
    let summary: Value =
        serde_json::from_slice(&std::fs::read(data("xspace/input_bound/xplane_summary.json")).unwrap()).unwrap();
    // Every event of the file, plus the thread-pool regions derived from it (as XProf does).
    assert_eq!((complete - regions) as u64, summary["total_events"].as_u64().unwrap());
    assert_eq!(regions, 2122);
    assert!(String::from_utf8_lossy(&out.stderr).contains(&format!("wrote {complete} events")));
}

#[test]
fn kernel_stats_and_pod_viewer_tools() {
    let out = proflens(&[
        "tool".as_ref(),
        data("xspace/external/34.83.195.179_6003.xplane.pb").as_os_str(),
        "kernel_stats".as_ref(),
        "--format".as_ref(),
        "xprof".as_ref(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let table: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(table["rows"].as_array().unwrap().len(), 15);
    let out = proflens(&["tool".as_ref(), data("xspace/input_bound").as_os_str(), "pod_viewer".as_ref()]);
    let view: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(view["steps"].as_array().unwrap().len(), 10);
    assert_eq!(view["steps"][0]["cores"][0]["bottleneck"], "Input");
}

#[test]
fn memory_profile_tool_is_per_host() {
    let out = proflens(&[
        "tool".as_ref(),
        data("xspace/keras_fit").as_os_str(),
        "memory_profile".as_ref(),
        "--format".as_ref(),
        "xprof".as_ref(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let view: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(view["memoryIds"], serde_json::json!(["mklcpu"]));
    assert_eq!(view["memoryProfilePerAllocator"]["mklcpu"]["profileSummary"]["peakBytesUsageLifetime"], "16777216");
    let out = proflens(&[
        "tool".as_ref(),
        data("xspace").as_os_str(),
        "memory_profile".as_ref(),
        "--run".as_ref(),
        "external".as_ref(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("choose one with --host"));
}

#[test]
fn tf_data_tool_names_the_bottleneck() {
    let out = proflens(&[
        "tool".as_ref(),
        data("xspace/input_bound").as_os_str(),
        "tf_data_bottleneck_analysis".as_ref(),
        "--format".as_ref(),
        "csv".as_ref(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let csv = String::from_utf8(out.stdout).unwrap();
    assert!(csv.lines().nth(1).unwrap().contains(",ParallelMapV2,"), "{csv}");
    let out = proflens(&[
        "tool".as_ref(),
        data("xspace/input_bound").as_os_str(),
        "tf_data_bottleneck_analysis".as_ref(),
        "--format".as_ref(),
        "xprof".as_ref(),
    ]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn tools_lists_xprofs_whole_set_and_names_what_is_not_built() {
    let out = proflens(&["tools".as_ref(), "--json".as_ref()]);
    assert!(out.status.success());
    let tools: Value = serde_json::from_slice(&out.stdout).unwrap();
    let ids: Vec<&str> = tools.as_array().unwrap().iter().map(|t| t["id"].as_str().unwrap()).collect();
    // XProf 2.24's tool names (the goldens' index.json), each either built or listed as not built.
    for xprof in [
        "overview_page",
        "input_pipeline_analyzer",
        "framework_op_stats",
        "kernel_stats",
        "memory_profile",
        "pod_viewer",
        "op_profile",
        "hlo_stats",
        "memory_viewer",
        "trace_viewer",
        "roofline_model",
        "graph_viewer",
        "perf_counters",
        "utilization_viewer",
        "kernel_utilization",
        "inference_profile",
        "smart_suggestion",
        "megascale_stats",
        "hlo_op_profile",
    ] {
        assert!(ids.contains(&xprof), "{xprof} missing from {ids:?}");
    }
    let not_built: Vec<&Value> = tools.as_array().unwrap().iter().filter(|t| t.get("not_built").is_some()).collect();
    assert_eq!(not_built.len(), 7);
    assert!(not_built.iter().all(|t| t["formats"].as_array().unwrap().is_empty()));
    // Asking for one says why, and fails.
    let file = data("xspace/external/tw003.xplane.pb");
    let out = proflens(&["tool".as_ref(), file.as_os_str(), "smart_suggestion".as_ref()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("XProf tool Proflens does not build") && err.contains("empty"), "{err}");
}

/// `graph_viewer`: `--format xprof` is XProf's long_txt (the golden, byte for
/// byte), `--node`/`--graph-width`/`--merge-fusion` shape the JSON graph,
/// `--format svg` draws it, and a profile without HLO fails as XProf does.
#[test]
fn graph_viewer_formats_and_flags() {
    let profile = data("xspace/jax_mlp/plugins/profile/2026_11_22_09_04_56/vm.xplane.pb");
    let run = |extra: &[&str]| {
        let mut args: Vec<&std::ffi::OsStr> = vec![
            "tool".as_ref(),
            profile.as_os_str(),
            "graph_viewer".as_ref(),
            "--module".as_ref(),
            "jit_train_step(30)".as_ref(),
        ];
        args.extend(extra.iter().map(|a| std::ffi::OsStr::new(*a)));
        proflens(&args)
    };
    let text = run(&["--format", "xprof"]);
    assert!(text.status.success(), "{}", String::from_utf8_lossy(&text.stderr));
    let golden = std::fs::read(data("goldens/jax_mlp/graph_viewer.jit_train_step(30).long_txt.txt.gz")).unwrap();
    let golden = proflens_format::inflate::gunzip(&golden, 1 << 24, &mut |_| {}).unwrap();
    assert!(text.stdout == golden, "--format xprof is not the golden");
    assert_eq!(run(&["--format", "txt"]).stdout, text.stdout);

    let graph = |extra: &[&str]| -> Value {
        let out = run(extra);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let one = graph(&["--node", "dot.2", "--graph-width", "1", "--merge-fusion"]);
    assert_eq!(one["node"], "dot.2");
    let names: Vec<&str> =
        one["graph"]["nodes"].as_array().unwrap().iter().map(|n| n["name"].as_str().unwrap()).collect();
    // dot.2 = dot(broadcast_maximum_fusion, multiply_add_fusion), used by multiply_subtract_fusion.1.
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, ["broadcast_maximum_fusion", "dot.2", "multiply_add_fusion", "multiply_subtract_fusion.1"]);
    assert_eq!(one["graph"]["edges"].as_array().unwrap().len(), 3);
    let expanded = graph(&["--node", "dot.2", "--graph-width", "1"]);
    assert_eq!(expanded["graph"]["clusters"].as_array().unwrap().len(), 3);

    let svg = run(&["--node", "dot.2", "--format", "svg"]);
    let svg = String::from_utf8(svg.stdout).unwrap();
    assert!(svg.starts_with("<svg ") && svg.contains(">dot.2</text>"), "{}", &svg[..svg.len().min(200)]);

    let missing = run(&["--node", "no-such-op"]);
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("There is no instruction 'no-such-op'"));

    let keras = data("xspace/keras_fit/train/plugins/profile/2026_11_22_09_04_23/vm.xplane.pb");
    let out =
        proflens(&["tool".as_ref(), keras.as_os_str(), "graph_viewer".as_ref(), "--format".as_ref(), "xprof".as_ref()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("No HLO module found in the HLO proto"));
}
