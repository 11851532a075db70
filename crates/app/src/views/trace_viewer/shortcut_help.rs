//! The `?` dialog: every shortcut of [`SHORTCUTS`], in a modal `<dialog>`
//! (the browser keeps the focus inside and closes it on Esc), its rows made
//! at the first opening. The focus goes
//! to its Close button and, when it closes, back where it was.

use std::cell::RefCell;

use leptos::prelude::*;
use wasm_bindgen::{JsCast, JsValue};

use super::shortcuts::SHORTCUTS;

const ID: &str = "trace-shortcuts";

thread_local! {
    /// What had the focus when the dialog opened.
    static FOCUS_BEFORE: RefCell<Option<web_sys::HtmlElement>> = const { RefCell::new(None) };
}

fn element(id: &str) -> Option<web_sys::Element> {
    web_sys::window()?.document()?.get_element_by_id(id)
}

fn call(target: &JsValue, method: &str) {
    if let Ok(f) = js_sys::Reflect::get(target, &JsValue::from_str(method)) {
        if let Some(f) = f.dyn_ref::<js_sys::Function>() {
            let _ = f.call0(target);
        }
    }
}

/// Whether the dialog is open (the viewer's keys are then the dialog's).
pub fn is_open() -> bool {
    element(ID).is_some_and(|d| d.has_attribute("open"))
}

/// Opens the dialog (modal) and moves the focus into it.
pub fn open() {
    let Some(dialog) = element(ID) else { return };
    if dialog.has_attribute("open") {
        return;
    }
    let before = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.active_element())
        .and_then(|a| a.dyn_into::<web_sys::HtmlElement>().ok());
    FOCUS_BEFORE.with_borrow_mut(|f| *f = before);
    if let Some(table) = element("trace-shortcuts-table").filter(|t| t.child_element_count() == 1) {
        if let Err(e) = fill(&table) {
            web_sys::console::warn_2(&"Proflens: the shortcut list could not be made".into(), &e);
        }
    }
    call(&dialog, "showModal");
    if let Some(close) = element("trace-shortcuts-close").and_then(|c| c.dyn_into::<web_sys::HtmlElement>().ok()) {
        let _ = close.focus();
    }
}

/// The dialog closed (its button, or Esc): the focus goes back.
fn restore_focus() {
    if let Some(before) = FOCUS_BEFORE.with_borrow_mut(Option::take) {
        let _ = before.focus();
    }
}

/// Fills the table from [`SHORTCUTS`] (once, at the first opening): plain
/// DOM calls, lighter in the wasm than a view per row and key. The texts
/// are the table's own, set as text.
fn fill(table: &web_sys::Element) -> Result<(), JsValue> {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return Ok(()) };
    let cell = |tag: &str, text: &str| -> Result<web_sys::Element, JsValue> {
        let e = doc.create_element(tag)?;
        e.set_text_content(Some(text));
        Ok(e)
    };
    for (group, lines) in SHORTCUTS {
        let body = doc.create_element("tbody")?;
        let head = doc.create_element("tr")?;
        let th = cell("th", group)?;
        th.set_attribute("scope", "colgroup")?;
        th.set_attribute("colspan", "2")?;
        head.append_child(&th)?;
        body.append_child(&head)?;
        for s in lines.iter() {
            let row = doc.create_element("tr")?;
            row.set_attribute("data-keys", &s.handles.join(" "))?;
            let keys = doc.create_element("td")?;
            keys.set_class_name("shortcut-keys");
            for (i, k) in s.keys.iter().enumerate() {
                if i > 0 {
                    keys.append_with_str_1(" or ")?;
                }
                let kbd = cell("kbd", k)?;
                keys.append_child(&kbd)?;
            }
            row.append_child(&keys)?;
            let what = cell("td", s.what)?;
            row.append_child(&what)?;
            body.append_child(&row)?;
        }
        table.append_child(&body)?;
    }
    Ok(())
}

#[component]
pub fn ShortcutHelp() -> impl IntoView {
    let close = move |_| {
        if let Some(d) = element(ID) {
            call(&d, "close");
        }
    };
    view! {
        <dialog
            id=ID
            class="trace-shortcuts"
            role="dialog"
            aria-modal="true"
            aria-labelledby="trace-shortcuts-title"
            on:close=move |_| restore_focus()
        >
            <div class="trace-shortcuts-head">
                <h3 id="trace-shortcuts-title">"Trace viewer shortcuts"</h3>
                <button type="button" id="trace-shortcuts-close" class="button small" on:click=close>
                    "Close"
                </button>
            </div>
            <table id="trace-shortcuts-table" class="table trace-shortcuts-table">
                <thead>
                    <tr>
                        <th scope="col" title="The keys to press, or what to do with the mouse">"Keys"</th>
                        <th scope="col" title="What the trace viewer does then">"What they do"</th>
                    </tr>
                </thead>
            </table>
        </dialog>
    }
}
