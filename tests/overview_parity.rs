//! Overview page, input pipeline analyzer and pod viewer against XProf 2.24's
//! goldens (tests/data/goldens): every table of each page whole — columns,
//! properties and every cell of every row (verdict and statements, step
//! table and its summary, analysis shares, run environment, recommendations,
//! top device ops, input ops, diagnostics).
//!
//! Tolerances: strings equal (XProf prints many figures as strings, with one
//! decimal or as µs with three: those are compared as XProf rounds them);
//! every number within [`Tol::LAST_BITS`] (8 ε relative: XProf's formulas
//! evaluated in another order).

use proflens_analysis::passes::host_analysis::HostAnalysis;
use proflens_analysis::{passes::input_pipeline, tools::overview};
use proflens_tests::json_diff::{diff, Mismatches, Tol};
use proflens_tests::{data_dir, load, xplane_files};
use serde_json::Value;
use std::path::Path;

fn golden(rel: &str) -> Value {
    serde_json::from_slice(&std::fs::read(data_dir().join("goldens").join(rel)).unwrap()).unwrap()
}

/// As the app and the CLI analyse a host: with the HLO of its XLA programs.
fn analysis(path: &Path) -> HostAnalysis {
    let profile = load(path).unwrap();
    HostAnalysis::with_hlo(&profile, &proflens_format::hlo::hlo_modules(&profile).modules)
}

/// The allowed difference of a number at `path` (see the module docs).
fn tolerance(_path: &str) -> Tol {
    Tol::LAST_BITS
}

/// Every table of a page: columns, properties and every cell of every row.
fn same_page(what: &str, ours: &Value, golden: &Value) {
    let mut out = Mismatches::default();
    diff(ours, golden, what, &tolerance, &mut out);
    out.assert_none(what);
}

fn check_overview(what: &str, a: &HostAnalysis, golden: &Value) {
    let ours = overview::to_xprof_json(&overview::page_of(a, true));
    assert_eq!(ours.as_array().unwrap().len(), 7, "{what}");
    same_page(&format!("{what} overview"), &ours, golden);
}

fn check_input_pipeline(what: &str, a: &HostAnalysis, golden: &Value) {
    let ours = input_pipeline::to_xprof_json(&a.input_pipeline_xprof());
    same_page(&format!("{what} input pipeline"), &ours, golden);
}

#[test]
fn cpu_profiles_match_xprof() {
    for case in ["custom_loop", "custom_loop_xla", "input_bound", "jax_mlp", "keras_fit"] {
        let a = analysis(&xplane_files(&data_dir().join("xspace").join(case))[0]);
        check_overview(case, &a, &golden(&format!("{case}/overview_page.json")));
        check_input_pipeline(case, &a, &golden(&format!("{case}/input_pipeline_analyzer.json")));
    }
}

#[test]
fn keras_batches_become_inferred_steps() {
    // XProf finds no steps in keras_fit (golden: bottleneck `unknown`); Proflens
    // reads Keras 3's "Profiled batch" markers (profile_batch='10,15' → batches 9..14).
    let a = analysis(&xplane_files(&data_dir().join("xspace/keras_fit"))[0]);
    assert!(a.steps.steps.is_empty());
    let page = overview::page_of(&a, false);
    let names: Vec<&str> = page.input.steps.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "Profiled batch 9",
            "Profiled batch 10",
            "Profiled batch 11",
            "Profiled batch 12",
            "Profiled batch 13",
            "Profiled batch 14"
        ]
    );
    assert!(page.steps_note.as_deref().unwrap_or("").contains("Profiled batch"));
    assert_ne!(page.recommendation.bottleneck, "unknown");
    assert!(page.input.steps.iter().all(|s| s.step_time_ms > 1.0 && s.host_compute_ms > 0.0));
    // XProf's own view of the file is unchanged.
    assert_eq!(overview::page_of(&a, true).recommendation.bottleneck, "unknown");
}

#[test]
fn gpu_host_matches_xprof() {
    let a = analysis(&data_dir().join("xspace/external/34.83.195.179_6003.xplane.pb"));
    check_input_pipeline(
        "bert host",
        &a,
        &golden("tf-gpu-multiworker-bert-xplane/input_pipeline_analyzer.34.83.195.179_6003.json"),
    );
}

#[test]
fn amd_profiles_without_steps_match_xprof() {
    for (file, case) in [
        ("tw003.xplane.pb", "jax-mi300x-gemm-xplane"),
        ("chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb", "jax-mi300x-conv-xplane-jax06"),
    ] {
        let a = analysis(&data_dir().join("xspace/external").join(file));
        check_overview(case, &a, &golden(&format!("{case}/overview_page.json")));
        check_input_pipeline(case, &a, &golden(&format!("{case}/input_pipeline_analyzer.json")));
    }
}

#[test]
fn all_hosts_of_the_gpu_run_match_xprof() {
    // The two workers of tf-gpu-multiworker-bert-xplane are byte-identical files.
    let host = || analysis(&data_dir().join("xspace/external/34.83.195.179_6003.xplane.pb"));
    let (a, b) = (host(), host());
    let all = HostAnalysis::combine(&[&a, &b]);
    check_overview("bert all hosts", &all, &golden("tf-gpu-multiworker-bert-xplane/overview_page.ALL_HOSTS.json"));
    check_input_pipeline(
        "bert all hosts",
        &all,
        &golden("tf-gpu-multiworker-bert-xplane/input_pipeline_analyzer.ALL_HOSTS.json"),
    );
}

#[test]
fn pod_viewer_of_the_two_gpu_hosts_matches_xprof() {
    use proflens_analysis::tools::pod_viewer::{pod_viewer, to_xprof_json};
    let host = || analysis(&data_dir().join("xspace/external/34.83.195.179_6003.xplane.pb"));
    let (a, b) = (host(), host());
    // Both workers record the same host name inside the file.
    let name = |h: &HostAnalysis| h.environment.hostnames.first().cloned().unwrap_or_default();
    let view = pod_viewer(&[(&a, name(&a)), (&b, name(&b))]);
    same_page(
        "bert pod viewer",
        &to_xprof_json(&view),
        &golden("tf-gpu-multiworker-bert-xplane/pod_viewer.ALL_HOSTS.json"),
    );
}

#[test]
fn pod_viewer_without_step_markers_matches_xprof() {
    // The TPU and AMD profiles have no step markers: XProf shows no steps, the
    // device type of the run environment and a warning; so do we (exactly).
    use proflens_analysis::tools::pod_viewer::{pod_viewer, to_xprof_json};
    for (file, case) in [
        ("tpu_inference_2.xplane.pb", "jax-tpu-v6e-inference-xplane"),
        ("chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb", "jax-mi300x-gemm-xplane"),
    ] {
        let a = analysis(&data_dir().join("xspace/external").join(file));
        let ours = to_xprof_json(&pod_viewer(&[(&a, "host".to_string())]));
        assert_eq!(ours, golden(&format!("{case}/pod_viewer.json")), "{case}");
    }
}

/// The TPU v6e inference profile (4 chips, no step markers): XProf's TPU
/// analysis. Every property, column and row of the overview and the input
/// pipeline analyzer is compared by the checks above (the duty cycle and idle
/// shares are printed with one decimal by XProf, so equal strings mean within
/// 0.05 points; `idle_time_high_confidence_ps` with six significant digits);
/// the tables beyond them here.
#[test]
fn tpu_profile_matches_xprof() {
    let case = "jax-tpu-v6e-inference-xplane";
    let a = analysis(&data_dir().join("xspace/external/tpu_inference_2.xplane.pb"));
    let (overview_golden, input_golden) =
        (golden(&format!("{case}/overview_page.json")), golden(&format!("{case}/input_pipeline_analyzer.json")));
    check_overview(case, &a, &overview_golden);
    check_input_pipeline(case, &a, &input_golden);
    // The TPU step table: columns and rows (none: no step markers) exactly.
    let ours = overview::to_xprof_json(&overview::page_of(&a, true));
    assert_eq!(ours[1], overview_golden[1], "overview step table");
    let ours = input_pipeline::to_xprof_json(&a.input_pipeline_xprof());
    assert_eq!(ours[1], input_golden[1], "input pipeline step table");
    // Busy time from the duty-cycle pass: 86.5 % of the chips' time, the rest
    // (4.90776e13 ps, six digits) idle.
    let duty = a.duty_cycle;
    assert!((duty.percent() - 86.5).abs() < 0.05, "duty cycle {}", duty.percent());
    assert!((duty.idle_ps as f64 - 4.90776e13).abs() < 5e7, "idle {}", duty.idle_ps);
}

#[test]
fn gpu_and_cpu_profiles_have_no_tpu_analysis() {
    let gpu = analysis(&data_dir().join("xspace/external/34.83.195.179_6003.xplane.pb"));
    let cpu = analysis(&xplane_files(&data_dir().join("xspace/jax_mlp"))[0]);
    for a in [gpu, cpu] {
        assert_eq!(a.duty_cycle.busy_ps + a.duty_cycle.idle_ps, 0);
        assert!(overview::page_of(&a, true).stats.tpu.is_none());
    }
}

/// In a browser worker, an XSpace's overview is weighed at an XSpace's
/// working bytes per event (17: grouping's forest), not a PyTorch trace's
/// (100): it runs with room for 17 bytes an event, and is refused, with
/// the numbers, with less; the tools after it need less.
#[test]
fn an_xspace_overview_runs_where_its_passes_fit_and_is_refused_where_they_do_not() {
    use proflens_analysis::{context::Request, registry};
    let path = data_dir().join("xspace/custom_loop/plugins/profile/2026_11_22_09_04_34/vm.xplane.pb");
    let events = load(&path).unwrap().event_count() as u64;
    let overview = |left: u64| {
        let hosts = [proflens_tests::host_context_with_room("vm", &path, left)];
        registry::run(registry::find("overview_page").unwrap(), &hosts, &Request::default())
    };
    let working = proflens_format::load_source::XSPACE_WORKING_BYTES_PER_EVENT;
    overview(events * working).unwrap();
    let refused = overview(events * (working - 1)).err().expect("refused").to_string();
    assert!(refused.starts_with("Overview needs about") && refused.contains("so it was not run"), "{refused}");
    // Once grouping is kept, the tools after it are weighed at 8 bytes an event.
    let host = proflens_tests::host_context_with_room("vm", &path, events * 8);
    let op_stats = |host| registry::run(registry::find("framework_op_stats").unwrap(), &[host], &Request::default());
    assert!(op_stats(host.clone()).is_err());
    host.grouping().unwrap();
    op_stats(host).unwrap();
}
