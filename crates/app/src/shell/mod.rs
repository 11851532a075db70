//! The shell: one header row (brand, run/host/tool selectors, compare, the
//! "Open…" menu once a profile is open, theme), the open bar before that,
//! progress and errors, and the selected tool's view, which gets the rest of
//! the window.
//!
//! - [`selectors`]: run, host, tool (grouped by question) and compare;
//! - [`open_bar`]: the pickers, drop anywhere, demos and recent files;
//!   a bar before a profile is open, the header's "Open…" menu after;
//! - [`demo_menu`], [`recent_list`], [`theme_toggle`]: its parts;
//! - [`keys`]: the keyboard shortcuts between tools and to the menu;
//! - [`status`]: notices, errors, skipped files, progress;
//! - [`url_sync`]: the URL hash and `?logdir=` in and out of the state.

mod demo_menu;
mod keys;
mod open_bar;
mod recent_list;
mod selectors;
mod status;
mod theme_toggle;
mod url_sync;

use leptos::prelude::*;

use proflens_analysis::compare;

use crate::bridge::{self, TraceSink};
use crate::state::AppState;
use crate::url_state::UrlState;
use crate::view_actions::actions;
use crate::views::{self, trace_viewer, ViewProps};
use crate::widgets::how_to_read::ShownView;
use demo_menu::DemoCaption;
use open_bar::{OpenMenuButton, OpenPanel};
use selectors::Selectors;
use status::StatusArea;
use theme_toggle::ThemeToggle;

/// The shell's own state: the "Open…" menu, and a drag over the page.
#[derive(Clone, Copy)]
pub struct ShellUi {
    pub open_menu: RwSignal<bool>,
    /// Files are being dragged over the page.
    pub dragging: RwSignal<bool>,
}

#[component]
pub fn App() -> impl IntoView {
    let state = AppState::new();
    provide_context(state);
    let shell = ShellUi { open_menu: RwSignal::new(false), dragging: RwSignal::new(false) };
    provide_context(shell);
    bridge::set_trace_sink(TraceSink {
        on_answer: trace_viewer::on_answer,
        on_restart: trace_viewer::worker_restarted,
    });

    // The URL's selection is applied once files are opened; `#demo=NAME` opens a demo.
    let url = UrlState::parse(&url_sync::current_hash());
    if let Some(tool) = url.tool {
        state.tool.set(tool);
    }
    state.trace_target.set(url_sync::trace_target(&url));
    state.trace_range.set(url_sync::trace_range(&url));
    let open_demo_now = url.demo.clone();
    bridge::set_pending_url(url);
    match url_sync::served_logdir() {
        Some(Ok(logdir)) => bridge::open_logdir_url(state, logdir),
        Some(Err(message)) => state.error.set(Some(message)),
        None => {
            if let Some(demo) = open_demo_now {
                bridge::open_demo(state, &demo, true);
            }
        }
    }
    url_sync::watch_hash(state);
    url_sync::keep_hash_in_sync(state);
    open_bar::accept_drops_anywhere(state, shell);
    keys::install(state, shell);
    crate::theme::start();

    view! {
        <header class="topbar">
            <h1 class="brand">"Proflens"</h1>
            <Selectors/>
            <span class="topbar-end">
                <OpenMenuButton/>
                <ThemeToggle/>
            </span>
        </header>
        <main id="main">
            <OpenPanel/>
            <StatusArea/>
            <DemoCaption/>
            <ToolArea/>
        </main>
    }
}

fn state() -> AppState {
    expect_context::<AppState>()
}

/// The view of the host on screen, with what it may ask of the worker; in
/// compare mode, the comparison (or which tools compare).
#[component]
fn ToolArea() -> impl IntoView {
    let state = state();
    move || {
        let tool = state.tool.get();
        if state.base.with(|b| b.is_some()) && !compare::TOOLS.contains(&tool) {
            return Some(views::compare::not_comparable(tool));
        }
        state.shown.get().map(|shown| {
            let actions = actions(state, &shown.run, &shown.host);
            // Which guide ToolTitle shows: PyTorch variants share their tool's id.
            provide_context(ShownView(shown.view.clone()));
            let props = ViewProps {
                run: shown.run,
                host: shown.host,
                model: shown.model,
                wasm_memory_bytes: shown.wasm_memory_bytes,
                actions,
            };
            views::render(&shown.view, props)
        })
    }
}
