//! What the viewer does with the worker's answers: boxes to draw, an
//! event's details and links, search matches, a range summary, an export.

use std::sync::Arc;

use leptos::prelude::*;

use super::client::Kind;
use super::hook;
use super::ui::{Details, Flame, SearchItem, SearchState, Summary};
use super::viewer::{Selected, Viewer};
use super::window_data::WindowData;
use crate::protocol::boxes::unpack_hits;
use crate::protocol::TraceAnswer;

impl Viewer {
    /// The listed matches: the first hits with their names and track names.
    fn search_items(&self, names: Vec<String>) -> Vec<SearchItem> {
        let track_name =
            |id: u32| self.layout.sections.iter().flat_map(|s| &s.tracks).find(|t| t.id == id).map(|t| t.name.clone());
        self.hits
            .iter()
            .zip(names)
            .map(|(&hit, name)| SearchItem { hit, name, track: track_name(hit.track).unwrap_or_default() })
            .collect()
    }

    /// Answers from the worker.
    pub fn on_answer(&mut self, seq: u32, answer: TraceAnswer, blob: Option<web_sys::Blob>) {
        let Some((kind, stale, next)) = self.client.answered(seq) else {
            return;
        };
        if let Some((seq, query)) = next {
            (self.send)(seq, query);
        }
        match (kind, answer) {
            (Kind::Window, TraceAnswer::Window { window }) => {
                hook::record_window(window.compute_ms);
                self.data = Some(WindowData::new(&window));
                self.request_frame();
            }
            (Kind::Window, TraceAnswer::Failed { message }) => {
                web_sys::console::warn_1(&format!("Proflens trace viewer: {message}").into());
            }
            (_, _) if stale => {}
            (Kind::Event, TraceAnswer::Event { event }) if self.locating.take().is_some() => {
                self.publish_selected(&event);
                self.show_located(*event);
            }
            (Kind::Event, TraceAnswer::Event { event }) if std::mem::take(&mut self.stepping) => {
                self.show_neighbour(*event);
            }
            // No neighbour: the selection stays.
            (Kind::Event, TraceAnswer::Failed { .. }) if std::mem::take(&mut self.stepping) => {}
            (Kind::Event, TraceAnswer::Event { event }) => {
                if self
                    .selected
                    .as_ref()
                    .is_some_and(|s| (s.hit.track, s.hit.event) == (event.at.track, event.at.event))
                {
                    self.selected = Some(Selected { hit: event.at, name: Some(event.details.name.clone()) });
                    self.publish_selected(&event);
                    self.ui.details.set(Details::Shown(Arc::new(*event)));
                    self.request_frame();
                }
            }
            (Kind::Event, TraceAnswer::Failed { message }) => {
                self.locating = None;
                self.ui.details.set(Details::Failed(message));
            }
            (Kind::Links, TraceAnswer::Links { track, event, links }) => {
                if self.selected.as_ref().is_some_and(|s| (s.hit.track, s.hit.event) == (track, event)) {
                    self.links = links.clone();
                    self.ui.links.set(Some(Arc::new(links)));
                    self.request_frame();
                }
            }
            (Kind::Links, TraceAnswer::Failed { .. }) => self.ui.links.set(Some(Arc::new(Vec::new()))),
            (Kind::Search, TraceAnswer::Search { hits, total, names }) => {
                self.hits = unpack_hits(&hits.0);
                self.ui.search_list.set(Arc::new(self.search_items(names)));
                self.hit_index = None;
                self.ui.search.set(SearchState {
                    busy: false,
                    total: Some(total),
                    on_hand: self.hits.len(),
                    current: None,
                    error: None,
                });
                if std::mem::take(&mut self.select_first_hit) {
                    self.step_hit(1);
                }
                self.request_frame();
            }
            (Kind::Search, TraceAnswer::Failed { message }) => {
                self.ui.search.set(SearchState { error: Some(message), ..SearchState::default() })
            }
            (Kind::Summary, TraceAnswer::Summary { stats }) => self.ui.summary.set(Summary::Shown(Arc::from(stats))),
            (Kind::Summary, TraceAnswer::Failed { message }) => self.ui.summary.set(Summary::Failed(message)),
            (Kind::Flame, TraceAnswer::Flame { flame }) => self.ui.flame.set(Flame::Shown(Arc::from(flame))),
            (Kind::Flame, TraceAnswer::Failed { message }) => self.ui.flame.set(Flame::Failed(message)),
            (Kind::Export, TraceAnswer::Export { file_name, events, bytes }) => {
                self.ui.exporting.set(false);
                let result = match blob {
                    Some(blob) => crate::widgets::download::save_blob(&file_name, &blob).map(|()| {
                        format!(
                            "Saved {file_name}: {} events, {:.1} MB.",
                            crate::widgets::fmt::count(events),
                            bytes as f64 / 1e6
                        )
                    }),
                    None => Err("The export came back without its file.".to_string()),
                };
                self.ui.export.set(Some(result));
            }
            (Kind::Export, TraceAnswer::Failed { message }) => {
                self.ui.exporting.set(false);
                self.ui.export.set(Some(Err(message)));
            }
            (_, other) => {
                web_sys::console::warn_1(&format!("Proflens trace viewer: unexpected answer {other:?}").into());
            }
        }
        if kind == Kind::Window {
            self.fetch_if_needed();
        }
    }
}
