//! Proflens in the browser.
//!
//! Two roles, built as two wasm binaries by cargo features (`page`,
//! `worker`; both by default): neither carries the other's code. On the page, [`start_app`] mounts the Leptos UI
//! ([`shell`]), which renders view models only. In a Web Worker spawned by
//! `web/loader.js`, [`start_worker`] installs [`worker`], which holds the
//! opened files as one `proflens_analysis` host context per host and answers
//! with the view models of the tools of `proflens_analysis::registry` over
//! [`protocol`]; [`bridge`] is the page's end of that conversation.
//!
//! Layers: demos < protocol < worker < tool_names < theme < help < widgets < views < warm_render < state < url_state < intake < recent < recent_handles < bridge < view_actions < shell
//! Independent: views
//!
//! - [`demos`]: the list of demos (data only; xtask reads it too);
//! - [`protocol`]: the messages (it imports no other module of the app);
//! - [`worker`]: the worker's side; it uses only the protocol;
//! - [`tool_names`]: the registry's tool ids and labels as plain data (the
//!   page's wasm then carries no tool code);
//! - [`theme`]: light or dark (the reader's choice, the system's setting),
//!   and the theme's colours for canvases (the header's toggle is the shell's);
//! - [`help`]: the "How to read this" guide of each tool (text only);
//! - [`widgets`]: tables, charts, numbers for people, downloads, titles;
//! - [`views`]: one view per view name of the registry's outputs, chosen
//!   from one table; views get callbacks, never the bridge, and never
//!   import each other;
//! - [`warm_render`]: the warm-up's views drawn once at boot, unseen, so
//!   that the first ones a user opens run on compiled code;
//! - [`state`], [`url_state`]: what the page shows, and the URL hash of it;
//! - [`intake`]: files from pickers and drops;
//! - [`recent`], [`recent_handles`]: the recently opened profiles, in local
//!   storage, and the handles that reopen files where the browser allows;
//! - [`bridge`]: requests to the worker and its replies into state;
//! - [`view_actions`]: what views may ask for, links to other tools among it;
//! - [`shell`]: the header (run, host, tool, compare, "Open…", theme), the
//!   open bar, demos, recent files, shortcuts and status, which wires views
//!   to the bridge.
//!
//! `cargo xtask check-arch` checks this order and that no modules form a circle.

// Built with one role only, the protocol's other half is unused on purpose.
#![cfg_attr(not(all(feature = "page", feature = "worker")), allow(dead_code, unused_imports))]

#[cfg(feature = "page")]
mod bridge;
/// The demos: which profiles, their tools and captions (data only; xtask reads it too).
mod demos;
#[cfg(test)]
mod demos_tests;
#[cfg(feature = "page")]
mod help;
#[cfg(feature = "page")]
mod intake;
mod protocol;
#[cfg(feature = "page")]
mod recent;
#[cfg(feature = "page")]
mod recent_handles;
#[cfg(feature = "page")]
mod render_timing;
#[cfg(feature = "page")]
mod shell;
#[cfg(feature = "page")]
mod state;
#[cfg(feature = "page")]
mod theme;
#[cfg(feature = "page")]
mod tool_names;
#[cfg(feature = "page")]
mod url_state;
#[cfg(feature = "page")]
mod view_actions;
#[cfg(feature = "page")]
mod views;
#[cfg(feature = "page")]
mod warm_render;
#[cfg(feature = "page")]
mod widgets;
#[cfg(feature = "worker")]
mod worker;

use wasm_bindgen::prelude::*;

/// Mounts the app on `<body>` (main thread).
#[cfg(feature = "page")]
#[wasm_bindgen]
pub fn start_app() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(shell::App);
}

/// Draws the warm-up's views (`[view, model]` pairs) once, unseen (main
/// thread; see [`warm_render`]).
#[cfg(feature = "page")]
#[wasm_bindgen]
pub fn warm_render(views: JsValue) {
    warm_render::run(views);
}

/// Installs the worker's message handler and posts `{kind: "ready"}` (inside the worker).
#[cfg(feature = "worker")]
#[wasm_bindgen]
pub fn start_worker() {
    console_error_panic_hook::set_once();
    worker::install();
}
