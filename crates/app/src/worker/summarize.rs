//! Hosts summarised in parallel, the worker's two ends of it (the page's
//! `bridge/pool.rs` runs the extra workers, since it holds the compiled
//! module that spawns them and can wait for their answers; this worker
//! answers one message at a time):
//!
//! - in the main worker, [`ask`]: before a tool of all hosts whose hosts
//!   have no analysis yet (or of all ranks whose PyTorch ranks have no
//!   rank summary), the page is sent their files to summarise
//!   ([`Response::Summarize`]); [`take`] gives the summaries back to the
//!   hosts, so that this worker holds summaries, not events;
//! - in an extra worker, [`summarize`]: one host decoded, its summary's
//!   bytes (a summary file's, ungzipped: a host's, or a rank's) sent back
//!   in a transferred buffer; the events go with the host's context.

use std::rc::Rc;

use proflens_analysis::context::summary::COMBINED_FROM_SUMMARIES;
use proflens_analysis::context::{Hooks, HostContext, HostFile};
use proflens_analysis::rank_summary::{Summary, COMBINED_FROM_RANK_SUMMARIES};
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{DedicatedWorkerGlobalScope, File};

use super::blob_source::BlobSource;
use super::hosts::Hosts;
use super::summary_files;
use crate::protocol::{self, Response, ALL_HOSTS, FILES, SUMMARIES, SUMMARY};

/// Before `tool` runs on (`run`, `host`): with `workers` > 1, a tool of all
/// hosts (or ranks) that combines only summaries, and hosts of the run
/// without one, asks the page to summarise them. Whether it asked.
pub fn ask(hosts: &Hosts, run: &str, host: &str, tool: &str, workers: u32) -> bool {
    let combines_summaries = COMBINED_FROM_SUMMARIES.contains(&tool) || COMBINED_FROM_RANK_SUMMARIES.contains(&tool);
    if workers < 2 || host != ALL_HOSTS || !combines_summaries {
        return false;
    }
    let (todo, of_run) = hosts.to_summarize(run);
    if todo.is_empty() || of_run < 2 {
        return false;
    }
    let files: js_sys::Array =
        todo.iter().map(|(_, blobs)| blobs.iter().map(|(_, f)| JsValue::from(f)).collect::<js_sys::Array>()).collect();
    let response = Response::Summarize {
        run: run.to_string(),
        host: host.to_string(),
        tool: tool.to_string(),
        hosts: todo.iter().map(|(name, _)| name.clone()).collect(),
        paths: todo.iter().map(|(_, blobs)| blobs.iter().map(|(p, _)| p.clone()).collect()).collect(),
    };
    // Not sent: this worker analyses the hosts itself.
    super::post_with(&response, FILES, &files).is_none()
}

/// The summaries of `names` (bytes, in the message's [`SUMMARIES`] field)
/// given to their hosts of `run`; `failed` hosts are left to this worker.
pub fn take(hosts: &Hosts, run: &str, names: Vec<String>, failed: Vec<String>, message: &JsValue) {
    let summaries = protocol::attached(message, SUMMARIES).map(|a| js_sys::Array::from(&a)).unwrap_or_default();
    let mut given = Vec::with_capacity(names.len() + failed.len());
    for (i, name) in names.into_iter().enumerate() {
        let bytes = summaries.get(i as u32).dyn_into::<js_sys::Uint8Array>().ok().map(|a| a.to_vec());
        let summary = bytes.ok_or_else(|| "no summary came".to_string()).and_then(|b| Summary::from_bytes(&b));
        let summary = match summary {
            Ok(s) => Some(s),
            Err(why) => {
                summary_files::warn(&format!("Proflens: the summary of {name} is not used ({why})"));
                None
            }
        };
        given.push((name, summary));
    }
    given.extend(failed.into_iter().map(|name| (name, None)));
    hosts.give_summaries(run, given);
}

/// In an extra worker: `host` from `files` (named by `paths`), summarised
/// and sent back; its events are dropped with its context on return.
pub fn summarize(host: String, paths: Vec<String>, files: Vec<File>) -> Option<Response> {
    let source = paths
        .iter()
        .zip(&files)
        .find(|(p, _)| !proflens_format::logdir::is_counter_log(p))
        .map(|(_, f)| summary_files::source_of(f));
    let host_files = paths
        .into_iter()
        .zip(files)
        .map(|(path, file)| {
            let opened = path.clone();
            HostFile { path, tool: None, read: Box::new(move || Ok(Box::new(BlobSource::new(&opened, &file)))) }
        })
        .collect();
    let context = HostContext::new(host.clone(), host_files, Rc::new(ExtraHooks));
    let summary = match Summary::of(&context, source) {
        Ok(summary) => summary.to_bytes(),
        Err(message) => return Some(Response::SummaryFailed { host, message }),
    };
    drop(context);
    let bytes = js_sys::Uint8Array::from(summary.as_slice());
    drop(summary);
    let answer = Response::Summary { host: host.clone(), wasm_memory_bytes: super::wasm_memory_bytes() };
    let message = match protocol::to_js(&answer).and_then(|m| protocol::attach(&m, SUMMARY, &bytes).map(|_| m)) {
        Ok(message) => message,
        Err(e) => return Some(Response::SummaryFailed { host, message: e }),
    };
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let transfer = js_sys::Array::of1(&bytes.buffer());
    // The buffer moves to the page rather than being copied.
    match scope.post_message_with_transfer(&message, &transfer) {
        Ok(()) => None,
        Err(_) => Some(Response::SummaryFailed { host, message: "the summary could not be sent".to_string() }),
    }
}

/// An extra worker's host: the page counts hosts, not phases, so progress
/// only tells it that the worker is alive.
struct ExtraHooks;

impl Hooks for ExtraHooks {
    fn progress(&self, fraction: Option<f64>, label: &str) {
        super::progress(fraction, label);
    }

    fn now_ms(&self) -> f64 {
        super::timings::now_ms()
    }
}
