//! The recently opened profiles, kept in this browser's `localStorage`
//! (names and when, never contents): demos, which reopen in one click, and
//! picked or dropped files, by name; those whose handles the browser gave
//! (`crate::recent_handles`) reopen too, the others cannot be read again
//! without the user picking them.

use serde::{Deserialize, Serialize};

use crate::demos::Demo;

/// The storage key of the list.
const KEY: &str = "proflens.recent";
/// How many are kept, newest first.
pub const KEEP: usize = 8;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Recent {
    /// What was opened, as the list says it.
    pub name: String,
    /// The demo's id when it was one (it can be opened again).
    #[serde(default)]
    pub demo: Option<String>,
    /// The key of the files' handles in IndexedDB (`crate::recent_handles`),
    /// where the browser gave them: they can be opened again.
    #[serde(default)]
    pub handles: Option<String>,
    /// When, in ms since the epoch.
    pub at_ms: f64,
}

/// The list, newest first (empty where storage is refused or unreadable).
pub fn list() -> Vec<Recent> {
    let Some(text) = storage().and_then(|s| s.get_item(KEY).ok().flatten()) else {
        return Vec::new();
    };
    js_sys::JSON::parse(&text).ok().and_then(|v| serde_wasm_bindgen::from_value(v).ok()).unwrap_or_default()
}

pub fn remember_demo(demo: &Demo) {
    remember(Recent {
        name: demo.title.to_string(),
        demo: Some(demo.id.to_string()),
        handles: None,
        at_ms: js_sys::Date::now(),
    });
}

/// Files picked or dropped, by the paths they were opened as, with the key
/// of their handles when they are kept.
pub fn remember_files(paths: &[String], handles: Option<String>) {
    if let Some(name) = files_name(paths) {
        remember(Recent { name, demo: None, handles, at_ms: js_sys::Date::now() });
    }
}

pub fn clear() {
    if let Some(storage) = storage() {
        // Nothing to tell anyone when storage refuses.
        let _ = storage.remove_item(KEY);
    }
}

fn remember(entry: Recent) {
    let Some(storage) = storage() else { return };
    let entries = with_entry(list(), entry);
    let text = serde_wasm_bindgen::to_value(&entries).ok().and_then(|v| js_sys::JSON::stringify(&v).ok());
    if let Some(text) = text.and_then(|t| t.as_string()) {
        // A full or refused storage just forgets.
        let _ = storage.set_item(KEY, &text);
    }
}

/// `entries` with `entry` first, once, at most [`KEEP`].
fn with_entry(mut entries: Vec<Recent>, entry: Recent) -> Vec<Recent> {
    entries.retain(|e| !(e.name == entry.name && e.demo == entry.demo));
    entries.insert(0, entry);
    entries.truncate(KEEP);
    entries
}

/// How opened files are listed: a folder by its name, one file by its
/// name, several by the first and how many more.
fn files_name(paths: &[String]) -> Option<String> {
    let first = paths.first()?;
    let top = |p: &str| p.split('/').next().unwrap_or(p).to_string();
    if first.contains('/') && paths.iter().all(|p| p.contains('/') && top(p) == top(first)) {
        return Some(format!("{}/", top(first)));
    }
    Some(match paths.len() {
        1 => first.clone(),
        2 => format!("{first} and 1 more file"),
        n => format!("{first} and {} more files", n - 1),
    })
}

/// When, as people say it: "just now", "5 min ago", "3 h ago", "2 days ago".
pub fn ago(now_ms: f64, at_ms: f64) -> String {
    let minutes = ((now_ms - at_ms) / 60_000.0).max(0.0) as u64;
    match minutes {
        0 => "just now".to_string(),
        1..=59 => format!("{minutes} min ago"),
        60..=2879 => format!("{} h ago", minutes / 60),
        _ => format!("{} days ago", minutes / 1440),
    }
}

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, demo: Option<&str>) -> Recent {
        Recent { name: name.into(), demo: demo.map(String::from), handles: None, at_ms: 0.0 }
    }

    #[test]
    fn newest_first_once_and_at_most_eight() {
        let mut list = Vec::new();
        for i in 0..10 {
            list = with_entry(list, entry(&format!("f{i}"), None));
        }
        assert_eq!(list.len(), KEEP);
        assert_eq!((list[0].name.as_str(), list[7].name.as_str()), ("f9", "f2"));
        let list = with_entry(list, entry("f5", None));
        assert_eq!(list.iter().filter(|e| e.name == "f5").count(), 1);
        assert_eq!(list[0].name, "f5");
        // A demo and a file of the same name are two entries.
        let list = with_entry(list, entry("f5", Some("jax")));
        assert_eq!(list.iter().filter(|e| e.name == "f5").count(), 2);
    }

    #[test]
    fn ages() {
        let min = 60_000.0;
        assert_eq!(ago(10.0 * min, 10.0 * min), "just now");
        assert_eq!(ago(10.0 * min, 20.0 * min), "just now");
        assert_eq!(ago(10.0 * min, 5.0 * min), "5 min ago");
        assert_eq!(ago(200.0 * min, 0.0), "3 h ago");
        assert_eq!(ago(3.0 * 1440.0 * min, 0.0), "3 days ago");
    }

    #[test]
    fn files_are_named_by_folder_or_first_file() {
        let p = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(files_name(&p(&[])), None);
        assert_eq!(files_name(&p(&["vm.xplane.pb"])).unwrap(), "vm.xplane.pb");
        assert_eq!(files_name(&p(&["a.json.gz", "b.json.gz"])).unwrap(), "a.json.gz and 1 more file");
        assert_eq!(files_name(&p(&["a", "b", "c"])).unwrap(), "a and 2 more files");
        assert_eq!(files_name(&p(&["logs/train/x.pb", "logs/y.pb"])).unwrap(), "logs/");
        assert_eq!(files_name(&p(&["logs/x.pb", "other/y.pb"])).unwrap(), "logs/x.pb and 1 more file");
    }
}
