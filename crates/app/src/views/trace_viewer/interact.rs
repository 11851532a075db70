//! Mouse and keyboard, as in Chrome tracing and Perfetto: the wheel zooms
//! around the pointer (shift or a sideways swipe pans, alt scrolls the
//! tracks), dragging pans, shift+drag (or a drag on the ruler) selects a
//! range, a click selects an event (or folds a section, or zooms into a
//! merged box); W/S zoom, A/D pan (held: continuously), F fits, M marks,
//! Esc clears, `.`/`,` step along a track, `?` lists every shortcut
//! ([`shortcuts`](super::shortcuts)), Ctrl+F or `/` search. Keys work
//! anywhere on the page except in text fields.

use leptos::prelude::{GetUntracked, Set};
use wasm_bindgen::JsCast;
use web_sys::{EventTarget, HtmlCanvasElement, KeyboardEvent, MouseEvent, WheelEvent};

use super::draw;
use super::hook;
use super::listeners::Listeners;
use super::model::{View, GUTTER_W, RULER_H};
use super::nav;
use super::shortcut_help;
use super::track_control;
use super::viewer::{with_viewer, Drag, Pick, Viewer};
use crate::protocol::TraceHit;
use crate::widgets::keys::typing;

/// Zoom speed of a held W/S, e-folds per second.
const ZOOM_RATE: f64 = 2.2;
/// Pan speed of a held A/D, screens per second.
const PAN_RATE: f64 = 0.9;
/// One press of W/S zooms this much; of A/D pans this share of the screen.
const ZOOM_STEP: f64 = 1.3;
const PAN_STEP: f64 = 0.12;

/// Listens on the canvas and the window.
pub fn attach(canvas: &HtmlCanvasElement) -> Listeners {
    let mut l = Listeners::default();
    let target: &EventTarget = canvas.as_ref();
    l.add(target, "mousedown", false, |e| {
        if let Some(e) = e.dyn_ref::<MouseEvent>() {
            on_mouse_down(e);
        }
    });
    l.add(target, "mousemove", true, |e| {
        if let Some(e) = e.dyn_ref::<MouseEvent>() {
            on_hover(e);
        }
    });
    l.add(target, "mouseleave", true, |_| {
        with_viewer(|v| {
            v.pointer = None;
            v.ui.tooltip.set(None);
            v.request_frame();
        });
    });
    // Not passive: a right click on a name opens the track finder instead of the browser's menu.
    l.add(target, "contextmenu", false, |e| {
        if let Some(e) = e.dyn_ref::<MouseEvent>() {
            track_control::on_context_menu(e);
        }
    });
    // Not passive: the wheel zooms instead of scrolling the page.
    l.add(target, "wheel", false, |e| {
        if let Some(e) = e.dyn_ref::<WheelEvent>() {
            on_wheel(e);
        }
    });
    if let Some(window) = web_sys::window() {
        let window: &EventTarget = window.as_ref();
        l.add(window, "mousemove", true, |e| {
            if let Some(e) = e.dyn_ref::<MouseEvent>() {
                on_drag_move(e);
            }
        });
        l.add(window, "mouseup", true, |e| {
            if let Some(e) = e.dyn_ref::<MouseEvent>() {
                on_mouse_up(e);
            }
        });
        l.add(window, "keydown", false, |e| {
            if let Some(e) = e.dyn_ref::<KeyboardEvent>() {
                on_key_down(e);
            }
        });
        l.add(window, "keyup", true, |e| {
            if let Some(e) = e.dyn_ref::<KeyboardEvent>() {
                let key = e.key().to_lowercase();
                with_viewer(|v| v.held.retain(|c| !key.starts_with(*c)));
            }
        });
        l.add(window, "blur", true, |_| {
            with_viewer(|v| v.held.clear());
        });
        l.add(window, "resize", true, |_| {
            with_viewer(|v| v.request_frame());
        });
    }
    l
}

/// One animation frame: held keys move the view, then the canvas is redrawn.
pub fn on_frame() {
    with_viewer(|v| {
        v.frame_requested = false;
        let now = hook::now_ms();
        if !v.held.is_empty() {
            let dt = ((now - v.last_step_ms) / 1000.0).clamp(0.0, 0.05);
            v.last_step_ms = now;
            let held = v.held.clone();
            for key in held {
                move_by_key(v, key, dt);
            }
        }
        let started = hook::now_ms();
        let drawn = draw::frame(v);
        let ms = hook::now_ms() - started;
        match drawn {
            Ok(boxes) => hook::record_frame(ms, boxes),
            Err(e) => web_sys::console::warn_2(&"Proflens trace viewer: a frame could not be drawn".into(), &e),
        }
        // The hover card follows what is under the pointer, also as the view moves.
        let tip = match (v.pointer, v.drag) {
            (Some((x, y)), None) => draw::describe(v, x, y),
            _ => None,
        };
        if v.ui.tooltip.get_untracked() != tip {
            v.ui.tooltip.set(tip);
        }
        let range = (v.view.start, v.view.end);
        if v.ui.range.get_untracked() != range {
            v.ui.range.set(range);
        }
        v.fetch_if_needed();
        if !v.held.is_empty() {
            v.request_frame();
        }
    });
}

/// The time under the pointer, or the middle of the screen.
fn anchor(v: &Viewer) -> f64 {
    let width = v.timeline_width();
    match v.pointer {
        Some((x, _)) if x >= GUTTER_W => v.view.t(x - GUTTER_W, width),
        _ => (v.view.start + v.view.end) / 2.0,
    }
}

/// Continuous motion for a held key over `dt` seconds.
fn move_by_key(v: &mut Viewer, key: char, dt: f64) {
    let d = v.view.duration();
    match key {
        'w' => v.set_view(v.view.zoom((-ZOOM_RATE * dt).exp(), anchor(v))),
        's' => v.set_view(v.view.zoom((ZOOM_RATE * dt).exp(), anchor(v))),
        'a' => v.set_view(v.view.pan(-d * PAN_RATE * dt)),
        'd' => v.set_view(v.view.pan(d * PAN_RATE * dt)),
        _ => {}
    }
}

/// One press: a step, so that a quick tap moves too.
fn step_by_key(v: &mut Viewer, key: char) {
    let d = v.view.duration();
    match key {
        'w' => v.set_view(v.view.zoom(1.0 / ZOOM_STEP, anchor(v))),
        's' => v.set_view(v.view.zoom(ZOOM_STEP, anchor(v))),
        'a' => v.set_view(v.view.pan(-d * PAN_STEP)),
        'd' => v.set_view(v.view.pan(d * PAN_STEP)),
        _ => {}
    }
}

fn on_key_down(e: &KeyboardEvent) {
    // While the shortcut list is open, the keys are its own (Esc closes it).
    if shortcut_help::is_open() {
        return;
    }
    let key = e.key().to_lowercase();
    // Ctrl+F (⌘+F): the viewer's search, not the browser's find, while the viewer is on screen.
    let find = (e.ctrl_key() || e.meta_key()) && !e.alt_key() && key == "f";
    if find && with_viewer(|_| ()).is_some() && nav::focus_search() {
        e.prevent_default();
        return;
    }
    if typing(e) || e.ctrl_key() || e.meta_key() || e.alt_key() {
        return;
    }
    let canvas_focused = |v: &Viewer| {
        web_sys::window().and_then(|w| w.document()).and_then(|d| d.active_element()).is_some_and(|a| {
            let c: &web_sys::Element = v.canvas.as_ref();
            &a == c
        })
    };
    let handled = with_viewer(|v| {
        match key.as_str() {
            "w" | "a" | "s" | "d" => {
                let c = key.chars().next().unwrap_or('w');
                if !e.repeat() {
                    step_by_key(v, c);
                }
                if !v.held.contains(&c) {
                    v.held.push(c);
                    v.last_step_ms = hook::now_ms();
                }
                v.request_frame();
            }
            "f" => v.fit(),
            "m" => v.toggle_mark(),
            "." | "," => v.step_slice(key == "."),
            "?" => shortcut_help::open(),
            "/" => return nav::focus_search(),
            "0" => v.set_view(View::fit(v.span.0, v.span.1)),
            "escape" => {
                v.set_range(None, Vec::new());
                v.clear_selection();
            }
            "arrowup" | "arrowdown" | "pageup" | "pagedown" if canvas_focused(v) => {
                let page = v.viewport_height() * 0.8;
                let by = match key.as_str() {
                    "arrowup" => -40.0,
                    "arrowdown" => 40.0,
                    "pageup" => -page,
                    _ => page,
                };
                v.set_scroll(v.scroll_y + by);
            }
            _ => return false,
        }
        true
    });
    if handled == Some(true) {
        e.prevent_default();
    }
}

/// Pointer position relative to the canvas, CSS pixels.
fn local(v: &Viewer, e: &MouseEvent) -> (f64, f64) {
    let r = v.canvas.get_bounding_client_rect();
    (f64::from(e.client_x()) - r.left(), f64::from(e.client_y()) - r.top())
}

fn on_mouse_down(e: &MouseEvent) {
    if e.button() != 0 {
        return;
    }
    e.prevent_default();
    with_viewer(|v| {
        let (x, y) = local(v, e);
        // Focus for the arrow keys, without scrolling the page under the pointer.
        let options = web_sys::FocusOptions::new();
        options.set_prevent_scroll(true);
        let _ = v.canvas.focus_with_options(&options);
        let from_ruler = y < RULER_H && x >= GUTTER_W;
        // A name in the gutter is dragged to reorder (a click still folds a section).
        v.tracks.grab = if x < GUTTER_W && !e.shift_key() { track_control::grab_at(v, y) } else { None };
        v.tracks.drop_y = None;
        v.drag = Some(Drag {
            x0: x,
            y0: y,
            view0: v.view,
            scroll0: v.scroll_y,
            moved: false,
            select: from_ruler || e.shift_key(),
            from_ruler,
        });
        v.ui.tooltip.set(None);
    });
}

fn on_hover(e: &MouseEvent) {
    with_viewer(|v| {
        let (x, y) = local(v, e);
        v.pointer = Some((x, y));
        if v.drag.is_none() {
            v.request_frame();
        }
    });
}

fn on_drag_move(e: &MouseEvent) {
    with_viewer(|v| {
        let Some(mut d) = v.drag else { return };
        let (x, y) = local(v, e);
        let (dx, dy) = (x - d.x0, y - d.y0);
        if !d.moved && dx.abs() + dy.abs() < 4.0 {
            return;
        }
        d.moved = true;
        v.drag = Some(d);
        if v.tracks.grab.is_some() {
            v.tracks.drop_y = Some(y);
            v.request_frame();
            return;
        }
        let width = v.timeline_width();
        if d.select {
            let t0 = d.view0.t(d.x0 - GUTTER_W, width);
            let t1 = d.view0.t(x - GUTTER_W, width);
            v.range = Some((t0.min(t1), t0.max(t1)));
            v.request_frame();
        } else {
            let ppp = d.view0.ps_per_px(width);
            v.set_view(d.view0.pan(-dx * ppp));
            v.set_scroll(d.scroll0 - dy);
        }
    });
}

fn on_mouse_up(e: &MouseEvent) {
    with_viewer(|v| {
        let Some(d) = v.drag.take() else { return };
        let grab = v.tracks.grab.take();
        v.tracks.drop_y = None;
        if !d.moved {
            click(v, d.x0, d.y0);
            return;
        }
        if let Some(grab) = grab {
            track_control::drop_at(v, grab, local(v, e).1);
            v.request_frame();
            return;
        }
        if d.select {
            let (_, y) = local(v, e);
            let tracks = if d.from_ruler {
                v.rows.tracks_between(0.0, v.rows.height)
            } else {
                let top = v.content_y(d.y0);
                let bottom = v.content_y(y);
                v.rows.tracks_between(top, bottom.max(top + 1.0))
            };
            v.set_range(v.range, tracks);
        }
    });
}

fn click(v: &mut Viewer, x: f64, y: f64) {
    match v.hit_test(x, y) {
        Some(Pick::Section(s)) => v.toggle_section(s),
        Some(Pick::Box(_, b)) if b.merged > 1 => v.set_view(draw::view_of_box(b.start_ps as f64, b.end_ps as f64)),
        Some(Pick::Box(track, b)) => {
            let name = v.box_name(&b).map(str::to_string);
            let hit = TraceHit { track, event: b.event, start_ps: b.start_ps, end_ps: b.end_ps, depth: b.depth };
            v.select(hit, name);
        }
        None if y >= RULER_H && x >= GUTTER_W => {
            v.clear_selection();
            if v.range.is_some() {
                v.set_range(None, Vec::new());
            }
        }
        None => {}
    }
}

fn on_wheel(e: &WheelEvent) {
    e.prevent_default();
    with_viewer(|v| {
        let scale = match e.delta_mode() {
            1 => 16.0,
            2 => v.viewport_height(),
            _ => 1.0,
        };
        let (mut dx, mut dy) = (e.delta_x() * scale, e.delta_y() * scale);
        if e.shift_key() && dx == 0.0 {
            (dx, dy) = (dy, 0.0);
        }
        let (x, y) = local(v, e);
        v.pointer = Some((x, y));
        let width = v.timeline_width();
        if dx.abs() > dy.abs() {
            v.set_view(v.view.pan(dx * v.view.ps_per_px(width)));
        } else if e.alt_key() {
            v.set_scroll(v.scroll_y + dy);
        } else {
            // A pinch arrives as ctrl+wheel with small deltas.
            let speed = if e.ctrl_key() { 0.01 } else { 0.0015 };
            let factor = (dy * speed).clamp(-1.5, 1.5).exp();
            v.set_view(v.view.zoom(factor, anchor(v)));
        }
        v.ui.tooltip.set(None);
    });
}
