//! The TPU form of the input analysis's XProf tables: the step-time table in
//! TensorCore / SparseCore terms, and the table of the core that waited
//! longest for input in each step (XProf's GenerateTpuInputPipelineAnalysis
//! DataTable and GenerateMaxInfeedCoreTable).
//!
//! Proflens reads TPU steps with the generic step rules (XProf derives them
//! from the TPU runtime's per-core step lines, which Proflens does not read
//! yet), so a TPU step's categories map onto XProf's TPU columns: device
//! compute → TensorCore compute, input → TensorCore input, output →
//! TensorCore output, everything else → TensorCore idle; the SparseCoreV0
//! and host-transfer columns stay 0. The profiles at hand have no TPU steps,
//! so only the empty tables are checked against XProf (docs/deviations.md).

use super::*;
use crate::common::datatable::DataTable;
use crate::common::stats::two_digits;
use serde_json::json;

/// One TPU step in XProf's TPU columns, ms.
#[derive(Debug, Clone, PartialEq)]
pub struct TpuStepRow {
    pub name: String,
    pub tc_compute_ms: f64,
    pub scv0_compute_ms: f64,
    pub scv0_infeed_ms: f64,
    pub tc_infeed_ms: f64,
    pub tc_outfeed_ms: f64,
    pub tc_idle_ms: f64,
    pub host_transfer_ms: f64,
    pub step_time_ms: f64,
}

impl TpuStepRow {
    pub fn of(s: &StepBreakdown) -> TpuStepRow {
        let tc_compute_ms = s.device_compute_ms;
        let tc_infeed_ms = s.input_ms();
        let tc_outfeed_ms = s.output_ms;
        TpuStepRow {
            name: s.name.clone(),
            tc_compute_ms,
            scv0_compute_ms: 0.0,
            scv0_infeed_ms: 0.0,
            tc_infeed_ms,
            tc_outfeed_ms,
            tc_idle_ms: (s.step_time_ms - tc_compute_ms - tc_infeed_ms - tc_outfeed_ms).max(0.0),
            host_transfer_ms: 0.0,
            step_time_ms: s.step_time_ms,
        }
    }

    /// Time the TensorCore worked or fed: the step less its idle time.
    pub fn tc_active_ms(&self) -> f64 {
        self.tc_compute_ms + self.tc_infeed_ms + self.tc_outfeed_ms
    }

    pub fn infeed_percent(&self) -> f64 {
        if self.step_time_ms == 0.0 {
            0.0
        } else {
            100.0 * (self.tc_infeed_ms + self.scv0_infeed_ms) / self.step_time_ms
        }
    }
}

/// XProf's ids and labels of the TPU step columns, in order.
pub const TPU_STEP_COLUMNS: [(&str, &str); 7] = [
    ("tcComputeTimeMs", "TensorCore compute (in ms)"),
    ("scv0ComputeTimeMs", "SparseCoreV0 compute (in ms)"),
    ("scv0InfeedTimeMs", "SparseCoreV0 input (in ms)"),
    ("tcInfeedTimeMs", "TensorCore input (in ms)"),
    ("tcOutfeedTimeMs", "TensorCore output (in ms)"),
    ("tcIdleTimeMs", "TensorCore idle (in ms)"),
    ("hostTransferTimeMs", "Host transfer (in ms)"),
];

/// The TPU step-time table with its properties (shared with the overview page).
pub fn tpu_step_table_xprof(a: &InputPipelineAnalysis) -> DataTable {
    let rows: Vec<TpuStepRow> = a.steps.iter().map(TpuStepRow::of).collect();
    let mut t = DataTable::new().column("stepnum", "string", "stepnum");
    let mut graph_ids = vec!["stepnum"];
    for (id, label) in TPU_STEP_COLUMNS {
        t = t.column(id, "number", label);
        graph_ids.push(id);
    }
    graph_ids.push("tooltip");
    t = t
        .role_column("tooltip", "string", "tooltip", "tooltip")
        .column("infeedPercentAverage", "number", "% step time waiting for input data")
        .role_column("infeedPercentMin", "number", "Infeed percent min", "interval")
        .role_column("infeedPercentMax", "number", "Infeed percent max", "interval");
    let summary = |f: fn(&TpuStepRow) -> f64| Summary::of(&rows.iter().map(f).collect::<Vec<_>>());
    let two = |s: Summary| two_digits(Some(s.average));
    // The analysis's step-time summary (a legacy file's printed one where it came from a file).
    let step_time = a.step_time;
    t.property("hardware_type", a.hardware_type.xprof_name());
    t.property("steptime_ms_average", two_digits(Some(step_time.average)));
    t.property("steptime_ms_standard_deviation", two_digits(step_time.standard_deviation));
    t.property("steptime_ms_minimum", two_digits(Some(step_time.minimum)));
    t.property("steptime_ms_maximum", two_digits(Some(step_time.maximum)));
    let infeed = summary(TpuStepRow::infeed_percent);
    t.property("infeed_percent_average", one_digit(Some(infeed.average)));
    t.property("infeed_percent_standard_deviation", one_digit(infeed.standard_deviation));
    t.property("infeed_percent_minimum", one_digit(Some(infeed.minimum)));
    t.property("infeed_percent_maximum", one_digit(Some(infeed.maximum)));
    t.property("step_time_graph_column_ids", graph_ids.join(","));
    t.property("scv0_compute_ms_average", two(summary(|r| r.scv0_compute_ms)));
    t.property("scv0_infeed_ms_average", two(summary(|r| r.scv0_infeed_ms)));
    t.property("tc_compute_ms_average", two(summary(|r| r.tc_compute_ms)));
    t.property("tc_infeed_ms_average", two(summary(|r| r.tc_infeed_ms)));
    t.property("tc_outfeed_ms_average", two(summary(|r| r.tc_outfeed_ms)));
    t.property("tc_idle_ms_average", two(summary(|r| r.tc_idle_ms)));
    t.property("tc_active_ms_average", two(summary(TpuStepRow::tc_active_ms)));
    t.property("active_steptime_ms_average", two(summary(|r| r.step_time_ms - r.tc_idle_ms)));
    t.property("host_transfer_ms_average", two(summary(|r| r.host_transfer_ms)));
    t.property("input_conclusion", a.bottleneck.input_statement.clone());
    t.property("output_conclusion", String::new());
    t.property("summary_nextstep", next_step_xprof(a.next_step));
    for r in &rows {
        let tooltip = format!(
            "step {}:\nTime waiting for input data = {:.3} ms, Step time = {:.3} ms",
            r.name,
            r.tc_infeed_ms + r.scv0_infeed_ms,
            r.step_time_ms
        );
        let percent = r.infeed_percent();
        t.row(vec![
            json!(r.name),
            json!(r.tc_compute_ms),
            json!(r.scv0_compute_ms),
            json!(r.scv0_infeed_ms),
            json!(r.tc_infeed_ms),
            json!(r.tc_outfeed_ms),
            json!(r.tc_idle_ms),
            json!(r.host_transfer_ms),
            json!(tooltip),
            json!(percent),
            json!(percent),
            json!(percent),
        ]);
    }
    t
}

/// XProf's first input-pipeline table on TPUs: per step, the core that waited
/// longest for input. Proflens does not tell cores apart within a step, so
/// each step's core is "unknown", as XProf writes it when it has no name.
pub fn max_infeed_core_table_xprof(a: &InputPipelineAnalysis) -> DataTable {
    let mut t = DataTable::new().column("index", "string", "Index");
    for i in 0..a.steps.len() {
        let index = i.to_string();
        t = t.column(&index, "string", &index);
    }
    let mut steps = vec![json!("Step number")];
    let mut cores = vec![json!("Core name")];
    for s in &a.steps {
        steps.push(json!(s.name));
        cores.push(json!("unknown"));
    }
    t.row(steps);
    t.row(cores);
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passes::steps::StepDb;

    fn step(name: &str, compute: f64, input: f64, output: f64, total: f64) -> StepBreakdown {
        StepBreakdown {
            name: name.into(),
            step_time_ms: total,
            device_compute_ms: compute,
            device_to_device_ms: 0.0,
            device_collectives_ms: 0.0,
            host_compute_ms: 0.0,
            kernel_launch_ms: 0.0,
            host_wait_input_ms: input,
            host_to_device_ms: 0.0,
            output_ms: output,
            compile_ms: 0.0,
            other_ms: total - compute - input - output,
        }
    }

    #[test]
    fn steps_map_onto_tensorcore_columns() {
        let r = TpuStepRow::of(&step("3", 6.0, 2.0, 1.0, 10.0));
        assert_eq!((r.tc_compute_ms, r.tc_infeed_ms, r.tc_outfeed_ms, r.tc_idle_ms), (6.0, 2.0, 1.0, 1.0));
        assert_eq!(r.tc_active_ms(), 9.0);
        assert_eq!(r.infeed_percent(), 20.0);
    }

    #[test]
    fn tpu_tables_have_a_row_or_column_per_step() {
        let mut a = analyze(&StepDb::default(), HardwareType::Tpu, &[]);
        a.steps = vec![step("7", 6.0, 2.0, 1.0, 10.0), step("8", 8.0, 0.0, 0.0, 10.0)];
        a.step_time = Summary::of(&[10.0, 10.0]);
        let steps = tpu_step_table_xprof(&a).into_json();
        assert_eq!(steps["rows"].as_array().map(Vec::len), Some(2));
        assert_eq!(steps["p"]["tc_compute_ms_average"], "7.00");
        assert_eq!(steps["p"]["infeed_percent_maximum"], "20.0");
        assert_eq!(steps["p"]["steptime_ms_average"], "10.00");
        let cores = max_infeed_core_table_xprof(&a).into_json();
        assert_eq!(cores["cols"].as_array().map(Vec::len), Some(3));
        assert_eq!(cores["rows"][0]["c"][2]["v"], "8");
        assert_eq!(cores["rows"][1]["c"][1]["v"], "unknown");
    }
}
