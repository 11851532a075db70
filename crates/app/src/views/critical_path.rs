//! "Critical path": the chain of host calls, launches, syncs and kernels
//! that sets a step's time (HTA's critical path analysis) — a step picker,
//! the breakdown by kind (bar and table) and the path, segment by segment,
//! as a sortable table with its CSV. The worker finds the path of the step
//! shown alone (a long trace's every path is about the trace's size); the
//! picker asks it for another.

use std::sync::Arc;

use leptos::prelude::*;
use proflens_analysis::context::Rendered;
use proflens_analysis::tools::critical_path::{CriticalPath, Kind, StepPath};

use super::{ShowInTrace, ViewProps};
use crate::protocol::EventAt;
use crate::widgets::chart;
use crate::widgets::fmt;
use crate::widgets::table::{
    Column, Direction, Filter, FilterExportBar, RowAction, SortValue, SortableTable, ToolbarText,
};
use crate::widgets::table_csv::TableCsv;
use crate::widgets::title::ToolTitle;

/// The view of a model of type `CriticalPath`.
pub fn view(props: ViewProps) -> AnyView {
    super::with_model(props, |p, model: CriticalPath| {
        let (show, choose) = (p.actions.show_in_trace.clone(), p.actions.choose_step.clone());
        view! { <CriticalPathView run=p.run host=p.host model=model show=show choose=choose/> }.into_any()
    })
}

/// An iteration's name (models saved before iterations had names: its step).
fn label(s: &StepPath) -> String {
    if s.name.is_empty() {
        format!("ProfilerStep#{}", s.step)
    } else {
        s.name.clone()
    }
}

/// One segment as the table shows it (times from the step's start).
#[derive(Clone)]
struct PathRow {
    n: usize,
    kind: Kind,
    start: i64,
    dur: i64,
    weight: i64,
    event: String,
    cat: String,
    stream: i64,
    /// The event's place in the profile, for the trace viewer.
    at: Option<EventAt>,
}

fn rows_of(step: &StepPath) -> Vec<PathRow> {
    step.segments
        .iter()
        .enumerate()
        .map(|(n, s)| PathRow {
            n: n + 1,
            kind: s.kind,
            start: s.ts_us - step.ts_us,
            dur: s.dur_us,
            weight: s.weight_us,
            event: s.event.as_ref().map_or(String::new(), |e| e.name.clone()),
            cat: s.event.as_ref().map_or(String::new(), |e| e.cat.clone()),
            stream: s.event.as_ref().map_or(-1, |e| e.stream),
            at: s.event.as_ref().map(|e| EventAt { plane: e.plane, line: e.line, index: e.index }),
        })
        .collect()
}

fn color(kind: Kind) -> String {
    let i = Kind::ALL.iter().position(|k| *k == kind).unwrap_or(0);
    chart::css_color(chart::PALETTE[i % chart::PALETTE.len()])
}

fn us(v: i64) -> String {
    if v < 0 {
        format!("−{}", fmt::count(v.unsigned_abs()))
    } else {
        fmt::count(v.unsigned_abs())
    }
}

#[component]
fn CriticalPathView(
    run: String,
    host: String,
    model: CriticalPath,
    show: ShowInTrace,
    choose: Arc<dyn Fn(usize) + Send + Sync>,
) -> impl IntoView {
    let csv = model.csv().unwrap_or_default();
    // The step whose path the worker found (the others come without theirs).
    let chosen = model.only.unwrap_or(0);
    let current: Option<StepPath> = model.steps.get(chosen).cloned();
    let rows = Arc::new(current.as_ref().map(rows_of).unwrap_or_default());
    let table_rows = Signal::derive(move || rows.clone());
    let options: Vec<(usize, String)> =
        model.steps.iter().map(|s| (s.instance, format!("{} ({} µs)", label(s), us(s.dur_us)))).collect();
    // A trace without ProfilerStep: which iterations Proflens chose.
    let note = model.note.clone().map(|n| view! { <p id="critical-path-iterations" class="note">{n}</p> });
    let filter_text = RwSignal::new(String::new());
    let toolbar = ToolbarText {
        filter_id: "critical-path-filter",
        filter_label: "Filter by kind or event",
        placeholder: "e.g. kernel",
        export_id: "export-critical-path",
        export_label: "Export this step (CSV)",
        file_name: "critical_path.csv",
    };
    let summary = current.as_ref().map(|s| match &s.error {
        Some(e) => format!("{}: no critical path ({e})", label(s)),
        None => format!(
            "{} lasts {} µs; its critical path has {} segments. HTA's length of the path (the \
             sum of its edge weights, which leave out gaps and waits) is {} µs.",
            label(s),
            us(s.dur_us),
            fmt::count(s.segments.len() as u64),
            us(s.hta_us)
        ),
    });
    let breakdown = move || {
        let s = current.clone()?;
        let total = s.path_us.max(1) as f64;
        let bar = s
            .breakdown
            .iter()
            .filter(|k| k.us > 0)
            .map(|k| {
                let width = format!("{:.3}%", 100.0 * k.us as f64 / total);
                let title = format!("{}: {} µs", k.kind.label(), us(k.us));
                view! { <span class="cp-part" data-kind=k.kind.id() title=title style:width=width style:background-color=color(k.kind)></span> }
            })
            .collect_view();
        let rows = s
            .breakdown
            .iter()
            .map(|k| {
                view! {
                    <tr data-kind=k.kind.id()>
                        <th scope="row"><span class="swatch" style:background-color=color(k.kind)></span>{k.kind.label()}</th>
                        <td data-col="us">{us(k.us)}</td>
                        <td data-col="share">{fmt::fraction_percent(k.share)}</td>
                        <td data-col="hta-us">{us(k.hta_us)}</td>
                    </tr>
                }
            })
            .collect_view();
        Some(view! {
            <div id="critical-path-bar" class="cp-bar" role="img" aria-label="The critical path's time by kind">{bar}</div>
            <table id="critical-path-breakdown" class="data">
                <caption>"The path's time by kind"</caption>
                <thead>
                    <tr>
                        <th scope="col" title="What the path does: CPU op, CPU gap, launch delay, kernel, kernel wait or sync">"Kind"</th>
                        <th scope="col" title="Time of the path's segments of this kind, µs">"Time (µs)"</th>
                        <th scope="col" title="That time as a share of the step's length">"Share of the step"</th>
                        <th scope="col" title="The same segments' weights in HTA's graph">"HTA weight (µs)"</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
            <TableCsv table="critical-path-breakdown"/>
        })
    };
    let picker = (options.len() > 1).then(|| {
        let options = options
            .into_iter()
            .enumerate()
            .map(|(i, (_, label))| view! { <option value=i.to_string() selected=i == chosen>{label}</option> })
            .collect_view();
        view! {
            <label for="critical-path-step">"Step "</label>
            <select id="critical-path-step" on:change=move |ev| choose(event_target_value(&ev).parse().unwrap_or(0))>
                {options}
            </select>
        }
    });
    view! {
        <section id="tool-critical_path" class="tool" aria-labelledby="tool-critical_path-title">
            <ToolTitle tool="critical_path" run=run host=host/>
            {picker}
            {note}
            <p id="critical-path-summary" class="verdict">{summary}</p>
            <p class="caption">
                "HolisticTraceAnalysis's critical path: the longest chain, by time spent in host calls, kernels, launch \
                 delays and gaps between kernels, from the step's host calls to its kernels and back through \
                 synchronizations. Each segment spans the time to the next one, so together they cover the step."
            </p>
            {breakdown}
            <FilterExportBar text=toolbar filter=filter_text csv=move || csv.clone()/>
            <div class="table-scroll">
                <SortableTable
                    id="critical-path-table"
                    caption="The path, segment by segment — select a heading to sort".to_string()
                    columns=columns()
                    rows=table_rows
                    filter=Filter { text: filter_text.into(), matches: row_matches }
                    sort=(0, Direction::Ascending)
                    empty="No segment matches the filter."
                    row_action=show_action(show)
                />
            </div>
        </section>
    }
}

/// Shows a segment's event, selected, in the trace viewer.
fn show_action(show: ShowInTrace) -> RowAction<PathRow> {
    RowAction {
        label: "Trace",
        class: "show-in-trace",
        text: "Show",
        title: "Show this event in the trace viewer",
        applies: |r| r.at.is_some(),
        on: Arc::new(move |r: &PathRow| {
            if let Some(at) = r.at {
                show(None, at);
            }
        }),
    }
}

fn row_matches(row: &PathRow, needle: &str) -> bool {
    let needle = needle.to_lowercase();
    row.kind.label().to_lowercase().contains(&needle) || row.event.to_lowercase().contains(&needle)
}

fn columns() -> Vec<Column<PathRow>> {
    vec![
        Column {
            id: "n",
            label: "#",
            title: "The segment's place along the path",
            numeric: true,
            value: |r| SortValue::Number(r.n as f64),
            cell: |r| r.n.to_string(),
        },
        Column {
            id: "kind",
            label: "Kind",
            title: "What the path does in this segment: CPU op, CPU gap, launch delay, kernel, kernel wait or sync",
            numeric: false,
            value: |r| SortValue::Text(r.kind.label()),
            cell: |r| r.kind.label().to_string(),
        },
        Column {
            id: "start",
            label: "Start (µs)",
            title: "From the step's start",
            numeric: true,
            value: |r| SortValue::Number(r.start as f64),
            cell: |r| us(r.start),
        },
        Column {
            id: "duration",
            label: "Duration (µs)",
            title: "To the next segment's start",
            numeric: true,
            value: |r| SortValue::Number(r.dur as f64),
            cell: |r| us(r.dur),
        },
        Column {
            id: "weight",
            label: "HTA weight (µs)",
            title: "The edge's weight in HTA's graph (0 for gaps, syncs and blocking calls)",
            numeric: true,
            value: |r| SortValue::Number(r.weight as f64),
            cell: |r| us(r.weight),
        },
        Column {
            id: "event",
            label: "Event",
            title: "The trace event the segment belongs to",
            numeric: false,
            value: |r| SortValue::Text(&r.event),
            cell: |r| r.event.clone(),
        },
        Column {
            id: "cat",
            label: "Category",
            title: "The trace category of the segment's event (cpu_op, cuda_runtime, kernel…)",
            numeric: false,
            value: |r| SortValue::Text(&r.cat),
            cell: |r| r.cat.clone(),
        },
        Column {
            id: "stream",
            label: "Stream",
            title: "The GPU stream (— on the host)",
            numeric: true,
            value: |r| SortValue::Number(r.stream as f64),
            cell: |r| if r.stream < 0 { "—".to_string() } else { r.stream.to_string() },
        },
    ]
}
