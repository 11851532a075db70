//! HTA's idle time breakdown of a PyTorch trace: per rank and stream, a
//! stacked bar of the idle time by cause (host wait, kernel wait, other),
//! and a sortable table of the idle time and pandas' statistics of the idle
//! intervals per category, exported as CSV.

use std::sync::Arc;

use leptos::html::Canvas;
use leptos::prelude::*;
use proflens_analysis::tools::idle_time_breakdown::{to_csv, IdleCategory, IdleTimeBreakdown, IntervalStats};

use super::ViewProps;
use crate::widgets::chart;
use crate::widgets::chart_frame::{ChartFrame, ChartText};
use crate::widgets::fmt;
use crate::widgets::measure::window_resizes;
use crate::widgets::table::{Column, Filter, FilterExportBar, SortValue, SortableTable, ToolbarText};
use crate::widgets::title::ToolTitle;

const CATEGORIES: [(IdleCategory, &str); 3] =
    [(IdleCategory::HostWait, "Host wait"), (IdleCategory::KernelWait, "Kernel wait"), (IdleCategory::Other, "Other")];

/// The view of an `idle_time_breakdown` model.
pub fn view(props: ViewProps) -> AnyView {
    super::with_model(props, |p, model: IdleTimeBreakdown| {
        view! { <IdleTimeView run=p.run host=p.host model=model/> }.into_any()
    })
}

/// One row of the table: a category on a stream of a rank.
#[derive(Clone)]
struct Row {
    rank: i64,
    stream: i64,
    category: &'static str,
    idle_time_us: f64,
    ratio: Option<f64>,
    stats: IntervalStats,
}

fn rows_of(model: &IdleTimeBreakdown) -> Vec<Row> {
    let mut rows = Vec::new();
    for r in &model.ranks {
        for s in &r.streams {
            for c in &s.categories {
                rows.push(Row {
                    rank: r.rank,
                    stream: s.stream,
                    category: c.category.name(),
                    idle_time_us: c.idle_time_us,
                    ratio: c.idle_time_ratio,
                    stats: c.stats.clone(),
                });
            }
        }
    }
    rows
}

/// One bar per (rank, stream): its idle time (ms) per category.
fn bars_of(model: &IdleTimeBreakdown) -> Vec<(String, Vec<f64>)> {
    let many_ranks = model.ranks.len() > 1;
    let mut bars = Vec::new();
    for r in &model.ranks {
        for s in &r.streams {
            let label = if many_ranks {
                format!("rank {} · stream {}", r.rank, s.stream)
            } else {
                format!("stream {}", s.stream)
            };
            let values = CATEGORIES
                .iter()
                .map(|(cat, _)| {
                    s.categories.iter().find(|c| c.category == *cat).map_or(0.0, |c| c.idle_time_us / 1000.0)
                })
                .collect();
            bars.push((label, values));
        }
    }
    bars
}

#[component]
fn IdleTimeView(run: String, host: String, model: IdleTimeBreakdown) -> impl IntoView {
    let rows = rows_of(&model);
    let streams: usize = model.ranks.iter().map(|r| r.streams.len()).sum();
    let rank_count = model.ranks.len();
    let steps: Vec<i64> = model.ranks.iter().flat_map(|r| r.profiler_steps_used.iter().copied()).collect();
    let note = format!(
        "{} on {}; an interval below {} µs between consecutive GPU events is a kernel wait. \
         {} (as HolisticTraceAnalysis, without the last profiler step). Times in µs, rounded as HTA rounds them.",
        fmt::plural(streams, "stream", "streams"),
        fmt::plural(rank_count, "rank", "ranks"),
        model.consecutive_kernel_delay_us,
        match (steps.iter().min(), steps.iter().max()) {
            (Some(a), Some(b)) if a != b => format!("Iterations {a}–{b}"),
            (Some(a), _) => format!("Iteration {a}"),
            _ => "The whole trace: it has no ProfilerStep#N".to_string(),
        },
    );
    let stored = StoredValue::new(model.clone());
    let count = rows.len();
    let rows = Arc::new(rows);
    let table_rows = Signal::derive(move || rows.clone());
    let filter_text = RwSignal::new(String::new());
    let toolbar = ToolbarText {
        filter_id: "idle-filter",
        filter_label: "Filter by stream or category",
        placeholder: "e.g. host_wait",
        export_id: "export-idle",
        export_label: "Export table (CSV)",
        file_name: "idle_time_breakdown.csv",
    };
    view! {
        <section id="tool-idle_time_breakdown" class="tool pytorch" aria-labelledby="tool-idle_time_breakdown-title">
            <ToolTitle tool="idle_time_breakdown" run=run host=host/>
            <p class="note">{note}</p>
            <IdleChart bars=Arc::new(bars_of(&model))/>
            <FilterExportBar text=toolbar filter=filter_text csv=move || stored.with_value(to_csv)/>
            <div class="table-scroll">
                <SortableTable
                    id="idle-intervals"
                    caption=format!(
                        "{} per rank, stream and idle category, with the statistics of its intervals — select a heading to sort",
                        fmt::plural(count, "row", "rows"),
                    )
                    columns=columns()
                    rows=table_rows
                    filter=Filter { text: filter_text.into(), matches }
                    empty="No row matches the filter."
                />
            </div>
        </section>
    }
}

fn matches(r: &Row, needle: &str) -> bool {
    r.category.contains(needle) || r.stream.to_string() == needle || format!("rank {}", r.rank) == needle
}

fn category_color(i: usize) -> plotters::style::RGBColor {
    chart::PALETTE[i % chart::PALETTE.len()]
}

#[component]
fn IdleChart(bars: Arc<Vec<(String, Vec<f64>)>>) -> impl IntoView {
    let canvas = NodeRef::<Canvas>::new();
    let problem = RwSignal::new(None::<String>);
    let resized = window_resizes();
    let count = bars.len();
    let stored = StoredValue::new(bars);
    Effect::new(move |_| {
        resized.track();
        let Some(canvas) = canvas.get() else {
            return;
        };
        stored.with_value(|bars| {
            let drawn: Vec<chart::Bar> =
                bars.iter().map(|(label, values)| chart::Bar { label, values: values.clone() }).collect();
            let colors: Vec<_> = (0..CATEGORIES.len()).map(category_color).collect();
            problem.set(
                chart::stacked_bars(&canvas, &drawn, &colors, "Idle time (ms)")
                    .err()
                    .map(|e| format!("The idle time chart could not be drawn ({e}).")),
            );
        });
    });
    let legend = CATEGORIES
        .iter()
        .enumerate()
        .map(|(i, (_, label))| {
            view! {
                <li>
                    <span class="swatch" style:background-color=chart::css_color(category_color(i))></span>
                    {*label}
                </li>
            }
        })
        .collect_view();
    view! {
        <ChartFrame name="idle-time" caption="Idle time by rank, stream and cause" text=ChartText::Table("idle-intervals")>
        <div class="chart-wrap">
            <canvas
                id="idle-chart"
                class="chart idle-chart"
                node_ref=canvas
                role="img"
                data-bars=count.to_string()
                aria-label="A bar per rank and stream, its idle time split by cause; the same numbers are in the table below"
            ></canvas>
        </div>
        <ul class="legend" aria-label="Idle categories">{legend}</ul>
        </ChartFrame>
        {move || problem.get().map(|p| view! { <p class="error" role="alert">{p}</p> })}
    }
}

/// HTA's number with its two decimals, "—" for NaN.
fn two(v: Option<f64>) -> String {
    v.map_or_else(|| "—".to_string(), |v| fmt::decimal(v, 2))
}

fn num(v: Option<f64>) -> SortValue<'static> {
    SortValue::Number(v.unwrap_or(f64::NEG_INFINITY))
}

fn columns() -> Vec<Column<Row>> {
    vec![
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
        Column {
            id: "category",
            label: "Idle category",
            title: "host_wait: launched after the previous event ended; kernel_wait: a gap below the delay; other: the rest (and the first event)",
            numeric: false,
            value: |r| SortValue::Text(r.category),
            cell: |r| r.category.to_string(),
        },
        Column {
            id: "idle-time",
            label: "Idle time (µs)",
            title: "Summed idle intervals",
            numeric: true,
            value: |r| SortValue::Number(r.idle_time_us),
            cell: |r| fmt::decimal(r.idle_time_us, 0),
        },
        Column {
            id: "ratio",
            label: "Ratio",
            title: "Share of the stream's idle time (HTA rounds it to two decimals)",
            numeric: true,
            value: |r| num(r.ratio),
            cell: |r| two(r.ratio),
        },
        Column {
            id: "count",
            label: "Intervals",
            title: "How many idle intervals of this category",
            numeric: true,
            value: |r| SortValue::Number(r.stats.count as f64),
            cell: |r| fmt::count(r.stats.count),
        },
        Column {
            id: "mean",
            label: "Mean (µs)",
            title: "Mean length of an idle interval, µs",
            numeric: true,
            value: |r| num(r.stats.mean),
            cell: |r| two(r.stats.mean),
        },
        Column {
            id: "std",
            label: "Std (µs)",
            title: "Sample standard deviation",
            numeric: true,
            value: |r| num(r.stats.std),
            cell: |r| two(r.stats.std),
        },
        Column {
            id: "min",
            label: "Min (µs)",
            title: "Shortest idle interval, µs",
            numeric: true,
            value: |r| num(r.stats.min),
            cell: |r| two(r.stats.min),
        },
        Column {
            id: "p25",
            label: "25% (µs)",
            title: "First quartile: a quarter of the idle intervals are shorter, µs",
            numeric: true,
            value: |r| num(r.stats.p25),
            cell: |r| two(r.stats.p25),
        },
        Column {
            id: "p50",
            label: "Median (µs)",
            title: "Median: half the idle intervals are shorter, µs",
            numeric: true,
            value: |r| num(r.stats.p50),
            cell: |r| two(r.stats.p50),
        },
        Column {
            id: "p75",
            label: "75% (µs)",
            title: "Third quartile: three quarters of the idle intervals are shorter, µs",
            numeric: true,
            value: |r| num(r.stats.p75),
            cell: |r| two(r.stats.p75),
        },
        Column {
            id: "max",
            label: "Max (µs)",
            title: "Longest idle interval, µs",
            numeric: true,
            value: |r| num(r.stats.max),
            cell: |r| two(r.stats.max),
        },
    ]
}
