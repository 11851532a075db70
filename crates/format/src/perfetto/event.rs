//! One `TrackEvent` (track_event.proto) decoded with its sequence's
//! interned names and defaults: what it is (slice begin or end, instant,
//! counter), its track, name, categories, debug annotations, counter
//! values and flow ids.

use super::annotation;
use super::field::{bytes_of, push_varints, text, varint};
use super::sequence::Sequence;
use crate::wire::{fields, Field, Value as Wire};
use crate::Error;
use serde_json::Value;

// TrackEvent fields.
const CATEGORY_IIDS: u64 = 3;
const DEBUG_ANNOTATIONS: u64 = 4;
const TYPE: u64 = 9;
const NAME_IID: u64 = 10;
const TRACK_UUID: u64 = 11;
const EXTRA_COUNTER_VALUES: u64 = 12;
const CATEGORIES: u64 = 22;
const NAME: u64 = 23;
const COUNTER_VALUE: u64 = 30;
const EXTRA_COUNTER_TRACK_UUIDS: u64 = 31;
const FLOW_IDS_OLD: u64 = 36;
const TERMINATING_FLOW_IDS_OLD: u64 = 42;
const DOUBLE_COUNTER_VALUE: u64 = 44;
const EXTRA_DOUBLE_COUNTER_TRACK_UUIDS: u64 = 45;
const EXTRA_DOUBLE_COUNTER_VALUES: u64 = 46;
const FLOW_IDS: u64 = 47;
const TERMINATING_FLOW_IDS: u64 = 48;

/// `TrackEvent.Type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `TYPE_UNSPECIFIED`: legacy (JSON-phase) events, not read.
    Unspecified,
    Begin,
    End,
    Instant,
    Counter,
}

/// A decoded track event, timed in ns on the trace's time line.
#[derive(Debug, Clone)]
pub(crate) struct Event {
    pub ts: i128,
    pub kind: Kind,
    pub track: u64,
    pub name: String,
    pub categories: Vec<String>,
    pub args: Vec<(String, Value)>,
    pub counter: Option<f64>,
    /// Counter values of other tracks sampled at this event: (track, value).
    pub extra_counters: Vec<(u64, f64)>,
    pub flows: Vec<u64>,
    pub terminating_flows: Vec<u64>,
}

/// Decodes a `TrackEvent` at `ts` with `seq`'s interned data and defaults.
pub(crate) fn read(bytes: &[u8], ts: i128, seq: &Sequence) -> Result<Event, Error> {
    let mut e = Event {
        ts,
        kind: Kind::Unspecified,
        track: seq.default_track.unwrap_or(0),
        name: String::new(),
        categories: Vec::new(),
        args: Vec::new(),
        counter: None,
        extra_counters: Vec::new(),
        flows: Vec::new(),
        terminating_flows: Vec::new(),
    };
    let (mut category_iids, mut extra_uuids, mut extra_values) = (Vec::new(), Vec::new(), Vec::new());
    let (mut extra_double_uuids, mut extra_double_values) = (Vec::new(), Vec::new());
    for field in fields(bytes, "track event") {
        let field = field?;
        match field.number {
            TYPE => {
                e.kind = match varint(&field.value) {
                    Some(1) => Kind::Begin,
                    Some(2) => Kind::End,
                    Some(3) => Kind::Instant,
                    Some(4) => Kind::Counter,
                    _ => Kind::Unspecified,
                }
            }
            TRACK_UUID => e.track = varint(&field.value).unwrap_or(0),
            NAME_IID => e.name = varint(&field.value).map(|iid| seq.name(iid).to_string()).unwrap_or_default(),
            NAME => e.name = bytes_of(&field.value).map(text).unwrap_or_default(),
            CATEGORY_IIDS => push_varints(&field, &mut category_iids),
            CATEGORIES => e.categories.extend(bytes_of(&field.value).map(text)),
            DEBUG_ANNOTATIONS => {
                if let Some(b) = bytes_of(&field.value) {
                    e.args.push(annotation::read(b, seq)?);
                }
            }
            COUNTER_VALUE => e.counter = varint(&field.value).map(|v| v as i64 as f64),
            DOUBLE_COUNTER_VALUE => e.counter = field.fixed_bits().map(f64::from_bits),
            EXTRA_COUNTER_TRACK_UUIDS => push_varints(&field, &mut extra_uuids),
            EXTRA_COUNTER_VALUES => push_varints(&field, &mut extra_values),
            EXTRA_DOUBLE_COUNTER_TRACK_UUIDS => push_varints(&field, &mut extra_double_uuids),
            EXTRA_DOUBLE_COUNTER_VALUES => push_fixed(&field, &mut extra_double_values),
            FLOW_IDS_OLD => push_varints(&field, &mut e.flows),
            FLOW_IDS => push_fixed(&field, &mut e.flows),
            TERMINATING_FLOW_IDS_OLD => push_varints(&field, &mut e.terminating_flows),
            TERMINATING_FLOW_IDS => push_fixed(&field, &mut e.terminating_flows),
            _ => {}
        }
    }
    // Interned categories come first, as the importer joins them.
    let interned = category_iids.iter().map(|&iid| seq.category(iid).to_string());
    e.categories = interned.chain(std::mem::take(&mut e.categories)).filter(|c| !c.is_empty()).collect();
    // Extra values pair with the event's uuids, else the sequence's defaults.
    let pair = |uuids: Vec<u64>, defaults: &[u64], values: Vec<f64>| -> Vec<(u64, f64)> {
        let uuids = if uuids.is_empty() { defaults.to_vec() } else { uuids };
        uuids.into_iter().zip(values).collect()
    };
    let ints = extra_values.into_iter().map(|v| v as i64 as f64).collect();
    e.extra_counters = pair(extra_uuids, &seq.default_extra_counters, ints);
    let doubles = extra_double_values.into_iter().map(f64::from_bits).collect();
    e.extra_counters.extend(pair(extra_double_uuids, &seq.default_extra_double_counters, doubles));
    Ok(e)
}

/// Appends a repeated 64-bit fixed-width field's values (`fixed64`,
/// `double`): one, or a packed run.
fn push_fixed(field: &Field, out: &mut Vec<u64>) {
    match field.value {
        Wire::Fixed => out.extend(field.fixed_bits()),
        Wire::Bytes(packed) => out.extend(
            packed.chunks_exact(8).map(|c| u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]])),
        ),
        Wire::Varint(_) => {}
    }
}
