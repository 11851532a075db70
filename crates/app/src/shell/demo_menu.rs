//! The demo menu of the open bar (a labelled list of the demos and its
//! button), and the caption above the tool while a demo is open.

use leptos::prelude::*;

use crate::bridge;
use crate::demos;
use crate::state::AppState;

/// Which demo, and "Open demo": keyboard-usable as plain form controls.
#[component]
pub fn DemoMenu() -> impl IntoView {
    let state = expect_context::<AppState>();
    let chosen = RwSignal::new(demos::DEFAULT.to_string());
    let options = demos::DEMOS
        .iter()
        .map(|d| view! { <option value=d.id selected=d.id == demos::DEFAULT>{d.title}</option> })
        .collect_view();
    view! {
        <span class="demo-menu">
            <label for="demo-choice">"Demo"</label>
            <select id="demo-choice" on:change=move |ev| chosen.set(event_target_value(&ev))>
                {options}
            </select>
            <button
                id="open-demo"
                type="button"
                class="button"
                on:click=move |_| bridge::open_demo(state, &chosen.get_untracked(), false)
            >
                "Open demo"
            </button>
        </span>
    }
}

/// "Demo: <title> — <what to look at>", while the open files are a demo.
#[component]
pub fn DemoCaption() -> impl IntoView {
    let state = expect_context::<AppState>();
    move || {
        let id = state.opened.with(|o| o.as_ref().and_then(|o| o.demo.clone()))?;
        let demo = demos::find(&id);
        Some(view! {
            <p id="demo-caption" class="demo-caption" data-demo=demo.id>
                <strong>{format!("Demo: {}", demo.title)}</strong>
                {format!(" — {}", demo.caption)}
            </p>
        })
    }
}
