//! "Queue length": per rank and stream, how many launched kernels wait on
//! the stream over time (HTA's queue length time series), as a step chart
//! per rank, and HTA's summary per stream in a sortable table with CSV.

use std::sync::Arc;

use leptos::prelude::*;
use proflens_analysis::passes::kineto::describe::Describe;
use proflens_analysis::tools::queue_length::{self, QueueLength, QueueRow};

use super::ViewProps;
use crate::widgets::describe::{describe_columns, Described};
use crate::widgets::fmt;
use crate::widgets::step_lines::{Series, StepLines};
use crate::widgets::table::{Column, Direction, Filter, FilterExportBar, SortValue, SortableTable, ToolbarText};
use crate::widgets::title::ToolTitle;

/// The view of a `queue_length` model.
pub fn view(props: ViewProps) -> AnyView {
    super::with_model(props, |p, model: QueueLength| {
        view! { <QueueLengthView run=p.run host=p.host model=model/> }.into_any()
    })
}

#[component]
fn QueueLengthView(run: String, host: String, model: QueueLength) -> impl IntoView {
    if model.rows.is_empty() {
        return view! {
            <section id="tool-queue_length" class="tool" aria-labelledby="tool-queue_length-title">
                <ToolTitle tool="queue_length" run=run host=host/>
                <p id="no-queues" class="empty">
                    "No kernel launch with its GPU kernel was found in the traced iterations, so there is no queue to show."
                </p>
            </section>
        }
        .into_any();
    }
    let mut ranks: Vec<i64> = model.series.iter().map(|s| s.rank).collect();
    ranks.dedup();
    let charts = ranks
        .iter()
        .map(|&rank| {
            let series: Vec<Series> = model
                .series
                .iter()
                .filter(|s| s.rank == rank)
                .map(|s| Series {
                    label: format!("stream {}", s.stream),
                    points: s.ts_us.iter().zip(&s.queue).map(|(&t, &q)| (t as f64 / 1e3, q as f64)).collect(),
                })
                .collect();
            view! {
                <StepLines
                    id=format!("queue-chart-{rank}")
                    caption=format!("Rank {rank}: kernels queued per stream over time")
                    y_label="Queued kernels"
                    series=series
                />
            }
        })
        .collect_view();
    let count = model.rows.len();
    let rows: Arc<Vec<QueueRow>> = Arc::new(model.rows.clone());
    let stored = StoredValue::new(model);
    let csv = move || stored.with_value(queue_length::to_csv);
    let filter_text = RwSignal::new(String::new());
    let toolbar = ToolbarText {
        filter_id: "queue-filter",
        filter_label: "Filter by rank or stream",
        placeholder: "e.g. 7",
        export_id: "export-queue-length",
        export_label: "Export table (CSV)",
        file_name: "queue_length.csv",
    };
    let table_rows = Signal::derive(move || rows.clone());
    view! {
        <section id="tool-queue_length" class="tool" aria-labelledby="tool-queue_length-title">
            <ToolTitle tool="queue_length" run=run host=host/>
            <p class="note">
                "A launch adds one to its kernel's stream, the kernel's start takes one away (HTA 0.5.0's queue length; the last profiler step is left out, as HTA does by default)."
            </p>
            {charts}
            <FilterExportBar text=toolbar filter=filter_text csv=csv/>
            <div class="table-scroll">
                <SortableTable
                    id="queue-length"
                    caption=format!("{} — select a heading to sort", fmt::plural(count, "stream", "streams"))
                    columns=columns()
                    rows=table_rows
                    filter=Filter { text: filter_text.into(), matches: row_matches }
                    sort=(0, Direction::Ascending)
                    empty="No stream matches the filter."
                />
            </div>
        </section>
    }
    .into_any()
}

fn row_matches(row: &QueueRow, needle: &str) -> bool {
    row.rank.to_string() == needle || row.stream.to_string().contains(needle)
}

impl Described for QueueRow {
    fn described(&self) -> &Describe {
        &self.summary
    }
}

fn columns() -> Vec<Column<QueueRow>> {
    let mut columns: Vec<Column<QueueRow>> = vec![
        Column {
            id: "rank",
            label: "Rank",
            title: "The process (rank) of the distributed job",
            numeric: true,
            value: |r| SortValue::Number(r.rank as f64),
            cell: |r| r.rank.to_string(),
        },
        Column {
            id: "stream",
            label: "Stream",
            title: "The CUDA stream, as numbered in the trace",
            numeric: true,
            value: |r| SortValue::Number(r.stream as f64),
            cell: |r| r.stream.to_string(),
        },
    ];
    columns.extend(describe_columns("Points of the time series"));
    columns
}
