//! Perfetto protobuf traces (`*.pftrace`, `*.perfetto-trace`; raw or gzip):
//! the `Trace` message of protos/perfetto/trace/trace.proto, as the Perfetto
//! SDK, `traced` and Kineto's Perfetto writer write it.
//!
//! What is read: track descriptors (processes, threads, child and counter
//! tracks: [`tracks`]), and track events: slices (begin/end), instants and
//! counters, with interned names and categories, debug annotations (as
//! args) and flows ([`packets`], [`event`], [`slices`]), also inside
//! zlib-compressed packet bundles. They become the
//! Chrome trace-event JSON they stand for ([`json`]) and are read by the
//! trace importer, so that the model is the one a JSON trace of the same
//! events gives: generic (processes → planes, threads → lines), or the
//! PyTorch mapping when the events carry Kineto's categories. Kineto's own
//! metadata (trace metadata, device properties, activity args) is put back
//! where its JSON trace has it ([`kineto`]).
//!
//! Not read: ftrace, process and system stats, profiling samples, legacy
//! (JSON-phase) track events and other packet kinds; docs/deviations.md
//! lists the differences from Perfetto's own importer.

mod annotation;
mod event;
mod field;
mod json;
mod kineto;
mod packets;
mod sequence;
mod slices;
#[cfg(test)]
pub(crate) mod synthetic;
#[cfg(test)]
mod tests;
mod tracks;

use crate::{chrome_trace, inflate, Error, Limits, Progress};
use proflens_model::Profile;

/// File name endings of Perfetto traces.
const SUFFIXES: [&str; 4] = [".pftrace", ".perfetto-trace", ".pftrace.gz", ".perfetto-trace.gz"];

/// Host name of a Perfetto trace file name (`rank0.pftrace` → `rank0`).
pub fn host_name(file_name: &str) -> Option<&str> {
    let name = file_name.rsplit(['/', '\\']).next().unwrap_or(file_name);
    SUFFIXES.iter().find_map(|s| name.strip_suffix(s)).filter(|h| !h.is_empty())
}

/// Whether a file is named as a Perfetto trace.
pub fn is_perfetto_file(file_name: &str) -> bool {
    host_name(file_name).is_some()
}

/// Decodes a Perfetto trace (raw or gzip) named as one, whatever its first
/// packet looks like.
pub fn load(bytes: &[u8], limits: &Limits, progress: &mut dyn FnMut(Progress)) -> Result<Profile, Error> {
    if bytes.len() as u64 > limits.max_input_bytes {
        return Err(Error::TooLarge { what: "file", limit: limits.max_input_bytes });
    }
    if bytes.starts_with(&[0x1f, 0x8b]) {
        let raw = inflate::gunzip(bytes, limits.max_decompressed_bytes, progress)?;
        return decode(&raw, progress);
    }
    decode(bytes, progress)
}

/// Decodes an uncompressed Perfetto trace held in memory.
pub fn decode(bytes: &[u8], progress: &mut dyn FnMut(Progress)) -> Result<Profile, Error> {
    if bytes.is_empty() {
        return Err(Error::Empty);
    }
    progress(Progress::Parsing);
    let mut decoded = packets::read(bytes)
        .map_err(|e| Error::Corrupt { detail: format!("it is not a Perfetto trace that decodes ({})", detail(&e)) })?;
    let mut head = kineto::take_head(&mut decoded.events);
    if decoded.events.is_empty() {
        let why = match &decoded.first_problem {
            Some(e) => format!("; {} of its packets do not decode (first: {})", decoded.bad_packets, detail(e)),
            None => String::new(),
        };
        return Err(Error::NoEvents {
            detail: format!(
                "the Perfetto trace has {} packets and no track events Proflens reads (slices, instants, \
                 counters; ftrace and other data sources are not read){why}",
                decoded.packets
            ),
        });
    }
    let categorised = decoded.events.iter().any(|e| !e.categories.is_empty());
    // Without categories the PyTorch mapping cannot tell device work from
    // host work: such traces (Kineto's writer sets none) read generically.
    if !categorised {
        head.clear();
    }
    let events = std::mem::take(&mut decoded.events);
    let (records, dropped) = slices::records(events, &decoded.tracks);
    let json = json::trace_json(head, &records, &decoded.tracks);
    drop(records);
    let mut profile = chrome_trace::decode(&json, progress)?;
    profile.warnings.extend(warnings(&decoded, &dropped));
    Ok(profile)
}

/// Sentences for what the reading left out or could not honour.
fn warnings(decoded: &packets::Decoded, dropped: &slices::Dropped) -> Vec<String> {
    let mut out = Vec::new();
    let mut say = |n: usize, what: &str| {
        if n > 0 {
            out.push(format!("{n} {what}"));
        }
    };
    say(decoded.without_state, "track events were left out: their sequence's incremental state was lost");
    say(decoded.unknown_clock, "track events were left out: their clock has no snapshot to convert it");
    say(decoded.bad_packets, "packets do not decode and were skipped");
    say(dropped.unmatched_ends, "slice ends match no open slice and were dropped");
    say(dropped.unfinished, "slices never end; they are drawn to the last event");
    say(dropped.unspecified, "legacy track events (no type) were left out");
    say(dropped.flows, "flow hops were left out (a slice keeps one flow; instants keep none)");
    if decoded.builtin_clocks.len() > 1 {
        let ids: Vec<String> = decoded.builtin_clocks.iter().map(u64::to_string).collect();
        out.push(format!(
            "events are timed on several clocks (ids {}), read as one time line without conversion",
            ids.join(", ")
        ));
    }
    if let Some(e) = &decoded.stopped {
        out.push(format!("the trace is cut short or damaged ({}); the packets before were read", detail(e)));
    }
    out
}

/// What went wrong, without the sentence around it.
fn detail(e: &Error) -> String {
    match e {
        Error::Truncated { detail } | Error::Corrupt { detail } => detail.clone(),
        other => other.to_string(),
    }
}
