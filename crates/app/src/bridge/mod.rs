//! The page's side of the worker: spawns it (through the loader's
//! `proflensSpawnWorker`), sends requests, turns replies into state, and
//! cancels by terminating the worker and starting a fresh one.
//!
//! - [`opened`]: the runs of opened (or added) files into the selection;
//! - [`demo`]: a demo, fetched beside the page or read from the single file;
//! - [`pool`]: extra workers that summarise a run's hosts before a tool of all hosts.

use std::cell::RefCell;
use std::collections::VecDeque;

use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{ErrorEvent, File, MessageEvent, Worker};

use proflens_analysis::compare;

use crate::protocol::{self, Request, Response, TraceAnswer, TraceQuery, BLOB, MODEL};
use crate::state::{AppState, HostTools, Pick, Shown, Status};
use crate::url_state::UrlState;
use crate::views;

mod demo;
mod opened;
mod pool;

pub use demo::open_demo;

#[wasm_bindgen]
extern "C" {
    /// Defined by `web/loader.js`: a worker running this wasm, already sent
    /// the compiled module; it answers `{kind: "ready"}` once listening.
    #[wasm_bindgen(catch, js_name = proflensSpawnWorker)]
    fn spawn_worker_js() -> Result<Worker, JsValue>;
}

struct Bridge {
    worker: Worker,
    ready: bool,
    /// Messages waiting for `ready`.
    queue: Vec<JsValue>,
}

/// Where the trace viewer's answers go (the page's trace viewer, which the
/// bridge does not know): set once by the app.
#[derive(Clone, Copy)]
pub struct TraceSink {
    /// An answer for `(run, host)`, with the export's file when it is one.
    pub on_answer: fn(&str, &str, u32, TraceAnswer, Option<web_sys::Blob>),
    /// The worker was replaced: queries in flight are lost.
    pub on_restart: fn(),
}

/// What the answer to an open request does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Opening {
    /// Lists the runs, selects a host (the URL's, or the first) and loads it.
    Load,
    /// Files opened again in a fresh worker: lists them, loads nothing.
    Resend,
    /// Files added to the open ones, to compare: the first new host becomes the baseline.
    Add,
}

#[derive(Default)]
struct Session {
    bridge: Option<Bridge>,
    /// Bumped on every spawn; replies of an older worker are dropped.
    generation: u32,
    /// The open requests (envelopes) that made the open set: the last
    /// opening, then the files added to it. A fresh worker gets them again
    /// after a cancel.
    opens: Vec<JsValue>,
    /// The demo the open set started with, if it did.
    demo: Option<String>,
    /// For each `Open` in flight, what its reply should do.
    expect_logdir: VecDeque<Opening>,
    /// Tool requests sent and not answered yet (the worker may be decoding).
    in_flight: usize,
    /// Selection from the URL, applied when files are opened.
    pending_url: Option<UrlState>,
    /// The URL's baseline when the opened files lacked it: applied when
    /// files added later have it.
    pending_base: Option<Pick>,
    trace_sink: Option<TraceSink>,
    /// When the worker last answered or was asked something (ms since the epoch).
    last_heard_ms: f64,
    /// Whether the watchdog's timer runs (one per page).
    watching: bool,
}

/// A busy worker silent this long is shown as stalled, with its Cancel.
const SAY_STALLED_AFTER_MS: f64 = 10_000.0;
/// A busy worker silent this long is stopped: every phase reports progress
/// far more often, so it is spinning on something (`?watchdog=SECONDS`
/// changes it).
const STOP_AFTER_MS: f64 = 300_000.0;

thread_local! {
    static SESSION: RefCell<Session> = RefCell::new(Session::default());
}

/// Sends the trace viewer's answers to `sink`.
pub fn set_trace_sink(sink: TraceSink) {
    SESSION.with_borrow_mut(|s| s.trace_sink = Some(sink));
}

fn trace_sink() -> Option<TraceSink> {
    SESSION.with_borrow(|s| s.trace_sink)
}

/// Remembers the URL's selection until files are opened.
pub fn set_pending_url(url: UrlState) {
    SESSION.with_borrow_mut(|s| s.pending_url = Some(url));
}

/// Opens files picked or dropped by the user (the open ones are closed).
pub fn open_files(state: AppState, files: Vec<(String, File)>) {
    send_files(state, files, Opening::Load);
}

/// Adds files to the open ones, to compare them: the first host they bring
/// becomes the baseline.
pub fn add_files(state: AppState, files: Vec<(String, File)>) {
    send_files(state, files, Opening::Add);
}

fn send_files(state: AppState, files: Vec<(String, File)>, opening: Opening) {
    if files.is_empty() {
        return;
    }
    let (paths, list): (Vec<String>, Vec<File>) = files.into_iter().unzip();
    let array: js_sys::Array = list.into_iter().map(JsValue::from).collect();
    let append = opening == Opening::Add;
    match protocol::envelope(&Request::Open { paths, append }, Some(&array)) {
        Ok(message) => start_open(state, message, opening, None),
        Err(e) => fail(state, format!("Proflens could not pass the files on ({e}).")),
    }
}

/// Opens a log directory served on this page's origin (`?logdir=URL`).
pub fn open_logdir_url(state: AppState, logdir: String) {
    match protocol::envelope(&Request::OpenLogdirUrl { logdir }, None) {
        Ok(message) => start_open(state, message, Opening::Load, None),
        Err(e) => fail(state, format!("Proflens could not open the log directory ({e}).")),
    }
}

fn start_open(state: AppState, message: JsValue, opening: Opening, demo: Option<String>) {
    let adding = opening == Opening::Add;
    if SESSION.with_borrow(|s| s.in_flight > 0) {
        // Added files join the open ones, which a fresh worker needs first.
        respawn(state, adding);
    }
    SESSION.with_borrow_mut(|s| {
        if !adding {
            s.opens.clear();
            s.demo = demo;
        }
        s.opens.push(message.clone());
    });
    state.error.set(None);
    state.notice.set(None);
    if !adding {
        state.shown.set(None);
    }
    state.status.set(Status::Loading { fraction: None, label: "Listing the files".into() });
    post(state, message, Some(opening));
}

/// Decodes, analyses and shows the selected run and host with the selected
/// tool (the memory viewer starts again at the host's largest module).
pub fn load_host(state: AppState) {
    state.module.set(None);
    state.graph.set(None);
    state.step.set(None);
    if SESSION.with_borrow(|s| s.in_flight > 0) {
        // The worker is busy with another host (or the same one, for a retry): replace it.
        respawn(state, true);
    }
    request_view(state);
}

/// Shows the selected tool for the host on screen. The worker is not
/// replaced: what it is decoding serves the new tool too, from its cache.
pub fn show_tool(state: AppState) {
    request_view(state);
}

fn request_view(state: AppState) {
    // Summaries being computed for another selection are not wanted now.
    pool::stop();
    let run = state.run.get_untracked();
    let host = state.host.get_untracked();
    let base = state.base.get_untracked();
    if base.is_none() && state.tool.get_untracked() == compare::TRACE_DIFF {
        // The trace diff exists only as a comparison.
        state.tool.set(crate::tool_names::TOOLS[0].id);
    }
    let tool = state.tool.get_untracked().to_string();
    let module = state.module.get_untracked();
    let graph = state.graph.get_untracked();
    let step = state.step.get_untracked();
    if run.is_empty() || host.is_empty() {
        return;
    }
    state.error.set(None);
    state.notice.set(None);
    state.shown.set(None);
    let request = match base {
        None => Request::Tool { run, host, tool, module, graph, step, workers: pool::workers() },
        Some(base) if compare::TOOLS.contains(&tool.as_str()) => {
            Request::Compare { base_run: base.run, base_host: base.host, run, host, tool }
        }
        // Nothing to ask: the page says which tools compare.
        Some(_) => {
            state.status.set(Status::Ready);
            return;
        }
    };
    state.status.set(Status::Loading { fraction: None, label: "Starting".into() });
    match protocol::envelope(&request, None) {
        Ok(message) => {
            SESSION.with_borrow_mut(|s| s.in_flight += 1);
            post(state, message, None);
        }
        Err(e) => fail(state, format!("Proflens could not ask for this host ({e}).")),
    }
}

/// Sends a trace-viewer query about the host on screen. It does not touch
/// what is shown: the answer goes to the trace viewer.
pub fn post_trace(state: AppState, run: String, host: String, seq: u32, query: TraceQuery) {
    match protocol::envelope(&Request::Trace { run, host, seq, query }, None) {
        Ok(message) => post(state, message, None),
        Err(e) => fail(state, format!("Proflens could not ask about the trace ({e}).")),
    }
}

/// Stops the decode under way: the worker is terminated and a fresh one gets
/// the opened files again.
pub fn cancel(state: AppState) {
    respawn(state, true);
    state.status.set(Status::Cancelled);
    state.shown.set(None);
    state.error.set(None);
    state.notice.set(Some("Cancelled.".into()));
}

fn fail(state: AppState, message: String) {
    state.status.set(Status::Idle);
    state.error.set(Some(message));
}

/// Terminates the current worker (if any) and starts a fresh one, optionally
/// giving it the open files again (without loading a host).
fn respawn(state: AppState, resend_last: bool) {
    state.stalled_s.set(None);
    pool::stop();
    let resend = SESSION.with_borrow_mut(|s| {
        if let Some(bridge) = s.bridge.take() {
            bridge.worker.terminate();
        }
        s.generation = s.generation.wrapping_add(1);
        s.expect_logdir.clear();
        s.in_flight = 0;
        if resend_last {
            s.opens.clone()
        } else {
            Vec::new()
        }
    });
    // Queries the old worker had not answered never will be.
    if let Some(sink) = trace_sink() {
        (sink.on_restart)();
    }
    for message in resend {
        post(state, message, Some(Opening::Resend));
    }
}

/// An extra worker was heard from: the analysis is alive.
fn heard() {
    SESSION.with_borrow_mut(|s| s.last_heard_ms = js_sys::Date::now());
}

/// The extra workers' summaries go to the analysis worker, and the tool
/// on screen is asked for again (now answered from them).
fn give_summaries(state: AppState, message: JsValue) {
    post(state, message, None);
    request_view(state);
}

/// Sends a message, starting the worker if needed; queued until it is ready.
fn post(state: AppState, message: JsValue, expect_logdir: Option<Opening>) {
    if let Err(e) = ensure_worker(state) {
        fail(state, e);
        return;
    }
    let result = SESSION.with_borrow_mut(|s| {
        s.last_heard_ms = js_sys::Date::now();
        if let Some(opening) = expect_logdir {
            s.expect_logdir.push_back(opening);
        }
        match s.bridge.as_mut() {
            Some(bridge) if bridge.ready => bridge.worker.post_message(&message),
            Some(bridge) => {
                bridge.queue.push(message);
                Ok(())
            }
            None => Ok(()),
        }
    });
    if let Err(e) = result {
        fail(state, format!("Proflens could not pass the request to its analysis worker ({}).", describe(&e)));
    }
}

fn ensure_worker(state: AppState) -> Result<(), String> {
    if SESSION.with_borrow(|s| s.bridge.is_some()) {
        return Ok(());
    }
    if !SESSION.with_borrow(|s| s.watching) {
        start_watchdog(state);
    }
    let worker = spawn_worker_js().map_err(|e| {
        format!("Proflens could not start its analysis worker ({}). Try reloading the page.", describe(&e))
    })?;
    let generation = SESSION.with_borrow(|s| s.generation);

    // The closures are leaked on purpose: a handler may respawn the worker,
    // and a closure must not be dropped while it runs. One pair per worker.
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
        if SESSION.with_borrow(|s| s.generation) != generation {
            return;
        }
        SESSION.with_borrow_mut(|s| s.last_heard_ms = js_sys::Date::now());
        state.stalled_s.set(None);
        let data = event.data();
        match protocol::from_js::<Response>(data.clone()) {
            Ok(Response::Trace { run, host, seq, answer }) => {
                // An export's file comes beside the message.
                let blob = protocol::attached(&data, BLOB).and_then(|b| b.dyn_into::<web_sys::Blob>().ok());
                if let Some(sink) = trace_sink() {
                    (sink.on_answer)(&run, &host, seq, answer, blob);
                }
            }
            Ok(response) => on_response(state, response, &data),
            Err(e) => web_sys::console::warn_1(&format!("Proflens: unreadable worker message: {e}").into()),
        }
    });
    let on_error = Closure::<dyn FnMut(ErrorEvent)>::new(move |event: ErrorEvent| {
        event.prevent_default();
        if SESSION.with_borrow(|s| s.generation) != generation {
            return;
        }
        let detail = event.message();
        respawn(state, true);
        state.shown.set(None);
        fail(
            state,
            format!(
                "The analysis stopped unexpectedly ({}). The files are still open; choose a host to try again.",
                if detail.is_empty() { "no details".to_string() } else { detail }
            ),
        );
    });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    on_message.forget();
    on_error.forget();
    // A spare worker that has said it is ready (its words are told again
    // after a turn of the event loop) is sent requests at once: the file's
    // opening then starts while the page is still drawing its choice.
    let ready = js_sys::Reflect::get(&worker, &JsValue::from_str("proflensReady")).is_ok_and(|v| v.is_truthy());
    SESSION.with_borrow_mut(|s| s.bridge = Some(Bridge { worker, ready, queue: Vec::new() }));
    Ok(())
}

/// Checks four times a second whether a busy worker has gone silent: says so
/// after [`SAY_STALLED_AFTER_MS`], and stops it after [`STOP_AFTER_MS`] (or
/// the page's `?watchdog=SECONDS`), so a file that makes the analysis spin
/// never leaves the page waiting for ever.
fn start_watchdog(state: AppState) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let stop_after_ms = window
        .location()
        .search()
        .ok()
        .and_then(|q| web_sys::UrlSearchParams::new_with_str(&q).ok())
        .and_then(|p| p.get("watchdog"))
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|s| *s > 0.0)
        .map_or(STOP_AFTER_MS, |s| s * 1000.0);
    let tick = Closure::<dyn FnMut()>::new(move || {
        let busy = state.is_loading() && SESSION.with_borrow(|s| s.bridge.is_some());
        let silent_ms = js_sys::Date::now() - SESSION.with_borrow(|s| s.last_heard_ms);
        if !busy {
            return;
        }
        if silent_ms >= stop_after_ms {
            respawn(state, true);
            state.shown.set(None);
            fail(
                state,
                format!(
                    "The analysis made no progress for {:.0} s, so Proflens stopped it; the files are still open. \
                     The file may be damaged or built to stall analysers: try another host or file.",
                    silent_ms / 1000.0
                ),
            );
        } else if silent_ms >= SAY_STALLED_AFTER_MS.min(stop_after_ms / 2.0) {
            state.stalled_s.set(Some((silent_ms / 1000.0) as u32));
        }
    });
    let started = window.set_interval_with_callback_and_timeout_and_arguments_0(tick.as_ref().unchecked_ref(), 250);
    // One timer for the page's life.
    tick.forget();
    SESSION.with_borrow_mut(|s| s.watching = started.is_ok());
}

/// A reply of the worker; `data` is the whole message (a tool's model is beside the response).
fn on_response(state: AppState, response: Response, data: &JsValue) {
    match response {
        Response::Ready => {
            let failed = SESSION.with_borrow_mut(|s| {
                let bridge = s.bridge.as_mut()?;
                bridge.ready = true;
                let queue = std::mem::take(&mut bridge.queue);
                queue.iter().find_map(|m| bridge.worker.post_message(m).err())
            });
            if let Some(e) = failed {
                fail(state, format!("Proflens could not pass the request to its analysis worker ({}).", describe(&e)));
            }
        }
        Response::Logdir { runs, skipped } => opened::on_logdir(state, runs, skipped),
        Response::Compare { base_run, base_host, run, host, tool, wasm_memory_bytes } => {
            SESSION.with_borrow_mut(|s| s.in_flight = s.in_flight.saturating_sub(1));
            // An answer for sides or a tool that have changed since is dropped.
            let base = Some(Pick { run: base_run, host: base_host });
            if base == state.base.get_untracked()
                && run == state.run.get_untracked()
                && host == state.host.get_untracked()
                && tool == state.tool.get_untracked()
            {
                let model = protocol::attached(data, MODEL).unwrap_or(JsValue::UNDEFINED);
                state.both_pytorch.set(both_pytorch(&model));
                let view = views::compare::VIEW.to_string();
                state.shown.set(Some(Shown { run, host, view, model, wasm_memory_bytes }));
                state.status.set(Status::Ready);
            }
        }
        Response::Progress { fraction, phase_label } => {
            if state.is_loading() {
                state.status.set(Status::Loading { fraction, label: phase_label });
            }
        }
        Response::HostTools { run, host, tools } => {
            state.host_tools.set(Some(HostTools { run, host, tools }));
        }
        Response::Tool { run, host, tool, view, wasm_memory_bytes } => {
            SESSION.with_borrow_mut(|s| s.in_flight = s.in_flight.saturating_sub(1));
            // An answer for a selection that has changed since is dropped.
            if run == state.run.get_untracked()
                && host == state.host.get_untracked()
                && tool == state.tool.get_untracked()
            {
                let model = protocol::attached(data, MODEL).unwrap_or(JsValue::UNDEFINED);
                state.shown.set(Some(Shown { run, host, view, model, wasm_memory_bytes }));
                state.status.set(Status::Ready);
            }
        }
        Response::Trace { run, host, seq, answer } => {
            if let Some(sink) = trace_sink() {
                (sink.on_answer)(&run, &host, seq, answer, None);
            }
        }
        Response::Summarize { run, host, tool, hosts, paths } => {
            SESSION.with_borrow_mut(|s| s.in_flight = s.in_flight.saturating_sub(1));
            if run == state.run.get_untracked()
                && host == state.host.get_untracked()
                && tool == state.tool.get_untracked()
            {
                let files = protocol::attached(data, protocol::FILES).unwrap_or(JsValue::UNDEFINED);
                pool::start(state, run, hosts, paths, files);
            }
        }
        // Only extra workers send these, to the pool.
        Response::Summary { .. } | Response::SummaryFailed { .. } | Response::WarmedUp => {}
        Response::Error { message } => {
            SESSION.with_borrow_mut(|s| {
                s.in_flight = s.in_flight.saturating_sub(1);
                // A worker that failed to start is dropped; the next request starts another.
                if s.bridge.as_ref().is_some_and(|b| !b.ready) {
                    if let Some(bridge) = s.bridge.take() {
                        bridge.worker.terminate();
                    }
                    s.generation = s.generation.wrapping_add(1);
                    s.expect_logdir.clear();
                }
            });
            state.shown.set(None);
            fail(state, message);
        }
    }
}

/// Whether both sides of a comparison (as the worker sent it) are PyTorch traces.
fn both_pytorch(model: &JsValue) -> bool {
    let kind = |side: &str| {
        js_sys::Reflect::get(model, &JsValue::from_str(side))
            .and_then(|facts| js_sys::Reflect::get(&facts, &JsValue::from_str("kind")))
            .ok()
            .and_then(|kind| kind.as_string())
    };
    let pytorch = |side| kind(side).is_some_and(|k| k == proflens_analysis::compare::PYTORCH_TRACE);
    pytorch("base") && pytorch("candidate")
}

/// A JS exception as text.
fn describe(value: &JsValue) -> String {
    if let Some(e) = value.dyn_ref::<js_sys::Error>() {
        String::from(e.message())
    } else {
        value.as_string().unwrap_or_else(|| "unknown error".into())
    }
}
