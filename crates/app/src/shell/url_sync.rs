//! The URL in and out of the state: `?logdir=` on the page's own origin,
//! and the hash (run, host, tool, baseline, the trace viewer's event and
//! range) kept in sync both ways.

use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::bridge;
use crate::demos;
use crate::state::{AppState, Pick};
use crate::url_state::UrlState;
use crate::views::{trace_viewer, TraceRange, TraceTarget};

/// The `?logdir=URL` of the page, resolved against the page's address. Only
/// the page's own origin is allowed: nothing leaves it (the CSP says so too).
pub fn served_logdir() -> Option<Result<String, String>> {
    let location = web_sys::window()?.location();
    let search = location.search().ok()?;
    let logdir = web_sys::UrlSearchParams::new_with_str(&search).ok()?.get("logdir")?;
    let page = location.href().ok()?;
    let origin = location.origin().ok()?;
    Some(match web_sys::Url::new_with_base(&logdir, &page) {
        Ok(url) if url.origin() == origin => Ok(url.href()),
        Ok(_) => Err(format!(
            "The log directory {logdir} is on another site. Proflens reads log directories only from the site that serves it ({origin})."
        )),
        Err(_) => Err(format!("“{logdir}” is not a valid address for a log directory.")),
    })
}

/// The event a URL asks the trace viewer to show, with its run and host.
pub fn trace_target(url: &UrlState) -> Option<TraceTarget> {
    Some(TraceTarget { run: url.run.clone()?, host: url.host.clone()?, at: url.event? })
}

/// The time range a URL asks the trace viewer to show, with its run and host.
pub fn trace_range(url: &UrlState) -> Option<TraceRange> {
    let (start_ps, end_ps) = url.trace_range?;
    Some(TraceRange { run: url.run.clone()?, host: url.host.clone()?, start_ps, end_ps })
}

pub fn current_hash() -> String {
    window().location().hash().unwrap_or_default()
}

/// Writes the selection into the URL hash (without adding history entries).
pub fn keep_hash_in_sync(state: AppState) {
    Effect::new(move |_| {
        let run = state.run.get();
        let host = state.host.get();
        let tool = state.tool.get();
        let Some(demo) = state.opened.with(|o| o.as_ref().map(|o| o.demo.clone())) else {
            return;
        };
        let base = state.base.get();
        let target = state.trace_target.get().filter(|t| tool == "trace_viewer" && t.run == run && t.host == host);
        let range = state.trace_range.get().filter(|r| tool == "trace_viewer" && r.run == run && r.host == host);
        let url = UrlState {
            demo,
            run: (!run.is_empty()).then_some(run),
            host: (!host.is_empty()).then_some(host),
            tool: Some(tool),
            base_run: base.as_ref().map(|b| b.run.clone()),
            base_host: base.map(|b| b.host),
            trace_range: range.map(|r| (r.start_ps, r.end_ps)),
            event: target.map(|t| t.at),
        };
        // The trace viewer's track layout stays (it names its profile).
        let hash = trace_viewer::track_control::carry_hash_key(&url.to_hash(), &current_hash());
        if hash != current_hash() {
            if let Ok(history) = window().history() {
                let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&hash));
            }
        }
    });
}

/// Follows hand edits of the hash (and back/forward between hashes).
pub fn watch_hash(state: AppState) {
    let on_change = Closure::<dyn FnMut()>::new(move || {
        let url = UrlState::parse(&current_hash());
        let mut tool_changed = false;
        let target = trace_target(&url);
        if target.is_some() && target != state.trace_target.get_untracked() {
            state.trace_target.set(target);
            tool_changed = true;
        }
        // A hand-edited range: the viewer on screen follows it.
        let range = trace_range(&url);
        if range.is_some() && range != state.trace_range.get_untracked() {
            state.trace_range.set(range);
        }
        if let Some(tool) = url.tool {
            if tool != state.tool.get_untracked() {
                state.tool.set(tool);
                tool_changed = true;
            }
        }
        let wanted = state.opened.with_untracked(|o| {
            let o = o.as_ref()?;
            let run = url.run.clone()?;
            let host = url.host.clone().filter(|h| o.has(&run, h)).or_else(|| o.hosts_of(&run).first().cloned())?;
            Some((run, host))
        });
        let files_open = state.opened.with_untracked(|o| o.is_some());
        let base = url.base().map(|(run, host)| Pick { run, host });
        let base = base.filter(|b| state.opened.with_untracked(|o| o.as_ref().is_some_and(|o| o.has(&b.run, &b.host))));
        let base_changed = files_open && base != state.base.get_untracked();
        if base_changed {
            state.base.set(base);
        }
        match wanted {
            Some((run, host)) if run != state.run.get_untracked() || host != state.host.get_untracked() => {
                state.run.set(run);
                state.host.set(host);
                bridge::load_host(state);
            }
            _ if url.demo.as_ref().is_some_and(|d| demo_changed(state, d)) => {
                let demo = url.demo.clone().unwrap_or_default();
                bridge::set_pending_url(url);
                bridge::open_demo(state, &demo, true);
            }
            _ if base_changed => bridge::load_host(state),
            _ if tool_changed => bridge::show_tool(state),
            _ => {}
        }
    });
    window().set_onhashchange(Some(on_change.as_ref().unchecked_ref()));
    on_change.forget();
}

/// Whether the URL names another demo than the one open (or none is).
fn demo_changed(state: AppState, asked: &str) -> bool {
    let open = state.opened.with_untracked(|o| o.as_ref().and_then(|o| o.demo.clone()));
    open.as_deref() != Some(demos::find(asked).id)
}
