//! The input analysis as XProf's JSON tables and as CSV: the input pipeline
//! analyzer's output, and the overview's step table.

use super::*;
use crate::common::csv::csv_field;
use crate::common::datatable::DataTable;
use serde_json::{json, Value};

fn doc_link(url: &str, text: &str) -> String {
    format!("<a href=\"{url}\" target=\"_blank\">{text}</a>")
}

/// XProf's wording of the next step (with its HTML link).
pub fn next_step_xprof(next: NextStep) -> String {
    match next {
        NextStep::UseTfData => format!(
            "Consider using {} to enable profiler's host-side analysis for input pipeline. Profiler currently does not support custom input pipeline (please ignore Section 3 below).",
            doc_link("https://www.tensorflow.org/guide/data", "the tf.data API")
        ),
        NextStep::LookAtHostAnalysis => "Look at Section 3 for the breakdown of input time on the host.".into(),
        NextStep::Skip => "You may skip the rest of this page.".into(),
    }
}

/// The five standing tips of the input pipeline page, as XProf words them.
fn recommendations_xprof() -> Vec<String> {
    let topic = "https://www.tensorflow.org/api_docs/python/tf/data/Dataset#";
    let tfrecord = "https://www.tensorflow.org/api_docs/python/tf/data/TFRecordDataset#class_tfrecorddataset";
    vec![
        "Enqueuing data: you may want to combine small input data chunks into fewer but larger chunks.".into(),
        format!(
            "Data preprocessing: you may increase num_parallel_calls in {} or preprocess the data OFFLINE.",
            doc_link(&format!("{topic}map"), "Dataset map()")
        ),
        format!(
            "Reading data from files in advance: you may tune parameters in the following tf.data API ({}, {}, {})",
            doc_link(&format!("{topic}prefetch"), "prefetch size"),
            doc_link(&format!("{topic}interleave"), "interleave cycle_length"),
            doc_link(tfrecord, "reader buffer_size")
        ),
        format!(
            "Reading data from files on demand: you should read data IN ADVANCE using the following tf.data API ({}, {}, {})",
            doc_link(&format!("{topic}prefetch"), "prefetch"),
            doc_link(&format!("{topic}interleave"), "interleave"),
            doc_link(tfrecord, "reader buffer")
        ),
        format!(
            "Other data reading or processing: you may consider using the {} (if you are not using it now)",
            doc_link("https://www.tensorflow.org/programmers_guide/datasets", "tf.data API")
        ),
    ]
}

/// The step-time table with its properties (shared with the overview page):
/// XProf's TPU table on TPUs, its generic one elsewhere.
pub fn step_table_xprof(a: &InputPipelineAnalysis) -> DataTable {
    if a.hardware_type == HardwareType::Tpu {
        return tpu_step_table_xprof(a);
    }
    let mut t = DataTable::new()
        .column("stepnum", "string", "Step number")
        .column("deviceComputeTimeMs", "number", "Device compute")
        .column("deviceToDeviceTimeMs", "number", "Device to device")
        .column("deviceCollectivesTimeMs", "number", "Device collective communication")
        .column("hostComputeTimeMs", "number", "Host compute")
        .column("kernelLaunchTimeMs", "number", "Kernel launch")
        .column("infeedTimeMs", "number", "Input")
        .column("outfeedTimeMs", "number", "Output")
        .column("compileTimeMs", "number", "Compilation")
        .column("otherTimeMs", "number", "All others")
        .role_column("tooltip", "string", "tooltip", "tooltip")
        .column("stepTimeMs", "number", "Step time");
    t.property(
        "step_time_graph_column_ids",
        "stepnum,deviceComputeTimeMs,deviceToDeviceTimeMs,deviceCollectivesTimeMs,hostComputeTimeMs,kernelLaunchTimeMs,infeedTimeMs,outfeedTimeMs,compileTimeMs,otherTimeMs, tooltip",
    );
    t.property("hardware_type", a.hardware_type.xprof_name());
    t.property("steptime_ms_average", one_digit(Some(a.step_time.average)));
    t.property("steptime_ms_standard_deviation", one_digit(a.step_time.standard_deviation));
    t.property("steptime_ms_minimum", one_digit(Some(a.step_time.minimum)));
    t.property("steptime_ms_maximum", one_digit(Some(a.step_time.maximum)));
    let b = &a.breakdown;
    for (key, s) in [
        ("device_compute_time_ms", &b.device_compute),
        ("device_to_device_time_ms", &b.device_to_device),
        ("device_collectives_time_ms", &b.device_collectives),
        ("infeed_time_ms", &b.input),
        ("outfeed_time_ms", &b.output),
        ("host_compute_time_ms", &b.host_compute),
        ("kernel_launch_time_ms", &b.kernel_launch),
        ("compile_time_ms", &b.compile),
        ("other_time_ms", &b.other),
    ] {
        t.property(&format!("{key}_avg"), one_digit(Some(s.average)));
        t.property(&format!("{key}_sdv"), one_digit(s.standard_deviation));
    }
    let n = &a.bottleneck;
    t.property("input_conclusion", n.input_statement.clone());
    for (key, statement) in [
        ("device_collectives", &n.device_collectives_statement),
        ("kernel_launch", &n.kernel_launch_statement),
        ("all_other", &n.all_other_statement),
    ] {
        // XProf fills both keys with the statement.
        t.property(&format!("{key}_bottleneck"), statement.clone());
        t.property(&format!("{key}_statement"), statement.clone());
    }
    t.property("summary_nextstep", next_step_xprof(a.next_step));
    for s in &a.steps {
        let tooltip = format!(
            "Step {}, duration: {:.2} ms\n-All others: {:.2} ms\n-Compilation: {:.2} ms\n-Output: {:.2} ms\n-Input: {:.2} ms\n-Kernel launch: {:.2} ms\n-Host compute: {:.2} ms\n-Device collectives: {:.2} ms\n-Device to device: {:.2} ms\n-Device compute: {:.2} ms",
            s.name,
            s.step_time_ms,
            s.other_ms,
            s.compile_ms,
            s.output_ms,
            s.input_ms(),
            s.kernel_launch_ms,
            s.host_compute_ms,
            s.device_collectives_ms,
            s.device_to_device_ms,
            s.device_compute_ms
        );
        t.row(vec![
            json!(s.name),
            json!(s.device_compute_ms),
            json!(s.device_to_device_ms),
            json!(s.device_collectives_ms),
            json!(s.host_compute_ms),
            json!(s.kernel_launch_ms),
            json!(s.input_ms()),
            json!(s.output_ms),
            json!(s.compile_ms),
            json!(s.other_ms),
            json!(tooltip),
            json!(s.step_time_ms),
        ]);
    }
    t
}

pub fn diagnostics_table_xprof(diagnostics: &[Diagnostic]) -> DataTable {
    let mut t = DataTable::new().column("severity", "string", "Severity").column("message", "string", "Message");
    for d in diagnostics {
        t.row(vec![json!(d.severity), json!(d.message)]);
    }
    t
}

/// XProf 2.24's `input_pipeline_analyzer` JSON.
pub fn to_xprof_json(a: &InputPipelineAnalysis) -> Value {
    let mut host = DataTable::new()
        .column("opName", "string", "Input Op")
        .column("count", "number", "Count")
        .column("timeInMs", "number", "Total Time (in ms)")
        .column("timeInPercent", "number", "Total Time (as % of total input-processing time)")
        .column("selfTimeInMs", "number", "Total Self Time (in ms)")
        .column("selfTimeInPercent", "number", "Total Self Time (as % of total input-processing time)")
        .column("category", "string", "Category");
    for op in &a.input_ops {
        host.row(vec![
            json!(op.name),
            json!(op.count as f64),
            json!(op.time_ms),
            json!(op.time_fraction),
            json!(op.self_time_ms),
            json!(op.self_time_fraction),
            json!(op.category),
        ]);
    }
    let b = &a.input_time;
    host.property("enqueue_us", format!("{:.3}", b.enqueue_us));
    host.property("demanded_file_read_us", format!("{:.3}", b.demanded_file_read_us));
    host.property("advanced_file_read_us", format!("{:.3}", b.advanced_file_read_us));
    host.property("preprocessing_us", format!("{:.3}", b.preprocessing_us));
    host.property("unclassified_nonequeue_us", format!("{:.3}", b.unclassified_non_enqueue_us));
    let mut tips = DataTable::new().column("link", "string", "link");
    for tip in recommendations_xprof() {
        tips.row(vec![json!(tip)]);
    }
    // XProf fills its first table (the core that waited longest for input) on TPUs only.
    let max_infeed_core = if a.hardware_type == HardwareType::Tpu {
        max_infeed_core_table_xprof(a).into_json()
    } else {
        json!({"cols": [], "rows": []})
    };
    json!([
        max_infeed_core,
        step_table_xprof(a).into_json(),
        host.into_json(),
        tips.into_json(),
        diagnostics_table_xprof(&a.diagnostics).into_json(),
    ])
}

/// The step-time table as CSV (ms per step and category).
pub fn steps_csv(a: &InputPipelineAnalysis) -> String {
    let mut out = String::from("step,step_time_ms,device_compute_ms,device_to_device_ms,device_collectives_ms,host_compute_ms,kernel_launch_ms,input_ms,output_ms,compile_ms,all_others_ms\n");
    for s in &a.steps {
        out += &format!(
            "{},{},{},{},{},{},{},{},{},{},{}\n",
            csv_field(&s.name),
            s.step_time_ms,
            s.device_compute_ms,
            s.device_to_device_ms,
            s.device_collectives_ms,
            s.host_compute_ms,
            s.kernel_launch_ms,
            s.input_ms(),
            s.output_ms,
            s.compile_ms,
            s.other_ms
        );
    }
    out
}

/// The input-op table as CSV.
pub fn input_ops_csv(a: &InputPipelineAnalysis) -> String {
    let mut out = String::from("input_op,count,total_ms,total_fraction,self_ms,self_fraction,category\n");
    for op in &a.input_ops {
        out += &format!(
            "{},{},{},{},{},{},{}\n",
            csv_field(&op.name),
            op.count,
            op.time_ms,
            op.time_fraction,
            op.self_time_ms,
            op.self_time_fraction,
            csv_field(&op.category)
        );
    }
    out
}
