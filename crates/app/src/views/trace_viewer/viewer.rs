//! The trace viewer's state on the page: one [`Viewer`] for the host on
//! screen (outside the reactive graph, so that drawing sixty frames a second
//! touches no signal), its view and scroll, and what is under the pointer.
//! Queries go through [`Client`] (one in flight per kind, the latest
//! waiting); what the viewer does on selection is in [`selection`](super::selection),
//! with the answers in [`answers`](super::answers). What the DOM shows goes
//! through [`Ui`]'s signals.

use std::cell::RefCell;
use std::sync::Arc;

use leptos::prelude::*;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

use crate::protocol::boxes::DrawBox;
use proflens_analysis::tools::trace_viewer::TraceLayout;

use super::client::{Client, Kind};
use super::listeners::Listeners;
use super::model::{fetch_range, RowHit, Rows, TrackRow, View, GUTTER_W, ROW_H, RULER_H, SECTION_H};
use super::surface::{Drawn, Surface};
use super::track_prefs::TrackControl;
use super::window_data::WindowData;
use crate::protocol::{EventAt, TraceHit, TraceLink, TraceQuery};
use crate::views::TraceTarget;

// Re-exported: the panes, the drawing and the page name them through the viewer.
pub use super::ui::{Details, Summary, Tooltip, Ui};

/// A drag under way on the canvas.
#[derive(Debug, Clone, Copy)]
pub struct Drag {
    pub x0: f64,
    pub y0: f64,
    pub view0: View,
    pub scroll0: f64,
    pub moved: bool,
    /// Shift-drag or a drag on the ruler selects a time range.
    pub select: bool,
    pub from_ruler: bool,
}

/// The selected event.
#[derive(Debug, Clone, PartialEq)]
pub struct Selected {
    pub hit: TraceHit,
    pub name: Option<String>,
}

/// Sends a query to the worker (its sequence number and the query).
pub type SendQuery = Arc<dyn Fn(u32, TraceQuery) + Send + Sync>;

pub struct Viewer {
    pub id: u32,
    pub send: SendQuery,
    /// Draws a frame (what the next animation frame runs).
    on_frame: fn(),
    pub run: String,
    pub host: String,
    pub layout: Arc<TraceLayout>,
    pub span: (f64, f64),
    pub collapsed: Vec<bool>,
    pub rows: Rows,
    pub view: View,
    pub scroll_y: f64,
    pub data: Option<WindowData>,
    pub selected: Option<Selected>,
    pub links: Vec<TraceLink>,
    /// The model position being looked up, to select when the worker answers.
    pub locating: Option<EventAt>,
    /// Whether the event query in flight is a `.`/`,` step ([`nav`](super::nav)).
    pub stepping: bool,
    /// The selected event's model position, once its details came.
    pub selected_at: Option<EventAt>,
    /// The range last written for the URL, or shown because the URL asked.
    pub published_range: Option<(i64, i64)>,
    /// Keeps the view when the located event comes (the URL gave the range).
    pub keep_view: bool,
    /// The event the page asked to show; cleared when the user selects another.
    pub target: RwSignal<Option<TraceTarget>>,
    /// A range selected by shift-drag (ps) and the tracks it covers.
    pub range: Option<(f64, f64)>,
    pub range_tracks: Vec<u32>,
    /// The range marked with `m`.
    pub mark: Option<(f64, f64)>,
    pub hits: Vec<TraceHit>,
    pub hit_index: Option<usize>,
    /// The pattern the hits are for, and whether to select the first when they come.
    pub searched: Option<(String, bool)>,
    pub select_first_hit: bool,
    /// The pointer over the canvas, CSS pixels.
    pub pointer: Option<(f64, f64)>,
    pub drag: Option<Drag>,
    /// Navigation keys held down (w, a, s, d) and the time of the last step.
    pub held: Vec<char>,
    pub last_step_ms: f64,
    pub client: Client,
    pub canvas: HtmlCanvasElement,
    pub ctx: CanvasRenderingContext2d,
    pub surface: Surface,
    pub frame_requested: bool,
    /// Canvas size in CSS pixels at the last frame.
    pub size: (f64, f64),
    /// Single-event boxes of the last frame wide enough to click, for the test hook.
    pub drawn: Vec<Drawn>,
    /// Straggler flags drawn in the last frame, for the test hook.
    pub flags_drawn: usize,
    /// Widths of the gutter's names (tracks by id, then sections), NaN until measured.
    pub gutter_widths: Vec<f64>,
    /// The user's order, pins, hidden tracks and filter ([`super::track_control`]).
    pub tracks: TrackControl,
    pub ui: Ui,
    /// Removed from the page with the viewer.
    _listeners: Listeners,
}

thread_local! {
    pub static VIEWER: RefCell<Option<Viewer>> = const { RefCell::new(None) };
    static NEXT_ID: RefCell<u32> = const { RefCell::new(0) };
}

pub fn next_id() -> u32 {
    NEXT_ID.with_borrow_mut(|n| {
        *n = n.wrapping_add(1);
        *n
    })
}

/// Runs `f` on the viewer on screen, if any (and if not already busy).
pub fn with_viewer<T>(f: impl FnOnce(&mut Viewer) -> T) -> Option<T> {
    VIEWER.with(|v| v.try_borrow_mut().ok().and_then(|mut v| v.as_mut().map(f)))
}

/// What a viewer is made of when it goes on screen.
pub struct Parts {
    pub id: u32,
    pub send: SendQuery,
    pub on_frame: fn(),
    pub run: String,
    pub host: String,
    pub layout: Arc<TraceLayout>,
    pub canvas: HtmlCanvasElement,
    pub ctx: CanvasRenderingContext2d,
    pub ui: Ui,
    pub listeners: Listeners,
    pub target: RwSignal<Option<TraceTarget>>,
}

impl Viewer {
    pub fn new(parts: Parts) -> Viewer {
        let Parts { id, send, on_frame, run, host, layout, canvas, ctx, ui, listeners, target } = parts;
        let span = (layout.start_ps as f64, layout.end_ps.max(layout.start_ps + 1) as f64);
        let collapsed = vec![false; layout.sections.len()];
        let track_control = TrackControl::new(&layout, ui.tracks.get_untracked());
        let rows = Rows::arranged(&layout, &collapsed, &track_control.arrange(&layout));
        let tracks = rows.tracks.len() + layout.sections.len();
        Viewer {
            id,
            send,
            on_frame,
            run,
            host,
            span,
            collapsed,
            flags_drawn: 0,
            rows,
            view: View::fit(span.0, span.1),
            scroll_y: 0.0,
            data: None,
            selected: None,
            links: Vec::new(),
            locating: None,
            stepping: false,
            selected_at: None,
            published_range: None,
            keep_view: false,
            target,
            range: None,
            range_tracks: Vec::new(),
            mark: None,
            hits: Vec::new(),
            hit_index: None,
            searched: None,
            select_first_hit: false,
            pointer: None,
            drag: None,
            held: Vec::new(),
            last_step_ms: 0.0,
            client: Client::default(),
            canvas,
            ctx,
            surface: Surface::default(),
            frame_requested: false,
            size: (0.0, 0.0),
            drawn: Vec::new(),
            gutter_widths: vec![f64::NAN; tracks],
            tracks: track_control,
            layout,
            ui,
            _listeners: listeners,
        }
    }

    /// Timeline width (CSS pixels right of the gutter).
    pub fn timeline_width(&self) -> f64 {
        (self.size.0 - GUTTER_W).max(1.0)
    }

    /// Height of the scrolling area below the ruler and the pinned band.
    pub fn viewport_height(&self) -> f64 {
        (self.size.1 - RULER_H - self.band_height()).max(1.0)
    }

    /// Height of the pinned tracks' band: at most half the canvas below the ruler.
    pub fn band_height(&self) -> f64 {
        self.rows.pinned_height.min(((self.size.1 - RULER_H) * 0.5).max(0.0))
    }

    /// Where the scrolling tracks start on the canvas, CSS pixels.
    pub fn scroll_top(&self) -> f64 {
        RULER_H + self.band_height()
    }

    /// A track's top on the canvas, CSS pixels.
    pub fn track_top(&self, row: &TrackRow) -> f64 {
        if row.pinned {
            RULER_H + row.y
        } else {
            self.scroll_top() + row.y - self.scroll_y
        }
    }

    /// Content height (of the scrolling tracks) at canvas height `y`.
    pub fn content_y(&self, y: f64) -> f64 {
        y.max(self.scroll_top()) - self.scroll_top() + self.scroll_y
    }

    pub(super) fn post(&mut self, kind: Kind, query: TraceQuery) {
        if let Some((seq, query)) = self.client.send(kind, query) {
            (self.send)(seq, query);
        }
    }

    /// Sets the view (kept sensible); the next frame draws it and asks for boxes if needed.
    pub fn set_view(&mut self, view: View) {
        self.view = view.clamp(self.span);
        self.request_frame();
    }

    pub fn set_scroll(&mut self, y: f64) {
        self.scroll_y = y;
        self.clamp_scroll();
        self.request_frame();
    }

    /// Keeps the scroll within the tracks.
    pub fn clamp_scroll(&mut self) {
        let most = (self.rows.height - self.viewport_height()).max(0.0);
        self.scroll_y = self.scroll_y.clamp(0.0, most);
    }

    /// Tracks worth having boxes for: those shown within a screen of the visible ones.
    pub fn wanted_tracks(&self) -> Vec<u32> {
        let h = self.viewport_height();
        let mut tracks = self.rows.tracks_between(self.scroll_y - h, self.scroll_y + 2.0 * h);
        tracks.extend(self.rows.pinned());
        tracks
    }

    /// Asks for boxes when those on hand no longer draw the view well.
    pub fn fetch_if_needed(&mut self) {
        if self.size.0 <= GUTTER_W || self.client.busy(Kind::Window) {
            // The answer under way triggers another look.
            return;
        }
        let width = self.timeline_width();
        let wanted = self.wanted_tracks();
        if self.data.as_ref().is_some_and(|d| d.coverage.serves(self.view, width, self.span, &wanted)) {
            return;
        }
        let (start_ps, end_ps, width_px) = fetch_range(self.view, width, self.span);
        self.tracks.asked = wanted.clone();
        self.post(Kind::Window, TraceQuery::Window { tracks: wanted, start_ps, end_ps, width_px });
    }

    pub fn request_frame(&mut self) {
        if self.frame_requested {
            return;
        }
        self.frame_requested = true;
        request_animation_frame(self.on_frame);
    }

    pub fn toggle_section(&mut self, s: usize) {
        if let Some(c) = self.collapsed.get_mut(s) {
            *c = !*c;
        }
        self.rebuild_rows();
    }

    /// Lays the rows out again (folds or track prefs changed).
    pub fn rebuild_rows(&mut self) {
        self.rows = Rows::arranged(&self.layout, &self.collapsed, &self.tracks.arrange(&self.layout));
        self.set_scroll(self.scroll_y);
    }

    /// Makes sure the track is shown (its section open) and on screen.
    pub fn reveal_track(&mut self, track: u32, depth: u16) {
        let section = self.layout.sections.iter().position(|s| s.tracks.iter().any(|t| t.id == track));
        if let Some(s) = section.filter(|&s| self.collapsed.get(s).copied().unwrap_or(false)) {
            self.toggle_section(s);
        }
        if let Some(Some(row)) = self.rows.tracks.get(track as usize).filter(|r| r.is_some_and(|r| !r.pinned)) {
            let y = row.y + f64::from(depth) * ROW_H;
            let h = self.viewport_height();
            if y < self.scroll_y || y + ROW_H > self.scroll_y + h {
                self.set_scroll(y - h / 3.0);
            }
        }
    }

    /// The section whose header is scrolled away while its tracks show: its
    /// header stays at the top (pushed up by the next one). Layout index and y.
    pub fn sticky_section(&self) -> Option<(usize, f64)> {
        let (s, end) = self.rows.section_at(self.scroll_y)?;
        let row = self.rows.sections.get(s)?;
        if row.y >= self.scroll_y || row.collapsed {
            return None;
        }
        Some((row.index, self.scroll_top() + (end - self.scroll_y - SECTION_H).min(0.0)))
    }

    /// What is under a point of the canvas (CSS pixels).
    pub fn hit_test(&self, x: f64, y: f64) -> Option<Pick> {
        if y < RULER_H {
            return None;
        }
        if let Some((s, top)) = self.sticky_section() {
            if y >= top && y < top + SECTION_H {
                return Some(Pick::Section(s));
            }
        }
        let band = self.band_height();
        let hit = if y < RULER_H + band {
            self.rows.pinned_at(y - RULER_H)
        } else {
            self.rows.at(y - RULER_H - band + self.scroll_y)
        };
        match hit? {
            RowHit::Section(s) => Some(Pick::Section(s)),
            RowHit::Track(track, depth) => {
                if x < GUTTER_W {
                    return None;
                }
                let width = self.timeline_width();
                let t = self.view.t(x - GUTTER_W, width);
                let slack = self.view.ps_per_px(width) * 1.5;
                let data = self.data.as_ref()?;
                let b = data.box_at(track, depth, t, slack)?;
                Some(Pick::Box(track, *b))
            }
        }
    }

    /// For the test hook: the widest single-event box on screen whose name
    /// contains `text`, in client coordinates.
    pub fn find_box(&self, text: &str) -> Option<wasm_bindgen::JsValue> {
        let data = self.data.as_ref()?;
        let best = self
            .drawn
            .iter()
            .filter(|d| data.names.get(d.name as usize).is_some_and(|n| n.contains(text)))
            .max_by(|a, b| a.w.total_cmp(&b.w))?;
        let rect = self.canvas.get_bounding_client_rect();
        let object = js_sys::Object::new();
        let name = data.names.get(best.name as usize).cloned().unwrap_or_default();
        for (key, value) in [
            ("x", wasm_bindgen::JsValue::from_f64(rect.left() + best.x)),
            ("y", wasm_bindgen::JsValue::from_f64(rect.top() + best.y)),
            ("width", wasm_bindgen::JsValue::from_f64(best.w)),
            ("height", wasm_bindgen::JsValue::from_f64(ROW_H - 1.0)),
            ("name", wasm_bindgen::JsValue::from_str(&name)),
            ("track", wasm_bindgen::JsValue::from_f64(f64::from(best.track))),
            ("event", wasm_bindgen::JsValue::from_f64(f64::from(best.event))),
        ] {
            let _ = js_sys::Reflect::set(&object, &wasm_bindgen::JsValue::from_str(key), &value);
        }
        Some(object.into())
    }

    /// For the test hook: where the viewer stands.
    pub fn state_for_tests(&self) -> wasm_bindgen::JsValue {
        use wasm_bindgen::JsValue;
        let object = js_sys::Object::new();
        let set = |key: &str, value: &JsValue| {
            let _ = js_sys::Reflect::set(&object, &JsValue::from_str(key), value);
        };
        let pair = |p: Option<(f64, f64)>| match p {
            Some((a, b)) => js_sys::Array::of2(&JsValue::from_f64(a), &JsValue::from_f64(b)).into(),
            None => JsValue::NULL,
        };
        set("start", &JsValue::from_f64(self.view.start));
        set("end", &JsValue::from_f64(self.view.end));
        set("scroll", &JsValue::from_f64(self.scroll_y));
        let collapsed: js_sys::Array =
            self.collapsed.iter().enumerate().filter(|(_, c)| **c).map(|(i, _)| JsValue::from_f64(i as f64)).collect();
        set("collapsed", &collapsed);
        let selected = match &self.selected {
            Some(s) => {
                let o = js_sys::Object::new();
                let _ = js_sys::Reflect::set(&o, &"track".into(), &JsValue::from_f64(f64::from(s.hit.track)));
                let _ = js_sys::Reflect::set(&o, &"event".into(), &JsValue::from_f64(f64::from(s.hit.event)));
                let _ = js_sys::Reflect::set(&o, &"start".into(), &JsValue::from_f64(s.hit.start_ps as f64));
                let _ = js_sys::Reflect::set(&o, &"end".into(), &JsValue::from_f64(s.hit.end_ps as f64));
                let _ = js_sys::Reflect::set(&o, &"depth".into(), &JsValue::from_f64(f64::from(s.hit.depth)));
                o.into()
            }
            None => JsValue::NULL,
        };
        set("selected", &selected);
        set("range", &pair(self.range));
        set("mark", &pair(self.mark));
        // Tracks with boxes on hand whose rows are within the canvas (several hosts' tests).
        let height = self.viewport_height();
        let on_screen = |t: u32| {
            self.rows
                .tracks
                .get(t as usize)
                .copied()
                .flatten()
                .is_some_and(|r| r.y + r.height > self.scroll_y && r.y < self.scroll_y + height)
        };
        let box_tracks: js_sys::Array = self
            .data
            .iter()
            .flat_map(|d| d.tracks.iter())
            .filter(|(t, boxes)| !boxes.is_empty() && on_screen(**t))
            .map(|(t, _)| JsValue::from_f64(f64::from(*t)))
            .collect();
        set("boxTracks", &box_tracks);
        set("flags", &JsValue::from_f64(self.flags_drawn as f64));
        object.into()
    }

    /// The name of a box's event (or first event).
    pub fn box_name(&self, b: &DrawBox) -> Option<&str> {
        self.data.as_ref()?.names.get(b.name as usize).map(String::as_str)
    }
}

/// What a point of the canvas shows.
#[derive(Debug, Clone, Copy)]
pub enum Pick {
    Section(usize),
    Box(u32, DrawBox),
}
