//! Legacy TPU tool files (the Cloud TPU tools' `<host>.overview_page.json`,
//! `.input_pipeline.json`, `.pod_viewer.json`, `.op_profile.json`,
//! `.memory_viewer.json`, and `<host>.trace`), shown by the tools through the
//! registry as the CLI and the app run them. Each number the tool shows is
//! compared with the file's own, read back independently here from the JSON
//! (or, for the trace, the protobuf): exact equality unless a test says
//! otherwise.
//!
//! Data (tests/data/legacy/README.md): XProf 2.24's TPU JSON renamed to the
//! legacy names (`tpu-v6e-inference/`), XProf's TPU training overview
//! (`xprof-golden-tpu-training/`), and SYNTHETIC files in the older TPU tools'
//! shapes (`synthetic-tpu-tools/`, written by tests/scripts/synthetic_tpu_tools.py;
//! `synthetic-cloud-tpu-2020/`, by tests/scripts/synthetic_cloud_tpu_2020.py).

use proflens_analysis::context::{Format, Hooks, HostContext, HostFile, Request};
use proflens_analysis::passes::input_pipeline::{HardwareType, InputPipelineAnalysis};
use proflens_analysis::registry;
use proflens_analysis::tools::overview::OverviewPage;
use proflens_analysis::tools::pod_viewer::PodViewer;
use proflens_format::legacy::{tool_file, LegacyTool};
use proflens_format::{proto, Limits};
use proflens_tests::{data_dir, table_rows};
use prost::Message;
use serde_json::Value;
use std::path::PathBuf;
use std::rc::Rc;

const SYNTHETIC: &str = "synthetic-tpu-tools";
const V6E: &str = "tpu-v6e-inference";
const CLOUD_2020: &str = "synthetic-cloud-tpu-2020";

struct Quiet;

impl Hooks for Quiet {
    fn progress(&self, _: Option<f64>, _: &str) {}
    fn now_ms(&self) -> f64 {
        0.0
    }
}

fn path(case: &str, name: &str) -> PathBuf {
    data_dir().join("legacy").join(case).join(name)
}

/// A host of the one file `name` (as the CLI and the app open it: the name decides its tool).
fn host_of_bytes(name: &str, bytes: Vec<u8>) -> Rc<HostContext> {
    let tool = tool_file(name).map(|(_, tool)| tool);
    let read = Box::new(move || Ok(proflens_format::source::in_memory(bytes.clone())));
    Rc::new(HostContext::new("localhost", vec![HostFile { path: name.into(), tool, read }], Rc::new(Quiet)))
}

fn host(case: &str, name: &str) -> Rc<HostContext> {
    host_of_bytes(name, std::fs::read(path(case, name)).expect("readable fixture"))
}

/// The tool's view model, through the registry.
fn model<T: Clone + 'static>(host: &Rc<HostContext>, tool: &str) -> T {
    let tool = registry::find(tool).expect("a tool");
    let output = registry::run(tool, std::slice::from_ref(host), &Request::default()).unwrap_or_else(|e| panic!("{e}"));
    output.model_as::<T>().expect("the tool's model").clone()
}

fn json(case: &str, name: &str) -> Value {
    let bytes = std::fs::read(path(case, name)).unwrap();
    let raw = proflens_format::inflate::gunzip(&bytes, 1 << 30, &mut |_| {}).unwrap_or(bytes);
    serde_json::from_slice(&raw).unwrap()
}

fn step_table(file: &Value) -> &Value {
    file.as_array()
        .unwrap()
        .iter()
        .find(|t| t["cols"].as_array().is_some_and(|c| c.iter().any(|c| c["id"] == "stepnum")))
        .unwrap()
}

/// The cell of column `id` in each row of a DataTable.
fn column(table: &Value, id: &str) -> Vec<Value> {
    let at = table["cols"].as_array().unwrap().iter().position(|c| c["id"] == id).unwrap_or_else(|| panic!("{id}"));
    table_rows(table).into_iter().map(|r| r[at].clone()).collect()
}

fn numbers(table: &Value, id: &str) -> Vec<f64> {
    column(table, id).iter().map(|v| v.as_f64().unwrap()).collect()
}

fn percent(text: &Value) -> f64 {
    text.as_str().unwrap().trim_end_matches('%').parse().unwrap()
}

/// "… Step time = 92.750 ms" → 92.75.
fn tooltip_step_time(tooltip: &Value) -> f64 {
    let text = tooltip.as_str().unwrap();
    text.split("Step time = ").nth(1).unwrap().trim_end_matches(" ms").parse().unwrap()
}

#[test]
fn tensorcore_and_barnacore_overview_shows_every_steps_numbers() {
    let page: OverviewPage = model(&host(SYNTHETIC, "localhost.overview_page.json"), "overview_page");
    let file = json(SYNTHETIC, "localhost.overview_page.json");
    let steps = step_table(&file);
    let tpu = page.input.tpu.as_ref().expect("the TPU step table");
    assert_eq!(page.input.hardware_type, HardwareType::Tpu);
    assert_eq!(tpu.sparse_core, "BarnaCore");
    assert_eq!(tpu.steps.len(), 3);
    let (tc, bc, bc_in, tc_in, idle) = (
        numbers(steps, "tcComputeTimeMs"),
        numbers(steps, "bcComputeTimeMs"),
        numbers(steps, "bcInfeedTimeMs"),
        numbers(steps, "tcInfeedTimeMs"),
        numbers(steps, "tcIdleTimeMs"),
    );
    let tooltips = column(steps, "tooltip");
    for (i, s) in tpu.steps.iter().enumerate() {
        assert_eq!(
            (s.tc_compute_ms, s.sc_compute_ms, s.sc_infeed_ms, s.tc_infeed_ms, s.tc_idle_ms),
            (tc[i], bc[i], bc_in[i], tc_in[i], idle[i])
        );
        // The tooltip prints three decimals; the invented times are exact in three.
        assert_eq!(s.step_time_ms, tooltip_step_time(&tooltips[i]));
        // The generic breakdown is no longer 0 ms: compute and input are the TPU columns'.
        let generic = &page.input.steps[i];
        assert_eq!(generic.device_compute_ms, tc[i] + bc[i]);
        assert_eq!(generic.input_ms(), tc_in[i] + bc_in[i]);
        assert_eq!(generic.other_ms, idle[i]);
        assert!(generic.device_compute_ms > 0.0);
    }
    // The printed averages are the file's.
    let p = &steps["p"];
    assert_eq!(tpu.tc_compute_ms.average, p["tc_compute_ms_average"].as_str().unwrap().parse::<f64>().unwrap());
    assert_eq!(tpu.sc_compute_ms.average, p["bc_compute_ms_average"].as_str().unwrap().parse::<f64>().unwrap());
    assert_eq!(page.input.step_time.average, p["steptime_ms_average"].as_str().unwrap().parse::<f64>().unwrap());
    assert_eq!(page.input.bottleneck.input_classification, "host");

    let summary = page.tpu.as_ref().expect("the TPU summary");
    let analysis = &file[0]["p"];
    assert_eq!(summary.mxu_utilization_percent, Some(percent(&analysis["mxu_utilization_percent"])));
    assert_eq!(summary.host_idle_time_percent, Some(percent(&analysis["host_idle_time_percent"])));
    assert_eq!(
        summary.flop_rate_utilization_percent,
        Some(percent(&analysis["flop_rate_utilization_relative_to_roofline"]))
    );
    assert_eq!(page.run_environment.device_type, file[2]["p"]["tpu_type"].as_str().unwrap());
    assert_eq!(page.run_environment.device_core_count, 8);
    assert!(summary.properties.iter().any(|(k, v)| k == "tpu_core_count" && v.contains("Replica count = 8")));

    // The CLI's JSON carries them.
    let tool = registry::find("overview_page").unwrap();
    let output = registry::run(tool, &[host(SYNTHETIC, "localhost.overview_page.json")], &Request::default()).unwrap();
    let text: Value = serde_json::from_str(&output.text(Format::Json).unwrap()).unwrap();
    assert_eq!(text["input"]["tpu"]["steps"][0]["tc_compute_ms"], Value::from(tc[0]));
    assert_eq!(text["tpu"]["mxu_utilization_percent"], Value::from(12.5));
}

#[test]
fn xprof_tpu_training_overview_under_its_legacy_name() {
    // XProf's TPU training overview, renamed as a TPU run's legacy file.
    let bytes =
        std::fs::read(path("xprof-golden-tpu-training", "data_tpu-training_overview_page_tpu_training.json.gz"))
            .unwrap();
    let page: OverviewPage = model(&host_of_bytes("localhost.overview_page.json.gz", bytes), "overview_page");
    let file = json("xprof-golden-tpu-training", "data_tpu-training_overview_page_tpu_training.json.gz");
    let steps = step_table(&file);
    let tpu = page.input.tpu.as_ref().unwrap();
    assert_eq!(tpu.sparse_core, "SparseCoreV0");
    let tc = numbers(steps, "tcComputeTimeMs");
    assert_eq!(tpu.steps[0].tc_compute_ms, 120.041345);
    assert_eq!(tpu.steps.iter().map(|s| s.tc_compute_ms).collect::<Vec<_>>(), tc);
    assert_eq!(tpu.steps.iter().map(|s| s.tc_idle_ms).collect::<Vec<_>>(), numbers(steps, "tcIdleTimeMs"));
    for (s, tooltip) in tpu.steps.iter().zip(column(steps, "tooltip")) {
        assert_eq!(s.step_time_ms, tooltip_step_time(&tooltip));
    }
    assert_eq!(
        page.tpu.as_ref().unwrap().mxu_utilization_percent,
        Some(percent(&file[0]["p"]["mxu_utilization_percent"]))
    );
    assert_eq!(page.tpu.as_ref().unwrap().mxu_utilization_percent, Some(15.7));
}

#[test]
fn first_tpu_tools_input_pipeline_reads_noninfeed_and_infeed() {
    let analysis: InputPipelineAnalysis =
        model(&host(SYNTHETIC, "localhost.input_pipeline.json"), "input_pipeline_analyzer");
    let file = json(SYNTHETIC, "localhost.input_pipeline.json");
    let steps = step_table(&file);
    assert_eq!(analysis.hardware_type, HardwareType::Tpu, "told by its columns: the file has no hardware type");
    let (compute, infeed) = (numbers(steps, "noninfeedTimeMs"), numbers(steps, "infeedTimeMs"));
    assert_eq!(analysis.steps.len(), 2);
    for (i, s) in analysis.steps.iter().enumerate() {
        assert_eq!((s.device_compute_ms, s.input_ms()), (compute[i], infeed[i]));
        assert_eq!(s.step_time_ms, tooltip_step_time(&column(steps, "tooltip")[i]));
    }
    assert_eq!(analysis.bottleneck.input_statement, steps["p"]["summary_conclusion"].as_str().unwrap());
    assert_eq!(analysis.bottleneck.input_classification, "host");
    assert_eq!(analysis.input_ops.len(), table_rows(&file[1]).len());
    assert_eq!(analysis.input_time.enqueue_us, 40250.0);
}

#[test]
fn tpu_pod_viewer_keeps_named_times_and_the_all_reduce_and_channel_tables() {
    let view: PodViewer = model(&host(SYNTHETIC, "localhost.pod_viewer.json"), "pod_viewer");
    let file = json(SYNTHETIC, "localhost.pod_viewer.json");
    let steps = file["podStatsSequence"]["podStatsMap"].as_array().unwrap();
    assert_eq!(view.steps.len(), steps.len());
    for (shown, stored) in view.steps.iter().zip(steps) {
        assert_eq!(shown.step_num, stored["stepNum"].as_i64().unwrap());
        for core in view.core_steps(shown) {
            let record = &stored["podStatsPerCore"][core.core.to_string()];
            let tpu = core.tpu.expect("named times");
            let f = |k: &str| record[k].as_f64().unwrap();
            assert_eq!(tpu.high_flops_compute_us, f("highFlopsComputeUs"));
            assert_eq!(tpu.all_reduce_us, f("crsDurationUs"));
            assert_eq!((tpu.send_us, tpu.recv_us), (f("sendDurationUs"), f("recvDurationUs")));
            assert_eq!(core.total_us, f("totalDurationUs"));
            // The generic buckets: compute, send + recv, all-reduce, infeed, outfeed, rest.
            assert_eq!(core.bucket_us(0), f("highFlopsComputeUs"));
            assert_eq!(core.bucket_us(1), f("sendDurationUs") + f("recvDurationUs"));
            assert_eq!(core.bucket_us(2), f("crsDurationUs"));
            assert_eq!(core.bucket_us(5), f("hostInfeedDurationUs"));
            let sum: f64 = core.buckets().map(|(_, us)| us).sum();
            assert!((sum - core.total_us).abs() < 1e-9, "the buckets add up to the step: {sum} vs {}", core.total_us);
            assert_eq!(core.bottleneck, "Device compute", "the largest bucket, the file naming none");
        }
        let ops = stored["allReduceOpDb"].as_array().unwrap();
        assert_eq!(shown.all_reduce.len(), ops.len());
        for (row, op) in shown.all_reduce.iter().zip(ops) {
            assert_eq!(row.name, op["name"].as_str().unwrap());
            assert_eq!(row.duration_us, op["durationUs"].as_f64().unwrap());
            assert_eq!(row.data_size_bytes.to_string(), op["dataSize"].as_str().unwrap());
            assert_eq!(row.occurrences, op["occurrences"].as_u64().unwrap());
        }
        let channels = stored["channelDb"].as_array().unwrap();
        assert_eq!(shown.channels.len(), channels.len());
        assert_eq!(shown.channels[0].channel_id, channels[0]["channelId"].as_str().unwrap());
        assert_eq!(shown.channels[0].duration_us, channels[0]["durationUs"].as_f64().unwrap());
        assert_eq!(shown.channels[0].hlo_names.len(), 2);
    }
}

#[test]
fn xprof_tpu_outputs_under_legacy_names_open_in_their_tools() {
    // No step markers in this profile: the tables are empty, the TPU figures are there.
    let page: OverviewPage = model(&host(V6E, "localhost.overview_page.json"), "overview_page");
    let file = json(V6E, "localhost.overview_page.json");
    assert_eq!(page.run_environment.device_type, "TPU v6 Lite");
    let tpu = page.tpu.as_ref().unwrap();
    assert_eq!(tpu.device_duty_cycle_percent, Some(percent(&file[0]["p"]["device_duty_cycle_percent"])));
    assert_eq!(tpu.device_idle_time_percent, Some(13.4));
    assert!(page.input.tpu.as_ref().unwrap().steps.is_empty());

    let analysis: InputPipelineAnalysis = model(&host(V6E, "localhost.input_pipeline.json"), "input_pipeline_analyzer");
    assert_eq!(analysis.hardware_type, HardwareType::Tpu);
    let view: PodViewer = model(&host(V6E, "localhost.pod_viewer.json"), "pod_viewer");
    assert_eq!(view.device_type, "TPU v6 Lite");

    // Op profile and memory viewer: XProf's JSON written back equals the file.
    let tool = registry::find("op_profile").unwrap();
    let output = registry::run(tool, &[host(V6E, "localhost.op_profile.json.gz")], &Request::default()).unwrap();
    let back: Value = serde_json::from_str(&output.text(Format::Xprof).unwrap()).unwrap();
    let stored = json(V6E, "localhost.op_profile.json.gz");
    assert_eq!(back["deviceType"], stored["deviceType"]);
    assert_eq!(back["byProgram"]["metrics"]["rawTime"], stored["byProgram"]["metrics"]["rawTime"]);
    let tool = registry::find("memory_viewer").unwrap();
    let output = registry::run(tool, &[host(V6E, "localhost.memory_viewer.json")], &Request::default()).unwrap();
    let back: Value = serde_json::from_str(&output.text(Format::Xprof).unwrap()).unwrap();
    assert_eq!(back, json(V6E, "localhost.memory_viewer.json"));
}

#[test]
fn tpu_profiler_trace_opens_in_the_trace_viewer() {
    // SYNTHETIC: encoded by tests/scripts/synthetic_tpu_tools.py from trace_events.proto's field numbers.
    let bytes = std::fs::read(path(SYNTHETIC, "localhost.trace")).unwrap();
    let stored = proto::Trace::decode(bytes.as_slice()).unwrap();
    let profile =
        proflens_format::load_profile_named("localhost.trace", &bytes, &Limits::default(), &mut |_| {}).unwrap();
    assert_eq!(profile.event_count(), stored.trace_events.len());
    // Every device a process, every resource a thread, named as in the file.
    for device in stored.devices.values() {
        let plane = profile
            .planes
            .iter()
            .find(|p| profile.strings.get(p.name).starts_with(&device.name))
            .unwrap_or_else(|| panic!("{}", device.name));
        let lines: Vec<&str> = plane.lines.iter().map(|l| profile.strings.get(l.name)).collect();
        for resource in device.resources.values() {
            assert!(lines.contains(&resource.name.as_str()), "{}: {lines:?}", resource.name);
        }
    }
    // Through the registry, as a host of tool files with a trace.
    let read = Box::new(move || Ok(proflens_format::source::in_memory(bytes.clone())));
    let host = Rc::new(HostContext::new(
        "localhost",
        vec![HostFile { path: "localhost.trace".into(), tool: None, read }],
        Rc::new(Quiet),
    ));
    let tool = registry::find("trace_viewer").unwrap();
    let output = registry::run(tool, &[host], &Request::default()).unwrap();
    let summary: Value = serde_json::from_str(&output.text(Format::Json).unwrap()).unwrap();
    assert_eq!(summary["events"], Value::from(stored.trace_events.len()));
    // The same bytes named as an XSpace are not read as a trace.
    let xspace = proflens_format::load_profile_named(
        "localhost.xplane.pb",
        &std::fs::read(path(SYNTHETIC, "localhost.trace")).unwrap(),
        &Limits::default(),
        &mut |_| {},
    );
    assert!(xspace.map_or(true, |p| p.event_count() != stored.trace_events.len()));
    // A name alone is not enough: other bytes named .trace are a clear error.
    let bad = proflens_format::load_profile_named("x.trace", b"\x0a\xff", &Limits::default(), &mut |_| {}).unwrap_err();
    assert!(bad.to_string().contains("TPU profiler trace"), "{bad}");
    assert_eq!(tool_file("localhost.trace"), None::<(String, LegacyTool)>);
}

fn property(table: &Value, key: &str) -> f64 {
    table["p"][key].as_str().unwrap().parse().unwrap()
}

/// The 2020 Cloud TPU layout (SYNTHETIC): `computeTimeMs`, `inputTimeMs`,
/// `idleTimeMs` are each step's categories (they used to show as 0 ms), the
/// averages are the file's `compute_ms_average`…, and steps that add up
/// raise no warning.
#[test]
fn cloud_tpu_2020_overview_shows_compute_input_and_idle() {
    let host = host(CLOUD_2020, "localhost.overview_page.json");
    let page: OverviewPage = model(&host, "overview_page");
    let file = json(CLOUD_2020, "localhost.overview_page.json");
    let steps = step_table(&file);
    assert_eq!(page.input.hardware_type, HardwareType::Tpu, "no hardware type: the columns tell");
    let (compute, input, idle) =
        (numbers(steps, "computeTimeMs"), numbers(steps, "inputTimeMs"), numbers(steps, "idleTimeMs"));
    let tooltips = column(steps, "tooltip");
    assert_eq!(page.input.steps.len(), compute.len());
    for (i, s) in page.input.steps.iter().enumerate() {
        assert_eq!((s.device_compute_ms, s.input_ms(), s.other_ms), (compute[i], input[i], idle[i]));
        assert_eq!(s.step_time_ms, tooltip_step_time(&tooltips[i]));
        assert!(s.device_compute_ms > 0.0 && s.input_ms() > 0.0);
    }
    let b = &page.input.breakdown;
    assert_eq!(page.input.step_time.average, property(steps, "steptime_ms_average"));
    assert_eq!(page.input.step_time.average, 313.8);
    assert_eq!(b.device_compute.average, property(steps, "compute_ms_average"));
    assert_eq!(b.input.average, property(steps, "input_ms_average"));
    assert_eq!(b.other.average, property(steps, "idle_ms_average"));
    let tpu = page.input.tpu.as_ref().expect("the TPU step table");
    assert_eq!(tpu.tc_compute_ms.average, property(steps, "compute_ms_average"));
    assert_eq!(tpu.steps.iter().map(|s| s.tc_idle_ms).collect::<Vec<_>>(), idle);
    assert_eq!(page.run_environment.device_type, "TPU v3");
    assert_eq!(page.recommendation.bottleneck, "both");
    assert!(page.diagnostics.is_empty(), "{:?}", page.diagnostics);
    let output = registry::run(registry::find("overview_page").unwrap(), &[host], &Request::default()).unwrap();
    assert!(output.model.warnings().is_empty());
}

/// A step whose categories do not add up to its step time: the view model
/// carries a warning (the page's diagnostics, the CLI's stderr).
#[test]
fn cloud_tpu_2020_input_pipeline_says_when_categories_do_not_add_up() {
    let host = host(CLOUD_2020, "localhost.input_pipeline.json");
    let analysis: InputPipelineAnalysis = model(&host, "input_pipeline_analyzer");
    let file = json(CLOUD_2020, "localhost.input_pipeline.json");
    let steps = step_table(&file);
    assert_eq!(analysis.hardware_type, HardwareType::Tpu);
    let sums: Vec<f64> = numbers(steps, "computeTimeMs")
        .iter()
        .zip(numbers(steps, "inputTimeMs"))
        .zip(numbers(steps, "idleTimeMs"))
        .map(|((c, i), d)| c + i + d)
        .collect();
    let times: Vec<f64> = column(steps, "tooltip").iter().map(tooltip_step_time).collect();
    assert_eq!(analysis.steps.iter().map(|s| s.step_time_ms).collect::<Vec<_>>(), times);
    assert_eq!(analysis.steps.iter().map(|s| s.categories_ms()).collect::<Vec<_>>(), sums);
    // Step 0 adds up (125 ms), step 1 does not (140 ms of categories in 120 ms).
    assert_eq!((sums[0], times[0]), (125.0, 125.0));
    assert_eq!((sums[1], times[1]), (140.0, 120.0));
    let warnings: Vec<_> = analysis.diagnostics.iter().filter(|d| d.severity == "WARNING").collect();
    assert_eq!(warnings.len(), 1, "{:?}", analysis.diagnostics);
    let m = &warnings[0].message;
    assert!(
        m.starts_with("In 1 of 2 steps") && m.contains("step 1 takes 120.000 ms, its categories 140.000 ms"),
        "{m}"
    );
    assert_eq!(analysis.next_step, proflens_analysis::passes::input_pipeline::NextStep::LookAtHostAnalysis);
    let output =
        registry::run(registry::find("input_pipeline_analyzer").unwrap(), &[host], &Request::default()).unwrap();
    assert_eq!(output.model.warnings(), [format!("warning: {m}")]);
}
