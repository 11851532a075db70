//! Queue length and memory bandwidth against HolisticTraceAnalysis 0.5.0's
//! own output: `TraceAnalysis.get_queue_length_summary` and
//! `get_memory_bw_summary` with their default `ranks`, every golden of every
//! Kineto case (`hta_queue_length_summary*.json`,
//! `hta_memory_bandwidth_summary*.json`, copied from the external fixtures),
//! with and without `include_last_profiler_step`, every rank the golden
//! loaded (its `load.ranks` names the files).
//!
//! Tolerance: the rows must be the same (rank and stream, or rank and kind,
//! in HTA's order) with the same `count`, exactly. The queue length's
//! min/quantiles/max are exact (whole numbers or halves); every other
//! figure (means, standard deviations, the bandwidths' quantiles) within
//! 1e-9 relative (pandas may sum with bottleneck's sequential sums or
//! numpy's pairwise ones; Proflens sums pairwise).

use proflens_analysis::context::Rendered;
use proflens_analysis::tools::memory_bandwidth::{self, rank_memory_bandwidth};
use proflens_analysis::tools::queue_length::{self, rank_queue_length};
use proflens_model::Profile;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Allowed relative difference of a float figure (see the module docs).
const RELATIVE_TOLERANCE: f64 = 1e-9;

fn kineto_dir() -> PathBuf {
    proflens_tests::data_dir().join("kineto")
}

fn load(path: &Path) -> Profile {
    proflens_format::load_profile(&std::fs::read(path).unwrap(), &Default::default(), &mut |_| {}).unwrap()
}

/// Every golden whose file name starts with `prefix`, as (case dir, file, JSON).
fn goldens(prefix: &str) -> Vec<(PathBuf, String, Value)> {
    let mut out = Vec::new();
    let mut cases: Vec<PathBuf> = std::fs::read_dir(kineto_dir()).unwrap().map(|e| e.unwrap().path()).collect();
    cases.sort();
    for case in cases {
        let Ok(entries) = std::fs::read_dir(case.join("goldens")) else { continue };
        let mut files: Vec<String> = entries.map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        files.sort();
        for file in files.into_iter().filter(|f| f.starts_with(prefix)) {
            let json = serde_json::from_str(&std::fs::read_to_string(case.join("goldens").join(&file)).unwrap()).unwrap();
            out.push((case.clone(), file, json));
        }
    }
    out
}

/// The golden's traces, by rank, with its `include_last_profiler_step`.
fn traces(case: &Path, golden: &Value) -> (Vec<(String, Profile)>, bool) {
    let load_block = &golden["load"];
    let include_last = load_block["include_last_profiler_step"].as_bool().unwrap();
    let mut ranks: Vec<(i64, String)> = load_block["ranks"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(r, f)| (r.parse().unwrap(), f.as_str().unwrap().to_string()))
        .collect();
    ranks.sort();
    (ranks.into_iter().map(|(_, f)| (f.clone(), load(&case.join(&f)))).collect(), include_last)
}

/// Compares `ours` (our `--format hta` document) with the golden; returns
/// (rows, values compared, largest relative deviation).
fn compare(ours: &Value, golden: &Value, key: &str, exact_quantiles: bool, what: &str) -> (usize, usize, f64) {
    assert_eq!(ours["hta_version"], "0.5.0");
    for k in ["api", "params", "time_unit", "value", "returned_none"] {
        assert_eq!(ours[k], golden[k], "{what}: {k}");
    }
    let load = |v: &Value| (v["load"]["include_last_profiler_step"].clone(), v["load"]["profiler_steps_used"].clone());
    assert_eq!(load(ours), load(golden), "{what}: load");
    let (rows, hta_rows) = (ours["rows"].as_array().unwrap(), golden["rows"].as_array().unwrap());
    let ids = |rows: &[Value]| rows.iter().map(|r| (r["rank"].clone(), r[key].clone())).collect::<Vec<_>>();
    assert_eq!(ids(rows), ids(hta_rows), "{what}: the rows (rank, {key})");
    let (mut values, mut worst) = (0, 0.0f64);
    for (row, hta) in rows.iter().zip(hta_rows) {
        let at = format!("{what}: rank {} {key} {}", row["rank"], row[key]);
        assert_eq!(row["count"], hta["count"], "{at}: count (exact)");
        for stat in ["mean", "std", "min", "25%", "50%", "75%", "max"] {
            values += 1;
            let (a, b) = (&row[stat], &hta[stat]);
            if b.is_null() {
                assert!(a.is_null(), "{at}: {stat} is {a}, HTA's null");
                continue;
            }
            let (a, b) = (a.as_f64().unwrap(), b.as_f64().unwrap());
            let exact = exact_quantiles && !matches!(stat, "mean" | "std");
            let off = (a - b).abs() / b.abs().max(f64::MIN_POSITIVE);
            assert!(
                if exact { a == b } else { off <= RELATIVE_TOLERANCE },
                "{at}: {stat} Proflens {a}, HTA {b} ({})",
                if exact { "exact".to_string() } else { format!("tolerance {RELATIVE_TOLERANCE:e} relative") }
            );
            if a != b {
                worst = worst.max(off);
            }
        }
    }
    (rows.len(), values, worst)
}

#[test]
fn queue_length_matches_hta() {
    let all = goldens("hta_queue_length_summary");
    assert_eq!(all.len(), 14, "every case's queue length goldens");
    for (case, file, golden) in &all {
        let (profiles, include_last) = traces(case, golden);
        let parts = profiles.iter().map(|(name, p)| rank_queue_length(p, name, include_last)).collect();
        let ours = queue_length::combine(parts).hta().unwrap();
        let what = format!("{}/{file}", case.file_name().unwrap().to_string_lossy());
        let (rows, values, worst) = compare(&ours, golden, "stream", true, &what);
        println!("{what}: {rows} rows, {values} values, largest relative deviation {worst:e}");
    }
}

#[test]
fn memory_bandwidth_matches_hta() {
    let all = goldens("hta_memory_bandwidth_summary");
    assert_eq!(all.len(), 14, "every case's memory bandwidth goldens");
    for (case, file, golden) in &all {
        let (profiles, include_last) = traces(case, golden);
        let parts = profiles.iter().map(|(name, p)| rank_memory_bandwidth(p, name, include_last)).collect();
        let ours = memory_bandwidth::combine(parts).hta().unwrap();
        let what = format!("{}/{file}", case.file_name().unwrap().to_string_lossy());
        let (rows, values, worst) = compare(&ours, golden, "name", false, &what);
        println!("{what}: {rows} rows, {values} values, largest relative deviation {worst:e}");
    }
}
