//! Light and dark: the reader's choice (system, light or dark), remembered
//! in localStorage and applied as `data-theme` on `<html>`, and a signal that
//! changes whenever the colours on screen may have changed (a new choice, or
//! the system's setting while the choice is "system").
//!
//! The colours themselves live in `web/theme.css` only (custom properties,
//! a light and a dark set); canvases read them through [`colors`], so CSS
//! stays the one place that says what "dark" looks like. `web/theme-boot.js`
//! sets `data-theme` from the same key before the first paint; this module
//! then owns it.

pub mod colors;

pub use colors::{chart_colors, trace_colors, TraceColors};

use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The localStorage key, shared with `web/theme-boot.js`.
const STORAGE_KEY: &str = "proflens-theme";
const DARK_QUERY: &str = "(prefers-color-scheme: dark)";

/// What the reader chose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    /// Follow the system's setting (`prefers-color-scheme`).
    System,
    Light,
    Dark,
}

impl Choice {
    /// The stored and `data-theme` name; `System` is stored as no value.
    pub fn name(self) -> &'static str {
        match self {
            Choice::System => "system",
            Choice::Light => "light",
            Choice::Dark => "dark",
        }
    }

    /// Anything but "light" or "dark" (nothing stored, an old value) is `System`.
    pub fn parse(text: &str) -> Choice {
        match text {
            "light" => Choice::Light,
            "dark" => Choice::Dark,
            _ => Choice::System,
        }
    }
}

thread_local! {
    /// Bumped when the colours may have changed; canvases that read
    /// [`colors`] inside an effect redraw on it.
    static CHANGES: ArcRwSignal<u32> = ArcRwSignal::new(0);
}

/// Subscribes the running effect to theme changes.
pub fn track() {
    CHANGES.with(|c| c.track());
}

fn changed() {
    colors::forget();
    CHANGES.with(|c| c.update(|n| *n = n.wrapping_add(1)));
}

fn storage() -> Option<web_sys::Storage> {
    // localStorage may be missing or refused (privacy settings): then the
    // choice lasts for this page only.
    web_sys::window()?.local_storage().ok().flatten()
}

/// The remembered choice.
pub fn stored_choice() -> Choice {
    let stored = storage().and_then(|s| s.get_item(STORAGE_KEY).ok().flatten());
    Choice::parse(stored.as_deref().unwrap_or(""))
}

/// Shows `choice` now and remembers it.
pub fn set_choice(choice: Choice) {
    apply(choice);
    if let Some(s) = storage() {
        let _ = match choice {
            Choice::System => s.remove_item(STORAGE_KEY),
            other => s.set_item(STORAGE_KEY, other.name()),
        };
    }
    changed();
}

/// `data-theme` on `<html>`: "light" or "dark" overrides the system's
/// setting in theme.css; none follows it.
fn apply(choice: Choice) {
    let Some(root) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.document_element()) else {
        return;
    };
    let _ = match choice {
        Choice::System => root.remove_attribute("data-theme"),
        other => root.set_attribute("data-theme", other.name()),
    };
}

/// Applies the remembered choice and follows the system's setting from now
/// on. Called once, when the app starts.
pub fn start() {
    apply(stored_choice());
    let Some(query) = web_sys::window().and_then(|w| w.match_media(DARK_QUERY).ok().flatten()) else {
        return;
    };
    // The listener lives as long as the page.
    let on_change = Closure::<dyn FnMut(web_sys::Event)>::new(move |_| changed());
    let _ = query.add_event_listener_with_callback("change", on_change.as_ref().unchecked_ref());
    on_change.forget();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choices_round_trip_through_their_names() {
        for c in [Choice::System, Choice::Light, Choice::Dark] {
            assert_eq!(Choice::parse(c.name()), c);
        }
        assert_eq!(Choice::parse(""), Choice::System);
        assert_eq!(Choice::parse("sepia"), Choice::System);
    }

    /// The declarations of the block that starts at `selector` (up to its `}`).
    fn block<'a>(css: &'a str, selector: &str) -> Vec<&'a str> {
        let start = css.find(selector).unwrap_or_else(|| panic!("theme.css has no `{selector}`")) + selector.len();
        let end = start + css[start..].find('}').expect("the block ends");
        css[start..end].split(';').map(str::trim).filter(|d| !d.is_empty()).collect()
    }

    /// CSS cannot join a media query and an attribute selector in one rule,
    /// so the dark set is written twice (system dark, reader's dark); they
    /// must not drift apart.
    #[test]
    fn both_dark_blocks_of_theme_css_set_the_same_colours() {
        let css = include_str!("../../../../web/theme.css");
        let system = block(css, ":root:not([data-theme=\"light\"]) {");
        let chosen = block(css, ":root[data-theme=\"dark\"] {");
        assert!(system.len() > 10, "the dark set has its colours: {system:?}");
        assert_eq!(system, chosen);
    }
}
