//! The bottom panel under the timeline: selection details, range
//! statistics, the flame graph and the matches of a search. Its top edge is
//! dragged (or, focused, moved with ↑/↓) to resize it; it collapses to its
//! bar and maximises over the timeline, as Perfetto's and XProf's do. The
//! timeline takes whatever height is left, and is redrawn at each change.

use std::cell::RefCell;
use std::rc::Rc;

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{KeyboardEvent, MouseEvent};

use super::listeners::Listeners;
use super::viewer::with_viewer;

/// Least heights, CSS pixels: the panel's body, and the timeline's.
const PANEL_MIN: f64 = 80.0;
const TIMELINE_MIN: f64 = 120.0;
/// One ↑ or ↓ on the focused handle.
const KEY_STEP: f64 = 40.0;

/// `bar`: what the panel's bar shows beside its buttons (the range on screen).
#[component]
pub fn BottomPanel(bar: AnyView, children: Children) -> impl IntoView {
    // None: the stylesheet's share of the tool's height.
    let height = RwSignal::new(None::<f64>);
    let collapsed = RwSignal::new(false);
    let maximised = RwSignal::new(false);
    // The panel's share of the tool's height, percent, for the handle's `aria-valuenow`
    // (the stylesheet's default at first).
    let share = RwSignal::new(30.0_f64);
    let drag: Rc<RefCell<Option<Listeners>>> = Rc::default();
    let panel = NodeRef::<leptos::html::Section>::new();

    // The canvas's size changes with the panel's: draw it again.
    Effect::new(move |_| {
        let _ = (height.get(), collapsed.get(), maximised.get());
        with_viewer(|v| v.request_frame());
    });

    let set_height = move |px: f64| {
        let Some(panel) = panel.get_untracked() else { return };
        let Some(tool) = panel.parent_element() else { return };
        let whole = f64::from(tool.client_height());
        let px = px.min(whole - TIMELINE_MIN).max(PANEL_MIN);
        height.set(Some(px));
        share.set((px / whole.max(1.0) * 100.0).round());
        collapsed.set(false);
        maximised.set(false);
    };
    let on_down = move |ev: MouseEvent| {
        if ev.button() != 0 {
            return;
        }
        ev.prevent_default();
        let Some(panel) = panel.get_untracked() else { return };
        let bottom = panel.get_bounding_client_rect().bottom();
        let mut listeners = Listeners::default();
        let window: web_sys::EventTarget = window().into();
        listeners.add(&window, "mousemove", true, move |e| {
            if let Some(e) = e.dyn_ref::<MouseEvent>() {
                set_height(bottom - f64::from(e.client_y()));
            }
        });
        let ending = drag.clone();
        listeners.add(&window, "mouseup", true, move |_| {
            // Dropped once this listener has returned: a closure must not free itself while it runs.
            let done = ending.borrow_mut().take();
            leptos::task::spawn_local(async move { drop(done) });
        });
        *drag.borrow_mut() = Some(listeners);
    };
    let on_key = move |ev: KeyboardEvent| {
        let by = match ev.key().as_str() {
            "ArrowUp" => KEY_STEP,
            "ArrowDown" => -KEY_STEP,
            _ => return,
        };
        ev.prevent_default();
        if let Some(panel) = panel.get_untracked() {
            set_height(f64::from(panel.client_height()) + by);
        }
    };
    let style = move || match (height.get(), collapsed.get() || maximised.get()) {
        (Some(px), false) => format!("flex-basis: {px:.0}px"),
        _ => String::new(),
    };

    view! {
        <section
            id="trace-panel"
            class="trace-panel"
            class:collapsed=move || collapsed.get()
            class:maximised=move || maximised.get()
            style=style
            node_ref=panel
            aria-label="Details, range statistics and flame graph"
        >
            <div
                id="trace-panel-handle"
                class="trace-panel-handle"
                role="separator"
                aria-orientation="horizontal"
                aria-valuemin="0"
                aria-valuemax="100"
                aria-valuenow=move || {
                    let now = if collapsed.get() {
                        0.0
                    } else if maximised.get() {
                        100.0
                    } else {
                        share.get()
                    };
                    format!("{now:.0}")
                }
                aria-label="Resize the panel (drag, or ↑ and ↓)"
                tabindex="0"
                on:mousedown=on_down
                on:keydown=on_key
            ></div>
            <div class="trace-panel-bar">
                {bar}
                <span class="spacer"></span>
                <button
                    type="button"
                    id="trace-panel-collapse"
                    class="button small"
                    aria-expanded=move || (!collapsed.get()).to_string()
                    aria-controls="trace-panel-body"
                    on:click=move |_| {
                        collapsed.update(|c| *c = !*c);
                        maximised.set(false);
                    }
                >
                    {move || if collapsed.get() { "▴ Show panel" } else { "▾ Collapse" }}
                </button>
                <button
                    type="button"
                    id="trace-panel-maximise"
                    class="button small"
                    aria-pressed=move || maximised.get().to_string()
                    on:click=move |_| {
                        maximised.update(|m| *m = !*m);
                        collapsed.set(false);
                    }
                >
                    {move || if maximised.get() { "Restore" } else { "Maximise" }}
                </button>
            </div>
            <div id="trace-panel-body" class="trace-panel-body" hidden=move || collapsed.get()>
                {children()}
            </div>
        </section>
    }
}
