//! What a view may ask of the page ([`Actions`]): another XLA module, a
//! step, trace queries, and links to other tools (the trace viewer at an
//! event or a time range), each of which sets the page's state and asks the
//! worker through the bridge.

use std::sync::Arc;

use leptos::prelude::*;

use crate::bridge;
use crate::protocol::EventAt;
use crate::state::AppState;
use crate::url_state::UrlState;
use crate::views::{Actions, OpenLink, ToolLink, TraceRange, TraceTarget};

/// What a view of `(run, host)` may ask for: another XLA module, trace
/// queries, another tool.
pub fn actions(state: AppState, run: &str, host: &str) -> Actions {
    let (run, host) = (run.to_string(), host.to_string());
    Actions {
        choose_module: Arc::new(move |module| {
            state.module.set(Some(module));
            bridge::show_tool(state);
        }),
        choose_graph: Arc::new(move |module, graph| {
            if module.is_some() {
                state.module.set(module);
            }
            state.graph.set(Some(graph));
            bridge::show_tool(state);
        }),
        choose_step: Arc::new(move |step| {
            state.step.set(Some(step));
            bridge::show_tool(state);
        }),
        trace_query: {
            let (run, host) = (run.clone(), host.clone());
            Arc::new(move |seq, query| bridge::post_trace(state, run.clone(), host.clone(), seq, query))
        },
        show_in_trace: {
            let (run, host) = (run.clone(), host.clone());
            Arc::new(move |other: Option<String>, at: EventAt| {
                let link = ToolLink { tool: "trace_viewer", host: other, range: None, event: Some(at) };
                open_link(state, &run, host.clone(), link)
            })
        },
        trace_target: state.trace_target,
        trace_range: state.trace_range,
        open_link: OpenLink {
            href: {
                let (run, host) = (run.clone(), host.clone());
                Arc::new(move |link: &ToolLink| link_hash(state, &run, &host, link))
            },
            open: Arc::new(move |link| open_link(state, &run, host.clone(), link)),
        },
    }
}

/// The host a link of a view of `(run, shown)` opens: its own when the run
/// has it, else the one on screen.
fn link_host(state: AppState, run: &str, shown: &str, link: &ToolLink) -> String {
    let asked = link.host.clone().unwrap_or_else(|| shown.to_string());
    let known = state.opened.with_untracked(|o| o.as_ref().is_some_and(|o| o.has(run, &asked)));
    if known {
        asked
    } else {
        state.host.get_untracked()
    }
}

/// Switches to `link`'s tool on its host (of `run`; `shown`: the view's
/// host), and for the trace viewer to its range or event: only those of the
/// link, so that an earlier selection does not pull the view elsewhere.
fn open_link(state: AppState, run: &str, shown: String, link: ToolLink) {
    let host = link_host(state, run, &shown, &link);
    let host_changed = host != state.host.get_untracked();
    if link.tool == "trace_viewer" {
        let (run, target_host) = (run.to_string(), host.clone());
        state.trace_target.set(link.event.map(|at| TraceTarget { run: run.clone(), host: target_host.clone(), at }));
        // Without a range the viewer zooms to the event, not to the range last shown.
        state.trace_range.set(link.range.map(|(start_ps, end_ps)| TraceRange {
            run,
            host: target_host,
            start_ps,
            end_ps,
        }));
    }
    state.tool.set(link.tool);
    if host_changed {
        state.host.set(host);
        bridge::load_host(state);
    } else {
        bridge::show_tool(state);
    }
}

/// The URL hash [`open_link`] leads to (what `keep_hash_in_sync` writes then).
fn link_hash(state: AppState, run: &str, shown: &str, link: &ToolLink) -> String {
    let trace = link.tool == "trace_viewer";
    UrlState {
        demo: state.opened.with_untracked(|o| o.as_ref().and_then(|o| o.demo.clone())),
        run: Some(run.to_string()),
        host: Some(link_host(state, run, shown, link)),
        tool: Some(link.tool),
        base_run: None,
        base_host: None,
        trace_range: link.range.filter(|_| trace),
        event: link.event.filter(|_| trace),
    }
    .to_hash()
}
