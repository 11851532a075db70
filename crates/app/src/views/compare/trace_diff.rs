//! HTA's trace diff of two PyTorch traces: per event name, calls and summed
//! durations on each side and their differences, in HTA's column names,
//! plus the same per iteration (each side divided by its own number of
//! iterations, so traces of different lengths compare). Filter, sort, CSV.

use std::sync::Arc;

use leptos::prelude::*;
use proflens_analysis::compare::{self, Comparison, TraceDiffRow};

use crate::widgets::fmt;
use crate::widgets::table::{Column, Filter, FilterExportBar, SortValue, SortableTable, ToolbarText};

/// A row with the iteration counts of both sides, for the per-iteration columns.
pub struct Row {
    pub row: TraceDiffRow,
    pub control_iterations: f64,
    pub test_iterations: f64,
}

impl Row {
    fn control_counts_per_iteration(&self) -> f64 {
        self.row.control_counts as f64 / self.control_iterations
    }
    fn test_counts_per_iteration(&self) -> f64 {
        self.row.test_counts as f64 / self.test_iterations
    }
    fn control_duration_per_iteration(&self) -> f64 {
        self.row.control_total_duration / self.control_iterations
    }
    fn test_duration_per_iteration(&self) -> f64 {
        self.row.test_total_duration / self.test_iterations
    }
}

/// Rows with their sides' iteration counts (a side without any counts as one:
/// its whole trace is its one iteration).
pub fn rows(comparison: &Comparison) -> Vec<Row> {
    let Some(diff) = &comparison.trace_diff else { return Vec::new() };
    let (control, test) = (diff.control_iterations.len().max(1) as f64, diff.test_iterations.len().max(1) as f64);
    diff.rows.iter().map(|r| Row { row: r.clone(), control_iterations: control, test_iterations: test }).collect()
}

#[component]
pub fn TraceDiffView(comparison: Comparison) -> impl IntoView {
    let Some(diff) = comparison.trace_diff.clone() else { return ().into_any() };
    let iterations = |its: &[i64]| match its {
        [] => "the whole trace".to_string(),
        [one] => format!("iteration {one}"),
        [first, .., last] => format!("{} ({first}–{last})", fmt::plural(its.len(), "iteration", "iterations")),
    };
    let note = format!(
        "Control (baseline): {}; test (candidate): {}. Durations in µs; “per iteration” divides each side by its own iterations.",
        iterations(&diff.control_iterations),
        iterations(&diff.test_iterations)
    );
    let rows: Arc<Vec<Row>> = Arc::new(rows(&comparison));
    let count = rows.len();
    let filter_text = RwSignal::new(String::new());
    let csv = StoredValue::new(compare::report::csv(&comparison));
    let toolbar = ToolbarText {
        filter_id: "trace-diff-filter",
        filter_label: "Filter by name",
        placeholder: "e.g. cudaMemcpyAsync",
        export_id: "export-compare",
        export_label: "Export table (CSV)",
        file_name: "trace_diff.csv",
    };
    view! {
        <p id="trace-diff-iterations" class="note">{note}</p>
        <FilterExportBar text=toolbar filter=filter_text csv=move || csv.get_value()/>
        <div class="table-scroll">
            <SortableTable
                id="trace-diff"
                caption=format!(
                    "{}, largest change in duration first — select a heading to sort",
                    fmt::plural(count, "event name", "event names"),
                )
                columns=columns()
                rows=Signal::derive(move || rows.clone())
                filter=Filter { text: filter_text.into(), matches: |r: &Row, needle: &str| r.row.name.to_lowercase().contains(needle) }
                empty="No event matches the filter."
            />
        </div>
    }
    .into_any()
}

fn columns() -> Vec<Column<Row>> {
    let number = |id, label, title, value: for<'a> fn(&'a Row) -> SortValue<'a>, cell: fn(&Row) -> String| Column {
        id,
        label,
        title,
        numeric: true,
        value,
        cell,
    };
    vec![
        Column {
            id: "name",
            label: "name",
            title: "The operator or kernel name, matched between baseline (control) and candidate (test)",
            numeric: false,
            value: |r| SortValue::Text(&r.row.name),
            cell: |r| r.row.name.clone(),
        },
        number(
            "control_counts",
            "control_counts",
            "Calls in the baseline",
            |r| SortValue::Number(r.row.control_counts as f64),
            |r| fmt::count(r.row.control_counts),
        ),
        number(
            "control_total_duration",
            "control_total_duration",
            "µs in the baseline",
            |r| SortValue::Number(r.row.control_total_duration),
            |r| fmt::decimal(r.row.control_total_duration, 1),
        ),
        number(
            "test_counts",
            "test_counts",
            "Calls in the candidate",
            |r| SortValue::Number(r.row.test_counts as f64),
            |r| fmt::count(r.row.test_counts),
        ),
        number(
            "test_total_duration",
            "test_total_duration",
            "µs in the candidate",
            |r| SortValue::Number(r.row.test_total_duration),
            |r| fmt::decimal(r.row.test_total_duration, 1),
        ),
        number(
            "diff_counts",
            "diff_counts",
            "test_counts − control_counts",
            |r| SortValue::Number(r.row.diff_counts as f64),
            |r| fmt::signed(r.row.diff_counts as f64, 0),
        ),
        number(
            "diff_duration",
            "diff_duration",
            "test − control, µs",
            |r| SortValue::Number(r.row.diff_duration),
            |r| fmt::signed(r.row.diff_duration, 1),
        ),
        Column {
            id: "counts_change_categories",
            label: "counts_change_categories",
            title: "+ more calls, - fewer, = as many",
            numeric: false,
            value: |r| SortValue::Text(&r.row.counts_change_categories),
            cell: |r| r.row.counts_change_categories.clone(),
        },
        number(
            "control_counts_per_iteration",
            "control calls / iteration",
            "",
            |r| SortValue::Number(r.control_counts_per_iteration()),
            |r| fmt::decimal(r.control_counts_per_iteration(), 2),
        ),
        number(
            "test_counts_per_iteration",
            "test calls / iteration",
            "",
            |r| SortValue::Number(r.test_counts_per_iteration()),
            |r| fmt::decimal(r.test_counts_per_iteration(), 2),
        ),
        number(
            "diff_counts_per_iteration",
            "diff calls / iteration",
            "Per-iteration test − control",
            |r| SortValue::Number(r.test_counts_per_iteration() - r.control_counts_per_iteration()),
            |r| fmt::signed(r.test_counts_per_iteration() - r.control_counts_per_iteration(), 2),
        ),
        number(
            "control_duration_per_iteration",
            "control µs / iteration",
            "",
            |r| SortValue::Number(r.control_duration_per_iteration()),
            |r| fmt::decimal(r.control_duration_per_iteration(), 1),
        ),
        number(
            "test_duration_per_iteration",
            "test µs / iteration",
            "",
            |r| SortValue::Number(r.test_duration_per_iteration()),
            |r| fmt::decimal(r.test_duration_per_iteration(), 1),
        ),
        number(
            "diff_duration_per_iteration",
            "diff µs / iteration",
            "Per-iteration test − control",
            |r| SortValue::Number(r.test_duration_per_iteration() - r.control_duration_per_iteration()),
            |r| fmt::signed(r.test_duration_per_iteration() - r.control_duration_per_iteration(), 1),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use proflens_analysis::compare::TraceDiff;

    #[test]
    fn per_iteration_divides_each_side_by_its_own_iterations() {
        let row = TraceDiffRow {
            name: "cudaMemcpyAsync".into(),
            control_counts: 10,
            control_total_duration: 100.0,
            test_counts: 30,
            test_total_duration: 90.0,
            diff_counts: 20,
            diff_duration: -10.0,
            counts_change_categories: "+".into(),
        };
        let diff = TraceDiff { control_iterations: vec![1, 2], test_iterations: vec![], rows: vec![row] };
        let json = serde_json::json!({
            "tool": "trace_diff",
            "base": {"label": "a", "kind": "", "device_type": "", "device_count": 0, "hosts": 1, "steps": 0, "step_marker": ""},
            "candidate": {"label": "b", "kind": "", "device_type": "", "device_count": 0, "hosts": 1, "steps": 0, "step_marker": ""},
            "differences": [], "notes": [], "step_time_ms": null, "verdict": "", "metrics": [],
            "table": null, "tree": null, "trace_diff": diff,
        });
        let comparison: Comparison = serde_json::from_value(json).expect("a comparison");
        let rows = rows(&comparison);
        assert_eq!(rows[0].control_counts_per_iteration(), 5.0);
        assert_eq!(rows[0].test_counts_per_iteration(), 30.0);
        assert_eq!(rows[0].control_duration_per_iteration(), 50.0);
        assert_eq!(rows[0].test_duration_per_iteration(), 90.0);
    }
}
