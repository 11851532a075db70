//! The shell's keyboard shortcuts: `[` and `]` move to the previous and
//! next tool that has something to show, `{` and `}` to the previous and
//! next group of tools, `o` opens the "Open…" menu and Esc closes it. Keys
//! typed into a field, or with Ctrl, Alt or ⌘, are left alone; the trace
//! viewer's own keys (letters, `.`, `,`, `/`, `?`, `0`) do not overlap.

use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::KeyboardEvent;

use super::ShellUi;
use crate::bridge;
use crate::state::AppState;
use crate::tool_names::GROUPS;
use crate::widgets::keys::typing;

/// Listens for the shortcuts on the window.
pub fn install(state: AppState, shell: ShellUi) {
    let on_key = Closure::<dyn FnMut(KeyboardEvent)>::new(move |e: KeyboardEvent| {
        if e.ctrl_key() || e.meta_key() || e.alt_key() || typing(&e) {
            return;
        }
        let handled = match e.key().as_str() {
            "]" => step_tool(state, 1),
            "[" => step_tool(state, -1),
            "}" => step_group(state, 1),
            "{" => step_group(state, -1),
            "o" | "O" if has_profile(state) => {
                shell.open_menu.update(|o| *o = !*o);
                true
            }
            "Escape" if shell.open_menu.get_untracked() => {
                shell.open_menu.set(false);
                true
            }
            _ => false,
        };
        if handled {
            e.prevent_default();
        }
    });
    let _ = window().add_event_listener_with_callback("keydown", on_key.as_ref().unchecked_ref());
    on_key.forget();
}

fn has_profile(state: AppState) -> bool {
    state.opened.with_untracked(|o| o.as_ref().is_some_and(|o| !o.runs.is_empty()))
}

/// The groups with the tools this host offers, in the selector's order.
fn offered(state: AppState) -> Vec<Vec<&'static str>> {
    GROUPS
        .iter()
        .map(|(_, ids)| ids.iter().copied().filter(|id| state.offers(id)).collect::<Vec<_>>())
        .filter(|ids| !ids.is_empty())
        .collect()
}

fn step_tool(state: AppState, by: isize) -> bool {
    let tools: Vec<&'static str> = offered(state).concat();
    let at = tools.iter().position(|t| *t == state.tool.get_untracked());
    let next = match at {
        Some(i) => (i as isize + by).rem_euclid(tools.len() as isize) as usize,
        None => 0,
    };
    show(state, tools.get(next).copied())
}

fn step_group(state: AppState, by: isize) -> bool {
    let groups = offered(state);
    let tool = state.tool.get_untracked();
    let at = groups.iter().position(|g| g.contains(&tool));
    let next = match at {
        Some(i) => (i as isize + by).rem_euclid(groups.len() as isize) as usize,
        None => 0,
    };
    show(state, groups.get(next).and_then(|g| g.first().copied()))
}

fn show(state: AppState, tool: Option<&'static str>) -> bool {
    let Some(tool) = tool.filter(|t| *t != state.tool.get_untracked()) else {
        return false;
    };
    state.tool.set(tool);
    bridge::show_tool(state);
    true
}
