//! "All hosts": the list of the run's hosts, a drop-down of the toolbar, with a
//! filter, choosing which hosts' sections are open. A folded host's tracks
//! have no rows, so the page never asks for their boxes and the worker never
//! loads that host: the hosts beyond the first few start folded, and load
//! when they are chosen (or their section headers clicked open).

use std::sync::Arc;

use leptos::prelude::*;

use proflens_analysis::passes::trace::run::HostSpan;

use super::viewer::{with_viewer, Viewer};
use crate::widgets::fmt;

/// Hosts whose sections are open when the run's timeline first shows.
pub const OPEN_HOSTS: usize = 4;

/// Folds (or opens) every section of the hosts where `fold(h)` says.
fn fold_hosts(v: &mut Viewer, fold: impl Fn(usize) -> Option<bool>) {
    let spans: Vec<(usize, usize, usize)> = v
        .layout
        .hosts
        .iter()
        .enumerate()
        .map(|(h, s)| (h, s.first_section as usize, (s.first_section + s.sections) as usize))
        .collect();
    for (h, from, to) in spans {
        let Some(folded) = fold(h) else { continue };
        for c in v.collapsed.iter_mut().take(to).skip(from) {
            *c = folded;
        }
    }
    v.rebuild_rows();
}

/// Scrolls to the first open section: the hosts just chosen, whatever
/// number of folded headers come before them.
fn scroll_to_first_open(v: &mut Viewer) {
    if let Some(y) = v.rows.sections.iter().find(|s| !s.collapsed).map(|s| s.y) {
        v.set_scroll(y);
    }
}

/// A run's timeline going on screen: the hosts beyond the first few folded.
pub fn fold_beyond_first(v: &mut Viewer) {
    if v.layout.hosts.len() > OPEN_HOSTS {
        fold_hosts(v, |h| (h >= OPEN_HOSTS).then_some(true));
    }
}

/// The host list: a filter, and a checkbox per host (open or folded).
#[component]
pub fn HostList(hosts: Arc<Vec<HostSpan>>) -> impl IntoView {
    let shown = RwSignal::new((0..hosts.len()).map(|h| h < OPEN_HOSTS).collect::<Vec<bool>>());
    let filter = RwSignal::new(String::new());
    let matches = {
        let hosts = hosts.clone();
        move |h: usize| {
            let f = filter.get().to_lowercase();
            f.is_empty() || hosts[h].name.to_lowercase().contains(&f)
        }
    };
    let apply = move || {
        let open = shown.get_untracked();
        with_viewer(|v| fold_hosts(v, |h| open.get(h).map(|o| !o)));
    };
    let set_host = move |h: usize, on: bool| {
        shown.update(|s| {
            if let Some(x) = s.get_mut(h) {
                *x = on;
            }
        });
        apply();
    };
    let only_matching = {
        let matches = matches.clone();
        let count = hosts.len();
        move |_| {
            shown.set((0..count).map(&matches).collect());
            apply();
            with_viewer(scroll_to_first_open);
        }
    };
    let items = hosts
        .iter()
        .enumerate()
        .map(|(h, span)| {
            let matches = matches.clone();
            view! {
                <li
                    data-host=span.name.clone()
                    data-first-track=span.first_track.to_string()
                    data-tracks=span.tracks.to_string()
                    data-offset-ps=span.offset_ps.to_string()
                    hidden=move || !matches(h)
                >
                    <label class="check">
                        <input
                            type="checkbox"
                            prop:checked=move || shown.with(|s| s.get(h).copied().unwrap_or(false))
                            on:change=move |ev| set_host(h, event_target_checked(&ev))
                        />
                        {span.name.clone()}
                    </label>
                    " "
                    <span class="note">{fmt::plural(span.events as usize, "event", "events")}</span>
                </li>
            }
        })
        .collect_view();
    let shown_count = move || {
        let n = shown.with(|s| s.iter().filter(|x| **x).count());
        format!("{} of {} hosts open", fmt::count(n as u64), fmt::count(hosts.len() as u64))
    };
    view! {
        <details id="trace-hosts" class="trace-hosts">
            <summary>"Hosts: " <span id="trace-hosts-count">{shown_count}</span></summary>
            // A drop-down from the trace viewer's toolbar row.
            <div class="trace-hosts-body">
            <div class="toolbar">
                <input
                    type="search"
                    id="trace-host-filter"
                    placeholder="Filter hosts by name"
                    aria-label="Filter hosts by name"
                    autocomplete="off"
                    spellcheck="false"
                    on:input=move |ev| filter.set(event_target_value(&ev))
                />
                <button type="button" id="trace-hosts-only" class="button small" on:click=only_matching>
                    "Open only these"
                </button>
            </div>
            <ul class="trace-host-list">{items}</ul>
            </div>
        </details>
    }
}
