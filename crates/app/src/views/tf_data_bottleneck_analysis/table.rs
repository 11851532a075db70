//! The pipelines table's rows and columns: one row per pipeline with its
//! latencies and bottleneck iterator.

use proflens_analysis::tools::tf_data::Pipeline;

use crate::widgets::fmt;
use crate::widgets::measure;
use crate::widgets::table::{Column, SortValue};

/// One row of the pipelines table.
pub struct PipelineRow {
    pub host: String,
    pub name: String,
    pub calls: u64,
    pub slow_calls: u64,
    pub min_ps: f64,
    pub average_ps: f64,
    pub max_ps: f64,
    pub bottleneck: String,
    pub bottleneck_long_name: String,
}

impl PipelineRow {
    pub(super) fn of(p: &Pipeline) -> PipelineRow {
        let b = p.bottleneck();
        PipelineRow {
            host: p.host.clone(),
            name: p.name.clone(),
            calls: p.calls,
            slow_calls: p.slow_calls,
            min_ps: p.min_ps as f64,
            average_ps: p.average_ps,
            max_ps: p.max_ps as f64,
            bottleneck: b.map(|n| n.name.clone()).unwrap_or_default(),
            bottleneck_long_name: b.map(|n| n.long_name.clone()).unwrap_or_default(),
        }
    }
}

pub(super) fn pipeline_title(row: &PipelineRow, column: &'static str) -> Option<String> {
    (column == "bottleneck" && !row.bottleneck_long_name.is_empty()).then(|| row.bottleneck_long_name.clone())
}

pub(super) fn pipeline_columns() -> Vec<Column<PipelineRow>> {
    vec![
        Column {
            id: "host",
            label: "Host",
            title: "The host that ran the input pipeline",
            numeric: false,
            value: |r| SortValue::Text(&r.host),
            cell: |r| r.host.clone(),
        },
        Column {
            id: "pipeline",
            label: "Pipeline",
            title: "Host: fed by the host; Device: feeds a device through a generator",
            numeric: false,
            value: |r| SortValue::Text(&r.name),
            cell: |r| r.name.clone(),
        },
        Column {
            id: "calls",
            label: "Calls",
            title: "GetNext calls of the pipeline's root iterator",
            numeric: true,
            value: |r| SortValue::Number(r.calls as f64),
            cell: |r| fmt::count(r.calls),
        },
        Column {
            id: "slow-calls",
            label: "Slow calls (>50 µs)",
            title: "Calls to the pipeline's iterator that took more than 50 µs",
            numeric: true,
            value: |r| SortValue::Number(r.slow_calls as f64),
            cell: |r| fmt::count(r.slow_calls),
        },
        Column {
            id: "min",
            label: "Min. latency (µs)",
            title: "Fastest call to the pipeline's iterator, µs",
            numeric: true,
            value: |r| SortValue::Number(r.min_ps / 1e6),
            cell: |r| measure::us(r.min_ps / 1e6),
        },
        Column {
            id: "avg",
            label: "Avg. latency (µs)",
            title: "Mean time of a call to the pipeline's iterator, µs",
            numeric: true,
            value: |r| SortValue::Number(r.average_ps / 1e6),
            cell: |r| measure::us(r.average_ps / 1e6),
        },
        Column {
            id: "max",
            label: "Max. latency (µs)",
            title: "Slowest call to the pipeline's iterator, µs",
            numeric: true,
            value: |r| SortValue::Number(r.max_ps / 1e6),
            cell: |r| measure::us(r.max_ps / 1e6),
        },
        Column {
            id: "bottleneck",
            label: "Bottleneck iterator",
            title: "The iterator on the critical path of the slowest call with the most self time",
            numeric: false,
            value: |r| SortValue::Text(&r.bottleneck),
            cell: |r| if r.bottleneck.is_empty() { "—".to_string() } else { r.bottleneck.clone() },
        },
    ]
}
