//! The analysis worker: holds the opened files as one
//! `proflens_analysis::context::HostContext` per host and answers
//! [`Request`]s. Runs in a dedicated Web Worker with its own instance of this
//! wasm; decoding is synchronous here, so the page stays responsive and
//! cancelling is `Worker.terminate()`.
//!
//! - [`source`]: picked files, a served log directory or the demo, as hosts;
//! - [`archives`]: tar archives among the picked files, opened as folders;
//! - [`combined_runs`]: runs captured together (a multi-host JAX job's run folders), offered as one;
//! - [`hosts`]: the hosts' contexts (the only cache), tools run through the registry;
//! - [`summary_files`], [`summarize`]: host summaries read beside profiles,
//!   or computed by extra workers (one host each at a time) for the tools of all hosts;
//! - [`compare`]: two sides side by side, through `proflens_analysis::compare`;
//! - [`trace`], [`trace_queries`]: the trace viewer's questions about a timeline;
//! - [`warm_up`]: the overview (and op stats) of a small profile of its own, before the user's first.
//!
//! No tool is named here: tools are found with `registry::find` and their
//! view models go to the page as they are.

mod archives;
mod blob_source;
mod combined_runs;
mod compare;
mod heap;
mod hosts;
mod source;
mod summarize;
mod summary_files;
mod timings;
mod trace;
mod trace_neighbour;
mod trace_queries;
mod trace_run;
mod warm_up;

use std::cell::RefCell;
use std::rc::Rc;

use proflens_analysis::context::{Request as ToolRequest, ToolError};
use proflens_analysis::registry;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, File, MessageEvent};

use crate::protocol::{self, GraphRequest, Request, Response, RunEntry, SkippedEntry, MODEL};
use hosts::Hosts;
use source::Found;

thread_local! {
    /// The hosts of the open source.
    static HOSTS: RefCell<Option<Rc<Hosts>>> = const { RefCell::new(None) };
    /// Their runs and the files left out, as the page lists them.
    static OPENED: RefCell<(Vec<RunEntry>, Vec<SkippedEntry>)> = const { RefCell::new((Vec::new(), Vec::new())) };
}

/// Installs the message handler and says `ready`.
pub fn install() {
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(|event: MessageEvent| {
        let data = event.data();
        let reply = match protocol::open_envelope(&data) {
            Ok((request, files)) => handle(request, files, &data),
            Err(e) => Some(Response::Error {
                message: format!("Proflens sent its analysis worker a message it could not read ({e})."),
            }),
        };
        if let Some(reply) = reply {
            post(&reply);
        }
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    post(&Response::Ready);
}

/// The answer to a request; `None` when it was posted already (a tool's
/// output or an export, which travel with something beside the message).
fn handle(request: Request, files: Vec<File>, message: &JsValue) -> Option<Response> {
    Some(match request {
        Request::WarmUp => match warm_up::run() {
            Ok(model) => return post_with(&Response::WarmedUp, MODEL, &model),
            Err(e) => Response::Error { message: format!("The warm-up failed: {e}.") },
        },
        Request::Open { paths, append } => open(source::files(paths.into_iter().zip(files).collect()), append),
        Request::OpenDemo { id, base } => open(source::demo(&id, &base), false),
        Request::OpenLogdirUrl { logdir } => match source::logdir_url(&logdir) {
            Ok(found) => open(found, false),
            Err(message) => Response::Error { message },
        },
        Request::Tool { run, host, tool, module, graph, step, workers } => {
            let Some(hosts) = hosts() else { return Some(no_files()) };
            if summarize::ask(&hosts, &run, &host, &tool, workers) {
                return None;
            }
            return run_tool(&hosts, run, host, &tool, module, graph.unwrap_or_default(), step);
        }
        Request::Summarize { host, paths } => return summarize::summarize(host, paths, files),
        Request::GiveSummaries { run, hosts: names, failed } => {
            let Some(hosts) = hosts() else { return Some(no_files()) };
            summarize::take(&hosts, &run, names, failed, message);
            return None;
        }
        Request::Compare { base_run, base_host, run, host, tool } => {
            let Some(hosts) = hosts() else { return Some(no_files()) };
            return compare::answer(&hosts, base_run, base_host, run, host, tool);
        }
        Request::Trace { run, host, seq, query } => {
            let Some(hosts) = hosts() else { return Some(no_files()) };
            if host == crate::protocol::ALL_HOSTS {
                return trace_run::answer(&hosts, run, seq, query);
            }
            return trace::answer(&hosts, run, host, seq, query);
        }
    })
}

/// Makes `found` the open source (the previous one's contexts go), or with
/// `append` adds it to the open one (its runs renamed apart from the open
/// runs'); lists every open run.
fn open(mut found: Found, append: bool) -> Response {
    let open = HOSTS.with_borrow_mut(|hosts| hosts.take());
    // No tool runs while a message is handled, so nothing else holds the hosts.
    let kept = open.filter(|_| append).and_then(|open| Rc::try_unwrap(open).ok());
    let (hosts, mut runs, mut skipped) = match kept {
        Some(mut hosts) => {
            let (runs, skipped) = OPENED.with_borrow_mut(std::mem::take);
            found.rename_runs_apart(&hosts.run_names());
            hosts.add(std::mem::take(&mut found.hosts));
            (hosts, runs, skipped)
        }
        None => (Hosts::new(std::mem::take(&mut found.hosts), progress), Vec::new(), Vec::new()),
    };
    runs.extend(found.runs);
    skipped.extend(found.skipped);
    OPENED.with_borrow_mut(|opened| *opened = (runs.clone(), skipped.clone()));
    HOSTS.with_borrow_mut(|open| *open = Some(Rc::new(hosts)));
    Response::Logdir { runs, skipped }
}

/// The open hosts, held apart from the thread's state while tools run.
fn hosts() -> Option<Rc<Hosts>> {
    HOSTS.with_borrow(|hosts| hosts.clone())
}

fn no_files() -> Response {
    Response::Error { message: "No files are open.".to_string() }
}

/// Runs a tool and posts its view model; the answer when it has none.
fn run_tool(
    hosts: &Hosts,
    run: String,
    host: String,
    id: &str,
    module: Option<String>,
    graph: GraphRequest,
    step: Option<usize>,
) -> Option<Response> {
    let Some(tool) = registry::find(id) else {
        return Some(Response::Error { message: format!("Proflens has no tool “{id}”.") });
    };
    let request = ToolRequest {
        module,
        node: graph.node,
        graph_width: graph.graph_width,
        merge_fusion: graph.merge_fusion,
        // The page shows one step's critical path at a time.
        step: Some(step.unwrap_or(0)),
        ..ToolRequest::default()
    };
    let tell = |tools: Vec<String>| post(&Response::HostTools { run: run.clone(), host: host.clone(), tools });
    let contexts = hosts.contexts_of(&run, &host);
    let before = timings::Snapshot::start(&contexts);
    let output = match hosts.run(&run, &host, tool, &request, tell) {
        Ok(output) => output,
        Err(ToolError::OneHost) => {
            let message = format!("The {} shows one host at a time: choose a host above.", tool.label());
            return Some(Response::Error { message });
        }
        Err(e) => return Some(Response::Error { message: e.to_string() }),
    };
    let after = timings::Snapshot::take(&contexts);
    let model = match protocol::to_js(output.model.as_serialize()) {
        Ok(model) => model,
        Err(e) => {
            let message = format!("Proflens could not pass the {} on from its analysis worker ({e}).", tool.label());
            return Some(Response::Error { message });
        }
    };
    let costs = before.until(&after, timings::now_ms() - after.at(), wasm_memory_bytes());
    let response = Response::Tool {
        run,
        host,
        tool: tool.id().to_string(),
        view: output.view.to_string(),
        wasm_memory_bytes: wasm_memory_bytes(),
    };
    // The benchmark's breakdown; an answer without it is still an answer.
    let costs = protocol::to_js(&costs).unwrap_or(JsValue::UNDEFINED);
    post_with_fields(&response, &[(MODEL, &model), (timings::TIMINGS, &costs)])
}

/// Posts a message to the page.
fn post(response: &Response) {
    let message = match protocol::to_js(response) {
        Ok(m) => m,
        Err(e) => match protocol::to_js(&Response::Error {
            message: format!("Proflens could not pass a result from its analysis worker ({e})."),
        }) {
            Ok(m) => m,
            Err(_) => return,
        },
    };
    send(&message);
}

/// Posts a message with `value` beside it in its field `key`; the answer
/// to send instead when that fails.
fn post_with(response: &Response, key: &str, value: &JsValue) -> Option<Response> {
    post_with_fields(response, &[(key, value)])
}

/// [`post_with`] with several fields beside the message.
fn post_with_fields(response: &Response, fields: &[(&str, &JsValue)]) -> Option<Response> {
    let attached = protocol::to_js(response).and_then(|message| {
        for (key, value) in fields {
            protocol::attach(&message, key, value)?;
        }
        Ok(message)
    });
    match attached {
        Ok(message) => {
            send(&message);
            None
        }
        Err(e) => Some(Response::Error { message: format!("Proflens could not pass the result on ({e}).") }),
    }
}

fn send(message: &JsValue) {
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    // Posting a plain object cannot fail; nothing to tell anyone if it does.
    let _ = scope.post_message(message);
}

/// Tells the page which phase is under way (`None`: how far cannot be told).
fn progress(fraction: Option<f64>, label: &str) {
    post(&Response::Progress { fraction: fraction.map(|f| f.clamp(0.0, 1.0)), phase_label: label.to_string() });
}

/// Size of this worker's wasm memory: it only grows, so it is the peak so far.
fn wasm_memory_bytes() -> u64 {
    wasm_bindgen::memory()
        .dyn_into::<js_sys::WebAssembly::Memory>()
        .map(|m| m.buffer().unchecked_into::<js_sys::ArrayBuffer>().byte_length() as u64)
        .unwrap_or(0)
}
