//! Hosts summarised in extra workers before a tool of all hosts: the
//! analysis worker answers such a tool with the hosts that have no analysis
//! yet and their files ([`Response::Summarize`]); this module spawns
//! `min(workers(), hosts)` workers of the same wasm (the loader's module,
//! already compiled), hands each one host at a time
//! ([`Request::Summarize`]; a worker that has read 64 MiB is replaced by a
//! fresh one, [`RENEW_AFTER_BYTES`]), keeps the summaries as JS bytes (never in
//! the page's wasm memory), shows "hosts 12/64", and when every host is
//! answered terminates the workers (their memory goes with them), gives the
//! summaries to the analysis worker and asks for the tool again.
//!
//! Why the page and not the analysis worker: the page holds the compiled
//! module that spawns workers, and it waits for answers anyway; the
//! analysis worker answers one message at a time, synchronously.
//!
//! A host an extra worker could not summarise is left to the analysis
//! worker, which meets its error as it would alone (the CLI's `--jobs`).

use std::cell::RefCell;
use std::collections::VecDeque;

use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{ErrorEvent, MessageEvent, Worker};

use crate::protocol::{self, Request, Response, SUMMARIES, SUMMARY};
use crate::state::{AppState, Status};

/// One summarising of a run's hosts.
struct Pool {
    run: String,
    hosts: Vec<String>,
    paths: Vec<Vec<String>>,
    /// Each host's files (an array of `File`s per host).
    files: js_sys::Array,
    /// Hosts not handed out yet.
    todo: VecDeque<usize>,
    /// Each host's summary (`Uint8Array`), once answered.
    summaries: Vec<Option<JsValue>>,
    failed: Vec<String>,
    answered: usize,
    workers: Vec<Slot>,
}

/// An extra worker, the host it is on, whether it still runs, and the bytes
/// of the hosts it was given since it started.
struct Slot {
    worker: Worker,
    host: Option<usize>,
    alive: bool,
    read_bytes: f64,
}

/// A worker that has read this much (the page's `?renew_after_mb=N` for
/// tests and measurements, else [`RENEW_AFTER_BYTES`]) is replaced by a
/// fresh one before its next host.
fn renew_after_bytes() -> f64 {
    url_number("renew_after_mb").map_or(RENEW_AFTER_BYTES, |mb| mb * 1024.0 * 1024.0)
}

/// The page's URL parameter `name` when it is a number of 0 or more.
fn url_number(name: &str) -> Option<f64> {
    web_sys::window()
        .and_then(|w| w.location().search().ok())
        .and_then(|q| web_sys::UrlSearchParams::new_with_str(&q).ok())
        .and_then(|p| p.get(name))
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|n| n.is_finite() && *n >= 0.0)
}

/// What a worker may read before it is renewed, by default. Each of its
/// reads left a JavaScript buffer (`FileReaderSync` makes a new one every
/// time) that V8 collects late. On 64 hosts of 45 MB with two workers
/// (headless Chromium, one run each in one script) the renderer peaked
/// 445 MiB above the idle page when each worker summarised 32 hosts,
/// 273 MiB with a fresh worker every 64 MiB (every second host here) and
/// 248 MiB with one for each host, in 36.2, 36.9 and 38.6 s; each worker's
/// wasm memory was 80 MiB every way.
const RENEW_AFTER_BYTES: f64 = 64.0 * 1024.0 * 1024.0;

thread_local! {
    static POOL: RefCell<Option<Pool>> = const { RefCell::new(None) };
    /// Bumped on every pool; answers of an older one are dropped.
    static GENERATION: RefCell<u32> = const { RefCell::new(0) };
}

/// How many workers may run at once: the page's `?workers=N`, else the
/// browser's `navigator.hardwareConcurrency` (1 when it does not say);
/// fewer when their hosts would not fit memory ([`memory_cap`]).
pub fn workers() -> u32 {
    url_number("workers").map(|n| n as u32).unwrap_or_else(|| {
        let navigator = js_sys::Reflect::get(&js_sys::global(), &"navigator".into()).ok();
        let cores = navigator.and_then(|n| js_sys::Reflect::get(&n, &"hardwareConcurrency".into()).ok());
        cores.and_then(|c| c.as_f64()).map_or(1, |c| c.max(1.0) as u32)
    })
}

/// What the extra workers may hold together: each holds one host decoded
/// at a time, its wasm memory about 2x its file once its tools ran (1.97x
/// for the 44 MiB TF profile, 1.98x at 1.6 GiB), beside the worker's read
/// window (16 MiB) and its JavaScript; so many cores do not start more
/// than fit at once.
const WORKERS_MEMORY_BYTES: f64 = 4.0 * 1024.0 * 1024.0 * 1024.0;
const WORKER_BYTES_PER_FILE_BYTE: f64 = 3.0;

/// How many workers fit [`WORKERS_MEMORY_BYTES`] when a host's files
/// take `largest` bytes (at least one).
fn memory_cap(largest: f64) -> usize {
    (WORKERS_MEMORY_BYTES / (largest * WORKER_BYTES_PER_FILE_BYTE).max(1.0)).max(1.0) as usize
}

/// The bytes of the largest host's files (`files`: an array of `File`s per host).
fn largest_host_bytes(files: &js_sys::Array) -> f64 {
    files.iter().map(|host| host_bytes(&host)).fold(0.0, f64::max)
}

/// The bytes of one host's files (an array of `File`s).
fn host_bytes(files: &JsValue) -> f64 {
    let size = |file: JsValue| file.dyn_into::<web_sys::File>().map_or(0.0, |f| f.size());
    js_sys::Array::from(files).iter().map(size).sum()
}

/// Stops the pool under way, if any (its workers terminated).
pub fn stop() {
    GENERATION.with_borrow_mut(|g| *g = g.wrapping_add(1));
    if let Some(pool) = POOL.with_borrow_mut(Option::take) {
        for slot in pool.workers {
            slot.worker.terminate();
        }
    }
}

/// Summarises `hosts` of `run` (files in `files`, an array per host) in
/// extra workers, then asks for the selected tool again.
pub fn start(state: AppState, run: String, hosts: Vec<String>, paths: Vec<Vec<String>>, files: JsValue) {
    stop();
    let generation = GENERATION.with_borrow(|g| *g);
    let files = js_sys::Array::from(&files);
    let count = (workers() as usize).min(memory_cap(largest_host_bytes(&files))).clamp(1, hosts.len().max(1));
    let mut pool = Pool {
        run,
        todo: (0..hosts.len()).collect(),
        summaries: vec![None; hosts.len()],
        hosts,
        paths,
        files,
        failed: Vec::new(),
        answered: 0,
        workers: Vec::new(),
    };
    for index in 0..count {
        match super::spawn_worker_js() {
            Ok(worker) => {
                listen(state, &worker, generation, index);
                pool.workers.push(Slot { worker, host: None, alive: true, read_bytes: 0.0 });
            }
            Err(_) => break,
        }
    }
    if pool.workers.is_empty() {
        // No extra worker: the analysis worker does every host itself.
        pool.failed = std::mem::take(&mut pool.hosts);
        pool.answered = pool.failed.len();
    }
    for index in 0..pool.workers.len() {
        hand_out(&mut pool, index);
    }
    let status = progress(&pool);
    POOL.with_borrow_mut(|p| *p = Some(pool));
    state.status.set(status);
    finish_if_done(state);
}

/// The workers' messages go to [`on_message`]; a worker that stops
/// unexpectedly loses its host.
fn listen(state: AppState, worker: &Worker, generation: u32, index: usize) {
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
        if GENERATION.with_borrow(|g| *g) == generation {
            on_message(state, index, &event.data());
        }
    });
    let on_error = Closure::<dyn FnMut(ErrorEvent)>::new(move |event: ErrorEvent| {
        event.prevent_default();
        if GENERATION.with_borrow(|g| *g) == generation {
            let why = format!("the worker stopped ({})", event.message());
            POOL.with_borrow_mut(|p| {
                if let Some(pool) = p.as_mut() {
                    fail_current(pool, index, &why);
                    // Its hosts go to the others; with none left, to the analysis worker.
                    if let Some(slot) = pool.workers.get_mut(index) {
                        slot.worker.terminate();
                        slot.alive = false;
                    }
                    if pool.workers.iter().all(|s| !s.alive) {
                        while let Some(host) = pool.todo.pop_front() {
                            pool.failed.push(pool.hosts[host].clone());
                            pool.answered += 1;
                        }
                    }
                }
            });
            finish_if_done(state);
        }
    });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    // Leaked as the bridge's are: a handler must outlive the messages of its worker.
    on_message.forget();
    on_error.forget();
}

fn on_message(state: AppState, index: usize, data: &JsValue) {
    super::heard();
    let Ok(response) = protocol::from_js::<Response>(data.clone()) else { return };
    let status = POOL.with_borrow_mut(|p| {
        let pool = p.as_mut()?;
        match response {
            Response::Summary { .. } => {
                if let Some(host) = pool.workers[index].host.take() {
                    pool.summaries[host] = protocol::attached(data, SUMMARY);
                    pool.answered += 1;
                }
                if pool.workers[index].read_bytes >= renew_after_bytes() && !pool.todo.is_empty() {
                    renew(state, pool, index);
                }
                hand_out(pool, index);
            }
            Response::SummaryFailed { message, .. } | Response::Error { message } => {
                fail_current(pool, index, &message);
                hand_out(pool, index);
            }
            _ => return None,
        }
        Some(progress(pool))
    });
    if let Some(status) = status {
        state.status.set(status);
    }
    finish_if_done(state);
}

/// The host worker `index` is on could not be summarised.
fn fail_current(pool: &mut Pool, index: usize, why: &str) {
    if let Some(host) = pool.workers.get_mut(index).and_then(|s| s.host.take()) {
        let line = format!("Proflens: {} was not summarised in an extra worker ({why})", pool.hosts[host]);
        web_sys::console::warn_1(&line.into());
        pool.failed.push(pool.hosts[host].clone());
        pool.answered += 1;
    }
}

/// Gives worker `index` the next host, if any is left.
fn hand_out(pool: &mut Pool, index: usize) {
    if !pool.workers[index].alive {
        return;
    }
    let Some(host) = pool.todo.pop_front() else { return };
    let request = Request::Summarize { host: pool.hosts[host].clone(), paths: pool.paths[host].clone() };
    let files: js_sys::Array = pool.files.get(host as u32).unchecked_into();
    let sent = protocol::envelope(&request, Some(&files)).and_then(|message| {
        pool.workers[index].worker.post_message(&message).map_err(|_| "the host could not be sent".to_string())
    });
    pool.workers[index].host = Some(host);
    pool.workers[index].read_bytes += host_bytes(&files);
    if let Err(why) = sent {
        fail_current(pool, index, &why);
    }
}

/// Worker `index` replaced by a fresh one (see [`RENEW_AFTER_BYTES`]); kept
/// when none can be started.
fn renew(state: AppState, pool: &mut Pool, index: usize) {
    let Ok(worker) = super::spawn_worker_js() else { return };
    listen(state, &worker, GENERATION.with_borrow(|g| *g), index);
    let slot = &mut pool.workers[index];
    std::mem::replace(&mut slot.worker, worker).terminate();
    slot.read_bytes = 0.0;
}

/// "Summarising hosts 12/64 in 16 workers", set outside the pool's borrow
/// (setting state may run code that stops the pool).
fn progress(pool: &Pool) -> Status {
    let total = pool.hosts.len().max(pool.answered);
    let label = format!("Summarising hosts {}/{total} in {} workers", pool.answered, pool.workers.len());
    Status::Loading { fraction: Some(pool.answered as f64 / total.max(1) as f64), label }
}

/// When every host is answered: the workers go, the summaries go to the
/// analysis worker, and the tool is asked for again.
fn finish_if_done(state: AppState) {
    let done = POOL.with_borrow_mut(|p| {
        let all = p.as_ref().is_some_and(|pool| pool.answered >= pool.hosts.len() && pool.todo.is_empty());
        if all {
            p.take()
        } else {
            None
        }
    });
    let Some(pool) = done else { return };
    for slot in &pool.workers {
        slot.worker.terminate();
    }
    let mut names = Vec::new();
    let summaries = js_sys::Array::new();
    for (host, summary) in pool.hosts.iter().zip(pool.summaries) {
        if let Some(summary) = summary {
            names.push(host.clone());
            summaries.push(&summary);
        }
    }
    let request = Request::GiveSummaries { run: pool.run, hosts: names, failed: pool.failed };
    match protocol::envelope(&request, None).and_then(|m| protocol::attach(&m, SUMMARIES, &summaries).map(|_| m)) {
        Ok(message) => super::give_summaries(state, message),
        Err(e) => web_sys::console::warn_1(&format!("Proflens: the summaries could not be passed on ({e})").into()),
    }
}
