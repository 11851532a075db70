//! The trace viewer's state on the page and its conversation with the
//! worker: one [`Viewer`] for the host on screen (outside the reactive
//! graph, so that drawing sixty frames a second touches no signal), the
//! queries it sends (one in flight per kind, the latest waiting) and what it
//! does with the answers. What the DOM shows goes through [`Ui`]'s signals.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use leptos::prelude::*;
use proflens_analysis::passes::trace::search::NameSummary;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

use super::boxes::{unpack, unpack_hits, DrawBox};
use super::draw::{self, Surface};
use super::hook;
use super::interact::Listeners;
use super::model::{fetch_range, name_color, Coverage, RowHit, Rows, View, GUTTER_W, ROW_H, RULER_H, SECTION_H};
use super::queries::MAX_HITS;
use crate::bridge;
use crate::protocol::{TraceAnswer, TraceEvent, TraceHit, TraceLayout, TraceLink, TraceQuery, TraceWindow};
use crate::state::AppState;

/// The details pane.
#[derive(Debug, Clone, PartialEq)]
pub enum Details {
    Empty,
    Loading,
    Shown(Arc<TraceEvent>),
    Failed(String),
}

/// The range summary pane.
#[derive(Debug, Clone, PartialEq)]
pub enum Summary {
    Empty,
    Loading,
    Shown(Arc<SummaryView>),
    Failed(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct SummaryView {
    pub start_ps: i64,
    pub end_ps: i64,
    pub tracks: u32,
    pub rows: Arc<Vec<NameSummary>>,
}

/// What the search line says.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SearchState {
    pub busy: bool,
    /// Matches in the trace, once counted.
    pub total: Option<u64>,
    /// Matches on hand to step through (at most [`MAX_HITS`]).
    pub on_hand: usize,
    pub current: Option<usize>,
    pub error: Option<String>,
}

/// The hover card: CSS pixels within the canvas box.
#[derive(Debug, Clone, PartialEq)]
pub struct Tooltip {
    pub x: f64,
    pub y: f64,
    /// Near the right edge the card goes left of the pointer.
    pub flip: bool,
    pub name: String,
    pub detail: String,
}

/// The signals behind the DOM around the canvas.
#[derive(Clone, Copy)]
pub struct Ui {
    pub details: RwSignal<Details>,
    /// The selected event's linked events; `None` while they are looked for.
    pub links: RwSignal<Option<Arc<Vec<TraceLink>>>>,
    pub summary: RwSignal<Summary>,
    pub search: RwSignal<SearchState>,
    pub tooltip: RwSignal<Option<Tooltip>>,
    /// The time range on screen, ps.
    pub range: RwSignal<(f64, f64)>,
    /// What "Export selection" would export, ps.
    pub selection: RwSignal<Option<(f64, f64)>>,
    pub export: RwSignal<Option<Result<String, String>>>,
    pub exporting: RwSignal<bool>,
}

impl Ui {
    pub fn new() -> Ui {
        Ui {
            details: RwSignal::new(Details::Empty),
            links: RwSignal::new(Some(Arc::new(Vec::new()))),
            summary: RwSignal::new(Summary::Empty),
            search: RwSignal::new(SearchState::default()),
            tooltip: RwSignal::new(None),
            range: RwSignal::new((0.0, 0.0)),
            selection: RwSignal::new(None),
            export: RwSignal::new(None),
            exporting: RwSignal::new(false),
        }
    }
}

/// The kinds of query; one of each may be in flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Window = 0,
    Event = 1,
    Search = 2,
    Summary = 3,
    Export = 4,
    Links = 5,
}

const KINDS: [Kind; 6] = [Kind::Window, Kind::Event, Kind::Search, Kind::Summary, Kind::Export, Kind::Links];

/// An answer's kind, whether it is stale, and the query to post now.
pub type Answered = (Kind, bool, Option<(u32, TraceQuery)>);

/// Latest request wins: while a query of a kind is in flight, a newer one
/// waits (replacing any older waiting one) and goes when the answer comes.
#[derive(Debug, Default)]
pub struct Client {
    next_seq: u32,
    in_flight: [Option<u32>; 6],
    waiting: [Option<TraceQuery>; 6],
}

impl Client {
    /// The query to post now with its number, or `None` if it must wait.
    pub fn send(&mut self, kind: Kind, query: TraceQuery) -> Option<(u32, TraceQuery)> {
        let k = kind as usize;
        if self.in_flight[k].is_some() {
            self.waiting[k] = Some(query);
            return None;
        }
        self.next_seq = self.next_seq.wrapping_add(1);
        self.in_flight[k] = Some(self.next_seq);
        Some((self.next_seq, query))
    }

    /// An answer came: its kind, whether a newer query was waiting (the
    /// answer is then stale), and that query to post now.
    pub fn answered(&mut self, seq: u32) -> Option<Answered> {
        let kind = KINDS.into_iter().find(|&k| self.in_flight[k as usize] == Some(seq))?;
        self.in_flight[kind as usize] = None;
        let next = self.waiting[kind as usize].take();
        let stale = next.is_some();
        Some((kind, stale, next.and_then(|q| self.send(kind, q))))
    }

    pub fn busy(&self, kind: Kind) -> bool {
        self.in_flight[kind as usize].is_some()
    }

    /// The worker was replaced: nothing in flight will be answered.
    pub fn reset(&mut self) {
        *self = Client { next_seq: self.next_seq, ..Client::default() };
    }
}

/// The boxes on hand, by track, with their names' colours.
pub struct WindowData {
    pub coverage: Coverage,
    pub tracks: HashMap<u32, Vec<DrawBox>>,
    pub names: Vec<String>,
    pub colors: Vec<[u8; 3]>,
    /// Measured text widths by name (NaN until measured).
    pub widths: Vec<f64>,
}

impl WindowData {
    fn new(window: &TraceWindow) -> WindowData {
        let mut tracks: HashMap<u32, Vec<DrawBox>> = HashMap::new();
        for t in &window.tracks {
            tracks.insert(t.track, unpack(&t.boxes.0));
        }
        let mut ids: Vec<u32> = tracks.keys().copied().collect();
        ids.sort_unstable();
        let start = window.start_ps as f64;
        let end = window.end_ps as f64;
        WindowData {
            coverage: Coverage {
                start,
                end,
                ps_per_px: (end - start).max(1.0) / f64::from(window.width_px.max(1)),
                tracks: ids,
            },
            tracks,
            colors: window.names.iter().map(|n| name_color(n)).collect(),
            widths: vec![f64::NAN; window.names.len()],
            names: window.names.clone(),
        }
    }

    /// The box of `track` at `depth` under time `t`, within `slack` ps.
    pub fn box_at(&self, track: u32, depth: u16, t: f64, slack: f64) -> Option<&DrawBox> {
        let boxes = self.tracks.get(&track)?;
        boxes
            .iter()
            .filter(|b| b.depth == depth && (b.start_ps as f64) - slack <= t && (b.end_ps as f64) + slack >= t)
            .min_by(|a, b| {
                let d = |x: &DrawBox| {
                    let (s, e) = (x.start_ps as f64, x.end_ps as f64);
                    if t < s {
                        s - t
                    } else if t > e {
                        t - e
                    } else {
                        0.0
                    }
                };
                d(a).total_cmp(&d(b))
            })
    }
}

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

pub struct Viewer {
    pub id: u32,
    pub app: AppState,
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
    pub drawn: Vec<draw::Drawn>,
    /// Widths of the gutter's names (tracks by id, then sections), NaN until measured.
    pub gutter_widths: Vec<f64>,
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
    pub app: AppState,
    pub run: String,
    pub host: String,
    pub layout: Arc<TraceLayout>,
    pub canvas: HtmlCanvasElement,
    pub ctx: CanvasRenderingContext2d,
    pub ui: Ui,
    pub listeners: Listeners,
}

impl Viewer {
    pub fn new(parts: Parts) -> Viewer {
        let Parts { id, app, run, host, layout, canvas, ctx, ui, listeners } = parts;
        let span = (layout.start_ps as f64, layout.end_ps.max(layout.start_ps + 1) as f64);
        let collapsed = vec![false; layout.sections.len()];
        let rows = Rows::new(&layout, &collapsed);
        let tracks = rows.tracks.len() + layout.sections.len();
        Viewer {
            id,
            app,
            run,
            host,
            span,
            collapsed,
            rows,
            view: View::fit(span.0, span.1),
            scroll_y: 0.0,
            data: None,
            selected: None,
            links: Vec::new(),
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
            layout,
            ui,
            _listeners: listeners,
        }
    }

    /// Timeline width (CSS pixels right of the gutter).
    pub fn timeline_width(&self) -> f64 {
        (self.size.0 - GUTTER_W).max(1.0)
    }

    /// Height of the scrolling area below the ruler.
    pub fn viewport_height(&self) -> f64 {
        (self.size.1 - RULER_H).max(1.0)
    }

    fn post(&mut self, kind: Kind, query: TraceQuery) {
        if let Some((seq, query)) = self.client.send(kind, query) {
            bridge::post_trace(self.app, self.run.clone(), self.host.clone(), seq, query);
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
        self.rows.tracks_between(self.scroll_y - h, self.scroll_y + 2.0 * h)
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
        self.post(Kind::Window, TraceQuery::Window { tracks: wanted, start_ps, end_ps, width_px });
    }

    pub fn request_frame(&mut self) {
        if self.frame_requested {
            return;
        }
        self.frame_requested = true;
        request_animation_frame(super::interact::on_frame);
    }

    pub fn toggle_section(&mut self, s: usize) {
        if let Some(c) = self.collapsed.get_mut(s) {
            *c = !*c;
        }
        self.rows = Rows::new(&self.layout, &self.collapsed);
        self.set_scroll(self.scroll_y);
    }

    /// Makes sure the track is shown (its section open) and on screen.
    pub fn reveal_track(&mut self, track: u32, depth: u16) {
        let section = self.layout.sections.iter().position(|s| s.tracks.iter().any(|t| t.id == track));
        if let Some(s) = section.filter(|&s| self.collapsed.get(s).copied().unwrap_or(false)) {
            self.toggle_section(s);
        }
        if let Some(Some(row)) = self.rows.tracks.get(track as usize) {
            let y = row.y + f64::from(depth) * ROW_H;
            let h = self.viewport_height();
            if y < self.scroll_y || y + ROW_H > self.scroll_y + h {
                self.set_scroll(y - h / 3.0);
            }
        }
    }

    /// Selects an event: outlines it and asks for its details and links.
    pub fn select(&mut self, hit: TraceHit, name: Option<String>) {
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
        self.selected = None;
        self.links.clear();
        self.ui.details.set(Details::Empty);
        self.ui.links.set(Some(Arc::new(Vec::new())));
        self.publish_selection();
        self.request_frame();
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
                let tracks = self.range_tracks.clone();
                self.post(
                    Kind::Summary,
                    TraceQuery::Summary { tracks, start_ps: a.floor() as i64, end_ps: b.ceil() as i64 },
                );
            }
            None => self.ui.summary.set(Summary::Empty),
        }
        self.request_frame();
    }

    pub fn search(&mut self, pattern: String, regex: bool, select_first: bool) {
        self.hits.clear();
        self.hit_index = None;
        self.select_first_hit = select_first;
        self.searched = Some((pattern.clone(), regex));
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

    /// The section whose header is scrolled away while its tracks show: its
    /// header stays at the top (pushed up by the next one). Index and y.
    pub fn sticky_section(&self) -> Option<(usize, f64)> {
        let (s, end) = self.rows.section_at(self.scroll_y)?;
        let row = self.rows.sections.get(s)?;
        if row.y >= self.scroll_y || row.collapsed {
            return None;
        }
        Some((s, RULER_H + (end - self.scroll_y - SECTION_H).min(0.0)))
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
        match self.rows.at(y - RULER_H + self.scroll_y)? {
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
                o.into()
            }
            None => JsValue::NULL,
        };
        set("selected", &selected);
        set("range", &pair(self.range));
        set("mark", &pair(self.mark));
        object.into()
    }

    /// The name of a box's event (or first event).
    pub fn box_name(&self, b: &DrawBox) -> Option<&str> {
        self.data.as_ref()?.names.get(b.name as usize).map(String::as_str)
    }

    /// Answers from the worker.
    pub fn on_answer(&mut self, seq: u32, answer: TraceAnswer, blob: Option<web_sys::Blob>) {
        let Some((kind, stale, next)) = self.client.answered(seq) else {
            return;
        };
        if let Some((seq, query)) = next {
            bridge::post_trace(self.app, self.run.clone(), self.host.clone(), seq, query);
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
            (Kind::Event, TraceAnswer::Event { event }) => {
                if self
                    .selected
                    .as_ref()
                    .is_some_and(|s| (s.hit.track, s.hit.event) == (event.at.track, event.at.event))
                {
                    self.selected = Some(Selected { hit: event.at, name: Some(event.details.name.clone()) });
                    self.ui.details.set(Details::Shown(Arc::new(*event)));
                    self.request_frame();
                }
            }
            (Kind::Event, TraceAnswer::Failed { message }) => self.ui.details.set(Details::Failed(message)),
            (Kind::Links, TraceAnswer::Links { track, event, links }) => {
                if self.selected.as_ref().is_some_and(|s| (s.hit.track, s.hit.event) == (track, event)) {
                    self.links = links.clone();
                    self.ui.links.set(Some(Arc::new(links)));
                    self.request_frame();
                }
            }
            (Kind::Links, TraceAnswer::Failed { .. }) => self.ui.links.set(Some(Arc::new(Vec::new()))),
            (Kind::Search, TraceAnswer::Search { hits, total }) => {
                self.hits = unpack_hits(&hits.0);
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
            (Kind::Summary, TraceAnswer::Summary { start_ps, end_ps, tracks, rows }) => self
                .ui
                .summary
                .set(Summary::Shown(Arc::new(SummaryView { start_ps, end_ps, tracks, rows: Arc::new(rows) }))),
            (Kind::Summary, TraceAnswer::Failed { message }) => self.ui.summary.set(Summary::Failed(message)),
            (Kind::Export, TraceAnswer::Export { file_name, events, bytes }) => {
                self.ui.exporting.set(false);
                let result = match blob {
                    Some(blob) => crate::download::save_blob(&file_name, &blob).map(|()| {
                        format!(
                            "Saved {file_name}: {} events, {:.1} MB.",
                            crate::fmt::count(events),
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

/// What a point of the canvas shows.
#[derive(Debug, Clone, Copy)]
pub enum Pick {
    Section(usize),
    Box(u32, DrawBox),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latest_query_wins() {
        let mut c = Client::default();
        let q = |n: u32| TraceQuery::Event { track: n, event: 0 };
        let (first, _) = c.send(Kind::Event, q(1)).expect("sent");
        assert!(c.send(Kind::Event, q(2)).is_none());
        assert!(c.send(Kind::Event, q(3)).is_none(), "waits, replacing 2");
        let (search, _) = c
            .send(Kind::Search, TraceQuery::Search { pattern: "x".into(), regex: false, limit: 1 })
            .expect("other kinds go at once");
        let (kind, stale, next) = c.answered(first).expect("known");
        assert_eq!(kind, Kind::Event);
        assert!(stale);
        let (third, query) = next.expect("the waiting one goes");
        assert_eq!(query, q(3));
        assert_eq!(c.answered(third).map(|(k, s, n)| (k, s, n.is_none())), Some((Kind::Event, false, true)));
        assert!(c.answered(third).is_none(), "answered once");
        c.reset();
        assert!(c.answered(search).is_none());
        assert!(c.send(Kind::Search, TraceQuery::Export { range: None }).is_some());
    }
}
