//! Steps and their time breakdown against XProf 2.24's input-pipeline goldens
//! (tests/data/goldens/<case>/input_pipeline_analyzer.json, table 1: one row per
//! step): the same steps in order, each one's time and its nine categories
//! (every number column of the table). Tolerance: none ([`TOLERANCE`]);
//! both sides divide whole ps by 1e9 to write ms. (The table's tooltip and
//! the properties are compared whole by tests/overview_parity.rs.)

use proflens_analysis::passes::grouping::group_events;
use proflens_analysis::passes::steps::{step_db, SpanType, StepInfo};
use proflens_tests::json_diff::{Mismatches, Tol};
use proflens_tests::{data_dir, load};
use serde_json::{json, Value};

/// The allowed difference of a step's time or a category's (see the module docs).
const TOLERANCE: Tol = Tol::EXACT;
use std::path::Path;

fn golden_rows(golden: &Path) -> Vec<Vec<Value>> {
    let tables: Value = serde_json::from_slice(&std::fs::read(golden).unwrap()).unwrap();
    tables[1]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["c"].as_array().unwrap().iter().map(|c| c["v"].clone()).collect())
        .collect()
}

fn ms(step: &StepInfo, types: &[SpanType]) -> f64 {
    types.iter().map(|&t| step.ps(t)).sum::<i64>() as f64 / 1e9
}

fn check(case: &str, profile: &Path, golden: &Path) {
    let profile = load(profile).unwrap();
    let grouping = group_events(&profile);
    let db = step_db(&profile, &grouping, true);
    let rows = golden_rows(golden);
    let names: Vec<&str> = db.steps.iter().map(|s| s.name.as_str()).collect();
    let expected: Vec<&str> = rows.iter().map(|r| r[0].as_str().unwrap()).collect();
    assert_eq!(names, expected, "{case}: step names");
    use SpanType::*;
    let mut out = Mismatches::default();
    for (step, row) in db.steps.iter().zip(&rows) {
        let step_ms = step.duration_ps as f64 / 1e9;
        out.leaf(&format!("{case} {} step time", step.name), &json!(step_ms), &row[11], TOLERANCE);
        let columns: [(&str, usize, f64); 9] = [
            ("device compute", 1, ms(step, &[DeviceCompute16, DeviceCompute32])),
            ("device to device", 2, ms(step, &[DeviceToDevice, DeviceWaitDevice])),
            ("collectives", 3, ms(step, &[DeviceCollectives])),
            ("host compute", 4, ms(step, &[HostCompute])),
            ("kernel launch", 5, ms(step, &[HostPrepare])),
            ("input", 6, ms(step, &[HostWaitInput, HostToDevice, DeviceWaitHost])),
            ("output", 7, ms(step, &[DeviceToHost])),
            ("compile", 8, ms(step, &[HostCompile])),
            ("all others", 9, ms(step, &[Unknown])),
        ];
        for (label, col, ours) in columns {
            out.leaf(&format!("{case} {} {label}", step.name), &json!(ours), &row[col], TOLERANCE);
        }
    }
    out.assert_none(case);
}

#[test]
fn cpu_profiles_match_xprof_steps() {
    for case in ["custom_loop", "custom_loop_xla", "input_bound", "jax_mlp", "keras_fit"] {
        let dir = data_dir().join("xspace").join(case);
        let file = proflens_tests::xplane_files(&dir).remove(0);
        check(case, &file, &data_dir().join("goldens").join(case).join("input_pipeline_analyzer.json"));
    }
}

#[test]
fn gpu_profile_matches_xprof_steps() {
    check(
        "bert",
        &data_dir().join("xspace/external/34.83.195.179_6003.xplane.pb"),
        &data_dir().join("goldens/tf-gpu-multiworker-bert-xplane/input_pipeline_analyzer.34.83.195.179_6003.json"),
    );
}

#[test]
fn profiles_without_step_markers_have_no_steps() {
    for file in ["tw003.xplane.pb", "tpu_inference_2.xplane.pb", "chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb"] {
        let profile = load(&data_dir().join("xspace/external").join(file)).unwrap();
        let db = step_db(&profile, &group_events(&profile), true);
        assert!(db.steps.is_empty(), "{file}: {:?}", db.steps.len());
    }
}
