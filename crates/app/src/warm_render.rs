//! The overview (and framework op stats, and the Advisor) drawn once at boot where no one
//! sees them, so that a user's first overview runs on the page's compiled code.
//!
//! Why: V8 compiles each wasm function when it is first called, as baseline
//! code, and optimises it only after it has run a while. A user's first
//! overview (reading its model, building the view, drawing the step-time
//! graph) ran all of that on fresh baseline code: on 2.07 M events its
//! render took 86–100 ms where a second open of the same file took 39–48.
//! The warm-up worker (`worker/warm_up.rs`) already computes a small
//! fixture's overview; `web/loader.js` passes its models here. (Without the
//! op stats, the first table a user opened after the overview paid the
//! warm-up instead: 57-59 -> 66-69 ms to render, once the overview's steps
//! came as columns and no longer ran the same code first.)
//!
//! The view is mounted in a closed shadow root, off screen and inert: its
//! ids cannot be found by the page's code or a test's selectors, it takes no
//! focus and no clicks, and it is gone in the next frame. Its render phases
//! are taken back out of `window.__proflensRender`.

use leptos::prelude::*;
use std::sync::Arc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{HtmlElement, ShadowRootInit, ShadowRootMode};

use crate::views::{self, Actions, OpenLink, ViewProps};

/// Draws `views` (`[view, model]` pairs) unseen, then removes them; the
/// outcome is kept in `window.__proflensWarmRender` for the browser tests.
pub fn run(views: JsValue) {
    let outcome = match mount(views) {
        Ok(()) => "drawn".to_string(),
        Err(e) => format!("failed: {}", e.as_string().unwrap_or_else(|| format!("{e:?}"))),
    };
    if let Some(window) = web_sys::window() {
        let _ = js_sys::Reflect::set(&window, &"__proflensWarmRender".into(), &outcome.into());
    }
}

fn mount(views: JsValue) -> Result<(), JsValue> {
    let views: Vec<(String, JsValue)> = js_sys::Array::from(&views)
        .iter()
        .map(|pair| {
            let pair = js_sys::Array::from(&pair);
            (pair.get(0).as_string().unwrap_or_default(), pair.get(1))
        })
        .collect();
    let window = web_sys::window().ok_or("no window")?;
    let document = window.document().ok_or("no document")?;
    let body = document.body().ok_or("no body")?;
    let phases = render_phases(&window).map_or(0, |list| list.length());

    let host: HtmlElement = document.create_element("div")?.unchecked_into();
    host.set_attribute("aria-hidden", "true")?;
    host.set_attribute("inert", "")?;
    // Laid out (a chart sizes itself from its box), but off screen.
    host.set_attribute(
        "style",
        "position:fixed;left:-10000px;top:0;width:1200px;height:900px;overflow:hidden;pointer-events:none",
    )?;
    let shadow = host.attach_shadow(&ShadowRootInit::new(ShadowRootMode::Closed))?;
    let inner: HtmlElement = document.create_element("div")?.unchecked_into();
    shadow.append_child(&inner)?;
    body.append_child(&host)?;

    let handle = leptos::mount::mount_to(inner, move || {
        let view = |(view, model): (String, JsValue)| {
            let actions = inert_actions();
            views::render(
                &view,
                ViewProps { run: String::new(), host: String::new(), model, wasm_memory_bytes: 0, actions },
            )
        };
        views.into_iter().map(view).collect::<Vec<_>>()
    });
    // Effects (the charts' drawing) run after the mount; the views are
    // removed once they have, in the next frame.
    let remove = Closure::once(move || {
        drop(handle);
        host.remove();
        if let Some(window) = web_sys::window() {
            truncate_render_phases(&window, phases);
        }
    });
    window.request_animation_frame(remove.as_ref().unchecked_ref())?;
    remove.forget();
    Ok(())
}

/// Callbacks that do nothing: the warm view is never clicked.
fn inert_actions() -> Actions {
    Actions {
        choose_module: Arc::new(|_| {}),
        choose_graph: Arc::new(|_, _| {}),
        choose_step: Arc::new(|_| {}),
        trace_query: Arc::new(|_, _| {}),
        show_in_trace: Arc::new(|_, _| {}),
        trace_target: RwSignal::new(None),
        trace_range: RwSignal::new(None),
        open_link: OpenLink { href: Arc::new(|_| String::new()), open: Arc::new(|_| {}) },
    }
}

fn render_phases(window: &web_sys::Window) -> Option<js_sys::Array> {
    js_sys::Reflect::get(window, &"__proflensRender".into()).ok()?.dyn_into().ok()
}

fn truncate_render_phases(window: &web_sys::Window, count: u32) {
    if let Some(list) = render_phases(window) {
        if list.length() > count {
            list.set_length(count);
        }
    }
}
