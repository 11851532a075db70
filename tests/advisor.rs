//! The Advisor's figures against the tools' own numbers, on every fixture:
//! a finding's cost is the average the input pipeline analyzer (XSpace) or
//! the PyTorch overview (Kineto) shows for the same column, its share and
//! gain follow from it, the ranking is by expected gain, and the overview's
//! advice is the Advisor's top findings. Tolerances: 1e-9 relative for
//! figures computed from the same f64 columns (they differ only in the
//! order of additions); none for ids, titles and order.

use proflens_analysis::advice::{Advice, Basis, Finding};
use proflens_analysis::context::{HostContext, Request};
use proflens_analysis::passes::input_pipeline::{InputPipelineAnalysis, StepBreakdown};
use proflens_analysis::registry;
use proflens_analysis::tools::overview::pytorch::PytorchOverview;
use proflens_analysis::tools::overview::OverviewPage;
use proflens_tests::{data_dir, host_context, xplane_files};
use std::path::{Path, PathBuf};
use std::rc::Rc;

fn run<T: Clone + 'static>(host: &Rc<HostContext>, tool: &str) -> T {
    let tool = registry::find(tool).expect("a registry tool");
    let out = registry::run(tool, std::slice::from_ref(host), &Request::default()).expect("the tool runs");
    out.model_as::<T>().expect("the tool's model").clone()
}

fn close(a: f64, b: f64, what: &str) {
    assert!((a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1e-9), "{what}: {a} vs {b}");
}

/// What every finding satisfies whatever the detector.
fn check_arithmetic(advice: &Advice, file: &Path) {
    for f in &advice.findings {
        let share = if advice.step_ms > 0.0 { (f.cost_ms_per_step / advice.step_ms).clamp(0.0, 1.0) } else { 0.0 };
        close(f.cost_share, share, &format!("{}: {} share", file.display(), f.id));
        let g = f.gain_ms_per_step;
        assert!(0.0 <= g.low && g.low <= g.high + 1e-12, "{}: {} gain {g:?}", file.display(), f.id);
        // Host work on a CPU-only host also slows the ops beside it: its gain may pass its cost.
        let most = if f.id == "host_between_steps" { advice.step_ms } else { f.cost_ms_per_step };
        assert!(g.high <= most * (1.0 + 1e-12), "{}: {} gains more than it may", file.display(), f.id);
        assert!(!f.fix.is_empty() && !f.evidence.is_empty(), "{}: {} has no fix or evidence", file.display(), f.id);
        assert!(registry::find(&f.id).is_none(), "a finding id is not a tool id");
        for e in &f.evidence {
            assert!(registry::find(&e.link.tool).is_some(), "{}: {} links to {}", file.display(), f.id, e.link.tool);
        }
    }
    let mids: Vec<f64> = advice.findings.iter().map(|f| f.gain_ms_per_step.low + f.gain_ms_per_step.high).collect();
    assert!(mids.windows(2).all(|w| w[0] >= w[1]), "{}: not ranked by gain: {mids:?}", file.display());
}

fn mean(steps: &[StepBreakdown], part: fn(&StepBreakdown) -> f64) -> f64 {
    steps.iter().map(part).sum::<f64>() / steps.len() as f64
}

/// A finding's cost equals the tool's average of its column, or the
/// finding is absent and the column's share is under the threshold.
fn same_column(advice: &Advice, input: &InputPipelineAnalysis, id: &str, part: fn(&StepBreakdown) -> f64, min: f64) {
    if input.steps.is_empty() {
        return;
    }
    let avg = mean(&input.steps, part);
    match advice.finding(id) {
        Some(f) => close(f.cost_ms_per_step, avg, id),
        None => assert!(
            avg / advice.step_ms < min || avg <= 0.0,
            "{id}: {avg} ms a step of {} and no finding",
            advice.step_ms
        ),
    }
}

fn xspace_files() -> Vec<PathBuf> {
    let files = xplane_files(&data_dir().join("xspace"));
    assert!(files.len() >= 5, "the XSpace fixtures are there");
    files
}

#[test]
fn xspace_findings_equal_the_input_pipeline_columns() {
    use proflens_analysis::advice::xspace::*;
    for file in xspace_files() {
        let host = host_context("vm", &file);
        let advice: Advice = run(&host, "advisor");
        let input: InputPipelineAnalysis = run(&host, "input_pipeline_analyzer");
        check_arithmetic(&advice, &file);
        if input.steps.is_empty() {
            assert_eq!(advice.basis, Basis::ProfiledTime, "{}", file.display());
            continue;
        }
        assert_eq!(advice.basis, Basis::Step);
        assert_eq!(advice.steps, input.steps.len());
        close(advice.step_ms, input.step_time.average, "step time");
        same_column(&advice, &input, "input_bound", |s| s.host_wait_input_ms, INPUT_MIN_SHARE);
        same_column(&advice, &input, "host_between_steps", |s| s.other_ms, OTHER_MIN_SHARE);
        same_column(&advice, &input, "compile_in_steps", |s| s.compile_ms, COMPILE_MIN_SHARE);
        same_column(&advice, &input, "collective_wait", |s| s.device_collectives_ms, COLLECTIVES_MIN_SHARE);
        if input.hardware_type != proflens_analysis::common::hardware::HardwareType::CpuOnly {
            same_column(&advice, &input, "device_idle", |s| s.host_compute_ms, IDLE_MIN_SHARE);
        }
    }
}

#[test]
fn the_overview_shows_the_advisors_top_findings() {
    for file in xspace_files() {
        let host = host_context("vm", &file);
        let advice: Advice = run(&host, "advisor");
        let page: OverviewPage = run(&host, "overview_page");
        if advice.basis == Basis::ProfiledTime {
            // Without steps the overview has no step time to measure against.
            assert!(page.recommendation.advice.is_empty(), "{}", file.display());
            continue;
        }
        // The overview has no XLA op table: the XLA op findings are the Advisor's alone.
        let top: Vec<&Finding> = advice
            .findings
            .iter()
            .filter(|f| !matches!(f.id.as_str(), "xla_copies" | "unfused_elementwise"))
            .take(3)
            .collect();
        let titles: Vec<&str> = page.recommendation.advice.iter().map(|a| a.title.as_str()).collect();
        assert_eq!(titles, top.iter().map(|f| f.title.as_str()).collect::<Vec<_>>(), "{}", file.display());
    }
}

#[test]
fn the_input_bound_fixture_is_input_bound_first() {
    let file = xspace_files().into_iter().find(|f| f.to_string_lossy().contains("input_bound")).expect("fixture");
    let advice: Advice = run(&host_context("vm", &file), "advisor");
    assert_eq!(advice.findings[0].id, "input_bound", "{:?}", advice.findings);
    assert!(advice.findings[0].cost_share > 0.5);
}

fn kineto_files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in std::fs::read_dir(data_dir().join("kineto")).expect("kineto fixtures") {
        for f in std::fs::read_dir(dir.expect("entry").path()).expect("a fixture folder") {
            let path = f.expect("entry").path();
            if path.to_string_lossy().ends_with(".json.gz") {
                out.push(path);
            }
        }
    }
    out.sort();
    assert!(out.len() >= 5, "the Kineto fixtures are there");
    out
}

#[test]
fn pytorch_findings_equal_the_overview_roles() {
    use proflens_analysis::advice::kineto::*;
    for file in kineto_files() {
        let host = host_context("rank", &file);
        let advice: Advice = run(&host, "advisor");
        check_arithmetic(&advice, &file);
        let out =
            registry::run(registry::find("overview_page").unwrap(), std::slice::from_ref(&host), &Request::default())
                .expect("overview");
        let ranks = out
            .model_as::<proflens_analysis::tools::overview::pytorch::MultiRankOverview>()
            .expect("a PyTorch overview");
        let view: &PytorchOverview = &ranks.ranks[0].overview;
        // A trace without ProfilerStep: the overview splits the whole trace,
        // the Advisor the instances of an annotation (the critical path's
        // default iterations); their roles are the same split of those windows.
        let annotation_roles;
        let (a, whole_trace) = match &advice.iterations {
            None => (&view.average, view.whole_trace),
            Some(note) => {
                assert!(view.whole_trace && note.contains("no ProfilerStep#N"), "{}: {note}", file.display());
                annotation_roles = iteration_roles(&host.kineto().expect("the index")).0;
                assert!(!annotation_roles.whole_trace);
                (&annotation_roles.average, false)
            }
        };
        close(advice.step_ms, a.window_ps as f64 / 1e9, "step window");
        assert_eq!(advice.basis == Basis::ProfiledTime, whole_trace, "{}", file.display());
        let dataloader = a.dataloader_ps as f64 / 1e9;
        match advice.finding("input_bound") {
            Some(f) => close(f.cost_ms_per_step, dataloader, "DataLoader wait"),
            None => assert!(dataloader / advice.step_ms < DATALOADER_MIN_SHARE, "{}", file.display()),
        }
        let idle = (a.window_ps - a.kernel_ps - a.memcpy_ps - a.memset_ps) as f64 / 1e9;
        match advice.finding("device_idle") {
            Some(f) => close(f.cost_ms_per_step, idle, "GPU idle"),
            None => assert!(whole_trace || idle / advice.step_ms < IDLE_MIN_SHARE, "{}", file.display()),
        }
    }
}

#[test]
fn a_run_of_hosts_merges_their_findings() {
    // Two TensorFlow CPU jobs of unlike step times, opened as one run of two hosts.
    let files: Vec<PathBuf> =
        xspace_files().into_iter().filter(|f| f.to_string_lossy().contains("custom_loop")).collect();
    assert_eq!(files.len(), 2, "custom_loop and custom_loop_xla");
    let hosts: Vec<Rc<HostContext>> =
        files.iter().enumerate().map(|(i, f)| host_context(&format!("host{i}"), f)).collect();
    let each: Vec<Advice> = hosts.iter().map(|h| run::<Advice>(h, "advisor")).collect();
    let out = registry::run(registry::find("advisor").unwrap(), &hosts, &Request::default()).expect("combined");
    let merged = out.model_as::<Advice>().expect("advice");
    close(merged.step_ms, each.iter().map(|a| a.step_ms).sum::<f64>() / each.len() as f64, "mean step");
    for f in &merged.findings {
        if f.id == "stragglers" {
            continue;
        }
        let sum: f64 = each.iter().filter_map(|a| a.finding(&f.id)).map(|g| g.cost_ms_per_step).sum();
        close(f.cost_ms_per_step, sum / each.len() as f64, &f.id);
        assert!(f.evidence.iter().all(|e| e.link.host.is_some()), "{}: evidence names its host", f.id);
    }
    // Their step times differ by far more than 5%: the slower host is a straggler.
    let (fast, slow) = (each[0].step_ms.min(each[1].step_ms), each[0].step_ms.max(each[1].step_ms));
    let straggler = merged.finding("stragglers").expect("a straggler");
    close(straggler.cost_ms_per_step, slow - (fast + slow) / 2.0, "slowest less the median host");
}

struct Quiet;

impl proflens_analysis::context::Hooks for Quiet {
    fn progress(&self, _: Option<f64>, _: &str) {}
    fn now_ms(&self) -> f64 {
        0.0
    }
}

/// TensorBoard's tool files alone: the step breakdown of the input pipeline
/// file, the same columns as its input pipeline analyzer shows.
#[test]
fn legacy_tool_files_give_the_input_pipeline_findings() {
    use proflens_analysis::context::HostFile;
    use proflens_format::legacy::LegacyTool;
    let dir = data_dir().join("legacy/tf-legacy-gpu-input-bound");
    let files = [
        ("localhost.input_pipeline.pb", LegacyTool::InputPipeline),
        ("localhost.overview_page.pb", LegacyTool::OverviewPage),
    ]
    .into_iter()
    .map(|(name, tool)| {
        let path = dir.join(name);
        let read_path = path.clone();
        HostFile {
            path: path.display().to_string(),
            tool: Some(tool),
            read: Box::new(move || proflens_format::source::open_file(&read_path)),
        }
    })
    .collect();
    let host = Rc::new(HostContext::new("localhost", files, Rc::new(Quiet)));
    let advice: Advice = run(&host, "advisor");
    let input: InputPipelineAnalysis = run(&host, "input_pipeline_analyzer");
    check_arithmetic(&advice, &dir);
    close(advice.step_ms, input.step_time.average, "step time");
    same_column(&advice, &input, "input_bound", |s| s.host_wait_input_ms, 0.05);
    assert_eq!(advice.findings[0].id, "input_bound");
    assert!(advice.unmeasured.iter().any(|u| u.id == "eager_ops"), "op tables need events");
}

/// A PyTorch trace whose caching allocator reserves `reserved` of a GPU's
/// 4,608 bytes (a hand-written trace: no fixture comes near its GPU's memory).
fn memory_trace(reserved: i64) -> PathBuf {
    let trace = format!(
        r#"{{"schemaVersion":1,"deviceProperties":[{{"id":0,"name":"H100","numSms":132,"totalGlobalMem":4608}}],
      "traceEvents":[
       {{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":10,"tid":11,"ts":100,"dur":50}},
       {{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":106,"dur":4,"args":{{"device":0,"stream":7}}}},
       {{"ph":"i","cat":"cpu_instant_event","s":"t","name":"[memory]","pid":10,"tid":11,"ts":103,"args":{{"Bytes":512,"Total Allocated":1536,"Total Reserved":{reserved},"Addr":4660,"Device Type":1,"Device Id":0}}}}
      ]}}"#
    );
    let path = std::env::temp_dir().join(format!("proflens-advisor-memory-{}-{reserved}.json", std::process::id()));
    std::fs::write(&path, trace).expect("a temporary file");
    path
}

#[test]
fn gpu_memory_near_its_limit_is_a_warning_ranked_last() {
    let near = memory_trace(4200);
    let advice: Advice = run(&host_context("rank", &near), "advisor");
    let f = advice.finding("memory_near_limit").expect("4200 of 4608 bytes is 91%");
    assert_eq!((f.cost_ms_per_step, f.gain_ms_per_step.high), (0.0, 0.0), "it costs no time");
    assert!(f.summary.contains("91.1%") && f.summary.contains("fragmentation"), "{}", f.summary);
    assert_eq!(advice.findings.last().map(|f| f.id.as_str()), Some("memory_near_limit"));
    let below = memory_trace(4000);
    let advice: Advice = run(&host_context("rank", &below), "advisor");
    assert!(advice.clear.iter().any(|id| id == "memory_near_limit"), "4000 of 4608 bytes is 86.8%");
    for path in [near, below] {
        std::fs::remove_file(path).ok();
    }
}

/// Fixes are written in the job's framework, told from the profile: the
/// fixtures' frameworks are known from how they were made (index.json).
#[test]
fn the_framework_is_told_from_the_profile() {
    use proflens_analysis::advice::Framework;
    for file in xspace_files() {
        let name = file.to_string_lossy();
        let expected = if ["jax_mlp", "tw003", "chi-mi300x", "tpu_inference"].iter().any(|j| name.contains(j)) {
            Framework::Jax
        } else {
            Framework::TensorFlow
        };
        let advice: Advice = run(&host_context("vm", &file), "advisor");
        assert_eq!(advice.framework, expected, "{name}");
    }
    let kineto = &kineto_files()[0];
    assert_eq!(run::<Advice>(&host_context("rank", kineto), "advisor").framework, Framework::PyTorch);
}
