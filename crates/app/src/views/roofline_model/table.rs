//! The table of the chosen records, XProf's columns that matter most, the
//! selected point's row marked.

use proflens_analysis::tools::roofline_model::RooflineRecord;

use crate::widgets::fmt;
use crate::widgets::measure;
use crate::widgets::table::{Column, SortValue};

/// A record as the table shows it: whether it is the selected one.
#[derive(Clone)]
pub struct Row {
    pub record: RooflineRecord,
    pub selected: bool,
}

/// Substring match on the op name or category (`needle` is lower-case).
pub fn row_matches(row: &Row, needle: &str) -> bool {
    [&row.record.operation, &row.record.category].iter().any(|s| s.to_lowercase().contains(needle))
}

pub fn cell_title(row: &Row, column: &'static str) -> Option<String> {
    let r = &row.record;
    match column {
        "source" if !r.source.stack_frame.is_empty() => Some(r.source.stack_frame.clone()),
        _ => None,
    }
}

pub fn columns() -> Vec<Column<Row>> {
    vec![
        Column {
            id: "rank",
            label: "Rank",
            title: "0: the program; then its ops by self time",
            numeric: true,
            value: |r| SortValue::Number(f64::from(r.record.rank)),
            cell: |r| r.record.rank.to_string(),
        },
        Column {
            id: "category",
            label: "Category",
            title: "The HLO op's category (fusion, convolution, data formatting…)",
            numeric: false,
            value: |r| SortValue::Text(&r.record.category),
            cell: |r| r.record.category.clone(),
        },
        Column {
            id: "operation",
            label: "Operation",
            title: "The HLO operation",
            numeric: false,
            value: |r| SortValue::Text(&r.record.operation),
            cell: |r| r.record.operation.clone(),
        },
        Column {
            id: "occurrences",
            label: "Occurrences",
            title: "How many times the op ran",
            numeric: true,
            value: |r| SortValue::Number(r.record.occurrences as f64),
            cell: |r| fmt::count(r.record.occurrences),
        },
        Column {
            id: "total-time",
            label: "Total time (µs)",
            title: "Time of all its runs, µs",
            numeric: true,
            value: |r| SortValue::Number(r.record.total_time_us),
            cell: |r| measure::us(r.record.total_time_us),
        },
        Column {
            id: "self-percent",
            label: "Self time (%)",
            title: "Share of the device time",
            numeric: true,
            value: |r| SortValue::Number(r.record.self_time_fraction),
            cell: |r| fmt::decimal(100.0 * r.record.self_time_fraction, 1),
        },
        Column {
            id: "flop-rate",
            label: "FLOP rate (GFLOP/s)",
            title: "Normalized FLOPs per second of the op's time",
            numeric: true,
            value: |r| SortValue::Number(r.record.measured_flop_rate),
            cell: |r| fmt::decimal(r.record.measured_flop_rate, 1),
        },
        Column {
            id: "memory-bw",
            label: "Memory bw (GiB/s)",
            title: "All bytes accessed per second",
            numeric: true,
            value: |r| SortValue::Number(r.record.measured_memory_bw),
            cell: |r| fmt::decimal(r.record.measured_memory_bw, 1),
        },
        Column {
            id: "hbm-bw",
            label: "HBM bw (GiB/s)",
            title: "Bytes read and written to HBM ÷ time, GiB/s",
            numeric: true,
            value: |r| SortValue::Number(r.record.hbm_bw),
            cell: |r| fmt::decimal(r.record.hbm_bw, 1),
        },
        Column {
            id: "intensity",
            label: "FLOP/byte",
            title: "Operational intensity",
            numeric: true,
            value: |r| SortValue::Number(r.record.operational_intensity),
            cell: |r| fmt::decimal(r.record.operational_intensity, 3),
        },
        Column {
            id: "bound-by",
            label: "Bound by",
            title: "The resource used closest to its peak",
            numeric: false,
            value: |r| SortValue::Text(&r.record.bound_by),
            cell: |r| r.record.bound_by.clone(),
        },
        Column {
            id: "efficiency",
            label: "Roofline efficiency (%)",
            title: "The bound resource's use of its peak (copies can exceed 100%)",
            numeric: true,
            value: |r| SortValue::Number(r.record.roofline_efficiency),
            cell: |r| fmt::decimal(100.0 * r.record.roofline_efficiency, 1),
        },
        Column {
            id: "program",
            label: "Program ID",
            title: "The id of the XLA program (module) the op belongs to",
            numeric: false,
            value: |r| SortValue::Number(r.record.program_id as f64),
            cell: |r| if r.record.rank == 0 { String::new() } else { r.record.program_id.to_string() },
        },
        Column {
            id: "source",
            label: "Source",
            title: "Hover for the stack",
            numeric: false,
            value: |r| SortValue::Text(&r.record.source.file_name),
            cell: |r| {
                let s = &r.record.source;
                if s.file_name.is_empty() {
                    String::new()
                } else {
                    format!("{}:{}", s.file_name, s.line_number)
                }
            },
        },
    ]
}
