//! `proflens tool` / `proflens info` on legacy tool files.

use crate::common;

use common::{json, proflens};
use std::path::PathBuf;

fn data(rel: &str) -> PathBuf {
    common::data("legacy").join(rel)
}

#[test]
fn a_run_folder_of_legacy_files_is_the_hosts_tool_set() {
    let run = data("tf-legacy-gpu-input-bound");
    let run = run.to_str().unwrap();
    let info = json(&["info", run]);
    let files = info["legacy_tool_files"].as_array().unwrap();
    let tools: Vec<&str> = files.iter().map(|f| f["tool"].as_str().unwrap()).collect();
    assert_eq!(tools, ["input_pipeline_analyzer", "overview_page", "framework_op_stats"]);
    assert!(files.iter().all(|f| f["host"] == "localhost"));

    let view = json(&["tool", run, "overview_page"]);
    assert_eq!(view["input"]["steps"].as_array().unwrap().len(), 11);
    assert_eq!(view["recommendation"]["bottleneck"], "host");
    let xprof = json(&["tool", run, "overview_page", "--format", "xprof"]);
    assert_eq!(xprof[1]["p"]["steptime_ms_average"], "1114.5");
    let csv = proflens(&["tool", run, "framework_op_stats", "--format", "csv"]);
    assert!(csv.status.success());
    assert_eq!(String::from_utf8_lossy(&csv.stdout).lines().count(), 1 + 9747);
    let ops = json(&["tool", run, "input_pipeline_analyzer", "--host", "localhost"]);
    assert_eq!(ops["input_ops"][0]["name"], "Iterator::Prefetch::Generator");

    let missing = proflens(&["tool", run, "kernel_stats"]);
    assert!(!missing.status.success());
    let message = String::from_utf8_lossy(&missing.stderr);
    assert!(message.contains("no legacy kernel_stats file"), "{message}");
}

#[test]
fn an_xprof_json_file_is_recognised_by_content() {
    let file = data("xprof-golden-tpu-training/data_tpu-training_memory_profile_tpu_training.json.gz");
    let file = file.to_str().unwrap();
    assert_eq!(json(&["info", file])["legacy_tool_files"][0]["tool"], "memory_profile");
    let xprof = json(&["tool", file, "memory_profile", "--format", "xprof"]);
    assert_eq!(xprof["memoryProfilePerAllocator"]["0"]["profileSummary"]["memoryCapacity"], "102803439616");
    let wrong = proflens(&["tool", file, "overview_page"]);
    assert!(!wrong.status.success());
}

/// The TPU tools' files (SYNTHETIC, tests/scripts/synthetic_tpu_tools.py):
/// `--format json` carries each step's TPU times, the TPU figures, the pod
/// tables, and the `.trace` opens in the trace viewer.
#[test]
fn a_tpu_run_folder_carries_its_tpu_columns() {
    let run = data("synthetic-tpu-tools");
    let run = run.to_str().unwrap();
    let file: serde_json::Value =
        serde_json::from_slice(&std::fs::read(data("synthetic-tpu-tools/localhost.overview_page.json")).unwrap())
            .unwrap();
    let view = json(&["tool", run, "overview_page"]);
    // The first step's TensorCore compute, as the file has it (row 0, column 1).
    let first_tc = &file[1]["rows"][0]["c"][1]["v"];
    assert_eq!(file[1]["cols"][1]["id"], "tcComputeTimeMs");
    assert_eq!(&view["input"]["tpu"]["steps"][0]["tc_compute_ms"], first_tc);
    assert!(view["input"]["steps"][0]["device_compute_ms"].as_f64().unwrap() > 0.0);
    assert_eq!(view["tpu"]["mxu_utilization_percent"], 12.5);
    let pod = json(&["tool", run, "pod_viewer"]);
    assert_eq!(pod["steps"][0]["all_reduce"][0]["name"], "all-reduce.1");
    assert_eq!(pod["steps"][0]["channels"][0]["channel_id"], "17");
    let trace = json(&["tool", run, "trace_viewer"]);
    assert_eq!(trace["events"], 6);
    let tools: Vec<String> = json(&["info", run])["legacy_tool_files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["tool"].as_str().unwrap().to_string())
        .collect();
    assert!(tools.contains(&"pod_viewer".to_string()), "{tools:?}");
}

/// A file whose step categories do not add up to its step times: the CLI
/// says so on stderr (the page's diagnostics box shows the same warning),
/// whatever the format. SYNTHETIC file (tests/scripts/synthetic_cloud_tpu_2020.py).
#[test]
fn a_file_whose_categories_do_not_add_up_is_flagged_on_stderr() {
    let file = data("synthetic-cloud-tpu-2020/localhost.input_pipeline.json");
    let file = file.to_str().unwrap();
    for format in ["json", "csv"] {
        let out = proflens(&["tool", file, "input_pipeline_analyzer", "--format", format]);
        assert!(out.status.success());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("proflens: input_pipeline_analyzer: warning: In 1 of 2 steps"), "{stderr}");
        assert!(stderr.contains("do not add up to the step time"), "{stderr}");
    }
    let view = json(&["tool", file, "input_pipeline_analyzer"]);
    assert!(view["diagnostics"][0]["message"].as_str().unwrap().contains("do not add up"));
    // Its overview adds up: nothing on stderr.
    let ok = data("synthetic-cloud-tpu-2020/localhost.overview_page.json");
    let out = proflens(&["tool", ok.to_str().unwrap(), "overview_page"]);
    assert!(out.status.success() && out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
}
