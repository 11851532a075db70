//! A packet sequence's incremental state (trace_packet.proto,
//! interned_data.proto): interned names, the defaults of its track events,
//! and its sequence-scoped clocks. Perfetto's importer keeps this state per
//! `trusted_packet_sequence_id`, clears it on `SEQ_INCREMENTAL_STATE_CLEARED`,
//! and after data loss (`previous_packet_dropped`) until the next clear
//! takes it as lost: it drops the packets that need it and the interned
//! data that would fill it. A sequence's state starts valid. The same rules
//! here (trace_processor/importers/proto/proto_trace_reader.cc,
//! packet_sequence_state_generation.h).

use super::field::{bytes_of, push_varints, text, varint};
use crate::wire::{fields, Value as Wire};
use crate::Error;
use rustc_hash::FxHashMap;

// InternedData fields: each an (iid = 1, name = 2) message.
const EVENT_CATEGORIES: u64 = 1;
const EVENT_NAMES: u64 = 2;
const DEBUG_ANNOTATION_NAMES: u64 = 3;
const DEBUG_ANNOTATION_STRING_VALUES: u64 = 29;

// TracePacketDefaults and TrackEventDefaults fields.
const DEFAULTS_CLOCK_ID: u64 = 58;
const DEFAULTS_TRACK_EVENT: u64 = 11;
const TRACK_EVENT_DEFAULT_TRACK: u64 = 11;
const TRACK_EVENT_DEFAULT_EXTRA_COUNTERS: u64 = 31;
const TRACK_EVENT_DEFAULT_EXTRA_DOUBLE_COUNTERS: u64 = 45;

/// First and last sequence-scoped clock id (clock_snapshot.proto): ids
/// below are the trace-wide builtin clocks, ids above global custom clocks.
pub(crate) const SEQUENCE_CLOCKS: std::ops::RangeInclusive<u64> = 64..=127;

/// One sequence's state.
#[derive(Default)]
pub(crate) struct Sequence {
    /// Whether data loss made the state unusable (until the next clear).
    pub lost: bool,
    categories: FxHashMap<u64, String>,
    names: FxHashMap<u64, String>,
    annotation_names: FxHashMap<u64, String>,
    annotation_strings: FxHashMap<u64, String>,
    pub default_track: Option<u64>,
    pub default_clock: Option<u64>,
    pub default_extra_counters: Vec<u64>,
    pub default_extra_double_counters: Vec<u64>,
    clocks: FxHashMap<u64, Clock>,
}

/// A sequence-scoped clock, anchored by a clock snapshot to a builtin one.
struct Clock {
    incremental: bool,
    unit_ns: i128,
    /// The last value read (incremental clocks add to it).
    last: i128,
    /// The clock's value at the snapshot, and the builtin clock's (ns).
    at_snapshot: i128,
    builtin_ns: i128,
}

impl Sequence {
    /// Drops the interned data, defaults and clocks (a new state follows).
    pub fn clear(&mut self) {
        *self = Sequence::default();
    }

    pub fn category(&self, iid: u64) -> &str {
        self.categories.get(&iid).map_or("", String::as_str)
    }
    pub fn name(&self, iid: u64) -> &str {
        self.names.get(&iid).map_or("", String::as_str)
    }
    pub fn annotation_name(&self, iid: u64) -> &str {
        self.annotation_names.get(&iid).map_or("", String::as_str)
    }
    pub fn annotation_string(&self, iid: u64) -> &str {
        self.annotation_strings.get(&iid).map_or("", String::as_str)
    }

    /// Adds a packet's `InternedData`.
    pub fn intern(&mut self, bytes: &[u8]) -> Result<(), Error> {
        for field in fields(bytes, "interned data") {
            let field = field?;
            let Wire::Bytes(entry) = field.value else { continue };
            let table = match field.number {
                EVENT_CATEGORIES => &mut self.categories,
                EVENT_NAMES => &mut self.names,
                DEBUG_ANNOTATION_NAMES => &mut self.annotation_names,
                DEBUG_ANNOTATION_STRING_VALUES => &mut self.annotation_strings,
                _ => continue,
            };
            let (mut iid, mut name) = (0, String::new());
            for f in fields(entry, "interned entry") {
                match f? {
                    f if f.number == 1 => iid = varint(&f.value).unwrap_or(0),
                    f if f.number == 2 => name = bytes_of(&f.value).map(text).unwrap_or_default(),
                    _ => {}
                }
            }
            table.insert(iid, name);
        }
        Ok(())
    }

    /// Takes a packet's `TracePacketDefaults`.
    pub fn set_defaults(&mut self, bytes: &[u8]) -> Result<(), Error> {
        for field in fields(bytes, "packet defaults") {
            let field = field?;
            match (field.number, &field.value) {
                (DEFAULTS_CLOCK_ID, Wire::Varint(id)) => self.default_clock = Some(*id),
                (DEFAULTS_TRACK_EVENT, Wire::Bytes(b)) => {
                    for f in fields(b, "track event defaults") {
                        let f = f?;
                        match f.number {
                            TRACK_EVENT_DEFAULT_TRACK => self.default_track = varint(&f.value),
                            TRACK_EVENT_DEFAULT_EXTRA_COUNTERS => push_varints(&f, &mut self.default_extra_counters),
                            TRACK_EVENT_DEFAULT_EXTRA_DOUBLE_COUNTERS => {
                                push_varints(&f, &mut self.default_extra_double_counters)
                            }
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Takes the sequence-scoped clocks of a `ClockSnapshot`, anchored to
    /// the snapshot's BOOTTIME (6), else its first builtin clock.
    pub fn clock_snapshot(&mut self, bytes: &[u8]) -> Result<(), Error> {
        // (id, timestamp, incremental, unit ns) of each Clock (field 1).
        let mut clocks = Vec::new();
        for field in fields(bytes, "clock snapshot") {
            let field = field?;
            let (1, Wire::Bytes(b)) = (field.number, &field.value) else { continue };
            let (mut id, mut ts, mut incremental, mut unit) = (0, 0u64, false, 1u64);
            for f in fields(b, "clock") {
                let f = f?;
                let v = varint(&f.value).unwrap_or(0);
                match f.number {
                    1 => id = v,
                    2 => ts = v,
                    3 => incremental = v != 0,
                    4 => unit = v.max(1),
                    _ => {}
                }
            }
            clocks.push((id, ts, incremental, unit));
        }
        let builtin = clocks
            .iter()
            .find(|c| c.0 == BOOTTIME)
            .or_else(|| clocks.iter().find(|c| c.0 < *SEQUENCE_CLOCKS.start()))
            .map(|c| i128::from(c.1));
        let Some(builtin_ns) = builtin else { return Ok(()) };
        for &(id, ts, incremental, unit) in clocks.iter().filter(|c| SEQUENCE_CLOCKS.contains(&c.0)) {
            let at = i128::from(ts);
            let clock = Clock { incremental, unit_ns: i128::from(unit), last: at, at_snapshot: at, builtin_ns };
            self.clocks.insert(id, clock);
        }
        Ok(())
    }

    /// A timestamp of sequence-scoped clock `id` in builtin-clock ns;
    /// `None` when no snapshot of this sequence defined the clock.
    pub fn builtin_ns_of(&mut self, id: u64, timestamp: u64) -> Option<i128> {
        let clock = self.clocks.get_mut(&id)?;
        let value = if clock.incremental { clock.last + i128::from(timestamp) } else { i128::from(timestamp) };
        clock.last = value;
        Some(clock.builtin_ns + (value - clock.at_snapshot) * clock.unit_ns)
    }
}

/// The clock Perfetto's trace time line defaults to (builtin_clock.proto).
pub(crate) const BOOTTIME: u64 = 6;
