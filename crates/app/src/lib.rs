//! Proflens in the browser.
//!
//! One wasm, two roles. On the page, [`start_app`] mounts the Leptos UI
//! ([`app`]), which renders view models only. In a Web Worker spawned by
//! `web/loader.js`, [`start_worker`] installs [`worker`], which holds the
//! opened files, decodes hosts with `proflens-format` and answers with
//! `proflens-analysis` view models over [`protocol`]; [`bridge`] is the page's
//! end of that conversation.

mod app;
mod bridge;
mod chart;
mod download;
mod fmt;
mod intake;
mod protocol;
mod state;
mod table;
mod tools;
mod url_state;
mod worker;

use wasm_bindgen::prelude::*;

/// Mounts the app on `<body>` (main thread).
#[wasm_bindgen]
pub fn start_app() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(app::App);
}

/// Installs the worker's message handler and posts `{kind: "ready"}` (inside the worker).
#[wasm_bindgen]
pub fn start_worker() {
    console_error_panic_hook::set_once();
    worker::install();
}
