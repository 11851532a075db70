//! Navigation: `.` and `,` step to the next or previous slice of the
//! selected event's track at the same depth (the worker finds it), Ctrl+F
//! and `/` focus the search box, and the URL keeps the visible time range
//! (`t=`, written once the view settles) and the selected event (`event=`,
//! its model position), so that a shared link opens the same view.

use std::sync::Arc;
use std::time::Duration;

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::client::Kind;
use super::model::View;
use super::ui::{Details, Ui};
use super::viewer::{with_viewer, Viewer};
use crate::protocol::{TraceEvent, TraceQuery};
use crate::views::{TraceRange, TraceTarget};

/// The view is written to the URL this long after it last moved.
const SETTLE: Duration = Duration::from_millis(300);

impl Viewer {
    /// `.` (forward) or `,`: asks for the neighbouring slice of the selected
    /// event; one step at a time (a press while one is under way is dropped).
    pub fn step_slice(&mut self, forward: bool) {
        let Some(s) = self.selected.as_ref() else { return };
        if self.stepping && self.client.busy(Kind::Event) {
            return;
        }
        let (track, event) = (s.hit.track, s.hit.event);
        self.stepping = true;
        self.post(Kind::Event, TraceQuery::Neighbour { track, event, forward });
    }

    /// The neighbouring slice came: selects it, and centres it when it is
    /// not wholly on screen.
    pub fn show_neighbour(&mut self, event: TraceEvent) {
        let hit = event.at;
        self.select(hit, Some(event.details.name.clone()));
        self.ui.details.set(Details::Shown(Arc::new(event.clone())));
        self.publish_selected(&event);
        if (hit.start_ps as f64) < self.view.start || (hit.end_ps as f64) > self.view.end {
            self.center_on(hit);
        } else {
            self.reveal_track(hit.track, hit.depth);
        }
    }

    /// The selected event's details came: its model position goes to the
    /// page (and so to the URL) as the event to show.
    pub fn publish_selected(&mut self, event: &TraceEvent) {
        self.selected_at = event.model_at;
        let target = event.model_at.map(|at| TraceTarget { run: self.run.clone(), host: self.host.clone(), at });
        if self.target.with_untracked(|t| *t != target) {
            self.target.set(target);
        }
    }

    /// A range asked for (the URL) that the viewer did not write itself: shows it.
    pub fn show_asked_range(&mut self, range: &TraceRange) {
        let asked = (range.start_ps, range.end_ps);
        if range.run == self.run && range.host == self.host && self.published_range != Some(asked) {
            self.published_range = Some(asked);
            self.set_view(View { start: asked.0 as f64, end: asked.1 as f64 });
        }
    }
}

/// The range of `asked` when it is for this viewer's host.
pub fn asked_range(asked: Option<TraceRange>, run: &str, host: &str) -> Option<(f64, f64)> {
    asked.filter(|r| r.run == run && r.host == host).map(|r| (r.start_ps as f64, r.end_ps as f64))
}

/// Writes the visible range to `out` (the page's, which the URL follows)
/// once it has not moved for [`SETTLE`], and follows ranges written there
/// by others (a hand-edited URL).
pub fn keep_range_in_url(id: u32, ui: Ui, out: RwSignal<Option<TraceRange>>, run: String, host: String) {
    let moves = RwSignal::new(0u32);
    Effect::new(move |_| {
        let (start, end) = ui.range.get();
        if end <= start {
            return;
        }
        moves.update(|n| *n = n.wrapping_add(1));
        let mine = moves.get_untracked();
        let (run, host) = (run.clone(), host.clone());
        set_timeout(
            move || {
                if moves.try_get_untracked() != Some(mine) {
                    return;
                }
                let range = TraceRange { run, host, start_ps: start.round() as i64, end_ps: end.round() as i64 };
                let published = with_viewer(|v| {
                    (v.id == id).then(|| v.published_range = Some((range.start_ps, range.end_ps))).is_some()
                });
                if published == Some(true) && out.try_with_untracked(|r| r.as_ref() != Some(&range)) == Some(true) {
                    out.set(Some(range));
                }
            },
            SETTLE,
        );
    });
    let _ = Effect::watch(
        move || out.get(),
        move |asked, _, _| {
            if let Some(asked) = asked {
                with_viewer(|v| {
                    if v.id == id {
                        v.show_asked_range(asked);
                    }
                });
            }
        },
        false,
    );
}

/// Ctrl+F (⌘+F) and `/`: the search box takes the focus, its text selected.
pub fn focus_search() -> bool {
    let input = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("trace-search"))
        .and_then(|e| e.dyn_into::<web_sys::HtmlInputElement>().ok());
    let Some(input) = input else { return false };
    let _ = input.focus();
    input.select();
    true
}
