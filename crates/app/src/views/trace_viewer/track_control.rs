//! Track control on the canvas: the viewer's copy of the user's track
//! layout ([`TrackControl`](super::track_prefs::TrackControl)), reordering by dragging names in the gutter,
//! showing a chosen track with a flash, the marks drawn for both, and
//! keeping the layout in the URL hash (`tracks=`) and in localStorage.
//!
//! The prefs live in [`Ui::tracks`](super::ui::Ui) (the track bar and the
//! finder edit them); the viewer lays its rows out again when they change.

use leptos::prelude::*;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::CanvasRenderingContext2d;

use super::model::{RowHit, GUTTER_W, RULER_H, SECTION_H};
use super::track_prefs::{self, Grab, TrackPrefs};
use super::viewer::{with_viewer, Viewer};
use crate::theme::TraceColors;
use proflens_analysis::tools::trace_viewer::TraceLayout;

/// The URL hash's key for the track layout.
pub const HASH_KEY: &str = "tracks";
const STORAGE_PREFIX: &str = "proflens.tracks.";
/// How long a track chosen in the finder stays highlighted, ms.
const FLASH_MS: f64 = 1500.0;
const ACCENT: &str = "#0b5cad";

impl Viewer {
    /// Takes the user's new track layout: the rows move, the boxes of newly
    /// shown tracks are asked for by the next frame.
    pub fn set_track_prefs(&mut self, prefs: TrackPrefs) {
        if self.tracks.prefs != prefs {
            self.tracks.prefs = prefs;
            self.rebuild_rows();
        }
    }

    /// Scrolls to a track (or a section's header) and highlights it a moment.
    pub fn show_track(&mut self, section: usize, track: Option<u32>) {
        if self.collapsed.get(section).copied().unwrap_or(false) {
            self.toggle_section(section);
        }
        match track {
            Some(id) => {
                self.reveal_track(id, 0);
                self.tracks.flash = Some((id, now_ms() + FLASH_MS));
                let redraw = move || {
                    with_viewer_frame();
                };
                set_timeout(redraw, std::time::Duration::from_millis(FLASH_MS as u64 + 50));
            }
            None => {
                if let Some(row) = self.rows.sections.iter().find(|r| r.index == section) {
                    let y = row.y;
                    self.set_scroll(y);
                }
            }
        }
        self.request_frame();
    }
}

/// Milliseconds for the flash (wall clock is enough for a moment's highlight).
fn now_ms() -> f64 {
    js_sys::Date::now()
}

fn with_viewer_frame() {
    with_viewer(|v| v.request_frame());
}

/// Focuses `selector` once the page has been drawn again.
pub fn refocus(selector: String) {
    request_animation_frame(move || {
        let el = web_sys::window().and_then(|w| w.document()).and_then(|d| d.query_selector(&selector).ok().flatten());
        if let Some(el) = el.and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()) {
            let _ = el.focus();
        }
    });
}

/// A right click on a name in the gutter opens the track finder on it
/// (to pin, hide or move it), its row focused.
pub fn on_context_menu(e: &web_sys::MouseEvent) {
    with_viewer(|v| {
        let r = v.canvas.get_bounding_client_rect();
        let (x, y) = (f64::from(e.client_x()) - r.left(), f64::from(e.client_y()) - r.top());
        if x >= GUTTER_W || y < RULER_H {
            return;
        }
        let grab = match v.rows.pinned_at(y - RULER_H).filter(|_| y < v.scroll_top()) {
            Some(RowHit::Track(id, _)) => Some(Grab::Track(id)),
            _ => grab_at(v, y),
        };
        let found = match grab {
            Some(Grab::Section(s)) => {
                v.layout.sections.get(s).map(|sec| (sec.name.clone(), track_prefs::section_key(&sec.name)))
            }
            Some(Grab::Track(id)) => {
                let track = v.layout.sections.iter().flat_map(|s| &s.tracks).find(|t| t.id == id);
                track.map(|t| (t.name.clone(), v.tracks.keys.get(id as usize).copied().unwrap_or(0)))
            }
            None => None,
        };
        let Some((name, key)) = found else { return };
        e.prevent_default();
        v.ui.finder.set(Some(name));
        refocus(format!("#trace-finder-list [data-key=\"{key}\"]"));
    });
}

/// What a press in the gutter at canvas height `y` grabs.
pub fn grab_at(v: &Viewer, y: f64) -> Option<Grab> {
    if y < v.scroll_top() {
        return None;
    }
    if let Some((s, top)) = v.sticky_section() {
        if y >= top && y < top + SECTION_H {
            return Some(Grab::Section(s));
        }
    }
    match v.rows.at(v.content_y(y))? {
        RowHit::Section(s) => Some(Grab::Section(s)),
        RowHit::Track(id, _) => Some(Grab::Track(id)),
    }
}

/// Drops what was grabbed at canvas height `y`: a track goes to the place
/// of the track of its section under the pointer (first or last when above
/// or below them), a section to the place of the section under the pointer.
/// The new prefs go to [`Ui::tracks`](super::ui::Ui), which lays the rows out again.
pub fn drop_at(v: &mut Viewer, grab: Grab, y: f64) {
    let content = v.content_y(y);
    let layout = v.layout.clone();
    let mut prefs = v.tracks.prefs.clone();
    match grab {
        Grab::Section(s) => {
            let Some((at, _)) = v.rows.section_at(content.min(v.rows.height - 1.0).max(0.0)) else { return };
            let Some(target) = v.rows.sections.get(at).map(|r| r.index) else { return };
            let order = prefs.section_order(&layout);
            let Some(to) = order.iter().position(|&x| x == target) else { return };
            prefs.move_section(&layout, s, to);
        }
        Grab::Track(id) => {
            let Some(Some(row)) = v.rows.tracks.get(id as usize).copied() else { return };
            let order = prefs.track_order(&layout, &v.tracks.keys, row.section);
            // The section's shown tracks, top to bottom.
            let shown: Vec<(u32, f64, f64)> = order
                .iter()
                .filter_map(|&t| v.rows.tracks.get(t as usize).copied().flatten().map(|r| (t, r)))
                .filter(|(_, r)| !r.pinned && r.section == row.section)
                .map(|(t, r)| (t, r.y, r.y + r.height))
                .collect();
            let target = shown
                .iter()
                .find(|(_, top, bottom)| content >= *top && content < *bottom)
                .or_else(|| if content < shown.first()?.1 { shown.first() } else { shown.last() })
                .map(|(t, _, _)| *t);
            let Some(to) = target.and_then(|t| order.iter().position(|&x| x == t)) else { return };
            prefs.move_track(&layout, &v.tracks.keys, id, to);
        }
    }
    if prefs != v.tracks.prefs {
        v.ui.tracks.set(prefs.clone());
        v.set_track_prefs(prefs);
    }
}

/// The finder's highlight, the grabbed name's drop line and the pinned band's edge.
pub fn draw_marks(v: &mut Viewer, ctx: &CanvasRenderingContext2d, c: &TraceColors) -> Result<(), JsValue> {
    if let Some((id, until)) = v.tracks.flash {
        let now = now_ms();
        match v.rows.tracks.get(id as usize).copied().flatten() {
            Some(row) if now < until => {
                let y = v.track_top(&row);
                ctx.set_global_alpha(0.25);
                ctx.set_fill_style_str(ACCENT);
                ctx.fill_rect(0.0, y.max(RULER_H), v.size.0, row.height);
                ctx.set_global_alpha(1.0);
                ctx.set_fill_style_str(ACCENT);
                ctx.fill_rect(0.0, y.max(RULER_H), 4.0, row.height);
            }
            _ => v.tracks.flash = None,
        }
    }
    if let (Some(_), Some(y)) = (v.tracks.grab, v.tracks.drop_y) {
        ctx.set_fill_style_str(ACCENT);
        ctx.fill_rect(0.0, y - 1.0, v.size.0, 2.0);
        ctx.fill_rect(0.0, y - 5.0, 3.0, 10.0);
    }
    if v.band_height() > 0.0 {
        ctx.set_fill_style_str(&c.ruler_edge);
        ctx.fill_rect(GUTTER_W - 1.0, RULER_H, 1.0, v.band_height());
    }
    Ok(())
}

/// For the test hook: the tracks' places (canvas CSS pixels) and the prefs.
pub fn state_for_tests(v: &Viewer) -> JsValue {
    let object = js_sys::Object::new();
    let set = |o: &js_sys::Object, key: &str, value: &JsValue| {
        let _ = js_sys::Reflect::set(o, &JsValue::from_str(key), value);
    };
    let numbers = |xs: &mut dyn Iterator<Item = f64>| -> js_sys::Array { xs.map(JsValue::from_f64).collect() };
    let mut shown: Vec<(f64, u32, bool)> = v
        .rows
        .tracks
        .iter()
        .enumerate()
        .filter_map(|(id, r)| r.map(|r| (r.y + if r.pinned { -1e9 } else { 0.0 }, id as u32, r.pinned)))
        .collect();
    shown.sort_by(|a, b| a.0.total_cmp(&b.0));
    let rows: js_sys::Array = shown
        .iter()
        .filter_map(|&(_, id, _)| {
            let row = v.rows.tracks.get(id as usize).copied().flatten()?;
            let o = js_sys::Object::new();
            set(&o, "track", &JsValue::from_f64(f64::from(id)));
            set(&o, "top", &JsValue::from_f64(v.track_top(&row)));
            set(&o, "height", &JsValue::from_f64(row.height));
            set(&o, "pinned", &JsValue::from_bool(row.pinned));
            set(&o, "section", &JsValue::from_f64(row.section as f64));
            let section = v.layout.sections.get(row.section)?;
            let name = section.tracks.iter().find(|t| t.id == id).map_or("", |t| t.name.as_str());
            set(&o, "name", &JsValue::from_str(name));
            set(&o, "sectionName", &JsValue::from_str(&section.name));
            Some(JsValue::from(o))
        })
        .collect();
    set(&object, "rows", &rows);
    set(&object, "sections", &numbers(&mut v.rows.sections.iter().map(|r| r.index as f64)));
    let stop = v.scroll_top();
    set(&object, "headers", &numbers(&mut v.rows.sections.iter().map(|r| stop + r.y - v.scroll_y)));
    set(&object, "pinned", &numbers(&mut v.rows.pinned().into_iter().map(f64::from)));
    set(&object, "band", &JsValue::from_f64(v.band_height()));
    set(&object, "scrollTop", &JsValue::from_f64(v.scroll_top()));
    set(&object, "hidden", &JsValue::from_f64(v.tracks.arrange(&v.layout).hidden as f64));
    set(&object, "filter", &JsValue::from_str(&v.tracks.prefs.filter));
    set(&object, "asked", &numbers(&mut v.tracks.asked.iter().map(|&t| f64::from(t))));
    set(&object, "flash", &v.tracks.flash.map_or(JsValue::NULL, |(id, _)| JsValue::from_f64(f64::from(id))));
    object.into()
}

/// The layout saved for this profile: the URL hash's, else this browser's.
pub fn load(run: &str, host: &str, layout: &TraceLayout) -> TrackPrefs {
    let profile = track_prefs::profile_key(run, host, layout);
    let from_hash = hash_value().and_then(|v| TrackPrefs::from_hash_value(&v, &profile));
    from_hash.unwrap_or_else(|| {
        let stored = storage().and_then(|s| s.get_item(&format!("{STORAGE_PREFIX}{profile}")).ok().flatten());
        stored.map(|t| TrackPrefs::decode(&t)).unwrap_or_default()
    })
}

/// Keeps the layout in the URL hash and in localStorage (removed when it is the default).
pub fn save(run: &str, host: &str, layout: &TraceLayout, prefs: &TrackPrefs) {
    let profile = track_prefs::profile_key(run, host, layout);
    if let Some(s) = storage() {
        let key = format!("{STORAGE_PREFIX}{profile}");
        // Storage may be full or refused: the hash still holds the layout.
        let _ = if prefs.is_default() { s.remove_item(&key) } else { s.set_item(&key, &prefs.encode()) };
    }
    let value =
        (!prefs.is_default()).then(|| String::from(js_sys::encode_uri_component(&prefs.to_hash_value(&profile))));
    let Some(window) = web_sys::window() else { return };
    let hash = window.location().hash().unwrap_or_default();
    let updated = with_hash_key(&hash, HASH_KEY, value.as_deref());
    if updated != hash {
        if let Ok(history) = window.history() {
            let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&updated));
        }
    }
}

fn storage() -> Option<web_sys::Storage> {
    // localStorage may be missing or refused (privacy settings): then the
    // layout lasts for this page (and its URL) only.
    web_sys::window()?.local_storage().ok().flatten()
}

/// The decoded `tracks=` value of the page's URL hash.
fn hash_value() -> Option<String> {
    let hash = web_sys::window()?.location().hash().ok()?;
    let raw = hash_key(&hash, HASH_KEY)?;
    js_sys::decode_uri_component(&raw).ok().map(String::from)
}

/// `new_hash` with the track layout of `old_hash` (the page rewrites the
/// hash when the run, host or tool change; the layout names its profile, so
/// it is ignored where it does not belong).
pub fn carry_hash_key(new_hash: &str, old_hash: &str) -> String {
    match hash_key(old_hash, HASH_KEY) {
        Some(v) if hash_key(new_hash, HASH_KEY).is_none() => with_hash_key(new_hash, HASH_KEY, Some(&v)),
        _ => new_hash.to_string(),
    }
}

/// The raw value of `key` in a URL hash (`#a=1&key=v`).
pub fn hash_key(hash: &str, key: &str) -> Option<String> {
    hash.trim_start_matches('#').split('&').find_map(|part| {
        let (k, v) = part.split_once('=')?;
        (k == key).then(|| v.to_string())
    })
}

/// The hash with `key` set to the raw `value` (appended if new), or removed for `None`.
pub fn with_hash_key(hash: &str, key: &str, value: Option<&str>) -> String {
    let mut parts: Vec<String> = hash
        .trim_start_matches('#')
        .split('&')
        .filter(|p| !p.is_empty() && p.split('=').next() != Some(key))
        .map(str::to_string)
        .collect();
    if let Some(v) = value {
        parts.push(format!("{key}={v}"));
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!("#{}", parts.join("&"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_keys_are_set_replaced_and_removed() {
        let hash = "#run=r&host=h&tool=trace_viewer";
        let with = with_hash_key(hash, "tracks", Some("abc~p1"));
        assert_eq!(with, "#run=r&host=h&tool=trace_viewer&tracks=abc~p1");
        assert_eq!(hash_key(&with, "tracks").as_deref(), Some("abc~p1"));
        let replaced = with_hash_key(&with, "tracks", Some("x"));
        assert_eq!(replaced, "#run=r&host=h&tool=trace_viewer&tracks=x");
        assert_eq!(with_hash_key(&replaced, "tracks", None), hash);
        assert_eq!(hash_key(hash, "tracks"), None);
        assert_eq!(with_hash_key("", "tracks", None), "");
        // A key that merely starts with ours is another key.
        assert_eq!(hash_key("#tracksx=1", "tracks"), None);
        assert_eq!(carry_hash_key("#run=a", &with), "#run=a&tracks=abc~p1");
        assert_eq!(carry_hash_key("#run=a", hash), "#run=a");
    }
}
