//! The list of search matches under the search box (`#trace-search-list`):
//! name, track, start and duration of the first
//! [`SEARCH_LIST`](crate::protocol::SEARCH_LIST) matches in time order.
//! Clicking one (or Enter on it) selects and centres its event; ↑/↓, Home
//! and End move between them (one tab stop for the whole list).

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::model::format_duration;
use super::ui::Ui;
use super::viewer::{with_viewer, Viewer};
use crate::widgets::fmt;

impl Viewer {
    /// Selects and centres match `i` of the hits on hand.
    pub fn pick_hit(&mut self, i: usize) {
        let Some(&hit) = self.hits.get(i) else { return };
        let name = self.ui.search_list.with_untracked(|l| l.get(i).map(|item| item.name.clone()));
        self.hit_index = Some(i);
        self.ui.search.update(|s| s.current = Some(i));
        self.center_on(hit);
        self.select(hit, name);
    }
}

/// Moves the focus to another item of the list: ↑/↓, Home, End.
fn on_list_key(ev: web_sys::KeyboardEvent) {
    // The target's list, not the event's current target: Leptos delegates key events to the document.
    let target = ev.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok());
    let Some(list) = target.and_then(|t| t.closest("#trace-search-list").ok().flatten()) else { return };
    let Ok(items) = list.query_selector_all("button.search-hit") else { return };
    let n = items.length();
    if n == 0 {
        return;
    }
    let active = web_sys::window().and_then(|w| w.document()).and_then(|d| d.active_element());
    let at = (0..n).find(|&k| items.item(k).is_some_and(|b| active.as_ref().is_some_and(|a| a.is_same_node(Some(&b)))));
    let to = match (ev.key().as_str(), at) {
        ("ArrowDown", Some(k)) => (k + 1).min(n - 1),
        ("ArrowUp", Some(k)) => k.saturating_sub(1),
        ("ArrowDown", None) | ("Home", _) => 0,
        ("ArrowUp", None) | ("End", _) => n - 1,
        _ => return,
    };
    ev.prevent_default();
    if let Some(button) = items.item(to).and_then(|b| b.dyn_into::<web_sys::HtmlElement>().ok()) {
        let _ = button.focus();
    }
}

#[component]
pub fn SearchList(ui: Ui) -> impl IntoView {
    let items = move || ui.search_list.get();
    let caption = move || {
        let listed = ui.search_list.with(|l| l.len());
        let total = ui.search.with(|s| s.total).unwrap_or(0);
        if listed as u64 == total {
            format!("{}:", fmt::plural(listed, "match", "matches"))
        } else {
            format!("The first {} of {} matches:", fmt::count(listed as u64), fmt::count(total))
        }
    };
    let rows = move || {
        let items = items();
        let n = items.len();
        items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                // Read per item, so that stepping through matches re-renders (and unfocuses) nothing.
                let chosen = move || ui.search.with(|s| s.current == Some(i));
                // One tab stop: the chosen match, else the first.
                let tab = move || {
                    let current = ui.search.with(|s| s.current).filter(|&c| c < n);
                    if current == Some(i) || (current.is_none() && i == 0) {
                        "0"
                    } else {
                        "-1"
                    }
                };
                let duration = format_duration((item.hit.end_ps - item.hit.start_ps) as f64);
                view! {
                    <li>
                        <button
                            type="button"
                            class="search-hit"
                            class:current=chosen
                            aria-current=move || chosen().then_some("true")
                            tabindex=tab
                            data-index=i.to_string()
                            data-track=item.hit.track.to_string()
                            data-event=item.hit.event.to_string()
                            on:click=move |_| {
                                with_viewer(|v| v.pick_hit(i));
                            }
                        >
                            <span class="hit-name">{item.name.clone()}</span>
                            <span class="hit-track">{item.track.clone()}</span>
                            <span class="hit-start">{format!("{} ms", fmt::ps_as_ms(item.hit.start_ps))}</span>
                            <span class="hit-duration">{duration}</span>
                        </button>
                    </li>
                }
            })
            .collect_view()
    };
    view! {
        <div id="trace-search-list" class="trace-search-list" hidden=move || ui.search_list.with(|l| l.is_empty())>
            <p class="note" id="trace-search-list-caption">{caption}</p>
            <ol aria-labelledby="trace-search-list-caption" on:keydown=on_list_key>
                {rows}
            </ol>
        </div>
    }
}
