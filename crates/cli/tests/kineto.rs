//! The `proflens` binary on PyTorch (Kineto) traces: single files and a
//! folder of rank files.

use crate::common;

use common::{json, proflens};
use serde_json::Value;
use std::path::PathBuf;

fn data(rel: &str) -> PathBuf {
    common::data("kineto").join(rel)
}

const BERT: &str = "kineto-h100-hf-inference/gaunernst_bert-small-uncased__1016001.json.gz";

#[test]
fn info_names_the_host_after_the_file() {
    let path = data(BERT);
    let v = json(&["info", path.to_str().unwrap()]);
    let host = &v["runs"][0]["hosts"][0];
    assert_eq!(host["name"], "gaunernst_bert-small-uncased__1016001");
    let planes: Vec<&str> = host["planes"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(planes, ["/host:CPU", "/device:GPU:0"]);
}

#[test]
fn tools_serve_the_pytorch_views() {
    let path = data(BERT);
    let p = path.to_str().unwrap();
    let overview = json(&["tool", p, "overview_page"]);
    assert_eq!(overview["steps"][0]["step"], 6);
    assert_eq!(overview["steps"][0]["cpu_duration_ps"], 4_426_114_000i64);
    let ops = json(&["tool", p, "framework_op_stats"]);
    assert_eq!(ops[0]["name"], "aten::addmm");
    let kernels = json(&["tool", p, "kernel_stats", "--format", "xprof"]);
    let total: f64 = kernels["rows"].as_array().unwrap().iter().map(|r| r["c"][11]["v"].as_f64().unwrap()).sum();
    assert!((total - 307.197).abs() < 1e-6, "{total}");
    let memory = json(&["tool", p, "memory_profile", "--format", "xprof"]);
    assert!(memory["memoryProfilePerAllocator"]["GPU_0"].is_object());
    let out = proflens(&["tool", p, "input_pipeline_analyzer"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not available for PyTorch traces"));
}

#[test]
fn a_folder_of_rank_files_is_one_distributed_run() {
    let dir = data("kineto-multirank-sampled");
    let v = json(&["tool", dir.to_str().unwrap(), "overview_page"]);
    let ranks = v["distributed"]["ranks"].as_array().unwrap();
    assert_eq!(ranks.len(), 2);
    assert_eq!((ranks[0]["rank"].as_i64(), ranks[1]["rank"].as_i64()), (Some(0), Some(1)));
    assert_eq!(ranks[0]["world_size"], 128);
    assert_eq!(v["ranks"][0]["label"], "sampled_rank-0");
    let one = json(&["tool", dir.to_str().unwrap(), "overview_page", "--host", "sampled_rank-1"]);
    assert_eq!(one["rank"], 1);
}

#[test]
fn export_trace_writes_chrome_json() {
    let out_path = std::env::temp_dir().join(format!("proflens-kineto-{}.json", std::process::id()));
    let path = data(BERT);
    let out = proflens(&["export-trace", path.to_str().unwrap(), "-o", out_path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&std::fs::read(&out_path).unwrap()).unwrap();
    let _ = std::fs::remove_file(&out_path);
    assert!(v["traceEvents"].as_array().unwrap().len() > 2000);
}

#[test]
fn truncated_trace_json_is_a_clear_error() {
    let dir = std::env::temp_dir().join(format!("proflens-kineto-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("cut.pt.trace.json");
    std::fs::write(&file, br#"{"schemaVersion":1,"traceEvents":[{"ph":"X","cat":"kernel","ts":1.5"#).unwrap();
    let out = proflens(&["info", file.to_str().unwrap()]);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cut.pt.trace.json") && err.contains("truncated"), "{err}");
}

#[test]
fn content_decides_whatever_the_name() {
    // A Chrome trace misnamed `*.xplane.pb` (tests/data/bad) is read as the trace it is.
    let path = common::data("bad/trace.xplane.pb");
    let v = json(&["info", path.to_str().unwrap()]);
    assert_eq!(v["runs"][0]["hosts"][0]["planes"][0]["events"], 1);
}

/// `--format hta` prints HTA 0.5.0's queue length and memory bandwidth
/// summaries of all ranks, as its goldens hold them (this fixture's match
/// exactly; tests/hta_counters_parity.rs checks every golden).
#[test]
fn hta_counters_print_hta_summaries() {
    let dir = data("kineto-multirank-sampled");
    let d = dir.to_str().unwrap();
    for (tool, golden) in
        [("queue_length", "hta_queue_length_summary.json"), ("memory_bandwidth", "hta_memory_bandwidth_summary.json")]
    {
        let ours = json(&["tool", d, tool, "--format", "hta"]);
        let hta: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("goldens").join(golden)).unwrap()).unwrap();
        for k in ["hta_version", "api", "params", "value", "returned_none"] {
            assert_eq!(ours[k], hta[k], "{tool}: {k}");
        }
        assert_eq!(ours["load"]["profiler_steps_used"], hta["load"]["profiler_steps_used"], "{tool}");
        let (rows, hta_rows) = (ours["rows"].as_array().unwrap(), hta["rows"].as_array().unwrap());
        assert_eq!(rows.len(), hta_rows.len(), "{tool}");
        for (row, h) in rows.iter().zip(hta_rows) {
            for (k, v) in h.as_object().unwrap() {
                match (v.as_f64(), row[k].as_f64()) {
                    (Some(a), Some(b)) => assert!((a - b).abs() <= 1e-9 * a.abs(), "{tool} {k}: {b} vs HTA {a}"),
                    _ => assert_eq!(&row[k], v, "{tool} {k}"),
                }
            }
        }
        let csv = String::from_utf8(proflens(&["tool", d, tool, "--format", "csv"]).stdout).unwrap();
        assert_eq!(csv.lines().count(), hta_rows.len() + 1, "{tool}: {csv}");
    }
}

/// `--include-last-step` is HTA's `include_last_profiler_step=True`: the
/// two-rank job's `.include_last_step` goldens (steps 551 and 552) rather
/// than the default ones (551 only), through the CLI.
#[test]
fn include_last_step_keeps_htas_last_step() {
    let dir = data("kineto-multirank-sampled");
    let d = dir.to_str().unwrap();
    let golden = |name: &str| -> Value {
        serde_json::from_str(&std::fs::read_to_string(dir.join("goldens").join(name)).unwrap()).unwrap()
    };
    for (tool, file) in [
        ("stragglers", "hta_potential_stragglers"),
        ("kernel_launch_stats", "hta_cuda_kernel_launch_stats"),
        ("idle_time_breakdown", "hta_idle_time_breakdown"),
        ("queue_length", "hta_queue_length_summary"),
    ] {
        let with_last = json(&["tool", d, tool, "--format", "hta", "--include-last-step"]);
        let default = json(&["tool", d, tool, "--format", "hta"]);
        for (ours, hta) in [
            (&with_last, golden(&format!("{file}.include_last_step.json"))),
            (&default, golden(&format!("{file}.json"))),
        ] {
            assert_eq!(ours["load"]["include_last_profiler_step"], hta["load"]["include_last_profiler_step"], "{tool}");
            assert_eq!(ours["load"]["profiler_steps_used"], hta["load"]["profiler_steps_used"], "{tool}");
        }
        assert_eq!(with_last["load"]["profiler_steps_used"], serde_json::json!([551, 552]), "{tool}");
    }
    // The numbers follow: the stragglers' counts, and every launch of both ranks.
    let stragglers = json(&["tool", d, "stragglers", "--format", "hta", "--include-last-step"]);
    assert_eq!(
        stragglers["straggler_counts"],
        golden("hta_potential_stragglers.include_last_step.json")["straggler_counts"]
    );
    let launches = json(&["tool", d, "kernel_launch_stats", "--format", "hta", "--include-last-step"]);
    let hta = golden("hta_cuda_kernel_launch_stats.include_last_step.json");
    for rank in ["0", "1"] {
        let (ours, theirs) = (&launches["per_rank"][rank]["summary"], &hta["per_rank"][rank]["summary"]);
        for k in ["num_launches", "gpu_shorter_than_cpu", "cpu_runtime_outliers", "launch_delay_outliers"] {
            assert_eq!(ours[k], theirs[k], "rank {rank}: {k}");
        }
    }
}

/// `--step N` finds one step's critical path (what the page asks for): the
/// DDP trace's second step, the first listed without its path.
#[test]
fn critical_path_of_one_step() {
    let path = data("kineto-a100-ddp-nccl/nccl_data.json.gz");
    let p = path.to_str().unwrap();
    let all = json(&["tool", p, "critical_path"]);
    let one = json(&["tool", p, "critical_path", "--step", "1"]);
    assert_eq!((&all["only"], &one["only"]), (&Value::Null, &serde_json::json!(1)));
    assert_eq!(one["steps"][1], all["steps"][1]);
    assert_eq!(one["steps"][0]["segments"], serde_json::json!([]));
    assert_eq!(one["steps"][0]["step"], all["steps"][0]["step"]);
    let csv = proflens(&["tool", p, "critical_path", "--step", "1", "--format", "csv"]);
    let rows = String::from_utf8(csv.stdout).unwrap().lines().count();
    assert_eq!(rows, all["steps"][1]["segments"].as_array().unwrap().len() + 1);
}

/// `--annotation` names the iterations as HTA's `annotation` does (every
/// host event whose name contains it), `--instance` picks one of them, and
/// `--annotation ""` is the whole trace; a name no event has is an error.
/// (The default on a trace without ProfilerStep: tests/critical_path.rs.)
#[test]
fn critical_path_of_an_annotation() {
    let path = data("kineto-h100-hf-inference/gaunernst_bert-small-uncased__1016001.json.gz");
    let p = path.to_str().unwrap();
    let named = json(&["tool", p, "critical_path", "--annotation", "aten::linear", "--instance", "1"]);
    assert_eq!(
        (&named["annotation"], &named["note"], &named["only"]),
        (&serde_json::json!("aten::linear"), &Value::Null, &serde_json::json!(1))
    );
    let steps = named["steps"].as_array().unwrap();
    assert!(steps.len() > 1 && steps.iter().all(|s| s["name"] == "aten::linear" && s["step"] == -1));
    assert!(
        steps[0]["segments"].as_array().unwrap().is_empty() && !steps[1]["segments"].as_array().unwrap().is_empty()
    );
    let whole = json(&["tool", p, "critical_path", "--annotation", ""]);
    assert_eq!(
        (&whole["annotation"], &whole["steps"][0]["name"]),
        (&serde_json::json!(""), &serde_json::json!("whole trace"))
    );
    let missing = proflens(&["tool", p, "critical_path", "--annotation", "no such range"]);
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("“no such range”"));
}

/// `overview_page --format hta` prints HTA 0.5.0's temporal breakdown and
/// comm/comp overlap of all ranks: this fixture's goldens, both variants,
/// every rank and column, exactly (HTA rounds the shares to 2 decimals, as
/// the output does; tests/kineto_parity.rs checks every golden's figures).
#[test]
fn overview_prints_htas_temporal_breakdown_and_overlap() {
    let dir = data("kineto-multirank-sampled");
    let d = dir.to_str().unwrap();
    for (flags, suffix) in [(&[][..], ""), (&["--include-last-step"][..], ".include_last_step")] {
        let mut args = vec!["tool", d, "overview_page", "--format", "hta"];
        args.extend_from_slice(flags);
        let ours = json(&args);
        for (part, golden) in
            [("temporal_breakdown", "hta_temporal_breakdown"), ("comm_comp_overlap", "hta_comm_comp_overlap")]
        {
            let file = dir.join("goldens").join(format!("{golden}{suffix}.json"));
            let hta: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
            assert_eq!(ours[part]["api"], hta["api"], "{part}{suffix}");
            assert_eq!(ours[part]["per_rank"], hta["per_rank"], "{part}{suffix}");
        }
        assert_eq!(ours["load"]["include_last_profiler_step"], !suffix.is_empty());
    }
    // An XSpace host has no HTA analysis like it.
    let bert = common::data("xspace/external/34.83.195.179_6003.xplane.pb");
    let out = proflens(&["tool", bert.to_str().unwrap(), "overview_page", "--format", "hta"]);
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("HTA has no analysis like it"));
}
