//! Track events → the trace-event records they stand for: slice begin/end
//! pairs → complete slices, instants, counter samples, and flows.
//!
//! As Perfetto's importer does (track_event_parser.cc, slice_tracker.cc):
//! events are taken in timestamp order (ties in file order); a `SLICE_END`
//! closes the innermost open slice of its track, and its annotations and
//! flow ids join the slice's; an end with no open slice is dropped; a slice
//! still open at the end of the trace lasts to the last event (the UI draws
//! it so, marked "did not end"). Counter values are scaled by their track's
//! `unit_multiplier` and summed when the track is incremental.
//!
//! Flows (track_event.proto, `flow_ids`): the events carrying one flow id,
//! in time order, form the flow: the first is its source, the last its
//! target, the others steps; a `terminating_flow_ids` entry ends the flow
//! there, and the id may start a new one.

use super::event::{Event, Kind};
use super::tracks::Tracks;
use rustc_hash::FxHashMap;
use serde_json::{Map, Value};

/// One trace-event record.
pub(crate) struct Record {
    /// `X` (a slice), `i` (an instant) or `C` (a counter sample).
    pub ph: &'static str,
    pub ts: i128,
    pub dur: i128,
    pub track: u64,
    pub name: String,
    pub cat: String,
    pub args: Map<String, Value>,
    /// The flow this record is a hop of: (flow key, has an incoming hop, has an outgoing one).
    pub flow: Option<(String, bool, bool)>,
    flows: Vec<u64>,
    terminating: Vec<u64>,
}

/// What was left out on the way.
#[derive(Default, Debug, PartialEq, Eq)]
pub(crate) struct Dropped {
    pub unmatched_ends: usize,
    pub unfinished: usize,
    pub unspecified: usize,
    /// Flow hops lost: a slice's second flow (a record binds one), or a flow on an instant.
    pub flows: usize,
}

/// The records of `events` (sorted here by time), in time order.
pub(crate) fn records(mut events: Vec<Event>, tracks: &Tracks) -> (Vec<Record>, Dropped) {
    events.sort_by_key(|e| e.ts);
    let mut dropped = Dropped::default();
    let mut out: Vec<Record> = Vec::with_capacity(events.len());
    let mut open: FxHashMap<u64, Vec<usize>> = FxHashMap::default();
    let mut sums: FxHashMap<u64, f64> = FxHashMap::default();
    let last_ts = events.last().map_or(0, |e| e.ts);
    for e in events {
        for &(track, value) in &e.extra_counters {
            out.extend(counter(track, e.ts, value, &e.name, tracks, &mut sums));
        }
        match e.kind {
            Kind::Begin | Kind::Instant => {
                let begin = e.kind == Kind::Begin;
                if begin {
                    open.entry(e.track).or_default().push(out.len());
                }
                let mut args = e.args.into_iter().collect();
                super::kineto::expand_args(&mut args);
                out.push(Record {
                    ph: if begin { "X" } else { "i" },
                    ts: e.ts,
                    dur: if begin { -1 } else { 0 },
                    track: e.track,
                    cat: e.categories.join(","),
                    args,
                    name: e.name,
                    flow: None,
                    flows: e.flows,
                    terminating: e.terminating_flows,
                });
            }
            Kind::End => match open.get_mut(&e.track).and_then(Vec::pop) {
                Some(at) => {
                    let slice = &mut out[at];
                    slice.dur = (e.ts - slice.ts).max(0);
                    slice.args.extend(e.args);
                    slice.flows.extend(e.flows);
                    slice.terminating.extend(e.terminating_flows);
                }
                None => dropped.unmatched_ends += 1,
            },
            Kind::Counter => {
                if let Some(value) = e.counter {
                    out.extend(counter(e.track, e.ts, value, &e.name, tracks, &mut sums));
                }
            }
            Kind::Unspecified => dropped.unspecified += 1,
        }
    }
    for slice in out.iter_mut().filter(|r| r.dur < 0) {
        slice.dur = last_ts - slice.ts;
        dropped.unfinished += 1;
    }
    dropped.flows = link_flows(&mut out);
    (out, dropped)
}

/// A counter sample of `track`: scaled, summed if incremental, named by
/// the track (else the event).
fn counter(
    track: u64,
    ts: i128,
    value: f64,
    event_name: &str,
    tracks: &Tracks,
    sums: &mut FxHashMap<u64, f64>,
) -> Option<Record> {
    let t = tracks.get(track);
    let desc = t.and_then(|t| t.counter);
    let mut value = value * desc.map_or(1.0, |c| c.multiplier);
    if desc.is_some_and(|c| c.incremental) {
        let sum = sums.entry(track).or_default();
        *sum += value;
        value = *sum;
    }
    if !value.is_finite() {
        return None;
    }
    let name = match t.map(|t| t.name.as_str()) {
        Some(n) if !n.is_empty() => n.to_string(),
        _ if !event_name.is_empty() => event_name.to_string(),
        _ => format!("counter {track}"),
    };
    let mut args = Map::new();
    args.insert("value".to_string(), Value::from(value));
    Some(Record {
        ph: "C",
        ts,
        dur: 0,
        track,
        name,
        cat: String::new(),
        args,
        flow: None,
        flows: Vec::new(),
        terminating: Vec::new(),
    })
}

/// Sets each slice's flow hop; returns the hops that could not be kept.
fn link_flows(records: &mut [Record]) -> usize {
    // Per flow id: its current generation and the records in it so far.
    let mut current: FxHashMap<u64, (u32, Vec<usize>)> = FxHashMap::default();
    let mut done: Vec<(u64, u32, Vec<usize>)> = Vec::new();
    for (i, r) in records.iter().enumerate() {
        for &id in &r.flows {
            current.entry(id).or_default().1.push(i);
        }
        for &id in &r.terminating {
            let (generation, members) = current.entry(id).or_default();
            members.push(i);
            done.push((id, *generation, std::mem::take(members)));
            *generation += 1;
        }
    }
    done.extend(current.into_iter().map(|(id, (generation, members))| (id, generation, members)));
    done.sort_unstable_by_key(|(id, generation, _)| (*id, *generation));
    let mut lost = 0;
    for (id, generation, members) in done.into_iter().filter(|d| d.2.len() > 1) {
        let last = members.len() - 1;
        for (k, &i) in members.iter().enumerate() {
            let r = &mut records[i];
            if r.ph != "X" || r.flow.is_some() {
                lost += 1;
                continue;
            }
            r.flow = Some((format!("{id}.{generation}"), k > 0, k < last));
        }
    }
    lost
}
