//! The trace viewer's queries about one host, answered from the timeline its
//! context keeps ([`trace_queries`](super::trace_queries)), and the export's
//! file made a few MiB at a time.

use super::hosts::Hosts;
use super::trace_queries::{self as queries, Timeline};
use crate::protocol::{Response, TraceAnswer, TraceQuery, BLOB};

/// The answer to a query; `None` when it was posted already (an export,
/// whose file goes beside the message).
pub fn answer(hosts: &Hosts, run: String, host: String, seq: u32, query: TraceQuery) -> Option<Response> {
    let started = js_sys::Date::now();
    let loaded = hosts.context(&run, &host).and_then(|c| Ok((c.trace()?, c.profile()?, c.grouping()?)));
    let answer = match loaded {
        Err(message) => TraceAnswer::Failed { message },
        Ok((index, profile, grouping)) => {
            let t = Timeline { profile: &profile, grouping: &grouping, index: &index };
            match query {
                TraceQuery::Window { tracks, start_ps, end_ps, width_px } => {
                    let mut window = queries::window(t, &tracks, start_ps, end_ps, width_px);
                    window.compute_ms = js_sys::Date::now() - started;
                    TraceAnswer::Window { window: Box::new(window) }
                }
                TraceQuery::Event { track, event } => queries::event(t, track, event),
                TraceQuery::Links { track, event } => queries::links_of(t, track, event),
                TraceQuery::Search { pattern, regex, limit } => queries::search(t, &pattern, regex, limit),
                TraceQuery::Summary { tracks, start_ps, end_ps } => queries::summary(t, &tracks, start_ps, end_ps),
                TraceQuery::Flame { tracks, start_ps, end_ps } => queries::flame_of(t, &tracks, start_ps, end_ps),
                TraceQuery::Export { range } => return export(t, run, host, seq, range),
                TraceQuery::Locate { at } => queries::locate(t, at),
                TraceQuery::Neighbour { track, event, forward } => {
                    super::trace_neighbour::neighbour(t, track, event, forward)
                }
            }
        }
    };
    Some(Response::Trace { run, host, seq, answer })
}

/// The trace (or the part in `range`) as Chrome trace JSON, posted as a `Blob`.
fn export(t: Timeline, run: String, host: String, seq: u32, range: Option<(i64, i64)>) -> Option<Response> {
    let stem = host.clone();
    export_with(run, host, seq, range.is_some(), &stem, |out| queries::export(t, range, out))
}

/// The file `write` writes, posted as a `Blob` named after `stem`.
pub fn export_with(
    run: String,
    host: String,
    seq: u32,
    selection: bool,
    stem: &str,
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<u64>,
) -> Option<Response> {
    let mut out = ChunkWriter::default();
    let written = write(&mut out).and_then(|n| out.finish().map(|b| (n, b)));
    let (events, blob) = match written {
        Ok(found) => found,
        Err(e) => {
            let answer = TraceAnswer::Failed { message: format!("The trace could not be exported ({e}).") };
            return Some(Response::Trace { run, host, seq, answer });
        }
    };
    let file_name = format!("{}{}.trace.json", stem, if selection { ".selection" } else { "" });
    let response =
        Response::Trace { run, host, seq, answer: TraceAnswer::Export { file_name, events, bytes: out.total } };
    super::post_with(&response, BLOB, &blob)
}

/// Collects written bytes into a `Blob` a few MiB at a time, so that a
/// trace of any size never sits whole in wasm memory.
#[derive(Default)]
struct ChunkWriter {
    chunks: Vec<js_sys::Uint8Array>,
    buffer: Vec<u8>,
    total: u64,
}

impl ChunkWriter {
    const CHUNK: usize = 4 << 20;

    fn flush_chunk(&mut self) {
        if !self.buffer.is_empty() {
            self.chunks.push(js_sys::Uint8Array::from(self.buffer.as_slice()));
            self.buffer.clear();
        }
    }

    fn finish(&mut self) -> std::io::Result<web_sys::Blob> {
        self.flush_chunk();
        let parts: js_sys::Array = self.chunks.drain(..).map(wasm_bindgen::JsValue::from).collect();
        let options = web_sys::BlobPropertyBag::new();
        options.set_type("application/json");
        web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &options)
            .map_err(|_| std::io::Error::other("the browser refused to make the file"))
    }
}

impl std::io::Write for ChunkWriter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.buffer.extend_from_slice(bytes);
        self.total += bytes.len() as u64;
        if self.buffer.len() >= Self::CHUNK {
            self.flush_chunk();
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
