//! The packets of a `Trace` (trace.proto: `repeated TracePacket packet = 1`)
//! walked in file order: track descriptors gathered, each track event timed
//! and decoded with its sequence's incremental state ([`Sequence`]).
//!
//! Timestamps (trace_packet.proto, clock_snapshot.proto): a packet's
//! `timestamp` is on its `timestamp_clock_id` (else its sequence's default,
//! else BOOTTIME). Builtin clocks (ids below 64) are all taken as the one
//! time line in ns, without conversion (Kineto, the Perfetto SDK and
//! traced each write one); a trace that mixes several is read with a
//! warning. Sequence-scoped clocks (64-127, the SDK's incremental
//! timestamps) are converted through their sequence's clock snapshot.
//! Global custom clocks (128 and above) are not converted: their events
//! are left out, with a warning. A packet without a timestamp takes the
//! last one read, as Perfetto's reader does.

use super::event::{self, Event};
use super::field::{bytes_of, varint};
use super::sequence::{Sequence, BOOTTIME, SEQUENCE_CLOCKS};
use super::tracks::Tracks;
use crate::wire::{fields, Value as Wire};
use crate::Error;
use rustc_hash::FxHashMap;
use std::collections::BTreeSet;

// TracePacket fields.
const CLOCK_SNAPSHOT: u64 = 6;
const TIMESTAMP: u64 = 8;
const TRUSTED_PACKET_SEQUENCE_ID: u64 = 10;
const TRACK_EVENT: u64 = 11;
const INTERNED_DATA: u64 = 12;
const SEQUENCE_FLAGS: u64 = 13;
const INCREMENTAL_STATE_CLEARED: u64 = 41;
const PREVIOUS_PACKET_DROPPED: u64 = 42;
const TIMESTAMP_CLOCK_ID: u64 = 58;
const TRACE_PACKET_DEFAULTS: u64 = 59;
const TRACK_DESCRIPTOR: u64 = 60;
const COMPRESSED_PACKETS: u64 = 50;

// TracePacket.SequenceFlags.
const SEQ_INCREMENTAL_STATE_CLEARED: u64 = 1;
const SEQ_NEEDS_INCREMENTAL_STATE: u64 = 2;

/// A trace's tracks and track events, and what was left out.
#[derive(Default)]
pub(crate) struct Decoded {
    pub tracks: Tracks,
    pub events: Vec<Event>,
    pub packets: usize,
    /// Track events dropped because their sequence's state was lost.
    pub without_state: usize,
    /// Track events on a clock that could not be converted.
    pub unknown_clock: usize,
    /// Builtin clocks the events are timed on.
    pub builtin_clocks: BTreeSet<u64>,
    /// Packets that do not decode (skipped), and the first one's problem.
    pub bad_packets: usize,
    pub first_problem: Option<Error>,
    /// Why the walk stopped before the end (a cut or damaged packet), if it did.
    pub stopped: Option<Error>,
}

/// The fields of one packet that decoding reads.
#[derive(Default)]
struct Packet<'a> {
    timestamp: Option<u64>,
    clock: Option<u64>,
    sequence: u64,
    flags: u64,
    cleared: bool,
    dropped: bool,
    defaults: Option<&'a [u8]>,
    interned: Vec<&'a [u8]>,
    clock_snapshot: Option<&'a [u8]>,
    track_descriptor: Option<&'a [u8]>,
    track_event: Option<&'a [u8]>,
    compressed: Option<&'a [u8]>,
}

/// Decompressed packet bundles, in all, at most: a bundle inflating
/// further is a bomb, not a trace (Perfetto writes bundles of ~100 kB).
const MAX_INFLATED: usize = 1 << 30;

/// What the walk keeps from packet to packet.
#[derive(Default)]
struct State {
    sequences: FxHashMap<u64, Sequence>,
    latest_ts: i128,
    inflated: usize,
}

/// Walks every packet of `bytes`. A packet that does not decode is skipped
/// (counted); a trace cut or damaged in its framing keeps the packets
/// before, as Perfetto's UI shows what it read of a cut trace.
pub(crate) fn read(bytes: &[u8]) -> Result<Decoded, Error> {
    let mut out = Decoded::default();
    walk(bytes, &mut State::default(), &mut out, true)?;
    Ok(out)
}

/// The packets of a `Trace` message; `top`: not inside a compressed bundle
/// (bundles do not nest).
fn walk(bytes: &[u8], state: &mut State, out: &mut Decoded, top: bool) -> Result<(), Error> {
    for field in fields(bytes, "Perfetto trace") {
        let field = match field {
            Ok(f) => f,
            Err(e) if out.packets > 0 => {
                out.stopped.get_or_insert(e);
                break;
            }
            Err(e) => return Err(e),
        };
        // Trace has one field, its packets; anything else is not read.
        let (1, Wire::Bytes(packet)) = (field.number, field.value) else { continue };
        out.packets += 1;
        if let Err(e) = read_packet(packet, state, out, top) {
            out.bad_packets += 1;
            out.first_problem.get_or_insert(e);
        }
    }
    Ok(())
}

fn read_packet(bytes: &[u8], state: &mut State, out: &mut Decoded, top: bool) -> Result<(), Error> {
    let p = fields_of(bytes)?;
    // A bundle of zlib-compressed packets: each read in its place, nothing
    // else of the packet (proto_trace_reader.cc, ParseCompressedPackets).
    if let Some(compressed) = p.compressed.filter(|_| top) {
        let room = MAX_INFLATED - state.inflated;
        let inner = miniz_oxide::inflate::decompress_to_vec_zlib_with_limit(compressed, room).map_err(|_| {
            Error::Corrupt { detail: "a bundle of compressed packets does not inflate, or past 1 GiB".to_string() }
        })?;
        state.inflated += inner.len();
        return walk(&inner, state, out, false);
    }
    let seq = state.sequences.entry(p.sequence).or_default();
    if p.cleared || p.flags & SEQ_INCREMENTAL_STATE_CLEARED != 0 {
        seq.clear();
    } else if p.dropped {
        seq.lost = true;
    }
    if let Some(defaults) = p.defaults {
        seq.set_defaults(defaults)?;
    }
    // Interned data is not taken while the state is lost (it would join the wrong generation).
    if !seq.lost {
        for interned in p.interned {
            seq.intern(interned)?;
        }
    }
    if let Some(snapshot) = p.clock_snapshot {
        seq.clock_snapshot(snapshot)?;
    }
    if let Some(descriptor) = p.track_descriptor {
        out.tracks.describe(descriptor)?;
    }
    let Some(track_event) = p.track_event else { return Ok(()) };
    if p.flags & SEQ_NEEDS_INCREMENTAL_STATE != 0 && seq.lost {
        out.without_state += 1;
        return Ok(());
    }
    let ts = match p.clock.or(seq.default_clock).unwrap_or(BOOTTIME) {
        id if id < *SEQUENCE_CLOCKS.start() => {
            out.builtin_clocks.insert(id);
            p.timestamp.map_or(state.latest_ts, i128::from)
        }
        id if SEQUENCE_CLOCKS.contains(&id) => match seq.builtin_ns_of(id, p.timestamp.unwrap_or(0)) {
            Some(ts) => ts,
            None => {
                out.unknown_clock += 1;
                return Ok(());
            }
        },
        _ => {
            out.unknown_clock += 1;
            return Ok(());
        }
    };
    state.latest_ts = state.latest_ts.max(ts);
    out.events.push(event::read(track_event, ts, seq)?);
    Ok(())
}

fn fields_of(bytes: &[u8]) -> Result<Packet<'_>, Error> {
    let mut p = Packet::default();
    for field in fields(bytes, "trace packet") {
        let field = field?;
        let v = &field.value;
        match field.number {
            TIMESTAMP => p.timestamp = varint(v),
            TIMESTAMP_CLOCK_ID => p.clock = varint(v),
            TRUSTED_PACKET_SEQUENCE_ID => p.sequence = varint(v).unwrap_or(0),
            SEQUENCE_FLAGS => p.flags = varint(v).unwrap_or(0),
            INCREMENTAL_STATE_CLEARED => p.cleared = varint(v).is_some_and(|v| v != 0),
            PREVIOUS_PACKET_DROPPED => p.dropped = varint(v).is_some_and(|v| v != 0),
            TRACE_PACKET_DEFAULTS => p.defaults = bytes_of(v),
            INTERNED_DATA => p.interned.extend(bytes_of(v)),
            CLOCK_SNAPSHOT => p.clock_snapshot = bytes_of(v),
            TRACK_DESCRIPTOR => p.track_descriptor = bytes_of(v),
            TRACK_EVENT => p.track_event = bytes_of(v),
            COMPRESSED_PACKETS => p.compressed = bytes_of(v),
            _ => {}
        }
    }
    Ok(p)
}
