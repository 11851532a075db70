//! Legacy tool files (TF 2.2 `<host>.<tool>.pb`, XProf's tool JSON): the
//! numbers the views show are the file's own, read back independently here
//! from the decoded protobuf / JSON.

use proflens_analysis::passes::input_pipeline::{self, legacy as input_legacy, InputPipelineAnalysis};
use proflens_analysis::passes::kernels::KernelRow;
use proflens_analysis::tools::framework_op_stats::{self, legacy as op_stats_legacy, FrameworkOpStats};
use proflens_analysis::tools::kernel_stats::legacy as kernel_legacy;
use proflens_analysis::tools::memory_profile::{self, legacy as memory_legacy, MemoryProfile};
use proflens_analysis::tools::memory_viewer::{legacy as memory_viewer_legacy, MemoryViewer};
use proflens_analysis::tools::op_profile::{legacy as op_profile_legacy, OpProfile};
use proflens_analysis::tools::overview::{self, legacy as overview_legacy, OverviewPage};
use proflens_analysis::tools::pod_viewer::{self, legacy as pod_legacy, PodViewer};
use proflens_format::legacy::{decode, tool_file, LegacyError, LegacyFile, LegacyTool};
use proflens_format::{proto, Limits};
use proflens_tests::{data_dir, table_rows};
use serde_json::Value;

const GPU: &str = "tf-legacy-gpu-input-bound";
const TPU: &str = "xprof-golden-tpu-training";

/// A decoded file's view model, from the converter of the tool that shows it.
enum LegacyView {
    Overview(Box<OverviewPage>),
    InputPipeline(Box<InputPipelineAnalysis>),
    FrameworkOpStats(FrameworkOpStats),
    KernelStats(Vec<KernelRow>),
    PodViewer(PodViewer),
    MemoryProfile(MemoryProfile),
    OpProfile(Box<OpProfile>),
    MemoryViewer(Box<MemoryViewer>),
}

mod legacy {
    use super::*;

    pub fn view(file: &LegacyFile) -> Result<LegacyView, LegacyError> {
        Ok(match file {
            LegacyFile::OverviewPage(page) => {
                LegacyView::Overview(Box::new(overview_legacy::overview_from_proto(page)))
            }
            LegacyFile::OverviewTables(t) => LegacyView::Overview(Box::new(overview_legacy::overview_from_tables(t)?)),
            LegacyFile::InputPipeline(r) => {
                LegacyView::InputPipeline(Box::new(input_legacy::input_pipeline_from_proto(r)))
            }
            LegacyFile::InputPipelineTables(t) => {
                LegacyView::InputPipeline(Box::new(input_legacy::input_pipeline_from_tables(t)?))
            }
            LegacyFile::TensorflowStats(db) => {
                LegacyView::FrameworkOpStats(op_stats_legacy::framework_op_stats_from_proto(db))
            }
            LegacyFile::TensorflowStatsTables(t) => {
                LegacyView::FrameworkOpStats(op_stats_legacy::framework_op_stats_from_tables(t)?)
            }
            LegacyFile::KernelStats(db) => LegacyView::KernelStats(kernel_legacy::kernel_stats_from_proto(db)),
            LegacyFile::KernelStatsTables(t) => LegacyView::KernelStats(kernel_legacy::kernel_stats_from_tables(t)?),
            LegacyFile::PodViewer(v) => LegacyView::PodViewer(pod_legacy::pod_viewer_from_json(v)?),
            LegacyFile::MemoryProfile(v) => LegacyView::MemoryProfile(memory_legacy::memory_profile_from_json(v)?),
            LegacyFile::OpProfile(v) => LegacyView::OpProfile(Box::new(op_profile_legacy::op_profile_from_json(v)?)),
            LegacyFile::MemoryViewer(v) => {
                LegacyView::MemoryViewer(Box::new(memory_viewer_legacy::memory_viewer_from_json(v)?))
            }
        })
    }
}

fn bytes(case: &str, name: &str) -> Vec<u8> {
    std::fs::read(data_dir().join("legacy").join(case).join(name)).expect("readable fixture")
}

fn decode_file(case: &str, name: &str) -> LegacyFile {
    decode(name, &bytes(case, name), &Limits::default()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn json_of(case: &str, name: &str) -> Value {
    let raw = proflens_format::inflate::gunzip(&bytes(case, name), 1 << 30, &mut |_| {}).unwrap();
    serde_json::from_slice(&raw).unwrap()
}

fn close(a: f64, b: f64, tolerance: f64) -> bool {
    (a - b).abs() <= tolerance
}

fn steps_of(r: &proto::InputPipelineAnalysisResult) -> Vec<proto::PerGenericStepDetails> {
    r.step_details.iter().map(|a| proflens_format::legacy::unpack_any(a).unwrap()).collect()
}

#[test]
fn names_give_host_and_tool() {
    assert_eq!(tool_file("localhost.overview_page.pb"), Some(("localhost".into(), LegacyTool::OverviewPage)));
    assert_eq!(tool_file("localhost.input_pipeline.pb"), Some(("localhost".into(), LegacyTool::InputPipeline)));
    assert_eq!(tool_file("localhost.tensorflow_stats.pb"), Some(("localhost".into(), LegacyTool::TensorflowStats)));
    // XProf server JSON: no hint in the name, recognised by content instead.
    assert_eq!(tool_file("data_tpu-training_overview_page_tpu_training.json.gz"), None);
}

#[test]
fn gpu_overview_shows_the_files_numbers() {
    let LegacyFile::OverviewPage(page) = decode_file(GPU, "localhost.overview_page.pb") else { panic!("kind") };
    let LegacyView::Overview(view) = legacy::view(&LegacyFile::OverviewPage(page.clone())).unwrap() else {
        panic!("view kind")
    };
    let file_input = page.input_analysis.as_ref().unwrap();
    let file_steps = steps_of(file_input);
    assert_eq!(view.input.steps.len(), 11);
    assert_eq!(file_steps.len(), 11);
    for (shown, stored) in view.input.steps.iter().zip(&file_steps) {
        assert_eq!(shown.name, stored.step_number.to_string());
        assert_eq!(shown.step_time_ms, stored.step_time_ms);
        assert_eq!(shown.input_ms(), stored.host_wait_input_ms + stored.host_to_device_ms);
        assert_eq!(shown.device_compute_ms, stored.device_compute_ms);
    }
    let summary = file_input.step_time_summary.as_ref().unwrap();
    assert_eq!(view.input.step_time.average, summary.average);
    assert_eq!(view.input.step_time.average, 1114.498922909091);
    assert_eq!(view.input.step_time.standard_deviation, Some(summary.standard_deviation));
    assert_eq!(view.input.input_percent.average, 81.3721625552601);
    // The verdict is the file's statement; the percentage (not stored in a
    // TF 2.2 file) is derived from its steps and agrees with the statement.
    assert_eq!(view.recommendation.bottleneck, "host");
    assert!(view.recommendation.statement.contains("HIGHLY input-bound because 81.4%"));
    assert_eq!(format!("{:.1}", view.input.bottleneck.input_percent), "81.4");
    assert_eq!(view.input.bottleneck.input_classification, "host");

    let ops = &page.analysis.as_ref().unwrap().top_device_ops;
    assert_eq!(view.top_ops.len(), ops.len());
    assert_eq!(view.top_ops[0].name, "gradient_tape/replica_1/resnet50/res3a_branch2b/Conv2DBackpropInput");
    assert_eq!(view.top_ops[0].self_time_fraction, 0.0018789764879608678);
    for (shown, stored) in view.top_ops.iter().zip(ops) {
        assert_eq!((shown.name.as_str(), shown.self_time_fraction), (stored.name.as_str(), stored.self_time_fraction));
        assert_eq!(shown.cumulative_time_fraction, stored.cumulative_time_fraction);
    }
    assert_eq!(view.stats.device_compute_16bit_percent, 0.0);
    assert_eq!(view.run_environment.device_type, "GPU");
    assert_eq!(view.run_environment.device_core_count, 8);

    // XProf's JSON from the same view model.
    let xprof = overview::to_xprof_json(&view);
    assert_eq!(xprof[1]["p"]["steptime_ms_average"], "1114.5");
    assert_eq!(table_rows(&xprof[1]).len(), 11);
    assert_eq!(table_rows(&xprof[0])[0][0], Value::from(0.0018789764879608678));
    assert_eq!(xprof[3]["p"]["bottleneck"], "host");
}

#[test]
fn gpu_input_pipeline_shows_the_files_numbers() {
    let LegacyFile::InputPipeline(file) = decode_file(GPU, "localhost.input_pipeline.pb") else { panic!("kind") };
    let LegacyView::InputPipeline(view) = legacy::view(&LegacyFile::InputPipeline(file.clone())).unwrap() else {
        panic!("view kind")
    };
    assert_eq!(view.steps.len(), steps_of(&file).len());
    assert_eq!(view.steps.len(), 11);
    assert_eq!(view.input_ops.len(), file.input_op_details.len());
    let first = &view.input_ops[0];
    assert_eq!(first.name, "Iterator::Prefetch::Generator");
    assert_eq!((first.count, first.self_time_ms), (80, 89282.140152));
    // The proto stores percent, the view fractions.
    assert!(close(first.self_time_fraction, 0.43278023671857014, 1e-15));
    let fraction_sum: f64 = view.input_ops.iter().map(|o| o.self_time_fraction).sum();
    assert!(close(fraction_sum, 1.0, 1e-9), "input-op shares add up to 1: {fraction_sum}");
    assert_eq!(view.input_time.advanced_file_read_us, 3201226.4759999993);
    assert_eq!(view.input_time.preprocessing_us, 203097796.85500005);
    assert_eq!(view.next_step, input_pipeline::NextStep::LookAtHostAnalysis);
    assert!(view.input_ops.iter().any(|o| o.name.ends_with("::TFRecord") && o.category == "Advanced file read"));

    let xprof = input_pipeline::to_xprof_json(&view);
    assert_eq!(xprof[2]["p"]["advanced_file_read_us"], "3201226.476");
    assert_eq!(table_rows(&xprof[2]).len(), file.input_op_details.len());
    assert_eq!(xprof[1]["p"]["summary_nextstep"], "Look at Section 3 for the breakdown of input time on the host.");
    let csv = input_pipeline::input_ops_csv(&view);
    assert_eq!(csv.lines().count(), 1 + file.input_op_details.len());
}

#[test]
fn gpu_tensorflow_stats_shows_every_row() {
    let LegacyFile::TensorflowStats(db) = decode_file(GPU, "localhost.tensorflow_stats.pb") else { panic!("kind") };
    let LegacyView::FrameworkOpStats(view) = legacy::view(&LegacyFile::TensorflowStats(db.clone())).unwrap() else {
        panic!("view kind")
    };
    let with_idle = &db.with_idle.as_ref().unwrap().tf_stats_record;
    let without_idle = &db.without_idle.as_ref().unwrap().tf_stats_record;
    assert_eq!((view.with_idle.rows.len(), view.without_idle.rows.len()), (9749, 9747));
    assert_eq!(view.without_idle.rows.len(), without_idle.len());
    assert_eq!(view.with_idle.rows.len(), with_idle.len());
    let total = |rows: &[framework_op_stats::OpRow]| rows.iter().map(|r| r.total_self_time_us).sum::<f64>();
    let file_total: f64 = with_idle.iter().map(|r| r.total_self_time_in_us).sum();
    assert_eq!(total(&view.with_idle.rows), file_total);
    let idle = &view.with_idle.rows[0];
    assert_eq!((idle.operation.as_str(), idle.side), ("IDLE", framework_op_stats::Side::Device));
    assert_eq!(idle.total_self_time_us, 82285503.313);
    assert_eq!(idle.device_self_time_fraction, 0.8390147112352071);
    let first = &view.without_idle.rows[0];
    assert_eq!(first.operation, "gradient_tape/replica_1/resnet50/res3a_branch2b/Conv2DBackpropInput");
    assert_eq!((first.occurrences, first.total_self_time_us), (44, 29666.157));
    let hosts = view.with_idle.rows.iter().filter(|r| r.side == framework_op_stats::Side::Host).count();
    assert_eq!(hosts, with_idle.iter().filter(|r| r.host_or_device == "Host").count());
    assert!(hosts > 0);

    let xprof = framework_op_stats::to_xprof_json(&view);
    assert_eq!(table_rows(&xprof[0]).len(), 9749);
    assert_eq!(table_rows(&xprof[1]).len(), 9747);
    assert_eq!(framework_op_stats::to_csv(&view, false).lines().count(), 1 + 9747);
}

#[test]
fn tpu_overview_json_is_recognised_by_content() {
    let name = "data_tpu-training_overview_page_tpu_training.json.gz";
    let file = decode_file(TPU, name);
    assert_eq!(file.tool(), LegacyTool::OverviewPage);
    let LegacyView::Overview(view) = legacy::view(&file).unwrap() else { panic!("view kind") };
    let golden = json_of(TPU, name);
    let ops = table_rows(&golden[0]);
    assert_eq!(view.top_ops.len(), ops.len());
    assert_eq!(view.top_ops.len(), 10);
    assert_eq!(view.top_ops[0].self_time_fraction, 0.154143016562757);
    assert_eq!(view.top_ops[0].category, "dynamic_update_slice");
    for (shown, row) in view.top_ops.iter().zip(&ops) {
        assert_eq!(Value::from(shown.self_time_fraction), row[0]);
        assert_eq!(Value::from(shown.cumulative_time_fraction), row[1]);
        assert_eq!(Value::from(shown.name.as_str()), row[3]);
        assert_eq!(Value::from(shown.flop_rate), row[4]);
    }
    assert_eq!(view.stats.device_tf_op_percent, 99.7);
    assert_eq!(view.stats.host_tf_op_percent, 0.3);
    assert_eq!(view.run_environment.device_type, "TPU v5");
    assert_eq!((view.run_environment.device_core_count, view.run_environment.host_count), (8, 1));
    assert_eq!(view.input.hardware_type, input_pipeline::HardwareType::Tpu);
    // Steps: TensorCore compute + idle (+ infeed/outfeed, 0 here) = the tooltip's step time.
    assert_eq!(view.input.steps.len(), 5);
    assert!(close(view.input.steps[0].step_time_ms, 120.882, 0.0005));
    assert!(close(view.input.steps[4].step_time_ms, 3.052, 0.0005));
    assert_eq!(view.input.steps[0].device_compute_ms, 120.041345);
    // The summary is the file's printed one (XProf's minimum 0.0 quirk included).
    assert_eq!(view.input.step_time.average, 96.3);
    assert_eq!(view.input.step_time.standard_deviation, Some(53.8));
    assert_eq!((view.input.step_time.minimum, view.input.step_time.maximum), (0.0, 120.9));
    assert_eq!(view.input.bottleneck.input_classification, "device");
    assert_eq!(view.recommendation.bottleneck, "device");
    assert!(view.recommendation.statement.starts_with("Your program is NOT input-bound"));

    let xprof = overview::to_xprof_json(&view);
    // XProf 2.24 prints the TPU step-time summary with two decimals.
    assert_eq!(xprof[1]["p"]["steptime_ms_average"], "96.30");
    assert_eq!(xprof[2]["p"]["device_type"], "TPU v5");
    assert_eq!(xprof[0]["p"]["device_tf_op_percent"], "99.7%");
    assert_eq!(table_rows(&xprof[0]).len(), 10);
}

#[test]
fn tpu_memory_profile_json_round_trips() {
    let name = "data_tpu-training_memory_profile_tpu_training.json.gz";
    let file = decode_file(TPU, name);
    assert_eq!(file.tool(), LegacyTool::MemoryProfile);
    let LegacyView::MemoryProfile(view) = legacy::view(&file).unwrap() else { panic!("view kind") };
    let golden = json_of(TPU, name);
    assert_eq!(view.allocators.keys().collect::<Vec<_>>(), ["0", "1", "2", "3"]);
    let a = &view.allocators["0"];
    assert_eq!(a.peak_bytes_usage_lifetime, 3346865408);
    assert_eq!(a.capacity_bytes, 102803439616);
    assert_eq!(a.peak.stack_reserved_bytes, 1960673280);
    assert_eq!(a.peak.fragmentation, 3.93863e-09);
    assert_eq!(a.peak_time_ps, 365564504000);
    assert_eq!((a.active[0].snapshot, a.active[0].special, a.active[0].occurrences), (None, Some(0), 1));
    assert_eq!((a.active[2].snapshot, a.active[2].occurrences), (Some(0), 15));

    // XProf's JSON written back from the view model equals the file, except
    // the special rows' snapshot index (XProf numbers them -1, -2, …; the
    // view model keeps only "no snapshot", written as -1).
    let back = memory_profile::to_xprof_json(&view);
    assert_eq!(back["memoryIds"], golden["memoryIds"]);
    for (id, stored) in golden["memoryProfilePerAllocator"].as_object().unwrap() {
        let written = &back["memoryProfilePerAllocator"][id];
        for key in ["profileSummary", "memoryProfileSnapshots", "specialAllocations", "sampledTimelineSnapshots"] {
            // proto3 JSON leaves out empty lists.
            let stored = stored.get(key).cloned().unwrap_or_else(|| serde_json::json!([]));
            assert_eq!(written[key], stored, "allocator {id}: {key}");
        }
        let rows = stored["activeAllocations"].as_array().unwrap();
        assert_eq!(written["activeAllocations"].as_array().unwrap().len(), rows.len());
        for (w, s) in written["activeAllocations"].as_array().unwrap().iter().zip(rows) {
            assert_eq!((&w["specialIndex"], &w["numOccurrences"]), (&s["specialIndex"], &s["numOccurrences"]));
            if s["specialIndex"] == "-1" {
                assert_eq!(w["snapshotIndex"], s["snapshotIndex"]);
            }
        }
    }
}

#[test]
fn truncated_fixtures_are_errors_naming_the_tool() {
    for (name, stem) in [
        ("localhost.overview_page.pb", "overview_page"),
        ("localhost.input_pipeline.pb", "input_pipeline"),
        ("localhost.tensorflow_stats.pb", "tensorflow_stats"),
    ] {
        let full = bytes(GPU, name);
        for cut in [1, full.len() / 3, full.len() / 2, full.len() - 1] {
            let e = decode(name, &full[..cut], &Limits::default()).unwrap_err();
            assert!(e.to_string().contains(stem), "{name} cut at {cut}: {e}");
        }
    }
    let gz = bytes(TPU, "data_tpu-training_memory_profile_tpu_training.json.gz");
    let e = decode("h.memory_profile.json.gz", &gz[..gz.len() / 2], &Limits::default()).unwrap_err();
    assert!(matches!(e, LegacyError::Container { tool: Some(LegacyTool::MemoryProfile), .. }), "{e}");
    // An XSpace is no legacy file.
    let xspace = std::fs::read(data_dir().join("xspace/external/tw003.xplane.pb")).unwrap();
    assert_eq!(decode("tw003.xplane.pb", &xspace, &Limits::default()).unwrap_err(), LegacyError::NotLegacy);
}

#[test]
fn tpu_op_profile_json_shows_the_files_tree() {
    let name = "data_tpu-training_op_profile_tpu_training.json.gz";
    let LegacyView::OpProfile(view) = legacy::view(&decode_file(TPU, name)).unwrap() else { panic!("view kind") };
    let golden = json_of(TPU, name);
    assert_eq!(view.device_type, "TPU");
    let root = &view.by_program;
    assert_eq!((root.name.as_str(), root.metrics.raw_time, root.num_children), ("by_program", 3907589469062.0, 4));
    assert_eq!(root.children.len(), golden["byProgram"]["children"].as_array().unwrap().len());
    let program = &root.children[0];
    assert_eq!(program.name, "jit_train_step(2041036616644817336)");
    assert_eq!(program.metrics.flops, 0.5969161535725503);
    let category = &program.children[0];
    assert_eq!((category.name.as_str(), category.metrics.occurrences), ("convolution fusion", 13400));
    let op = &category.children[0];
    let xla = op.xla.as_ref().expect("op node");
    assert_eq!((op.name.as_str(), xla.program_id), ("fusion.556", 2041036616644817336));
    assert_eq!((xla.source_info.file_name.as_str(), xla.source_info.line_number), ("linears.py", 118));
    assert_eq!(op.metrics.bandwidth_utils[0], 0.15636716851317845);
    assert!(view.by_category.children.is_empty(), "the file holds the by-program trees only");
    // XProf's JSON from the view model carries the same tree.
    let back = proflens_analysis::tools::op_profile::to_xprof_json(&view, false);
    assert_eq!(back["byProgram"]["children"][0]["name"], golden["byProgram"]["children"][0]["name"]);
    assert_eq!(back["byProgram"]["metrics"]["rawTime"], golden["byProgram"]["metrics"]["rawTime"]);
    assert_eq!(
        back["byProgramExcludeIdle"]["children"].as_array().map(Vec::len),
        golden["byProgramExcludeIdle"]["children"].as_array().map(Vec::len)
    );
}

/// XProf's memory viewer JSON (the goldens of the XSpace cases) read as a
/// legacy `memory_viewer.json` and written back gives the same JSON.
#[test]
fn memory_viewer_json_round_trips() {
    let mut checked = 0;
    for case in std::fs::read_dir(data_dir().join("goldens")).unwrap() {
        let dir = case.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if !name.starts_with("memory_viewer.") || !name.ends_with(".json") {
                continue;
            }
            let bytes = std::fs::read(&path).unwrap();
            let stored: Value = serde_json::from_slice(&bytes).unwrap();
            if stored.as_object().is_none_or(|o| o.is_empty()) {
                continue; // XProf's empty document for a placeholder module.
            }
            let file = decode(&name, &bytes, &Limits::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(file.tool(), LegacyTool::MemoryViewer, "{name}");
            let LegacyView::MemoryViewer(view) = legacy::view(&file).unwrap() else { panic!("view kind") };
            assert_eq!(proflens_analysis::tools::memory_viewer::to_xprof_json(&view), stored, "{}", path.display());
            checked += 1;
        }
    }
    assert!(checked >= 3, "memory viewer goldens found: {checked}");
}

/// XProf's own JSON for a tool (the goldens of the XSpace cases), saved from
/// its server under a name with no hint, read as a legacy file.
fn golden_files(tool_file_name: &str) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for case in std::fs::read_dir(data_dir().join("goldens")).unwrap() {
        let path = case.unwrap().path().join(tool_file_name);
        if path.is_file() {
            out.push((path.display().to_string(), std::fs::read(&path).unwrap()));
        }
    }
    out.sort();
    out
}

fn view_of_golden(name: &str, bytes: &[u8], tool: LegacyTool) -> LegacyView {
    let file = decode("saved.json", bytes, &Limits::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(file.tool(), tool, "{name}");
    legacy::view(&file).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn xprof_op_and_kernel_tables_round_trip() {
    let goldens = golden_files("framework_op_stats.json");
    assert!(goldens.len() >= 5);
    for (name, bytes) in &goldens {
        let LegacyView::FrameworkOpStats(view) = view_of_golden(name, bytes, LegacyTool::TensorflowStats) else {
            panic!("view kind")
        };
        let stored: Value = serde_json::from_slice(bytes).unwrap();
        assert_eq!(framework_op_stats::to_xprof_json(&view), stored, "{name}");
    }
    let goldens = golden_files("kernel_stats.json");
    assert!(!goldens.is_empty());
    for (name, bytes) in &goldens {
        let LegacyView::KernelStats(rows) = view_of_golden(name, bytes, LegacyTool::KernelStats) else {
            panic!("view kind")
        };
        let stored: Value = serde_json::from_slice(bytes).unwrap();
        assert!(!rows.is_empty());
        let back = proflens_analysis::tools::kernel_stats::to_xprof_json(&rows);
        assert_eq!(back["cols"], stored["cols"], "{name}");
        let (back, stored) = (table_rows(&back), table_rows(&stored));
        assert_eq!(back.len(), stored.len(), "{name}");
        for (b, s) in back.iter().zip(&stored) {
            // Column 12 is the average, which XProf takes in whole ns (and
            // Proflens's writer does not): within 1 ns; every other cell exact.
            const AVG: usize = 12;
            let (b_avg, s_avg) = (b[AVG].as_f64().unwrap(), s[AVG].as_f64().unwrap());
            assert!(close(b_avg, s_avg, 1e-3), "{name}: {b_avg} vs {s_avg}");
            let others = |r: &[Value]| {
                r.iter().enumerate().filter(|(i, _)| *i != AVG).map(|(_, v)| v.clone()).collect::<Vec<_>>()
            };
            assert_eq!(others(b), others(s), "{name}");
        }
    }
}

#[test]
fn xprof_overview_and_input_pipeline_json_keep_their_numbers() {
    for (name, bytes) in golden_files("overview_page.json") {
        let LegacyView::Overview(view) = view_of_golden(&name, &bytes, LegacyTool::OverviewPage) else {
            panic!("view kind")
        };
        let stored: Value = serde_json::from_slice(&bytes).unwrap();
        let back = overview::to_xprof_json(&view);
        assert_eq!(table_rows(&back[0]), table_rows(&stored[0]), "{name}: top ops");
        assert_eq!(back[3]["p"]["bottleneck"], stored[3]["p"]["bottleneck"], "{name}");
        if view.input.hardware_type == input_pipeline::HardwareType::Tpu {
            // The TPU table's rows are the file's steps in Proflens's TPU mapping
            // (docs/deviations.md), not the file's own rows: compare the step count.
            assert_eq!(view.input.steps.len(), table_rows(&stored[1]).len(), "{name}");
            continue;
        }
        assert_eq!(table_rows(&back[1]), table_rows(&stored[1]), "{name}: steps");
        for key in ["steptime_ms_average", "steptime_ms_minimum", "steptime_ms_maximum", "input_conclusion"] {
            assert_eq!(back[1]["p"][key], stored[1]["p"][key], "{name}: {key}");
        }
        for key in ["host_count", "device_type", "device_core_count"] {
            assert_eq!(back[2]["p"][key], stored[2]["p"][key], "{name}: {key}");
        }
    }
    for (name, bytes) in golden_files("input_pipeline_analyzer.json") {
        let LegacyView::InputPipeline(view) = view_of_golden(&name, &bytes, LegacyTool::InputPipeline) else {
            panic!("view kind")
        };
        let stored: Value = serde_json::from_slice(&bytes).unwrap();
        let back = input_pipeline::to_xprof_json(&view);
        assert_eq!(table_rows(&back[1]), table_rows(&stored[1]), "{name}: steps");
        assert_eq!(back[2], stored[2], "{name}: host input ops");
        assert_eq!(back[1]["p"]["summary_nextstep"], stored[1]["p"]["summary_nextstep"], "{name}");
    }
}

#[test]
fn xprof_pod_viewer_memory_and_op_profile_json_keep_their_numbers() {
    for (name, bytes) in golden_files("pod_viewer.json") {
        let LegacyView::PodViewer(view) = view_of_golden(&name, &bytes, LegacyTool::PodViewer) else {
            panic!("view kind")
        };
        let stored: Value = serde_json::from_slice(&bytes).unwrap();
        let back = pod_viewer::to_xprof_json(&view);
        assert_eq!(back["podStatsSequence"], stored["podStatsSequence"], "{name}");
        assert_eq!(back["deviceType"], stored["deviceType"], "{name}");
    }
    for (name, bytes) in golden_files("memory_profile.json") {
        let LegacyView::MemoryProfile(view) = view_of_golden(&name, &bytes, LegacyTool::MemoryProfile) else {
            panic!("view kind")
        };
        let stored: Value = serde_json::from_slice(&bytes).unwrap();
        let back = memory_profile::to_xprof_json(&view);
        assert_eq!(back["memoryIds"], stored["memoryIds"], "{name}");
        for (id, a) in stored["memoryProfilePerAllocator"].as_object().unwrap() {
            let written = &back["memoryProfilePerAllocator"][id];
            for key in ["profileSummary", "sampledTimelineSnapshots", "memoryProfileSnapshots"] {
                let a = a.get(key).cloned().unwrap_or_else(|| serde_json::json!([]));
                assert_eq!(written[key], a, "{name} {id} {key}");
            }
        }
    }
    for (name, bytes) in golden_files("op_profile.json") {
        let LegacyView::OpProfile(view) = view_of_golden(&name, &bytes, LegacyTool::OpProfile) else {
            panic!("view kind")
        };
        let stored: Value = serde_json::from_slice(&bytes).unwrap();
        // serde_json (without its float_roundtrip feature) may read a float 1 ulp off.
        json_close(&proflens_analysis::tools::op_profile::to_xprof_json(&view, false), &stored, &name);
    }
}

/// Equal JSON, numbers within a relative 1e-14.
fn json_close(a: &Value, b: &Value, at: &str) {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            assert!(close(x, y, 1e-14 * x.abs().max(y.abs())), "{at}: {x} vs {y}");
        }
        (Value::Array(x), Value::Array(y)) => {
            assert_eq!(x.len(), y.len(), "{at}");
            for (i, (x, y)) in x.iter().zip(y).enumerate() {
                json_close(x, y, &format!("{at}/{i}"));
            }
        }
        (Value::Object(x), Value::Object(y)) => {
            assert_eq!(x.keys().collect::<Vec<_>>(), y.keys().collect::<Vec<_>>(), "{at}");
            for (k, v) in x {
                json_close(v, &y[k], &format!("{at}/{k}"));
            }
        }
        _ => assert_eq!(a, b, "{at}"),
    }
}
