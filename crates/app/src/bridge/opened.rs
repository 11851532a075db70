//! The runs of opened files into the selection: a first opening selects the
//! URL's host (or the first) and its baseline, files opened again after a
//! cancel keep the selection, and files added to compare become the baseline.

use leptos::prelude::*;

use super::{fail, load_host, request_view, Opening, SESSION};
use crate::protocol::{RunEntry, SkippedEntry};
use crate::state::{AppState, Opened, Pick, Status};
use crate::widgets::fmt;

/// The worker listed the open runs.
pub fn on_logdir(state: AppState, runs: Vec<RunEntry>, skipped: Vec<SkippedEntry>) {
    let (opening, demo, url) = SESSION.with_borrow_mut(|s| {
        let opening = s.expect_logdir.pop_front().unwrap_or(Opening::Load);
        let url = if opening == Opening::Load { s.pending_url.take() } else { None };
        (opening, s.demo.clone(), url)
    });
    let opened = Opened { demo, runs, skipped };
    if opening == Opening::Add {
        return added(state, opened);
    }
    let autoload = opening == Opening::Load;
    let first = opened.runs.first().and_then(|r| r.hosts.first().map(|h| (r.name.clone(), h.clone())));
    let Some(first) = first else {
        state.opened.set(Some(opened.clone()));
        state.run.set(String::new());
        state.host.set(String::new());
        state.base.set(None);
        if autoload {
            let n = opened.skipped.len();
            fail(
                state,
                if n == 1 {
                    "No profile was found: the opened file is not a profile (*.xplane.pb, trace JSON or a TensorBoard tool file).".to_string()
                } else {
                    format!(
                        "No profile was found: none of the {} opened files is a profile (*.xplane.pb, trace JSON or a TensorBoard tool file).",
                        fmt::count(n as u64)
                    )
                },
            );
        }
        return;
    };
    let current = (state.run.get_untracked(), state.host.get_untracked());
    let selection = if autoload {
        url.as_ref()
            .and_then(|u| match (&u.run, &u.host) {
                (Some(r), Some(h)) if opened.has(r, h) => Some((r.clone(), h.clone())),
                (Some(r), _) => opened.hosts_of(r).first().map(|h| (r.clone(), h.clone())),
                _ => None,
            })
            .unwrap_or(first)
    } else if opened.has(&current.0, &current.1) {
        current
    } else {
        first
    };
    // The baseline: the URL's on a first opening (kept for files added
    // later when these lack it); the one chosen before, after a cancel.
    let base = if autoload {
        let wanted = url.as_ref().and_then(|u| u.base()).map(|(run, host)| Pick { run, host });
        let (base, pending) = match wanted {
            Some(b) if opened.has(&b.run, &b.host) => (Some(b), None),
            other => (None, other),
        };
        SESSION.with_borrow_mut(|s| s.pending_base = pending);
        base
    } else {
        state.base.get_untracked().filter(|b| opened.has(&b.run, &b.host))
    };
    if let Some(tool) = url.as_ref().and_then(|u| u.tool) {
        state.tool.set(tool);
    }
    state.opened.set(Some(opened));
    state.base.set(base);
    state.run.set(selection.0);
    state.host.set(selection.1);
    if autoload {
        load_host(state);
    }
}

/// Files were added to the open ones: the baseline becomes the URL's
/// waiting one if they brought it, else the first host they brought; the
/// selection stays the candidate.
fn added(state: AppState, opened: Opened) {
    let before: Vec<String> = state
        .opened
        .with_untracked(|o| o.as_ref().map(|o| o.runs.iter().map(|r| r.name.clone()).collect()))
        .unwrap_or_default();
    let new_host = opened
        .runs
        .iter()
        .filter(|r| !before.contains(&r.name))
        .find_map(|r| r.hosts.first().map(|h| Pick { run: r.name.clone(), host: h.clone() }));
    let pending = SESSION.with_borrow_mut(|s| s.pending_base.take()).filter(|p| opened.has(&p.run, &p.host));
    let nothing_new = new_host.is_none();
    let base = pending.or(new_host);
    let first = opened.runs.first().and_then(|r| r.hosts.first().map(|h| (r.name.clone(), h.clone())));
    state.opened.set(Some(opened));
    if nothing_new {
        state.status.set(Status::Idle);
        fail(state, "No profile was found among the added files, so there is nothing new to compare with.".into());
        return;
    }
    if state.run.get_untracked().is_empty() {
        if let Some((run, host)) = first {
            state.run.set(run);
            state.host.set(host);
        }
    }
    state.base.set(base);
    request_view(state);
}
