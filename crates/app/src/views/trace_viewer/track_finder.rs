//! The track bar above the timeline and the track finder: a filter of the
//! tracks by name, "hidden: N — Show all", and a searchable list of every
//! section and track (`#trace-track-finder`) from which a track is shown
//! (scrolled to and highlighted), pinned, hidden, or moved (buttons, or
//! Alt+↑/↓ on the focused row). Edits go to [`Ui::tracks`]; the viewer lays
//! its rows out again and the layout is saved ([`track_control::save`]).
//! Names from the profile are text, never HTML.

use std::sync::Arc;

use leptos::prelude::*;

use super::track_control;
use super::track_prefs::{section_key, track_keys, TrackPrefs};
use super::viewer::{with_viewer, Ui};
use proflens_analysis::tools::trace_viewer::TraceLayout;

/// Rows listed at most; a search narrows the rest down.
const MAX_ROWS: usize = 400;

/// A row of the finder: a section (`track: None`) or a track.
#[derive(Debug, Clone, PartialEq)]
struct Entry {
    section: usize,
    track: Option<u32>,
    key: u32,
    name: String,
    pinned: bool,
    hidden: bool,
}

/// Every section and track in the user's order whose name (or section's
/// name) contains `search`, any case.
fn entries(layout: &TraceLayout, keys: &[u32], prefs: &TrackPrefs, search: &str) -> Vec<Entry> {
    let search = search.trim().to_lowercase();
    let hit = |name: &str| search.is_empty() || name.to_lowercase().contains(&search);
    let mut out = Vec::new();
    for s in prefs.section_order(layout) {
        let section = &layout.sections[s];
        let skey = section_key(&section.name);
        let section_hit = hit(&section.name);
        let tracks: Vec<Entry> = prefs
            .track_order(layout, keys, s)
            .into_iter()
            .filter_map(|id| {
                let track = section.tracks.iter().find(|t| t.id == id)?;
                let key = keys.get(id as usize).copied().unwrap_or(0);
                (section_hit || hit(&track.name)).then(|| Entry {
                    section: s,
                    track: Some(id),
                    key,
                    name: track.name.clone(),
                    pinned: prefs.is_pinned(key),
                    hidden: prefs.is_hidden(key),
                })
            })
            .collect();
        if section_hit || !tracks.is_empty() {
            out.push(Entry {
                section: s,
                track: None,
                key: skey,
                name: section.name.clone(),
                pinned: prefs.is_pinned(skey),
                hidden: prefs.is_hidden(skey),
            });
            out.extend(tracks);
        }
    }
    out
}

#[component]
pub fn TrackBar(ui: Ui, layout: Arc<TraceLayout>, run: String, host: String, viewer_id: u32) -> impl IntoView {
    let keys = Arc::new(track_keys(&layout));
    // Every change reaches the viewer and is saved (the hash and this browser).
    {
        let layout = layout.clone();
        let _ = Effect::watch(
            move || ui.tracks.get(),
            move |prefs, _, _| {
                with_viewer(|v| {
                    if v.id == viewer_id {
                        v.set_track_prefs(prefs.clone());
                    }
                });
                track_control::save(&run, &host, &layout, prefs);
            },
            false,
        );
    }
    // The finder is open while `ui.finder` holds its search (a right click on a name in the gutter opens it too).
    let open = move || ui.finder.with(Option::is_some);
    let hidden = {
        let (layout, keys) = (layout.clone(), keys.clone());
        Memo::new(move |_| ui.tracks.with(|p| p.arrange(&layout, &keys).hidden))
    };
    let edit = move |f: &dyn Fn(&mut TrackPrefs)| ui.tracks.update(|p| f(p));

    // Choosing a name: shown (unhidden, past the filter), scrolled to, highlighted.
    let choose = {
        let (layout, keys) = (layout.clone(), keys.clone());
        move |section: usize, track: Option<u32>| {
            let mut p = ui.tracks.get_untracked();
            let skey = section_key(&layout.sections[section].name);
            p.hidden.retain(|&k| k != skey && Some(k) != track.and_then(|t| keys.get(t as usize).copied()));
            let a = p.arrange(&layout, &keys);
            let visible = match track {
                Some(t) => a.pinned.contains(&t) || a.sections.iter().any(|(_, ts)| ts.contains(&t)),
                None => a.sections.iter().any(|(s, _)| *s == section),
            };
            if !visible {
                p.filter.clear();
            }
            ui.tracks.set(p.clone());
            with_viewer(|v| {
                if v.id == viewer_id {
                    v.set_track_prefs(p);
                    v.show_track(section, track);
                }
            });
        }
    };

    let list = {
        let (layout, keys) = (layout.clone(), keys.clone());
        move || {
            let all = ui.tracks.with(|p| ui.finder.with(|s| entries(&layout, &keys, p, s.as_deref().unwrap_or(""))));
            let more = all.len().saturating_sub(MAX_ROWS);
            let rows = all
                .into_iter()
                .take(MAX_ROWS)
                .map(|e| finder_row(e, layout.clone(), keys.clone(), ui, choose.clone()))
                .collect_view();
            view! {
                <ul id="trace-finder-list" class="finder-list">{rows}</ul>
                {(more > 0).then(|| view! { <p class="note">{format!("{more} more: narrow the search.")}</p> })}
            }
        }
    };

    view! {
        <div class="toolbar trace-track-bar">
            <input
                type="search"
                id="trace-track-filter"
                placeholder="Filter tracks by name"
                aria-label="Filter tracks by name"
                autocomplete="off"
                spellcheck="false"
                prop:value=move || ui.tracks.with(|p| p.filter.clone())
                on:input=move |ev| {
                    let text = event_target_value(&ev);
                    edit(&|p| p.filter = text.clone());
                }
            />
            <button
                type="button"
                id="trace-tracks-open"
                class="button small"
                aria-controls="trace-track-finder"
                aria-expanded=move || open().to_string()
                on:click=move |_| {
                    let opening = ui.finder.with_untracked(Option::is_none);
                    ui.finder.set(opening.then(String::new));
                    if opening {
                        track_control::refocus("#trace-finder-search".into());
                    }
                }
            >
                "Tracks…"
            </button>
            {move || {
                let n = hidden.get();
                (n > 0)
                    .then(|| {
                        view! {
                            <span id="trace-hidden-note" class="note" data-hidden=n.to_string()>
                                {format!("hidden: {n}")}
                            </span>
                            <button
                                type="button"
                                id="trace-show-all"
                                class="button small"
                                on:click=move |_| edit(&|p| p.hidden.clear())
                            >
                                "Show all"
                            </button>
                        }
                    })
            }}
            <button
                type="button"
                id="trace-tracks-reset"
                class="button small"
                prop:disabled=move || ui.tracks.with(TrackPrefs::is_default)
                title="Reset the track layout: order, pins, hidden tracks and filter"
                on:click=move |_| ui.tracks.set(TrackPrefs::default())
            >
                "Reset tracks"
            </button>
        </div>
        <div id="trace-track-finder" class="panel trace-finder" role="region" aria-label="Tracks" hidden=move || !open()>
            <div class="toolbar">
                <input
                    type="search"
                    id="trace-finder-search"
                    placeholder="Find a track"
                    aria-label="Find a track"
                    autocomplete="off"
                    spellcheck="false"
                    prop:value=move || ui.finder.get().unwrap_or_default()
                    on:input=move |ev| ui.finder.set(Some(event_target_value(&ev)))
                />
                <span class="note">"Click a name to show it · "<kbd>"Alt"</kbd>"+"<kbd>"↑"</kbd>"/"<kbd>"↓"</kbd>" moves the focused row"</span>
            </div>
            {move || open().then(list.clone())}
        </div>
    }
}

fn finder_row(
    e: Entry,
    layout: Arc<TraceLayout>,
    keys: Arc<Vec<u32>>,
    ui: Ui,
    choose: impl Fn(usize, Option<u32>) + Clone + 'static,
) -> impl IntoView {
    let Entry { section, track, key, name, pinned, hidden } = e;
    let row_key = key.to_string();
    let move_by = move |by: isize, focus: &'static str| {
        let (layout, keys) = (layout.clone(), keys.clone());
        ui.tracks.update(|p| p.move_by(&layout, &keys, section, track, by));
        track_control::refocus(format!("#trace-finder-list [data-key=\"{key}\"]{focus}"));
    };
    let (up, down, keyed) = (move_by.clone(), move_by.clone(), move_by);
    let on_key = move |ev: web_sys::KeyboardEvent| {
        if !ev.alt_key() {
            return;
        }
        let by = match ev.key().as_str() {
            "ArrowUp" => -1,
            "ArrowDown" => 1,
            _ => return,
        };
        ev.prevent_default();
        keyed(by, "");
    };
    let toggle = move |pin: bool| {
        ui.tracks.update(|p| if pin { p.toggle_pinned(key) } else { p.toggle_hidden(key) });
        track_control::refocus(format!(
            "#trace-finder-list [data-key=\"{key}\"] .{}",
            if pin { "finder-pin" } else { "finder-hide" }
        ));
    };
    let kind = if track.is_some() { "finder-row finder-track" } else { "finder-row finder-section" };
    let state = match (pinned, hidden) {
        (_, true) => "hidden",
        (true, _) => "pinned",
        _ => "",
    };
    view! {
        <li
            class=kind
            tabindex="0"
            data-key=row_key
            data-section=section.to_string()
            data-track=track.map(|t| t.to_string()).unwrap_or_default()
            data-state=state
            on:keydown=on_key
        >
            <button type="button" class="link-button finder-name" on:click=move |_| choose(section, track)>
                {name.clone()}
            </button>
            <span class="finder-state">{state}</span>
            <button
                type="button"
                class="button small finder-pin"
                aria-pressed=pinned.to_string()
                aria-label=format!("{} {name}", if pinned { "Unpin" } else { "Pin" })
                on:click=move |_| toggle(true)
            >
                {if pinned { "Unpin" } else { "Pin" }}
            </button>
            <button
                type="button"
                class="button small finder-hide"
                aria-pressed=hidden.to_string()
                aria-label=format!("{} {name}", if hidden { "Show" } else { "Hide" })
                on:click=move |_| toggle(false)
            >
                {if hidden { "Show" } else { "Hide" }}
            </button>
            <button type="button" class="button small finder-up" aria-label=format!("Move {name} up") on:click=move |_| up(-1, " .finder-up")>
                "↑"
            </button>
            <button type="button" class="button small finder-down" aria-label=format!("Move {name} down") on:click=move |_| down(1, " .finder-down")>
                "↓"
            </button>
        </li>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::views::trace_viewer::model::test_layout;

    #[test]
    fn finder_lists_in_the_users_order_and_searches() {
        let layout = test_layout(&[("GPU 0", &[("Stream 7", 1), ("Stream 13", 1)]), ("Host", &[("python", 1)])]);
        let keys = track_keys(&layout);
        let mut prefs = TrackPrefs::default();
        prefs.move_section(&layout, 1, 0);
        prefs.toggle_hidden(keys[2]);
        let names = |search: &str, p: &TrackPrefs| {
            entries(&layout, &keys, p, search).iter().map(|e| e.name.clone()).collect::<Vec<_>>()
        };
        assert_eq!(names("", &prefs), ["Host", "python", "GPU 0", "Stream 7", "Stream 13"]);
        assert!(entries(&layout, &keys, &prefs, "PYTH")[1].hidden);
        assert_eq!(names("13", &prefs), ["GPU 0", "Stream 13"]);
        assert_eq!(names("gpu", &prefs), ["GPU 0", "Stream 7", "Stream 13"]);
        assert!(names("nothing", &prefs).is_empty());
    }
}
