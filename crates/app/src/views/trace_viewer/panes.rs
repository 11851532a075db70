//! The DOM around the canvas: the selected event's details
//! (`#trace-details`) and the hover card (`#trace-tooltip`); the selected
//! range's pane is [`range_pane`](super::range_pane). Everything from the
//! profile is text.

use std::sync::Arc;

use leptos::prelude::*;

use super::model::format_duration;
use super::viewer::{with_viewer, Details, Ui};
use crate::protocol::{TraceEvent, TraceLink};
use crate::widgets::fmt;

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
        "launched" => "Launched".to_string(),
        "launched by" => "Launched by".to_string(),
        "consumer" => "Consumer".to_string(),
        "producer" => "Producer".to_string(),
        "same collective" => "Same collective on".to_string(),
        // "flow to fwdbwd" → "Flow to (fwdbwd)".
        flow => match flow.split_once(' ').and_then(|(_, rest)| rest.split_once(' ')) {
            Some((way, cat)) => format!("Flow {way} ({cat})"),
            None => flow.to_string(),
        },
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
