//! Kernel launch stats against HolisticTraceAnalysis 0.5.0's own output
//! (`TraceAnalysis.get_cuda_kernel_launch_stats`, runtime_cutoff 50,
//! launch_delay_cutoff 100, include_memory_events) on every Kineto case:
//! each `hta_cuda_kernel_launch_stats*.json` in `tests/data/kineto/*/goldens`
//! (copied from the external fixtures; see their README), HTA's default
//! load (without the last `ProfilerStep`) and `.include_last_step`.
//!
//! Tolerance: **none**. Every rank's per-launch columns (correlation, CPU
//! duration, GPU duration, launch delay) must be equal row for row in HTA's
//! order, the counts equal, and every statistic (sum, p50, p95, max, and
//! the mean as the golden rounds it, to 3 decimals) equal to the last bit:
//! the durations are whole µs after HTA's rounding, and the percentiles
//! are pandas' linear interpolation, which Proflens reproduces exactly. The
//! whole golden document (parameters, load, ranks) must then equal
//! Proflens's `--format hta`.
//!
//! What the cases cover: cudaLaunchKernelExC (A100 NCCL, B200, H100),
//! driver launches HTA does not count (cuLaunchKernel on H100, B200), ROCm
//! (MI300X: no launch HTA recognises, so a summary of `num_launches` 0),
//! two ranks in one document (multirank), ranks other than 0 (trace diff:
//! 3 and 1), PyTorch 1.9 categories (V100), sub-µs timestamps (H100), GPU
//! work starting before its launch call ends (delay 0).

use proflens_analysis::context::{Format, Hooks, HostContext, HostFile, Request};
use proflens_analysis::registry;
use proflens_analysis::tools::kernel_launch_stats::{
    rank_launches, to_csv, to_hta_json, KernelLaunchStats, KernelLaunchStatsTool, Launch, Params,
};
use proflens_model::{Origin, Profile};
use serde_json::value::RawValue;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

fn kineto_dir() -> PathBuf {
    proflens_tests::data_dir().join("kineto")
}

/// Every launch-stats golden: (case folder, golden file).
fn goldens() -> Vec<(PathBuf, PathBuf)> {
    let mut out = Vec::new();
    for case in std::fs::read_dir(kineto_dir()).unwrap() {
        let case = case.unwrap().path();
        let Ok(files) = std::fs::read_dir(case.join("goldens")) else { continue };
        for f in files {
            let f = f.unwrap().path();
            let name = f.file_name().unwrap().to_string_lossy().to_string();
            if name.starts_with("hta_cuda_kernel_launch_stats") && name.ends_with(".json") {
                out.push((case.clone(), f));
            }
        }
    }
    out.sort();
    out
}

fn read_text(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

/// Every leaf of a JSON document by its path (`/per_rank/0/summary/…`),
/// numbers as their text. serde_json's default parser may be 1 ULP off
/// (`127.34999999999991` reads as `…92`), so numbers are compared by
/// their text, read with Rust's correctly rounded parser.
fn leaves(text: &str, path: &str, out: &mut BTreeMap<String, String>) {
    let text = text.trim();
    if text.starts_with('{') {
        let map: BTreeMap<String, Box<RawValue>> = serde_json::from_str(text).unwrap();
        for (k, v) in map {
            leaves(v.get(), &format!("{path}/{k}"), out);
        }
    } else if text.starts_with('[') {
        let items: Vec<Box<RawValue>> = serde_json::from_str(text).unwrap();
        out.insert(format!("{path}/len"), items.len().to_string());
        for (i, v) in items.iter().enumerate() {
            leaves(v.get(), &format!("{path}/{i}"), out);
        }
    } else {
        out.insert(path.to_string(), text.to_string());
    }
}

/// The same leaves, numbers equal to the last bit and of the same kind
/// (integer or float, as Python's JSON tells them apart).
fn assert_same_json(ours_text: &str, golden_text: &str, what: &str) {
    let mut a = BTreeMap::new();
    let mut b = BTreeMap::new();
    leaves(ours_text, "", &mut a);
    leaves(golden_text, "", &mut b);
    let (ours_keys, hta_keys): (Vec<&String>, Vec<&String>) = (a.keys().collect(), b.keys().collect());
    assert!(ours_keys == hta_keys, "{what}: other fields: {}", first_difference(&ours_keys, &hta_keys));
    let is_float = |t: &str| t.contains(['.', 'e', 'E']);
    for (path, ours) in &a {
        let hta = &b[path];
        let same = match (ours.parse::<f64>(), hta.parse::<f64>()) {
            (Ok(x), Ok(y)) => x.to_bits() == y.to_bits() && is_float(ours) == is_float(hta),
            _ => ours == hta,
        };
        assert!(same, "{what}: {path} is {ours} in Proflens, {hta} in HTA");
    }
}

fn load(path: &Path) -> Profile {
    let bytes = std::fs::read(path).unwrap();
    let profile = proflens_format::load_profile(&bytes, &Default::default(), &mut |_| {}).unwrap();
    assert_eq!(profile.origin, Origin::Kineto, "{}", path.display());
    profile
}

/// The parameters the golden was made with; they must be HTA's defaults.
fn params_of(golden: &Value, file: &str) -> Params {
    assert_eq!(golden["hta_version"], "0.5.0", "{file}");
    assert_eq!(golden["api"], "TraceAnalysis.get_cuda_kernel_launch_stats", "{file}");
    let p = &golden["params"];
    let default = Params::default();
    assert_eq!(p["runtime_cutoff"].as_i64(), Some(default.runtime_cutoff), "{file}");
    assert_eq!(p["launch_delay_cutoff"].as_i64(), Some(default.launch_delay_cutoff), "{file}");
    assert_eq!(p["include_memory_events"].as_bool(), Some(true), "{file}");
    assert_eq!(golden["load"]["ns_rounding"], true, "{file}");
    let include_last = golden["load"]["include_last_profiler_step"].as_bool().unwrap();
    Params { include_last_profiler_step: include_last, ..default }
}

/// The golden's ranks: (rank key, trace file), in its order.
fn ranks_of(golden: &Value) -> Vec<(String, String)> {
    golden["load"]["ranks"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(rank, file)| (rank.clone(), file.as_str().unwrap().to_string()))
        .collect()
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect()
}

/// The first row where two columns differ, for a readable failure.
fn first_difference<T: PartialEq + std::fmt::Debug>(ours: &[T], hta: &[T]) -> String {
    match ours.iter().zip(hta).position(|(a, b)| a != b) {
        Some(i) => format!("row {i}: Proflens {:?}, HTA {:?}", ours[i], hta[i]),
        None => format!("{} rows in Proflens, {} in HTA", ours.len(), hta.len()),
    }
}

/// One golden, rank by rank and then as a whole document.
fn check(case: &Path, golden_path: &Path) -> KernelLaunchStats {
    let file = golden_path.file_name().unwrap().to_string_lossy().to_string();
    let golden_text = read_text(golden_path);
    let golden: Value = serde_json::from_str(&golden_text).unwrap();
    let params = params_of(&golden, &file);
    let mut ranks = Vec::new();
    for (key, trace) in ranks_of(&golden) {
        let ours = rank_launches(&load(&case.join(&trace)), &trace, &params);
        assert_eq!(ours.rank.to_string(), key, "{file}: the rank of {trace}");
        let hta = &golden["per_rank"][&key];
        let columns = &hta["columns"];
        let hta_ids: Vec<u64> =
            columns["correlation"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
        let our_ids: Vec<u64> = ours.launches.iter().map(|l| l.correlation).collect();
        assert!(our_ids == hta_ids, "{file} rank {key}: correlation ids, {}", first_difference(&our_ids, &hta_ids));
        for (column, value) in [
            ("cpu_duration", (|l| l.cpu_duration) as fn(&Launch) -> i64),
            ("gpu_duration", |l| l.gpu_duration),
            ("launch_delay", |l| l.launch_delay),
        ] {
            let ours_col: Vec<f64> = ours.launches.iter().map(|l| value(l) as f64).collect();
            let hta_col = floats(&columns[column]);
            assert!(ours_col == hta_col, "{file} rank {key}: {column}, {}", first_difference(&ours_col, &hta_col));
        }
        println!(
            "{file} rank {key}: {} launches, {} uncounted ({:?}), steps {:?}, exact",
            ours.launches.len(),
            ours.uncounted.iter().map(|u| u.count).sum::<u64>(),
            ours.uncounted.iter().map(|u| u.name.as_str()).collect::<Vec<_>>(),
            ours.profiler_steps_used
        );
        ranks.push(ours);
    }
    let model = KernelLaunchStats { params, ranks };
    let ours = serde_json::to_string(&to_hta_json(&model)).unwrap();
    assert_same_json(&ours, &golden_text, &format!("{file}: the whole document"));
    model
}

#[test]
fn every_golden_matches_hta_exactly() {
    let all = goldens();
    // 7 cases; 14 documents (the H100 case's two traces are separate runs).
    assert_eq!(all.len(), 14, "{all:?}");
    for (case, golden) in &all {
        check(case, golden);
    }
}

struct Quiet;

impl Hooks for Quiet {
    fn progress(&self, _: Option<f64>, _: &str) {}
    fn now_ms(&self) -> f64 {
        0.0
    }
}

fn host(case: &Path, file: &str) -> Rc<HostContext> {
    let path = case.join(file);
    let read = Box::new(move || proflens_format::source::open_file(&path));
    Rc::new(HostContext::new(file, vec![HostFile { path: file.into(), tool: None, read }], Rc::new(Quiet)))
}

/// The tool itself (one host, or the ranks together) writes HTA's default
/// goldens as `--format hta`, hosts named as the golden names its files.
#[test]
fn the_tool_writes_the_default_goldens() {
    let request = Request { format: Format::Hta, ..Request::default() };
    let mut checked = 0;
    for (case, golden_path) in goldens().iter().filter(|(_, g)| !g.to_string_lossy().contains("include_last_step")) {
        let golden_text = read_text(golden_path);
        let golden: Value = serde_json::from_str(&golden_text).unwrap();
        let hosts: Vec<Rc<HostContext>> = ranks_of(&golden).iter().map(|(_, f)| host(case, f)).collect();
        let output = registry::run(&KernelLaunchStatsTool, &hosts, &request).unwrap();
        assert_eq!(output.view, "kernel_launch_stats");
        assert_same_json(&output.text(Format::Hta).unwrap(), &golden_text, &golden_path.display().to_string());
        checked += 1;
    }
    assert_eq!(checked, 9);
}

/// "All ranks" reuses a rank's numbers once the rank was shown on its own.
#[test]
fn combining_ranks_reuses_each_ranks_result() {
    let case = kineto_dir().join("kineto-multirank-sampled");
    let hosts = vec![host(&case, "sampled_rank-0.json.gz"), host(&case, "sampled_rank-1.json.gz")];
    let request = Request::default();
    let alone = registry::run(&KernelLaunchStatsTool, &hosts[..1], &request).unwrap();
    let both = registry::run(&KernelLaunchStatsTool, &hosts, &request).unwrap();
    let (alone, both) = (alone.model_as::<KernelLaunchStats>().unwrap(), both.model_as::<KernelLaunchStats>().unwrap());
    assert_eq!(both.ranks.len(), 2);
    assert_eq!(both.ranks[0], alone.ranks[0]);
    assert_eq!(both.ranks.iter().map(|r| r.rank).collect::<Vec<_>>(), [0, 1]);
    let csv = to_csv(both);
    assert_eq!(csv.lines().count(), 1 + 602 + 577);
}

/// What the H100 trace's launches say beyond HTA's numbers: the driver
/// launches HTA leaves out, and the outliers the page lists.
#[test]
fn uncounted_launches_and_outliers() {
    let case = kineto_dir().join("kineto-h100-hf-inference");
    let file = "gaunernst_bert-small-uncased__1016001.json.gz";
    let r = rank_launches(&load(&case.join(file)), file, &Params::default());
    let left_out: Vec<(&str, u64)> = r.uncounted.iter().map(|u| (u.name.as_str(), u.count)).collect();
    assert_eq!(left_out, [("cuLaunchKernel", 22)]);
    assert_eq!(r.dropped_steps, Vec::<i64>::new());
    let case = kineto_dir().join("kineto-trace-diff-a100-v100");
    let r = rank_launches(&load(&case.join("test.json.gz")), "test", &Params::default());
    assert_eq!(r.dropped_steps, [1014]);
    let params = Params::default();
    let outliers = r.launches.iter().filter(|l| l.is_outlier(&params)).count() as u64;
    // Each outlier is one kind or both.
    let both =
        r.launches.iter().filter(|l| l.is_runtime_outlier(&params) && l.is_delay_outlier(&params)).count() as u64;
    assert_eq!(outliers, r.summary.cpu_runtime_outliers + r.summary.launch_delay_outliers - both);
}
