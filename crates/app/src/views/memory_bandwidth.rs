//! "Memory bandwidth": per rank and kind of memory copy or set, the
//! bandwidth of the operations in flight over time (HTA's memory bandwidth
//! time series), as a step chart per rank, and HTA's summary per kind in a
//! sortable table with CSV. Kind names come from the trace: text only.

use std::sync::Arc;

use leptos::prelude::*;
use proflens_analysis::passes::kineto::describe::Describe;
use proflens_analysis::tools::memory_bandwidth::{self, BandwidthRow, MemoryBandwidth};

use super::ViewProps;
use crate::widgets::describe::{describe_columns, Described};
use crate::widgets::fmt;
use crate::widgets::step_lines::{Series, StepLines};
use crate::widgets::table::{Column, Direction, Filter, FilterExportBar, SortValue, SortableTable, ToolbarText};
use crate::widgets::title::ToolTitle;

/// The view of a `queue_length` model.
pub fn view(props: ViewProps) -> AnyView {
    super::with_model(props, |p, model: MemoryBandwidth| {
        view! { <MemoryBandwidthView run=p.run host=p.host model=model/> }.into_any()
    })
}

#[component]
fn MemoryBandwidthView(run: String, host: String, model: MemoryBandwidth) -> impl IntoView {
    if model.rows.is_empty() {
        return view! {
            <section id="tool-memory_bandwidth" class="tool" aria-labelledby="tool-memory_bandwidth-title">
                <ToolTitle tool="memory_bandwidth" run=run host=host/>
                <p id="no-memory-ops" class="empty">
                    "No memory copy or set with a bandwidth was found in the traced iterations, so there is no bandwidth to show."
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
                    label: s.name.clone(),
                    points: s.ts_us.iter().zip(&s.gbps).map(|(&t, &g)| (t as f64 / 1e3, g)).collect(),
                })
                .collect();
            view! {
                <StepLines
                    id=format!("bandwidth-chart-{rank}")
                    caption=format!("Rank {rank}: memory bandwidth per kind over time")
                    y_label="GB/s"
                    series=series
                />
            }
        })
        .collect_view();
    let count = model.rows.len();
    let rows: Arc<Vec<BandwidthRow>> = Arc::new(model.rows.clone());
    let stored = StoredValue::new(model);
    let csv = move || stored.with_value(memory_bandwidth::to_csv);
    let filter_text = RwSignal::new(String::new());
    let toolbar = ToolbarText {
        filter_id: "bandwidth-filter",
        filter_label: "Filter by kind",
        placeholder: "e.g. DtoD",
        export_id: "export-memory-bandwidth",
        export_label: "Export table (CSV)",
        file_name: "memory_bandwidth.csv",
    };
    let table_rows = Signal::derive(move || rows.clone());
    view! {
        <section id="tool-memory_bandwidth" class="tool" aria-labelledby="tool-memory_bandwidth-title">
            <ToolTitle tool="memory_bandwidth" run=run host=host/>
            <p class="note">
                "The bandwidth of the copies (or sets) of a kind running at once, in GB/s; the summary leaves out the times none runs (HTA 0.5.0's memory bandwidth; the last profiler step is left out, as HTA does by default)."
            </p>
            {charts}
            <FilterExportBar text=toolbar filter=filter_text csv=csv/>
            <div class="table-scroll">
                <SortableTable
                    id="memory-bandwidth"
                    caption=format!("{} — select a heading to sort", fmt::plural(count, "kind", "kinds"))
                    columns=columns()
                    rows=table_rows
                    filter=Filter { text: filter_text.into(), matches: row_matches }
                    sort=(0, Direction::Ascending)
                    empty="No kind matches the filter."
                />
            </div>
        </section>
    }
    .into_any()
}

fn row_matches(row: &BandwidthRow, needle: &str) -> bool {
    row.name.to_lowercase().contains(needle)
}

impl Described for BandwidthRow {
    fn described(&self) -> &Describe {
        &self.summary
    }

    /// Whole numbers as such, tiny rates in scientific notation, others to 4 decimals.
    fn stat(v: f64) -> String {
        if v.fract() == 0.0 {
            fmt::decimal(v, 0)
        } else if v.abs() < 0.01 {
            format!("{v:.3e}")
        } else {
            fmt::decimal(v, 4)
        }
    }
}

fn columns() -> Vec<Column<BandwidthRow>> {
    let mut columns: Vec<Column<BandwidthRow>> = vec![
        Column {
            id: "rank",
            label: "Rank",
            title: "The process (rank) of the distributed job",
            numeric: true,
            value: |r| SortValue::Number(r.rank as f64),
            cell: |r| r.rank.to_string(),
        },
        Column {
            id: "name",
            label: "Kind",
            title: "The kind of memory operation: copy host to device, device to host, device to device, or set",
            numeric: false,
            value: |r| SortValue::Text(&r.name),
            cell: |r| r.name.clone(),
        },
    ];
    columns.extend(describe_columns("Points of the time series above 0"));
    columns
}
