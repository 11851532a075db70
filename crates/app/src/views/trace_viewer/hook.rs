//! `window.__proflensTrace`: what the trace viewer measured, for the
//! browser tests and the benchmark (`tests/browser/bench_web.mjs`).
//!
//! - `frames`: duration of each redraw, ms (`performance.now()` around it);
//! - `layoutAt`, `firstFrameAt`: when the timeline's layout arrived and when
//!   the first frame with events was drawn (`performance.now()`), reset when
//!   a viewer is shown;
//! - `windows`, `lastWindowMs`: window answers so far and the worker's time on the last;
//! - `lastFrameBoxes`: boxes drawn in the last frame;
//! - `findBox(text)`: the widest single-event box on screen whose name
//!   contains `text` (case-sensitive; any box for ""), as
//!   `{x, y, width, height, name, track, event}` in client coordinates, or `null`;
//! - `boxes()`: every single-event box of the last frame wide enough to click,
//!   as `{x, y, width, track, event}` in client coordinates;
//! - `counterTracks()`: the counter tracks shown, with their chart's box in
//!   client coordinates (see [`tracks_for_tests`](super::draw_counter::tracks_for_tests));
//! - `state()`: `{start, end, scroll, collapsed: [section…], selected: {track, event, start, end, depth} | null,
//!   range: [start, end] | null, mark: [start, end] | null, tracks}` (times in ps), where
//!   `tracks` is `{rows: [{track, name, sectionName, top, height, pinned, section}] (top to bottom, canvas CSS px),
//!   sections: [layout index…] (in order), headers: [their tops], pinned: [track…], band, scrollTop, hidden, filter, flash,
//!   asked: [track…] (what the last window query asked for)}`;
//! - `sections()`: the timeline's sections in order, as `[{name, tracks: [name…]}]`.
//!
//! The property itself cannot be replaced by page scripts.

use std::cell::RefCell;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::track_control;
use super::viewer::with_viewer;

const NAME: &str = "__proflensTrace";
const MAX_FRAMES: u32 = 20_000;

struct Hook {
    object: js_sys::Object,
    frames: js_sys::Array,
}

thread_local! {
    static HOOK: RefCell<Option<Hook>> = const { RefCell::new(None) };
}

pub fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map(|p| p.now()).unwrap_or_else(js_sys::Date::now)
}

fn set(object: &js_sys::Object, key: &str, value: &JsValue) {
    let _ = js_sys::Reflect::set(object, &JsValue::from_str(key), value);
}

fn with_hook(f: impl FnOnce(&Hook)) {
    HOOK.with_borrow_mut(|hook| {
        if hook.is_none() {
            *hook = create();
        }
        if let Some(h) = hook.as_ref() {
            f(h);
        }
    });
}

fn create() -> Option<Hook> {
    let window = web_sys::window()?;
    let object = js_sys::Object::new();
    let frames = js_sys::Array::new();
    set(&object, "frames", &frames);
    set(&object, "layoutAt", &JsValue::NULL);
    set(&object, "firstFrameAt", &JsValue::NULL);
    set(&object, "windows", &JsValue::from_f64(0.0));
    set(&object, "lastWindowMs", &JsValue::NULL);
    set(&object, "lastFrameBoxes", &JsValue::from_f64(0.0));
    let find = Closure::<dyn Fn(JsValue) -> JsValue>::new(|text: JsValue| {
        let text = text.as_string().unwrap_or_default();
        with_viewer(|v| v.find_box(&text)).flatten().unwrap_or(JsValue::NULL)
    });
    set(&object, "findBox", find.as_ref().unchecked_ref());
    let state = Closure::<dyn Fn() -> JsValue>::new(|| {
        with_viewer(|v| {
            let state = v.state_for_tests();
            let _ = js_sys::Reflect::set(&state, &"tracks".into(), &track_control::state_for_tests(v));
            state
        })
        .unwrap_or(JsValue::NULL)
    });
    set(&object, "state", state.as_ref().unchecked_ref());
    let boxes = Closure::<dyn Fn() -> JsValue>::new(|| with_viewer(drawn_boxes).unwrap_or(JsValue::NULL));
    set(&object, "boxes", boxes.as_ref().unchecked_ref());
    let counters = Closure::<dyn Fn() -> JsValue>::new(|| {
        with_viewer(|v| super::draw_counter::tracks_for_tests(v)).unwrap_or(JsValue::NULL)
    });
    set(&object, "counterTracks", counters.as_ref().unchecked_ref());
    let sections =
        Closure::<dyn Fn() -> JsValue>::new(|| with_viewer(|v| sections_for_tests(&v.layout)).unwrap_or(JsValue::NULL));
    set(&object, "sections", sections.as_ref().unchecked_ref());
    // One hook per page, kept for its lifetime.
    find.forget();
    state.forget();
    boxes.forget();
    counters.forget();
    sections.forget();
    let descriptor = js_sys::Object::new();
    set(&descriptor, "value", &object);
    set(&descriptor, "writable", &JsValue::FALSE);
    set(&descriptor, "enumerable", &JsValue::FALSE);
    set(&descriptor, "configurable", &JsValue::TRUE);
    let _ = js_sys::Reflect::define_property(&window, &JsValue::from_str(NAME), &descriptor);
    Some(Hook { object, frames })
}

/// The clickable boxes of the last frame, in client coordinates.
fn drawn_boxes(v: &mut super::viewer::Viewer) -> JsValue {
    let rect = v.canvas.get_bounding_client_rect();
    let list: js_sys::Array = v
        .drawn
        .iter()
        .map(|d| {
            let o = js_sys::Object::new();
            set(&o, "x", &JsValue::from_f64(rect.left() + d.x));
            set(&o, "y", &JsValue::from_f64(rect.top() + d.y));
            set(&o, "width", &JsValue::from_f64(d.w));
            set(&o, "track", &JsValue::from_f64(f64::from(d.track)));
            set(&o, "event", &JsValue::from_f64(f64::from(d.event)));
            JsValue::from(o)
        })
        .collect();
    list.into()
}

/// The timeline's sections and their tracks' names, in order.
fn sections_for_tests(layout: &proflens_analysis::tools::trace_viewer::TraceLayout) -> JsValue {
    let sections: js_sys::Array = layout
        .sections
        .iter()
        .map(|section| {
            let o = js_sys::Object::new();
            set(&o, "name", &JsValue::from_str(&section.name));
            let tracks: js_sys::Array = section.tracks.iter().map(|t| JsValue::from_str(&t.name)).collect();
            set(&o, "tracks", &tracks);
            JsValue::from(o)
        })
        .collect();
    sections.into()
}

/// A viewer with a new layout is on screen.
pub fn record_layout() {
    with_hook(|h| {
        set(&h.object, "layoutAt", &JsValue::from_f64(now_ms()));
        set(&h.object, "firstFrameAt", &JsValue::NULL);
    });
}

pub fn record_window(compute_ms: f64) {
    with_hook(|h| {
        let n =
            js_sys::Reflect::get(&h.object, &JsValue::from_str("windows")).ok().and_then(|v| v.as_f64()).unwrap_or(0.0);
        set(&h.object, "windows", &JsValue::from_f64(n + 1.0));
        set(&h.object, "lastWindowMs", &JsValue::from_f64(compute_ms));
    });
}

/// One redraw took `ms`; `boxes` events were drawn.
pub fn record_frame(ms: f64, boxes: usize) {
    with_hook(|h| {
        if h.frames.length() >= MAX_FRAMES {
            h.frames.splice(0, MAX_FRAMES / 2, &JsValue::UNDEFINED);
            // splice with an item inserts it: take it out again.
            h.frames.shift();
        }
        h.frames.push(&JsValue::from_f64(ms));
        set(&h.object, "lastFrameBoxes", &JsValue::from_f64(boxes as f64));
        if boxes > 0 {
            let first = js_sys::Reflect::get(&h.object, &JsValue::from_str("firstFrameAt")).unwrap_or(JsValue::NULL);
            if first.is_null() {
                set(&h.object, "firstFrameAt", &JsValue::from_f64(now_ms()));
            }
        }
    });
}
