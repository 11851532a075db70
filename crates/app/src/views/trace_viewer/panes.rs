//! The DOM around the canvas: the selected event's details
//! (`#trace-details`), the selected range's summary per event name
//! (`#trace-summary`) and the hover card (`#trace-tooltip`). Everything from
//! the profile is text.

use std::sync::Arc;

use leptos::prelude::*;
use proflens_analysis::passes::trace::search::NameSummary;

use super::model::format_duration;
use super::viewer::{with_viewer, Details, Summary, Ui};
use crate::protocol::{TraceEvent, TraceLink};
use crate::widgets::fmt;
use crate::widgets::table::{Column, Direction, SortValue, SortableTable};
use crate::widgets::table_csv::{columns_csv, TableCsv};

/// ps from the profile's start as `1,234.567 ms`.
fn at_ms(ps: i64) -> String {
    format!("{} ms", fmt::ps_as_ms(ps))
}

#[component]
pub fn DetailsPane(ui: Ui) -> impl IntoView {
    let body = move || match ui.details.get() {
        Details::Empty => view! { <p class="note">"Click an event on the timeline to see its details."</p> }.into_any(),
        Details::Loading => view! { <p class="note">"Loading the event…"</p> }.into_any(),
        Details::Failed(message) => view! { <p class="error" role="alert">{message}</p> }.into_any(),
        Details::Shown(event) => event_view(event).into_any(),
    };
    let links = move || {
        if !matches!(ui.details.get(), Details::Shown(_)) {
            return None;
        }
        Some(match ui.links.get() {
            None => view! { <p class="note trace-links-note">"Looking for linked events…"</p> }.into_any(),
            Some(links) if links.is_empty() => ().into_any(),
            Some(links) => {
                let items = links.iter().map(link_item).collect_view();
                view! {
                    <h4>{format!("Linked events ({})", links.len())}</h4>
                    <ul class="trace-links">{items}</ul>
                }
                .into_any()
            }
        })
    };
    view! {
        <section id="trace-details" class="panel trace-pane" aria-labelledby="trace-details-title">
            <h3 id="trace-details-title">"Selected event"</h3>
            {body}
            {links}
        </section>
    }
}

fn fact(label: &'static str, class: &'static str, value: String) -> impl IntoView {
    view! {
        <div>
            <dt>{label}</dt>
            <dd class=class>{value}</dd>
        </div>
    }
}

fn event_view(event: Arc<TraceEvent>) -> impl IntoView {
    let d = &event.details;
    let mut facts = vec![fact("Name", "event-name", d.name.clone()).into_any()];
    if let Some(long) = &d.long_name {
        facts.push(fact("Long name", "long-name", long.clone()).into_any());
    }
    if let Some(category) = &event.category {
        facts.push(fact("Category", "category", category.clone()).into_any());
    }
    facts.push(fact("Track", "track", event.track_name.clone()).into_any());
    facts.push(fact("Start", "start", at_ms(d.start_ps)).into_any());
    facts.push(fact("Duration", "duration", format_duration(d.duration_ps as f64)).into_any());
    facts.push(fact("Self time", "self-time", format_duration(d.self_ps as f64)).into_any());
    if let Some(step) = &d.step {
        facts.push(fact("Step", "step", step.clone()).into_any());
    }
    let stats = (!d.stats.is_empty()).then(|| {
        let rows = d
            .stats
            .iter()
            .map(|(k, v)| {
                view! {
                    <tr data-stat=k.clone()>
                        <th scope="row">{k.clone()}</th>
                        <td>{v.clone()}</td>
                    </tr>
                }
            })
            .collect_view();
        view! {
            <table class="data compact trace-stats">
                <caption>"Stats"</caption>
                <tbody>{rows}</tbody>
            </table>
        }
    });
    view! {
        <dl class="summary vertical trace-facts">{facts}</dl>
        {stats}
    }
}

fn link_item(link: &TraceLink) -> impl IntoView + use<> {
    let to = link.to;
    let name = link.name.clone();
    let go = {
        let name = name.clone();
        move |_| {
            with_viewer(|v| {
                v.center_on(to);
                v.select(to, Some(name.clone()));
            });
        }
    };
    let label = match link.kind.as_str() {
        "launched" => "Launched",
        "launched by" => "Launched by",
        "consumer" => "Consumer",
        "same collective" => "Same collective on",
        _ => "Producer",
    };
    view! {
        <li>
            <span class="link-kind">{label}</span>
            " "
            <button type="button" class="link-button" on:click=go>
                {name}
            </button>
            " "
            <span class="note">{format_duration((to.end_ps - to.start_ps) as f64)}</span>
        </li>
    }
}

fn summary_columns() -> Vec<Column<NameSummary>> {
    vec![
        Column {
            id: "name",
            label: "Name",
            title: "Event name",
            numeric: false,
            value: |r| SortValue::Text(&r.name),
            cell: |r| r.name.clone(),
        },
        Column {
            id: "count",
            label: "Count",
            title: "Events of this name overlapping the range",
            numeric: true,
            value: |r| SortValue::Number(r.count as f64),
            cell: |r| fmt::count(r.count),
        },
        Column {
            id: "total",
            label: "Total",
            title: "Their durations added up (whole events, also the parts outside the range)",
            numeric: true,
            value: |r| SortValue::Number(r.total_ps as f64),
            cell: |r| format_duration(r.total_ps as f64),
        },
        Column {
            id: "average",
            label: "Average",
            title: "Total divided by count",
            numeric: true,
            value: |r| SortValue::Number(r.average_ps),
            cell: |r| format_duration(r.average_ps),
        },
    ]
}

#[component]
pub fn SummaryPane(ui: Ui) -> impl IntoView {
    let empty: Arc<Vec<NameSummary>> = Arc::new(Vec::new());
    let rows = Signal::derive(move || match ui.summary.get() {
        Summary::Shown(s) => s.rows.clone(),
        _ => empty.clone(),
    });
    let head = move || match ui.summary.get() {
        Summary::Empty => view! {
            <p class="note">
                "Shift+drag across the tracks (or drag along the time ruler) to sum up a range by event name."
            </p>
        }
        .into_any(),
        Summary::Loading => view! { <p class="note">"Summing up the range…"</p> }.into_any(),
        Summary::Failed(message) => view! { <p class="error" role="alert">{message}</p> }.into_any(),
        Summary::Shown(s) => {
            let events: u64 = s.rows.iter().map(|r| r.count).sum();
            let text = format!(
                "{} in {} ({} to {}) on {}.",
                fmt::plural(events as usize, "event", "events"),
                format_duration((s.end_ps - s.start_ps) as f64),
                at_ms(s.start_ps),
                at_ms(s.end_ps),
                fmt::plural(s.tracks as usize, "track", "tracks"),
            );
            view! {
                <p class="range-head" data-start-ps=s.start_ps.to_string() data-end-ps=s.end_ps.to_string()>
                    {text}
                </p>
            }
            .into_any()
        }
    };
    let shown = move || matches!(ui.summary.get(), Summary::Shown(_));
    view! {
        <section id="trace-summary" class="panel trace-pane" aria-labelledby="trace-summary-title">
            <h3 id="trace-summary-title">"Selected range"</h3>
            {head}
            <div class="table-scroll" hidden=move || !shown()>
                <SortableTable
                    id="trace-summary-table"
                    caption="Events by name — select a heading to sort"
                    columns=summary_columns()
                    rows=rows
                    sort=(2, Direction::Descending)
                    empty="No event overlaps the range."
                    page_size=50
                />
                <TableCsv table="trace-summary-table" csv=move || rows.with(|r| columns_csv(&summary_columns(), r))/>
            </div>
        </section>
    }
}

/// The hover card beside the pointer.
#[component]
pub fn TooltipView(ui: Ui) -> impl IntoView {
    move || {
        ui.tooltip.get().map(|t| {
            view! {
                <div
                    id="trace-tooltip"
                    class="chart-tooltip trace-tooltip"
                    role="tooltip"
                    style:left=format!("{}px", if t.flip { t.x - 14.0 } else { t.x + 14.0 })
                    style:transform=t.flip.then(|| "translateX(-100%)".to_string())
                    data-flip=t.flip.to_string()
                    style:top=format!("{}px", t.y + 14.0)
                >
                    <p class="tooltip-title">
                        <strong class="tooltip-name">{t.name}</strong>
                    </p>
                    <p class="tooltip-detail">{t.detail}</p>
                </div>
            }
        })
    }
}
