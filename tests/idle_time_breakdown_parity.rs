//! HTA's idle time breakdown against HolisticTraceAnalysis 0.5.0's own
//! output (`TraceAnalysis.get_idle_time_breakdown`, `streams=None`,
//! `show_idle_interval_stats=True`, `consecutive_kernel_delay=30`): every
//! `hta_idle_time_breakdown*.json` golden of every Kineto case, both the
//! default load (`include_last_profiler_step=False`) and the
//! `.include_last_step` variants, every rank (copied from the external
//! fixtures; see their README).
//!
//! Tolerance: **exact**. Both tables must have the same rows in the same
//! order (rank, stream, category: which categories exist on a stream is
//! part of the answer), and every number must equal the golden's, as HTA
//! rounds it (two decimals): idle_time, idle_time_ratio, count, mean, std,
//! min, quartiles and max, with null where HTA has NaN. Intervals are sums
//! and differences of whole µs, so only mean and std carry floating-point
//! error before that rounding; Proflens sums as numpy does (pairwise).

use proflens_analysis::tools::idle_time_breakdown::{
    rank_idle, to_hta_json, IdleTimeBreakdown, CONSECUTIVE_KERNEL_DELAY_US,
};
use proflens_model::Profile;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn kineto_dir() -> PathBuf {
    proflens_tests::data_dir().join("kineto")
}

fn load(path: &Path) -> Profile {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    proflens_format::load_profile(&bytes, &Default::default(), &mut |_| {}).unwrap()
}

/// Every idle time golden under tests/data/kineto, as (case, file name).
fn goldens() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for case in std::fs::read_dir(kineto_dir()).unwrap() {
        let case = case.unwrap().path();
        let Ok(files) = std::fs::read_dir(case.join("goldens")) else { continue };
        for f in files {
            let name = f.unwrap().file_name().to_string_lossy().into_owned();
            if name.starts_with("hta_idle_time_breakdown") && name.ends_with(".json") {
                out.push((case.file_name().unwrap().to_string_lossy().into_owned(), name));
            }
        }
    }
    out.sort();
    out
}

/// Counts of the rows and numbers compared.
#[derive(Debug, Default)]
struct Tally {
    rows: usize,
    values: usize,
}

fn same(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

fn compare_table(ours: &Value, hta: &Value, table: &str, file: &str, tally: &mut Tally) {
    let (ours, hta) = (ours[table].as_array().unwrap(), hta[table].as_array().unwrap());
    let key = |r: &Value| format!("rank {} stream {} {}", r["rank"], r["stream"], r["idle_category"]);
    let our_keys: Vec<String> = ours.iter().map(key).collect();
    let hta_keys: Vec<String> = hta.iter().map(key).collect();
    assert_eq!(our_keys, hta_keys, "{file}: {table}: the rows differ from HTA's");
    for (o, h) in ours.iter().zip(hta) {
        let h = h.as_object().unwrap();
        assert_eq!(o.as_object().unwrap().len(), h.len(), "{file}: {table}: the columns differ");
        for (column, value) in h {
            assert!(
                same(&o[column], value),
                "{file}: {table}: {}: {column}: Proflens {}, HTA {value} (exact)",
                key(o),
                o[column]
            );
            tally.values += 1;
        }
        tally.rows += 1;
    }
}

fn check(case: &str, file: &str) -> Tally {
    let dir = kineto_dir().join(case);
    let golden: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("goldens").join(file)).unwrap()).unwrap();
    assert_eq!(golden["hta_version"], "0.5.0", "{file}");
    assert_eq!(golden["api"], "TraceAnalysis.get_idle_time_breakdown", "{file}");
    let params = &golden["params"];
    assert_eq!(params["streams"], Value::Null, "{file}");
    assert_eq!(params["consecutive_kernel_delay"], CONSECUTIVE_KERNEL_DELAY_US, "{file}");
    let load_block = &golden["load"];
    let include_last = load_block["include_last_profiler_step"].as_bool().unwrap();
    assert_eq!(include_last, file.contains(".include_last_step"), "{file}");
    let files: BTreeMap<i64, &str> = load_block["ranks"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(rank, f)| (rank.parse().unwrap(), f.as_str().unwrap()))
        .collect();
    let ranks = files
        .iter()
        .map(|(&rank, f)| rank_idle(&load(&dir.join(f)), rank, f, include_last, CONSECUTIVE_KERNEL_DELAY_US))
        .collect();
    let ours = IdleTimeBreakdown {
        consecutive_kernel_delay_us: CONSECUTIVE_KERNEL_DELAY_US,
        include_last_profiler_step: include_last,
        ranks,
    };
    let ours = to_hta_json(&ours);
    assert_eq!(ours["params"], golden["params"], "{file}: params");
    assert_eq!(ours["load"], golden["load"], "{file}: load (files, steps used)");
    assert_eq!(ours["time_unit"], golden["time_unit"]);
    let mut tally = Tally::default();
    compare_table(&ours, &golden, "idle_time", file, &mut tally);
    compare_table(&ours, &golden, "idle_interval_stats", file, &mut tally);
    tally
}

#[test]
fn every_golden_matches_hta_exactly() {
    let goldens = goldens();
    // Every idle time golden of the external fixtures is here.
    let external = Path::new("/work/shared/fixtures/external");
    if external.is_dir() {
        let mut expected = 0;
        for case in std::fs::read_dir(external).unwrap() {
            let Ok(files) = std::fs::read_dir(case.unwrap().path().join("goldens")) else { continue };
            expected += files
                .filter(|f| f.as_ref().unwrap().file_name().to_string_lossy().starts_with("hta_idle_time_breakdown"))
                .count();
        }
        assert_eq!(goldens.len(), expected, "copy every idle time golden into tests/data/kineto");
    }
    assert_eq!(goldens.len(), 14);
    let mut failures = Vec::new();
    for (case, file) in &goldens {
        match std::panic::catch_unwind(|| check(case, file)) {
            Ok(t) => println!("{case}/{file}: {} rows, {} values, all exact", t.rows, t.values),
            Err(e) => failures.push(format!(
                "{case}/{file}: {}",
                e.downcast_ref::<String>().cloned().unwrap_or_else(|| "panicked".into())
            )),
        }
    }
    assert!(failures.is_empty(), "{} of {} goldens differ:\n{}", failures.len(), goldens.len(), failures.join("\n"));
}
