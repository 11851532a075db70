//! Every shortcut of the trace viewer, as data: the `?` dialog
//! ([`shortcut_help`](super::shortcut_help)) renders this table, and a test
//! holds it to the keys [`interact`](super::interact)'s `on_key_down` answers
//! (both ways), so that a key added there without a line here fails.

/// One line of the dialog.
pub struct Shortcut {
    /// The keys or gestures as shown, one `<kbd>` each ("W", "Ctrl+F").
    pub keys: &'static [&'static str],
    pub what: &'static str,
    /// The `KeyboardEvent.key` values (lower case) that `on_key_down` answers
    /// with this; empty for the mouse and for keys of the search box. The
    /// dialog's row carries them (`data-keys`), for tests.
    pub handles: &'static [&'static str],
}

const fn line(keys: &'static [&'static str], what: &'static str, handles: &'static [&'static str]) -> Shortcut {
    Shortcut { keys, what, handles }
}

/// The groups of the dialog, in order.
pub const SHORTCUTS: &[(&str, &[Shortcut])] = &[
    (
        "Move around",
        &[
            line(&["W", "S"], "Zoom in, zoom out around the pointer (hold to keep going)", &["w", "s"]),
            line(&["A", "D"], "Pan left, pan right (hold to keep going)", &["a", "d"]),
            line(&["Wheel"], "Zoom around the pointer (a pinch too)", &[]),
            line(&["Shift+wheel"], "Pan (a sideways swipe too)", &[]),
            line(&["Alt+wheel"], "Scroll the tracks", &[]),
            line(&["Drag"], "Pan the time and scroll the tracks", &[]),
            line(&["↑", "↓"], "Scroll the tracks (when the timeline has the focus)", &["arrowup", "arrowdown"]),
            line(
                &["Page Up", "Page Down"],
                "Scroll the tracks a screen (when the timeline has the focus)",
                &["pageup", "pagedown"],
            ),
            line(&["0"], "Show the whole trace", &["0"]),
        ],
    ),
    (
        "Select",
        &[
            line(
                &["Click"],
                "Select an event (details below); on a section header, fold it; on a merged box, zoom in",
                &[],
            ),
            line(&["Shift+drag", "Drag on the ruler"], "Select a time range (its summary below)", &[]),
            line(&["."], "Next slice of the selected event's track at the same depth", &["."]),
            line(&[","], "Previous slice of the selected event's track at the same depth", &[","]),
            line(&["F"], "Fit the selected event, else the range or mark, else the whole trace", &["f"]),
            line(&["M"], "Mark the selected range or event (again: unmark)", &["m"]),
            line(&["Esc"], "Clear the selected event and range", &["escape"]),
        ],
    ),
    (
        "Search",
        &[
            line(&["Ctrl+F", "⌘+F", "/"], "Focus the search box", &["/"]),
            line(&["Enter", "Shift+Enter"], "In the search box: next, previous match", &[]),
        ],
    ),
    ("This list", &[line(&["?"], "Show these shortcuts", &["?"]), line(&["Esc"], "Close them", &[])]),
];

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// Every key value the table says `on_key_down` answers.
    fn handled_keys() -> impl Iterator<Item = &'static str> {
        SHORTCUTS.iter().flat_map(|(_, lines)| lines.iter()).flat_map(|s| s.handles.iter().copied())
    }

    /// The string literals of `on_key_down` in interact.rs: its body holds
    /// nothing but key values.
    fn keys_in_on_key_down() -> BTreeSet<String> {
        let source = include_str!("interact.rs");
        let start = source.find("fn on_key_down(").expect("on_key_down is in interact.rs");
        let body = &source[start..];
        let body = &body[..body.find("\n}\n").expect("its end")];
        body.split('"').skip(1).step_by(2).map(str::to_string).collect()
    }

    #[test]
    fn every_key_handled_is_listed_and_every_listed_key_handled() {
        let handled = keys_in_on_key_down();
        let listed: BTreeSet<String> = handled_keys().map(str::to_string).collect();
        assert!(handled.len() >= 16, "{handled:?}");
        assert_eq!(handled, listed, "keys of on_key_down (left) and of the shortcut list (right) differ");
    }

    #[test]
    fn every_line_says_what_and_how() {
        for (group, lines) in SHORTCUTS {
            assert!(!lines.is_empty(), "{group}");
            for s in lines.iter() {
                assert!(!s.keys.is_empty() && !s.what.is_empty(), "{group}: {}", s.what);
            }
        }
    }
}
