//! Times of the page's render phases (reading a view's model, drawing a
//! chart), kept in `window.__proflensRender` as `{phase, ms}` entries so
//! that `cargo xtask bench-web` and a developer's console can tell where a
//! view's time goes. Nothing is shown to the user.

use wasm_bindgen::{JsCast, JsValue};

const KEY: &str = "__proflensRender";

/// Runs `f`, recording how long it took under `phase`.
pub fn timed<T>(phase: &str, f: impl FnOnce() -> T) -> T {
    let started = now();
    let out = f();
    if let Some(started) = started {
        record(phase, now().unwrap_or(started) - started);
    }
    out
}

fn now() -> Option<f64> {
    web_sys::window().and_then(|w| w.performance()).map(|p| p.now())
}

/// Appends `{phase, ms}` to the page's list, kept to its last 200 entries.
fn record(phase: &str, ms: f64) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let key = JsValue::from_str(KEY);
    let list = match js_sys::Reflect::get(&window, &key).ok().and_then(|v| v.dyn_into::<js_sys::Array>().ok()) {
        Some(list) => list,
        None => {
            let list = js_sys::Array::new();
            let _ = js_sys::Reflect::set(&window, &key, &list);
            list
        }
    };
    let entry = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&entry, &JsValue::from_str("phase"), &JsValue::from_str(phase));
    let _ = js_sys::Reflect::set(&entry, &JsValue::from_str("ms"), &JsValue::from_f64(ms));
    list.push(&entry);
    if list.length() > 200 {
        list.shift();
    }
}
