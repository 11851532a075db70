//! What keyboard shortcuts share.

use wasm_bindgen::JsCast;
use web_sys::KeyboardEvent;

/// Keys typed into a field (or a list, or editable text) are the field's,
/// not a shortcut's.
pub fn typing(e: &KeyboardEvent) -> bool {
    let Some(el) = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok()) else {
        return false;
    };
    matches!(el.tag_name().to_ascii_lowercase().as_str(), "input" | "textarea" | "select") || el.is_content_editable()
}
