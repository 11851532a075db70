//! "HLO op stats": the op profile's XLA ops as one flat table — time, FLOP
//! rate, memory bandwidth, what bounds each op and where it came from —
//! sortable, filterable by op, category or framework op, and exported as CSV.

use std::sync::Arc;

use leptos::prelude::*;
use proflens_analysis::tools::hlo_stats::{self, HloStats, HloStatsRow};

use super::ViewProps;
use crate::widgets::fmt;
use crate::widgets::measure;
use crate::widgets::table::{Column, Direction, Filter, FilterExportBar, SortValue, SortableTable, ToolbarText};
use crate::widgets::title::ToolTitle;

/// The view of a model of type `HloStats`.
pub fn view(props: ViewProps) -> AnyView {
    super::with_model(props, |p, model: HloStats| {
        view! { <HloStatsView run=p.run host=p.host stats=model/> }.into_any()
    })
}

#[component]
fn HloStatsView(run: String, host: String, stats: HloStats) -> impl IntoView {
    if stats.rows.is_empty() {
        return view! {
            <section id="tool-hlo_stats" class="tool" aria-labelledby="tool-hlo_stats-title">
                <ToolTitle tool="hlo_stats" run=run host=host/>
                <p id="no-hlo-ops" class="empty">
                    "No XLA ops ran on a device in this profile, so there are no HLO op statistics."
                </p>
            </section>
        }
        .into_any();
    }
    let count = stats.rows.len();
    let stored = StoredValue::new(stats.clone());
    let rows: Arc<Vec<HloStatsRow>> = Arc::new(stats.rows);
    let table_rows = Signal::derive(move || rows.clone());
    let filter_text = RwSignal::new(String::new());
    let toolbar = ToolbarText {
        filter_id: "hlo-filter",
        filter_label: "Filter by op, category or framework op",
        placeholder: "e.g. fusion or convolution",
        export_id: "export-hlo-stats",
        export_label: "Export table (CSV)",
        file_name: "hlo_stats.csv",
    };
    view! {
        <section id="tool-hlo_stats" class="tool" aria-labelledby="tool-hlo_stats-title">
            <ToolTitle tool="hlo_stats" run=run host=host/>
            <FilterExportBar text=toolbar filter=filter_text csv=move || stored.with_value(hlo_stats::to_csv)/>
            <div class="table-scroll">
                <SortableTable
                    id="hlo-stats"
                    caption=format!(
                        "{} by self time — select a heading to sort; hover an op for its HLO expression",
                        fmt::plural(count, "XLA op", "XLA ops"),
                    )
                    columns=columns()
                    rows=table_rows
                    filter=Filter { text: filter_text.into(), matches: row_matches }
                    sort=(0, Direction::Ascending)
                    empty="No op matches the filter."
                    cell_title=cell_title
                />
            </div>
        </section>
    }
    .into_any()
}

/// Substring match on the op name, category or framework op (`needle` is lower-case).
fn row_matches(row: &HloStatsRow, needle: &str) -> bool {
    [&row.hlo_op_name, &row.category, &row.tf_op_name].iter().any(|s| s.to_lowercase().contains(needle))
}

fn cell_title(row: &HloStatsRow, column: &'static str) -> Option<String> {
    match column {
        "op" => Some(row.hlo_op_expression.clone()),
        "source" if !row.source_stack.is_empty() => Some(row.source_stack.clone()),
        _ => None,
    }
}

fn source(row: &HloStatsRow) -> String {
    if row.source_file.is_empty() {
        String::new()
    } else {
        format!("{}:{}", row.source_file, row.source_line)
    }
}

fn columns() -> Vec<Column<HloStatsRow>> {
    vec![
        Column {
            id: "rank",
            label: "Rank",
            title: "Position by self time, 1 = most",
            numeric: true,
            value: |r| SortValue::Number(r.rank as f64),
            cell: |r| r.rank.to_string(),
        },
        Column {
            id: "category",
            label: "Category",
            title: "The HLO op's category (fusion, convolution, data formatting…)",
            numeric: false,
            value: |r| SortValue::Text(&r.category),
            cell: |r| r.category.clone(),
        },
        Column {
            id: "op",
            label: "HLO op",
            title: "Hover for the HLO expression",
            numeric: false,
            value: |r| SortValue::Text(&r.hlo_op_name),
            cell: |r| r.hlo_op_name.clone(),
        },
        Column {
            id: "framework-op",
            label: "Framework op",
            title: "The TensorFlow or JAX op the HLO instruction came from",
            numeric: false,
            value: |r| SortValue::Text(&r.tf_op_name),
            cell: |r| r.tf_op_name.clone(),
        },
        Column {
            id: "occurrences",
            label: "Occurrences",
            title: "How many times the HLO op ran",
            numeric: true,
            value: |r| SortValue::Number(r.occurrences as f64),
            cell: |r| fmt::count(r.occurrences),
        },
        Column {
            id: "total",
            label: "Total time (µs)",
            title: "Time of all its runs including nested ops, µs",
            numeric: true,
            value: |r| SortValue::Number(r.total_time_us),
            cell: |r| measure::us(r.total_time_us),
        },
        Column {
            id: "self",
            label: "Total self time (µs)",
            title: "Time of all its runs excluding nested ops, µs",
            numeric: true,
            value: |r| SortValue::Number(r.total_self_time_us),
            cell: |r| measure::us(r.total_self_time_us),
        },
        Column {
            id: "self-percent",
            label: "Self time (%)",
            title: "Share of the device time, idle included",
            numeric: true,
            value: |r| SortValue::Number(r.total_self_time_percent),
            cell: |r| fmt::decimal(r.total_self_time_percent, 1),
        },
        Column {
            id: "cumulative",
            label: "Cumulative (%)",
            title: "Running total of the self-time share down the table, %",
            numeric: true,
            value: |r| SortValue::Number(r.cumulative_total_self_time_percent),
            cell: |r| fmt::decimal(r.cumulative_total_self_time_percent, 1),
        },
        Column {
            id: "flop-rate",
            label: "FLOP rate (GFLOP/s)",
            title: "Model FLOPs per second of the op's time",
            numeric: true,
            value: |r| SortValue::Number(r.model_flop_rate),
            cell: |r| fmt::decimal(r.model_flop_rate, 1),
        },
        Column {
            id: "bandwidth",
            label: "Memory bw (GiB/s)",
            title: "Bytes accessed ÷ self time, GiB/s",
            numeric: true,
            value: |r| SortValue::Number(r.measured_memory_bw),
            cell: |r| fmt::decimal(r.measured_memory_bw, 1),
        },
        Column {
            id: "intensity",
            label: "FLOP/byte",
            title: "Operational intensity",
            numeric: true,
            value: |r| SortValue::Number(r.operational_intensity),
            cell: |r| fmt::decimal(r.operational_intensity, 2),
        },
        Column {
            id: "bound-by",
            label: "Bound by",
            title: "What limits the op on the roofline",
            numeric: false,
            value: |r| SortValue::Text(&r.bound_by),
            cell: |r| r.bound_by.clone(),
        },
        Column {
            id: "source",
            label: "Source",
            title: "Hover for the stack",
            numeric: false,
            value: |r| SortValue::Text(&r.source_file),
            cell: source,
        },
    ]
}
