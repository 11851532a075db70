//! What the viewer does when the user selects: an event (its details and
//! links), a time range (its summary), a mark, a search and its matches,
//! a fit to what is selected, and an export.

use std::sync::Arc;

use leptos::prelude::*;

use super::client::Kind;
use super::model::View;
use super::ui::{Details, Flame, SearchState, Summary};
use super::viewer::{Selected, Viewer};
use crate::protocol::MAX_HITS;
use crate::protocol::{EventAt, TraceEvent, TraceHit, TraceQuery};

impl Viewer {
    /// Selects an event: outlines it and asks for its details and links.
    pub fn select(&mut self, hit: TraceHit, name: Option<String>) {
        self.forget_target();
        self.selected = Some(Selected { hit, name });
        self.links.clear();
        self.ui.details.set(Details::Loading);
        self.ui.links.set(None);
        self.publish_selection();
        self.post(Kind::Event, TraceQuery::Event { track: hit.track, event: hit.event });
        self.post(Kind::Links, TraceQuery::Links { track: hit.track, event: hit.event });
        self.request_frame();
    }

    pub fn clear_selection(&mut self) {
        self.forget_target();
        self.selected = None;
        self.links.clear();
        self.ui.details.set(Details::Empty);
        self.ui.links.set(Some(Arc::new(Vec::new())));
        self.publish_selection();
        self.request_frame();
    }

    /// Looks up the event at a model position (an analysis's), to select
    /// and zoom to when the worker answers ([`Viewer::show_located`]).
    pub fn locate(&mut self, at: EventAt) {
        self.locating = Some(at);
        self.selected = None;
        self.links.clear();
        self.ui.details.set(Details::Loading);
        self.ui.links.set(None);
        self.publish_selection();
        self.post(Kind::Event, TraceQuery::Locate { at });
        self.request_frame();
    }

    /// The located event came: selects it, shows its details, asks for its
    /// links, and zooms to a window around it (the event a fifth of it).
    pub fn show_located(&mut self, event: TraceEvent) {
        let hit = event.at;
        self.selected = Some(Selected { hit, name: Some(event.details.name.clone()) });
        self.ui.details.set(Details::Shown(Arc::new(event)));
        self.publish_selection();
        self.post(Kind::Links, TraceQuery::Links { track: hit.track, event: hit.event });
        let (a, b) = (hit.start_ps as f64, hit.end_ps as f64);
        let w = (b - a).max(1000.0);
        if !std::mem::take(&mut self.keep_view) {
            self.set_view(View { start: a - 2.0 * w, end: b + 2.0 * w });
        }
        self.reveal_track(hit.track, hit.depth);
    }

    /// The user chose something else: the page's asked-for event no longer holds.
    fn forget_target(&mut self) {
        self.locating = None;
        self.stepping = false;
        self.selected_at = None;
        self.keep_view = false;
        if self.target.with_untracked(Option::is_some) {
            self.target.set(None);
        }
    }

    /// What "Export selection" and `f` work on: the range, else the mark,
    /// else the selected event.
    pub fn selection_span(&self) -> Option<(f64, f64)> {
        self.range
            .or(self.mark)
            .or_else(|| self.selected.as_ref().map(|s| (s.hit.start_ps as f64, s.hit.end_ps as f64)))
    }

    fn publish_selection(&self) {
        let span = self.selection_span();
        if self.ui.selection.get_untracked() != span {
            self.ui.selection.set(span);
        }
    }

    /// `f`: fits the selected event, else the range or mark, else the whole trace.
    pub fn fit(&mut self) {
        let target = self
            .selected
            .as_ref()
            .map(|s| (s.hit.start_ps as f64, s.hit.end_ps as f64, Some((s.hit.track, s.hit.depth))))
            .or_else(|| self.range.or(self.mark).map(|(a, b)| (a, b, None)));
        match target {
            Some((a, b, at)) => {
                let d = (b - a).max(1000.0);
                self.set_view(View { start: a - d * 0.1, end: a + d * 1.1 });
                if let Some((track, depth)) = at {
                    self.reveal_track(track, depth);
                }
            }
            None => self.set_view(View::fit(self.span.0, self.span.1)),
        }
    }

    /// `m`: marks the selected range (or event); again, or with nothing selected, unmarks.
    pub fn toggle_mark(&mut self) {
        let wanted =
            self.range.or_else(|| self.selected.as_ref().map(|s| (s.hit.start_ps as f64, s.hit.end_ps as f64)));
        self.mark = if wanted.is_some() && wanted != self.mark { wanted } else { None };
        // The mark takes the range's place (its summary stays in the pane).
        if self.mark.is_some() {
            self.range = None;
        }
        self.publish_selection();
        self.request_frame();
    }

    /// A time range was selected: summarise it over the tracks it covers.
    pub fn set_range(&mut self, range: Option<(f64, f64)>, tracks: Vec<u32>) {
        self.range = range.map(|(a, b)| (a.min(b), a.max(b)));
        self.range_tracks = tracks;
        self.publish_selection();
        match self.range {
            Some((a, b)) => {
                self.ui.summary.set(Summary::Loading);
                self.ui.flame.set(Flame::Loading);
                let (tracks, start_ps, end_ps) = (self.range_tracks.clone(), a.floor() as i64, b.ceil() as i64);
                self.post(Kind::Summary, TraceQuery::Summary { tracks: tracks.clone(), start_ps, end_ps });
                self.post(Kind::Flame, TraceQuery::Flame { tracks, start_ps, end_ps });
            }
            None => {
                self.ui.summary.set(Summary::Empty);
                self.ui.flame.set(Flame::Empty);
            }
        }
        self.request_frame();
    }

    pub fn search(&mut self, pattern: String, regex: bool, select_first: bool) {
        self.hits.clear();
        self.hit_index = None;
        self.select_first_hit = select_first;
        self.searched = Some((pattern.clone(), regex));
        self.ui.search_list.set(Default::default());
        if pattern.is_empty() {
            self.ui.search.set(SearchState::default());
            self.request_frame();
            return;
        }
        self.ui.search.set(SearchState { busy: true, ..SearchState::default() });
        self.post(Kind::Search, TraceQuery::Search { pattern, regex, limit: MAX_HITS });
    }

    /// Next (+1) or previous (-1) match: selects it and brings it on screen.
    pub fn step_hit(&mut self, by: isize) {
        if self.hits.is_empty() {
            return;
        }
        let n = self.hits.len() as isize;
        let i = match self.hit_index {
            Some(i) => (i as isize + by).rem_euclid(n) as usize,
            None if by >= 0 => {
                // The first match at or after the middle of the screen.
                let mid = (self.view.start + self.view.end) / 2.0;
                let at = self.hits.partition_point(|h| (h.start_ps as f64) < mid);
                if at < self.hits.len() {
                    at
                } else {
                    0
                }
            }
            None => {
                let mid = (self.view.start + self.view.end) / 2.0;
                self.hits.partition_point(|h| (h.start_ps as f64) < mid).checked_sub(1).unwrap_or(self.hits.len() - 1)
            }
        };
        self.hit_index = Some(i);
        let hit = self.hits[i];
        self.ui.search.update(|s| s.current = Some(i));
        self.center_on(hit);
        self.select(hit, None);
    }

    /// Brings an event on screen: centred, the zoom kept unless it is too wide.
    pub fn center_on(&mut self, hit: TraceHit) {
        let (a, b) = (hit.start_ps as f64, hit.end_ps as f64);
        let d = self.view.duration();
        if b - a > d * 0.8 {
            let w = (b - a).max(1000.0);
            self.set_view(View { start: a - w * 0.1, end: a + w * 1.1 });
        } else {
            let mid = (a + b) / 2.0;
            self.set_view(View { start: mid - d / 2.0, end: mid + d / 2.0 });
        }
        self.reveal_track(hit.track, hit.depth);
    }

    pub fn export(&mut self, selection: bool) {
        let range = if selection {
            match self.selection_span() {
                Some((a, b)) => Some((a.floor() as i64, b.ceil() as i64)),
                None => return,
            }
        } else {
            None
        };
        self.ui.exporting.set(true);
        self.ui.export.set(None);
        self.post(Kind::Export, TraceQuery::Export { range });
    }
}
