//! The TPU step table of the TPU tools' JSON (the Cloud TPU guide's
//! `<host>.overview_page.json` / `.input_pipeline.json`, and XProf's TPU
//! JSON): each step's TensorCore and SparseCore times as the file has them.
//!
//! Four generations of column ids are read:
//! - XProf / TensorBoard ≥ 2.2: `tcComputeTimeMs`, `scv0ComputeTimeMs`,
//!   `scv0InfeedTimeMs`, `tcInfeedTimeMs`, `tcOutfeedTimeMs`, `tcIdleTimeMs`,
//!   `hostTransferTimeMs`;
//! - TensorBoard 1.x TPU tools: the same with BarnaCore (`bcComputeTimeMs`,
//!   `bcInfeedTimeMs`) instead of SparseCore;
//! - the first TPU tools (`capture_tpu_profile`, 2018): `noninfeedTimeMs`
//!   (TensorCore compute) and `infeedTimeMs` (waiting for input);
//! - the Cloud TPU tools of 2020 (TensorBoard's profile plugin demo
//!   `Cloud-TPU`): `computeTimeMs`, `inputTimeMs`, `idleTimeMs` (and
//!   `stepTimeMs` or the tooltip's step time), with the averages
//!   `compute_ms_average`, `input_ms_average`, `idle_ms_average`. The
//!   frontend of that time (tensorflow/profiler
//!   `frontend/app/components/overview_page/step_time_graph/step_time_graph.ts`,
//!   `COLUMN_IDS_FOR_TPU`; `mock_data.ts`) stacks exactly those columns and
//!   reads a table without `hardware_type` as a TPU's.
//!
//! A step's time is, by XProf's rule (`tpu_step_details_utils.h`,
//! `StepTimeMs`), TensorCore + SparseCore compute, TensorCore + SparseCore
//! input, all-reduce, outfeed and idle: [`TpuStep::categories_ms`] is that
//! sum over the columns a table has (it has no all-reduce column).

use crate::common::stats::Summary;
use proflens_format::legacy::GvizTable;
use serde::{Deserialize, Serialize};

/// One step of the TPU step table, ms.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TpuStep {
    pub name: String,
    /// The file's step time: its tooltip's "Step time = …", else the sum of
    /// the TensorCore times.
    pub step_time_ms: f64,
    pub tc_compute_ms: f64,
    /// SparseCore v0 (or BarnaCore) compute.
    pub sc_compute_ms: f64,
    /// SparseCore v0 (or BarnaCore) waiting for input.
    pub sc_infeed_ms: f64,
    pub tc_infeed_ms: f64,
    pub tc_outfeed_ms: f64,
    pub tc_idle_ms: f64,
    pub host_transfer_ms: f64,
    /// Percent of the step waiting for input, averaged over the cores, with
    /// the least and most of any core (the chart's error bar).
    pub infeed_percent_average: f64,
    pub infeed_percent_minimum: f64,
    pub infeed_percent_maximum: f64,
}

/// The TPU step table of a file: its steps and the averages it prints.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TpuStepAnalysis {
    /// `SparseCoreV0`, `BarnaCore`, or empty when the file has no second core's columns.
    pub sparse_core: String,
    pub steps: Vec<TpuStep>,
    /// Averages per step, ms: the file's printed ones (`tc_compute_ms_average`
    /// …) where it has them, else over the steps.
    pub tc_compute_ms: Summary,
    pub sc_compute_ms: Summary,
    pub sc_infeed_ms: Summary,
    pub tc_infeed_ms: Summary,
    pub tc_outfeed_ms: Summary,
    pub tc_idle_ms: Summary,
    pub host_transfer_ms: Summary,
}

/// Column ids only a TPU step table has.
const TPU_ONLY_COLUMNS: [&str; 10] = [
    "tcComputeTimeMs",
    "noninfeedTimeMs",
    "computeTimeMs",
    "inputTimeMs",
    "idleTimeMs",
    "tcInfeedTimeMs",
    "tcIdleTimeMs",
    "bcComputeTimeMs",
    "scv0ComputeTimeMs",
    "hostTransferTimeMs",
];

/// Whether `t` is a TPU step table (by its columns; old files have no
/// `hardware_type` property).
pub fn is_tpu_table(t: &GvizTable) -> bool {
    t.property("hardware_type") == Some("TPU") || TPU_ONLY_COLUMNS.iter().any(|c| t.column(c).is_some())
}

/// `"step 3:\nTime waiting for input data = 0.000 ms, Step time = 120.882 ms"` → 120.882.
fn tooltip_step_time(tooltip: &str) -> Option<f64> {
    let rest = &tooltip[tooltip.find("Step time")? + "Step time".len()..];
    let rest = rest.trim_start().strip_prefix('=')?.trim_start();
    let end = rest.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == 'e')).unwrap_or(rest.len());
    rest[..end].parse().ok().filter(|v: &f64| v.is_finite())
}

/// The first of `ids` that the table has, read in `row` (0 when none).
fn first_of(t: &GvizTable, row: &[serde_json::Value], ids: &[&str]) -> f64 {
    ids.iter().find(|id| t.column(id).is_some()).and_then(|id| t.number(row, id)).unwrap_or(0.0)
}

fn step_of(t: &GvizTable, row: &[serde_json::Value]) -> TpuStep {
    let n = |ids: &[&str]| first_of(t, row, ids);
    let mut step = TpuStep {
        name: t.text(row, "stepnum").unwrap_or_default(),
        step_time_ms: 0.0,
        tc_compute_ms: n(&["tcComputeTimeMs", "noninfeedTimeMs", "computeTimeMs"]),
        sc_compute_ms: n(&["scv0ComputeTimeMs", "bcComputeTimeMs"]),
        sc_infeed_ms: n(&["scv0InfeedTimeMs", "bcInfeedTimeMs"]),
        tc_infeed_ms: n(&["tcInfeedTimeMs", "infeedTimeMs", "inputTimeMs"]),
        tc_outfeed_ms: n(&["tcOutfeedTimeMs"]),
        tc_idle_ms: n(&["tcIdleTimeMs", "idleTimeMs"]),
        host_transfer_ms: n(&["hostTransferTimeMs"]),
        infeed_percent_average: n(&["infeedPercentAverage"]),
        infeed_percent_minimum: n(&["infeedPercentMin"]),
        infeed_percent_maximum: n(&["infeedPercentMax"]),
    };
    step.step_time_ms = t
        .number(row, "stepTimeMs")
        .or_else(|| t.text(row, "tooltip").as_deref().and_then(tooltip_step_time))
        .unwrap_or(step.tc_compute_ms + step.tc_infeed_ms + step.tc_outfeed_ms + step.tc_idle_ms);
    step
}

impl TpuStep {
    /// XProf's step time from the categories (`StepTimeMs` in
    /// `tpu_step_details_utils.h`, less the all-reduce no table has):
    /// what the step chart's stacked columns add up to.
    pub fn categories_ms(&self) -> f64 {
        self.tc_compute_ms
            + self.sc_compute_ms
            + self.tc_infeed_ms
            + self.sc_infeed_ms
            + self.tc_outfeed_ms
            + self.tc_idle_ms
    }
}

/// A printed average (`<key>_average`) where the file has one, else the steps' summary.
fn average(t: &GvizTable, keys: &[&str], values: Vec<f64>) -> Summary {
    let computed = Summary::of(&values);
    match keys.iter().find_map(|k| t.property_number(&format!("{k}_average"))) {
        Some(average) => Summary { average, ..computed },
        None => computed,
    }
}

/// The TPU step table `t` as the file has it; `None` when it is not one.
pub fn tpu_steps_from_table(t: &GvizTable) -> Option<TpuStepAnalysis> {
    if !is_tpu_table(t) {
        return None;
    }
    let steps: Vec<TpuStep> = t.rows.iter().map(|row| step_of(t, row)).collect();
    let col = |f: fn(&TpuStep) -> f64| steps.iter().map(f).collect::<Vec<_>>();
    let sparse_core = if t.column("scv0ComputeTimeMs").is_some() || t.column("scv0InfeedTimeMs").is_some() {
        "SparseCoreV0"
    } else if t.column("bcComputeTimeMs").is_some() || t.column("bcInfeedTimeMs").is_some() {
        "BarnaCore"
    } else {
        ""
    };
    Some(TpuStepAnalysis {
        sparse_core: sparse_core.to_string(),
        tc_compute_ms: average(t, &["tc_compute_ms", "compute_ms"], col(|s| s.tc_compute_ms)),
        sc_compute_ms: average(t, &["scv0_compute_ms", "bc_compute_ms"], col(|s| s.sc_compute_ms)),
        sc_infeed_ms: average(t, &["scv0_infeed_ms", "bc_infeed_ms"], col(|s| s.sc_infeed_ms)),
        tc_infeed_ms: average(t, &["tc_infeed_ms", "input_ms"], col(|s| s.tc_infeed_ms)),
        tc_outfeed_ms: average(t, &["tc_outfeed_ms"], col(|s| s.tc_outfeed_ms)),
        tc_idle_ms: average(t, &["tc_idle_ms", "idle_ms"], col(|s| s.tc_idle_ms)),
        host_transfer_ms: average(t, &["host_transfer_ms"], col(|s| s.host_transfer_ms)),
        steps,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proflens_format::legacy::GvizColumn;
    use serde_json::json;

    fn table(ids: &[&str], rows: Vec<Vec<serde_json::Value>>) -> GvizTable {
        GvizTable {
            columns: ids.iter().map(|id| GvizColumn { id: id.to_string(), ..GvizColumn::default() }).collect(),
            rows,
            properties: Default::default(),
        }
    }

    #[test]
    fn reads_the_first_tpu_tools_columns() {
        let t = table(
            &["stepnum", "noninfeedTimeMs", "infeedTimeMs", "tooltip"],
            vec![vec![json!("7"), json!(20.5), json!(79.5), json!("step 7:\nStep time = 100.25 ms")]],
        );
        let a = tpu_steps_from_table(&t).unwrap();
        assert_eq!(a.sparse_core, "");
        let s = &a.steps[0];
        assert_eq!((s.name.as_str(), s.tc_compute_ms, s.tc_infeed_ms), ("7", 20.5, 79.5));
        // The tooltip's step time wins over the sum.
        assert_eq!(s.step_time_ms, 100.25);
        assert_eq!(a.tc_compute_ms.average, 20.5);
    }

    #[test]
    fn barnacore_columns_and_printed_averages() {
        let mut t = table(
            &["stepnum", "tcComputeTimeMs", "bcComputeTimeMs", "bcInfeedTimeMs", "tcInfeedTimeMs", "tcIdleTimeMs"],
            vec![vec![json!("1"), json!(2.0), json!(1.0), json!(0.5), json!(3.0), json!(0.25)]],
        );
        t.properties.insert("tc_compute_ms_average".into(), json!("2.10"));
        let a = tpu_steps_from_table(&t).unwrap();
        assert_eq!(a.sparse_core, "BarnaCore");
        assert_eq!((a.steps[0].sc_compute_ms, a.steps[0].sc_infeed_ms), (1.0, 0.5));
        assert_eq!(a.steps[0].step_time_ms, 2.0 + 3.0 + 0.25);
        assert_eq!(a.tc_compute_ms.average, 2.1);
        assert_eq!(a.tc_idle_ms.average, 0.25);
    }

    #[test]
    fn reads_the_2020_cloud_tpu_columns() {
        // The column ids and properties of tensorflow/profiler's frontend
        // mock of that layout (mock_data.ts); the numbers are invented.
        let mut t = table(
            &["stepnum", "computeTimeMs", "inputTimeMs", "idleTimeMs", "tooltip"],
            vec![vec![
                json!("1491"),
                json!(1.25),
                json!(1.5),
                json!(0.25),
                json!("step 1491:\nTime waiting for input data = 1.500 ms, Step time = 3.000 ms"),
            ]],
        );
        for (k, v) in [("compute_ms_average", "1.3"), ("input_ms_average", "1.5"), ("idle_ms_average", "0.2")] {
            t.properties.insert(k.into(), json!(v));
        }
        assert!(is_tpu_table(&t), "no hardware type: the columns tell");
        let a = tpu_steps_from_table(&t).unwrap();
        let s = &a.steps[0];
        assert_eq!((s.tc_compute_ms, s.tc_infeed_ms, s.tc_idle_ms, s.step_time_ms), (1.25, 1.5, 0.25, 3.0));
        assert_eq!(s.categories_ms(), 3.0);
        assert_eq!((a.tc_compute_ms.average, a.tc_infeed_ms.average, a.tc_idle_ms.average), (1.3, 1.5, 0.2));
        // A `stepTimeMs` column, where the layout has one, is the step time.
        let t = table(&["stepnum", "stepTimeMs", "computeTimeMs"], vec![vec![json!("1"), json!(9.5), json!(2.0)]]);
        assert_eq!(tpu_steps_from_table(&t).unwrap().steps[0].step_time_ms, 9.5);
    }

    #[test]
    fn a_generic_table_is_not_a_tpu_one() {
        let t = table(&["stepnum", "deviceComputeTimeMs", "infeedTimeMs"], vec![]);
        assert!(tpu_steps_from_table(&t).is_none());
        assert_eq!(tooltip_step_time("Step time = abc"), None);
        assert_eq!(tooltip_step_time("x"), None);
    }
}
