//! PyTorch (Kineto) traces: the importer and the PyTorch views against the
//! goldens of every fixture under `tests/data/kineto/` (copied from the
//! external fixtures; see their README for provenance).
//!
//! Tolerances:
//! * `facts.json` (computed from the JSON with Python's json module, exact to
//!   the ns): kernel counts, distinct names, summed kernel time per device,
//!   busy union, first-to-last window, streams and every `ProfilerStep#N`
//!   duration (host and device copy) must be **equal to the nanosecond**.
//! * HTA 0.5 outputs: HTA rounds every timestamp to whole µs (start up, end
//!   down), so its shares are compared within **1 percentage point**:
//!   kernel-type shares (`get_gpu_kernel_breakdown`), idle/compute/non-compute
//!   shares (`get_temporal_breakdown`) and comp/comm overlap
//!   (`get_comm_comp_overlap`, `null` exactly when there is no communication).
//!
//! Every trace and golden is copied into tests/data/kineto.

use proflens_analysis::passes::kineto::{facts, KinetoIndex};
use proflens_analysis::tools::overview::distributed::{rank_view, RankView, Scope};
use proflens_model::{Origin, Profile};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

fn kineto_dir() -> PathBuf {
    proflens_tests::data_dir().join("kineto")
}

/// The trace file of a case, copied from the external fixtures into tests/data.
fn trace_path(case: &str, file: &str) -> PathBuf {
    kineto_dir().join(case).join(file)
}

fn load(path: &Path) -> Profile {
    let bytes = std::fs::read(path).unwrap();
    let profile = proflens_format::load_profile(&bytes, &Default::default(), &mut |_| {}).unwrap();
    assert_eq!(profile.origin, Origin::Kineto, "{}", path.display());
    profile
}

/// The index of a trace, built once per test binary (several goldens share a trace).
fn index(path: &Path) -> Arc<KinetoIndex> {
    static CACHE: Mutex<BTreeMap<PathBuf, Arc<KinetoIndex>>> = Mutex::new(BTreeMap::new());
    if let Some(i) = CACHE.lock().unwrap().get(path) {
        return i.clone();
    }
    let built = Arc::new(KinetoIndex::new(&load(path)));
    CACHE.lock().unwrap().insert(path.to_path_buf(), built.clone());
    built
}

/// HTA's `ns_rounding` (its default): starts rounded up and ends rounded
/// down to whole µs, so sub-µs events vanish and every event loses up to
/// 2 µs. Applied to compare shares with HTA's, never in the analysis itself.
fn hta_rounded(index: &KinetoIndex) -> KinetoIndex {
    const US: i64 = 1_000_000;
    let mut out = index.clone();
    for d in &mut out.device {
        d.start_ps = d.start_ps.div_euclid(US) * US + if d.start_ps.rem_euclid(US) > 0 { US } else { 0 };
        d.end_ps = d.end_ps.div_euclid(US) * US;
    }
    out
}

fn cases() -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(kineto_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    out.sort();
    assert!(out.len() >= 7, "expected the 7 Kineto fixture cases, found {out:?}");
    out
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// µs as written by the goldens → integer ns.
fn ns(us: &Value) -> i64 {
    (us.as_f64().unwrap() * 1000.0).round() as i64
}

#[test]
fn facts_match_exactly() {
    let mut checked = 0;
    let failures = std::cell::RefCell::new(Vec::new());
    for case in cases() {
        let golden = read_json(&kineto_dir().join(&case).join("goldens/facts.json"));
        for trace in golden["traces"].as_array().unwrap() {
            let file = trace["file"].as_str().unwrap();
            let path = trace_path(&case, file);
            let f = facts(&index(&path));
            let check = |what: &str, ours: i64, theirs: i64| {
                if ours != theirs {
                    failures.borrow_mut().push(format!("{case}/{file}: {what}: ours {ours}, golden {theirs}"));
                }
            };
            check("kernels", f.kernels as i64, trace["num_kernels"].as_i64().unwrap());
            check(
                "distinct kernel names",
                f.distinct_kernel_names as i64,
                trace["num_distinct_kernel_names"].as_i64().unwrap(),
            );
            check("total kernel ns", f.kernel_ps / 1000, ns(&trace["total_kernel_us"]));
            let per_device = trace["kernel_time_per_device"].as_object().unwrap();
            check("devices with kernels", f.devices.len() as i64, per_device.len() as i64);
            for (device, g) in per_device {
                let Some(d) = f.devices.iter().find(|d| d.device.to_string() == *device) else {
                    failures.borrow_mut().push(format!("{case}/{file}: no device {device}"));
                    continue;
                };
                check(&format!("device {device} kernels"), d.kernels as i64, g["num_kernels"].as_i64().unwrap());
                check(&format!("device {device} kernel ns"), d.kernel_ps / 1000, ns(&g["total_us"]));
                check(&format!("device {device} busy ns"), d.busy_ps / 1000, ns(&g["busy_union_us"]));
                // The golden's window is a difference of two f64 epoch-µs
                // values (~1 ns apart at 4.4e12 µs): within 1 ns.
                let window = (d.last_end_ps - d.first_start_ps) / 1000;
                if (window - ns(&g["window_us"])).abs() > 1 {
                    check(&format!("device {device} window ns"), window, ns(&g["window_us"]));
                }
                let mut streams: Vec<i64> =
                    g["streams"].as_array().unwrap().iter().map(|s| s.as_i64().unwrap()).collect();
                streams.sort_unstable();
                if d.streams != streams {
                    failures
                        .borrow_mut()
                        .push(format!("{case}/{file}: device {device} streams {:?} vs {streams:?}", d.streams));
                }
            }
            let steps = trace["profiler_steps"].as_array().unwrap();
            check("profiler steps", f.steps.len() as i64, steps.len() as i64);
            for g in steps {
                let on_device = g["cat"] == "gpu_user_annotation";
                let name = g["name"].as_str().unwrap();
                match f.steps.iter().find(|s| s.name == name && s.on_device == on_device) {
                    Some(s) => {
                        check(&format!("{name} (device {on_device}) ns"), s.duration_ps / 1000, ns(&g["dur_us"]))
                    }
                    None => {
                        failures.borrow_mut().push(format!("{case}/{file}: step {name} (device {on_device}) missing"))
                    }
                }
            }
            checked += 1;
        }
    }
    let failures = failures.into_inner();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked >= 8, "only {checked} traces checked");
}

/// An HTA golden's variant: the traces (by rank) it covers and the scope.
struct HtaRun {
    golden: Value,
    ranks: BTreeMap<i64, PathBuf>,
    scope: Scope,
}

fn hta_runs(case: &str, api: &str) -> Vec<(String, HtaRun)> {
    let dir = kineto_dir().join(case).join("goldens");
    let mut out = Vec::new();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(api))
        .collect();
    names.sort();
    for name in names {
        let golden = read_json(&dir.join(&name));
        let load = &golden["load"];
        let scope = if load["include_last_profiler_step"] == true { Scope::Steps } else { Scope::StepsExceptLast };
        let mut ranks = BTreeMap::new();
        for (rank, file) in load["ranks"].as_object().unwrap() {
            ranks.insert(rank.parse().unwrap(), trace_path(case, file.as_str().unwrap()));
        }
        out.push((format!("{case}/{name}"), HtaRun { golden, ranks, scope }));
    }
    out
}

fn views(run: &HtaRun) -> BTreeMap<i64, RankView> {
    run.ranks
        .iter()
        .map(|(rank, path)| (*rank, rank_view(&hta_rounded(&index(path)), &path.display().to_string(), run.scope)))
        .collect()
}

const POINTS: f64 = 1.0;

#[test]
fn hta_shares_within_one_point() {
    let failures = std::cell::RefCell::new(Vec::new());
    let checked = std::cell::Cell::new(0);
    let worst = std::cell::RefCell::new((0.0f64, String::new()));
    let near = |what: String, ours: f64, theirs: f64| {
        checked.set(checked.get() + 1);
        if (ours - theirs).abs() > worst.borrow().0 {
            *worst.borrow_mut() = ((ours - theirs).abs(), what.clone());
        }
        if (ours - theirs).abs() > POINTS {
            failures.borrow_mut().push(format!("{what}: ours {ours:.2}, HTA {theirs:.2}"));
        }
    };
    for case in cases() {
        for (name, run) in hta_runs(&case, "hta_temporal_breakdown") {
            let views = views(&run);
            for g in run.golden["per_rank"].as_array().unwrap() {
                let v = &views[&g["rank"].as_i64().unwrap()];
                near(format!("{name} idle"), v.idle_pct, g["idle_time_pctg"].as_f64().unwrap());
                near(format!("{name} compute"), v.compute_pct, g["compute_time_pctg"].as_f64().unwrap());
                near(format!("{name} non-compute"), v.non_compute_pct, g["non_compute_time_pctg"].as_f64().unwrap());
            }
        }
        for (name, run) in hta_runs(&case, "hta_comm_comp_overlap") {
            let views = views(&run);
            for g in run.golden["per_rank"].as_array().unwrap() {
                let v = &views[&g["rank"].as_i64().unwrap()];
                match (v.comm_comp_overlap_pct, g["comp_comm_overlap_pctg"].as_f64()) {
                    (Some(ours), Some(theirs)) => near(format!("{name} overlap"), ours, theirs),
                    (None, None) => {}
                    (ours, theirs) => {
                        failures.borrow_mut().push(format!("{name} overlap: ours {ours:?}, HTA {theirs:?}"))
                    }
                }
            }
        }
        for (name, run) in hta_runs(&case, "hta_kernel_breakdown") {
            // HTA's kernel-type table sums all ranks of the run.
            let mut ps: BTreeMap<String, i64> = BTreeMap::new();
            for v in views(&run).values() {
                for t in &v.kernel_types {
                    *ps.entry(t.kernel_type.clone()).or_default() += t.ps;
                }
            }
            let total: i64 = ps.values().sum();
            for g in run.golden["kernel_type"].as_array().unwrap() {
                let kind = g["kernel_type"].as_str().unwrap();
                let ours = ps.get(kind).map_or(0.0, |&p| p as f64 * 100.0 / total as f64);
                near(format!("{name} {kind}"), ours, g["percentage"].as_f64().unwrap());
            }
        }
    }
    let (failures, checked) = (failures.into_inner(), checked.get());
    let (diff, what) = worst.into_inner();
    eprintln!("{checked} HTA shares checked; largest difference {diff:.3} points ({what})");
    assert!(
        failures.is_empty(),
        "{} of {checked} checks off by more than {POINTS} point:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(checked >= 60, "only {checked} HTA numbers checked");
}
