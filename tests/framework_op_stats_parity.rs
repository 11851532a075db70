//! Parity of framework_op_stats with XProf 2.24 goldens.
//!
//! Tolerances: the top 20 rows of both tables (with and without IDLE) must
//! name the same ops in the same order, with equal side, type and
//! occurrences, and total and self times within 1% (or 0.01 µs, for tiny
//! values); the IDLE row within 1%; the row counts equal; columns and table
//! properties equal. Values are compared parsed, never as bytes.

use proflens_analysis::passes::grouping::group_events;
use proflens_analysis::passes::host_analysis::HostAnalysis;
use proflens_analysis::passes::op_metrics::{device_op_metrics, host_op_metrics, OpMetricsDb};
use proflens_analysis::tools::framework_op_stats::{
    framework_op_stats, from_op_metrics, to_csv, to_xprof_json, DeviceEnv,
};
use proflens_tests::{data_dir, load, xplane_files};
use serde_json::Value;
use std::path::{Path, PathBuf};

const TOP_ROWS: usize = 20;
const REL_TOL: f64 = 0.01;
const ABS_TOL_US: f64 = 0.01;

fn golden(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).expect("readable golden");
    serde_json::from_str(&text).expect("golden is JSON")
}

fn single_profile(case: &str) -> PathBuf {
    let files = xplane_files(&data_dir().join("xspace").join(case));
    assert_eq!(files.len(), 1, "{case}: expected one profile");
    files[0].clone()
}

/// The tables as the app and the CLI compute them (with the HLO of XLA programs).
fn ours(profile_path: &Path) -> Value {
    let profile = load(profile_path).expect("profile loads");
    let modules = proflens_format::hlo::hlo_modules(&profile).modules;
    to_xprof_json(&proflens_analysis::tools::framework_op_stats::stats_of(&HostAnalysis::with_hlo(&profile, &modules)))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= ABS_TOL_US.max(REL_TOL * a.abs().max(b.abs()))
}

fn col_index(table: &Value, id: &str) -> usize {
    table["cols"].as_array().expect("cols").iter().position(|c| c["id"] == id).expect("column present")
}

fn cell(row: &Value, i: usize) -> &Value {
    &row["c"][i]["v"]
}

fn num(v: &Value) -> f64 {
    v.as_f64().expect("number cell")
}

/// Rows of both tables compared; returns the largest relative self-time error seen.
fn compare(case: &str, ours: &Value, golden: &Value) -> f64 {
    let (ours, golden) = (ours.as_array().expect("array"), golden.as_array().expect("array"));
    assert_eq!(ours.len(), 2, "{case}: two tables");
    assert_eq!(golden.len(), 2, "{case}: golden has two tables");
    let mut max_rel: f64 = 0.0;
    for (t, (o, g)) in ours.iter().zip(golden).enumerate() {
        assert_eq!(o["cols"], g["cols"], "{case} table {t}: columns");
        assert_eq!(o["p"], g["p"], "{case} table {t}: properties");
        let (orows, grows) = (o["rows"].as_array().expect("rows"), g["rows"].as_array().expect("rows"));
        let (side, ty, name, occ, total, selft) = (
            col_index(g, "host_or_device"),
            col_index(g, "type"),
            col_index(g, "operation"),
            col_index(g, "occurrences"),
            col_index(g, "total_time"),
            col_index(g, "total_self_time"),
        );
        for (r, (orow, grow)) in orows.iter().zip(grows).take(TOP_ROWS).enumerate() {
            let what = format!("{case} table {t} row {r} ({})", cell(grow, name));
            for c in [side, ty, name] {
                assert_eq!(cell(orow, c), cell(grow, c), "{what}: column {c}");
            }
            assert_eq!(num(cell(orow, occ)), num(cell(grow, occ)), "{what}: occurrences");
            for c in [total, selft] {
                let (a, b) = (num(cell(orow, c)), num(cell(grow, c)));
                assert!(close(a, b), "{what}: column {c} ours {a} golden {b}");
                if c == selft && b != 0.0 {
                    max_rel = max_rel.max((a - b).abs() / b.abs());
                }
            }
        }
        let idle = |rows: &[Value]| -> Vec<(String, f64)> {
            rows.iter()
                .filter(|r| cell(r, ty) == "IDLE")
                .map(|r| (cell(r, side).as_str().unwrap_or("").to_string(), num(cell(r, selft))))
                .collect()
        };
        let (oi, gi) = (idle(orows), idle(grows));
        assert_eq!(oi.len(), gi.len(), "{case} table {t}: IDLE rows");
        for ((os, ov), (gs, gv)) in oi.iter().zip(&gi) {
            assert_eq!(os, gs, "{case} table {t}: IDLE side");
            assert!(close(*ov, *gv), "{case} table {t}: {os} IDLE ours {ov} golden {gv}");
        }
        assert_eq!(orows.len(), grows.len(), "{case} table {t}: row count");
    }
    max_rel
}

fn check(case: &str, profile: &Path, golden_path: &Path) {
    let ours = ours(profile);
    let max_rel = compare(case, &ours, &golden(golden_path));
    eprintln!("{case}: max relative self-time error in the top {TOP_ROWS} rows: {max_rel:e}");
}

fn check_case(case: &str) {
    let golden_path = data_dir().join("goldens").join(case).join("framework_op_stats.json");
    check(case, &single_profile(case), &golden_path);
}

#[test]
fn custom_loop() {
    check_case("custom_loop");
}

#[test]
fn custom_loop_xla() {
    check_case("custom_loop_xla");
}

#[test]
fn input_bound() {
    check_case("input_bound");
}

#[test]
fn jax_mlp() {
    check_case("jax_mlp");
}

#[test]
fn keras_fit() {
    check_case("keras_fit");
}

#[test]
fn tf_gpu_multiworker_bert_host() {
    let dir = data_dir();
    check(
        "tf-gpu-multiworker-bert-xplane",
        &dir.join("xspace/external/34.83.195.179_6003.xplane.pb"),
        &dir.join("goldens/tf-gpu-multiworker-bert-xplane/framework_op_stats.34.83.195.179_6003.json"),
    );
}

#[test]
fn jax_tpu_v6e_inference() {
    let dir = data_dir();
    check(
        "jax-tpu-v6e-inference-xplane",
        &dir.join("xspace/external/tpu_inference_2.xplane.pb"),
        &dir.join("goldens/jax-tpu-v6e-inference-xplane/framework_op_stats.json"),
    );
}

/// Two hosts combined (XProf's ALL_HOSTS): the golden's two files are
/// byte-identical, so the one fixture stands for both.
#[test]
fn tf_gpu_multiworker_bert_all_hosts() {
    let dir = data_dir();
    let profile = load(&dir.join("xspace/external/34.83.195.179_6003.xplane.pb")).expect("profile loads");
    let grouping = group_events(&profile);
    let (host, device) = (host_op_metrics(&profile, &grouping), device_op_metrics(&profile, &grouping));
    let (mut all_host, mut all_device) = (OpMetricsDb::default(), OpMetricsDb::default());
    for _ in 0..2 {
        all_host.combine(&host);
        all_device.combine(&device);
    }
    let view = from_op_metrics(&all_host, &all_device, &DeviceEnv::of(&profile));
    let golden_path = dir.join("goldens/tf-gpu-multiworker-bert-xplane/framework_op_stats.ALL_HOSTS.json");
    let max_rel = compare("bert ALL_HOSTS", &to_xprof_json(&view), &golden(&golden_path));
    eprintln!("bert ALL_HOSTS: max relative self-time error in the top {TOP_ROWS} rows: {max_rel:e}");
}

/// ROCm JAX profiles, whose device ops are XLA ops named, costed and tied
/// to framework ops by the modules' HLO protos: every row and every column
/// equal, numbers within 1e-6 relative (XProf's bandwidth arithmetic differs
/// in the eighth digit).
fn check_rocm(case: &str, file: &str) {
    let dir = data_dir();
    let ours = ours(&dir.join("xspace/external").join(file));
    let golden = golden(&dir.join("goldens").join(case).join("framework_op_stats.json"));
    for t in 0..2 {
        let (o, g) = (&ours[t], &golden[t]);
        assert_eq!(o["cols"], g["cols"], "{case} table {t}: columns");
        assert_eq!(o["p"], g["p"], "{case} table {t}: properties");
        let (orows, grows) = (o["rows"].as_array().expect("rows"), g["rows"].as_array().expect("rows"));
        assert_eq!(orows.len(), grows.len(), "{case} table {t}: rows");
        assert!(grows.iter().any(|r| cell(r, 1) == "Device" && cell(r, 2) != "IDLE"), "{case}: device ops");
        for (r, (orow, grow)) in orows.iter().zip(grows).enumerate() {
            for c in 0..g["cols"].as_array().expect("cols").len() {
                let (a, b) = (cell(orow, c), cell(grow, c));
                match (a.as_f64(), b.as_f64()) {
                    (Some(x), Some(y)) => {
                        assert!((x - y).abs() <= 1e-6 * x.abs().max(y.abs()), "{case} {t}/{r}/{c}: {x} vs {y}")
                    }
                    _ => assert_eq!(a, b, "{case} table {t} row {r} column {c}"),
                }
            }
        }
    }
}

#[test]
fn jax_mi300x_conv() {
    check_rocm("jax-mi300x-conv-xplane-jax06", "chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb");
}

#[test]
fn jax_mi300x_gemm() {
    check_rocm("jax-mi300x-gemm-xplane", "tw003.xplane.pb");
}

#[test]
fn csv_has_a_line_per_row() {
    let profile = load(&single_profile("keras_fit")).expect("profile loads");
    let view = framework_op_stats(&profile, &group_events(&profile));
    let csv = to_csv(&view, true);
    let lines: Vec<&str> = csv.split("\r\n").filter(|l| !l.is_empty()).collect();
    assert_eq!(lines.len(), view.with_idle.rows.len() + 1);
    assert!(lines[0].starts_with("Rank,Host/device,Operation Type,Operation Name,#Occurrences"));
    assert!(lines[1].starts_with("1,Host,IDLE,IDLE,0,"), "{}", lines[1]);
}
