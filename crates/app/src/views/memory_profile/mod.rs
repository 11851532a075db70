//! "Memory profile": for one allocator (memory id) of a host, the summary
//! (allocations, capacity, peaks), memory in use over time with a hover card
//! per allocation event, and what was allocated at the peak as a sortable,
//! filterable table.
//!
//! - this module: the allocator picker and the CSV export, and the text
//!   helpers the parts share;
//! - [`allocator`]: one allocator's summary and breakdown section;
//! - [`breakdown`]: the breakdown table's rows and columns;
//! - [`timeline`]: the timeline chart's component and its hover card;
//! - [`draw`]: the timeline drawn on the canvas (plotters).

mod allocator;
mod breakdown;
mod draw;
mod timeline;

use std::sync::Arc;

use leptos::prelude::*;
use proflens_analysis::tools::memory_profile::{self, MemoryProfile};

use super::ViewProps;
use crate::widgets::download;
use crate::widgets::fmt;
use crate::widgets::title::ToolTitle;
use allocator::AllocatorView;

/// The view of a model of type `MemoryProfile`.
pub fn view(props: ViewProps) -> AnyView {
    super::with_model(props, |p, model: MemoryProfile| {
        view! { <MemoryProfileView run=p.run host=p.host profile=model/> }.into_any()
    })
}

#[component]
fn MemoryProfileView(run: String, host: String, profile: MemoryProfile) -> impl IntoView {
    if profile.allocators.is_empty() {
        return view! {
            <section id="tool-memory_profile" class="tool" aria-labelledby="tool-memory_profile-title">
                <ToolTitle tool="memory_profile" run=run host=host/>
                <p id="no-memory" class="empty">
                    "This profile has no allocator events (MemoryAllocation / MemoryDeallocation on the host), "
                    "so there is no memory profile. TensorFlow records them for its allocators when the "
                    "profiler traces the host; JAX profiles and profiles taken without host tracing have none."
                </p>
            </section>
        }
        .into_any();
    }
    let ids: Vec<String> = profile.allocators.keys().cloned().collect();
    // The allocator with the highest peak first: the one worth looking at.
    let first = profile
        .allocators
        .iter()
        .rev()
        .max_by_key(|(_, a)| a.peak_bytes_usage_lifetime)
        .map(|(id, _)| id.clone())
        .unwrap_or_default();
    let selected = RwSignal::new(first);
    let profile = StoredValue::new(Arc::new(profile));
    let problem = RwSignal::new(None::<String>);
    let export = move |_| {
        let csv = profile.with_value(|p| memory_profile::breakdown_csv(p));
        problem.set(download::save_text("memory_breakdown.csv", "text/csv;charset=utf-8", &csv).err());
    };
    let options = ids
        .iter()
        .map(|id| {
            let value = id.clone();
            let is_selected = {
                let id = id.clone();
                move || selected.get() == id
            };
            view! {
                <option value=value prop:selected=is_selected>
                    {id.clone()}
                </option>
            }
        })
        .collect_view();
    let shown = move || {
        let id = selected.get();
        let allocator = profile.with_value(|p| p.allocators.get(&id).cloned())?;
        Some(view! { <AllocatorView allocator=allocator/> })
    };

    view! {
        <section id="tool-memory_profile" class="tool" aria-labelledby="tool-memory_profile-title">
            <ToolTitle tool="memory_profile" run=run host=host/>
            <div class="toolbar">
                <label for="memory-id">"Memory ID (allocator)"</label>
                <select id="memory-id" on:change=move |ev| selected.set(event_target_value(&ev))>
                    {options}
                </select>
                <span class="note">{fmt::plural(ids.len(), "allocator", "allocators")}</span>
                <button id="export-memory" type="button" class="button small" on:click=export>
                    "Export breakdowns (CSV)"
                </button>
            </div>
            {move || problem.get().map(|p| view! { <p class="error" role="alert">{p}</p> })}
            {shown}
        </section>
    }
    .into_any()
}

/// A snapshot's time for people: ms from the start of its thread's line.
fn time_ms(ps: i64) -> String {
    format!("{} ms", fmt::ps_as_ms(ps))
}

fn fragmentation_text(f: f64) -> String {
    if f.is_finite() {
        fmt::fraction_percent(f)
    } else {
        "—".to_string()
    }
}
