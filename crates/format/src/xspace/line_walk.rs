//! A line decoded in one walk of its fields: its own fields merged as they
//! come, its events built as they come.
//!
//! The line's events are most of a file, and each walk of them touches
//! every byte: reading the line's fields first, then counting its events,
//! then building them read the biggest lines (megabytes, past the CPU's
//! caches) three times. Here the framing is walked once quickly (counting
//! the events, so that the columns are allocated once), then once more
//! building everything. Only what is sure is decoded so: anything unusual
//! (damage, a field too long to copy as it is, a `timestamp_ns` stated
//! after an event, which moves the events before it) answers `None`, and
//! the caller decodes the line field by field as before, which gives the
//! same result or the error it has always given.

use super::builder::PlaneBuilder;
use super::event_wire::{Cursor, BYTES, VARINT};
use super::{finish_line, line_base_ps, EVENTS, LINE, LINE_TIMESTAMP};
use crate::proto::XLine;
use crate::wire;
use proflens_model::{Interner, Line};

/// Events read before the columns are sized like them.
const SAMPLED: usize = 64;

/// How many events `left` more bytes hold, where `sampled` held `n`; a
/// sixteenth more, so that the columns need not grow (they give back the
/// room left at the line's end). At most one per 8 bytes, whatever the
/// first events are, as the streamed decoder estimates a line.
fn estimate(n: usize, sampled: usize, left: usize) -> usize {
    let like = n as u128 * left as u128 / sampled.max(1) as u128;
    (like + like / 16).min(left as u128 / 8 + 1) as usize
}

/// What a quick walk of a line's framing found.
pub(super) struct Framing {
    /// The last `timestamp_ns` it states (as protobuf reads it).
    pub timestamp_ns: i64,
    pub events: usize,
}

/// The line's framing; `None` for anything unusual (`wire::fields`, which
/// accepts all this does, then tells what it is).
pub(super) fn framing(line: &[u8]) -> Option<Framing> {
    let mut found = Framing { timestamp_ns: 0, events: 0 };
    let mut r = Cursor::new(line);
    while !r.done() {
        match r.tag()? {
            (EVENTS, BYTES) => {
                r.bytes_field()?;
                found.events += 1;
            }
            (LINE_TIMESTAMP, VARINT) => found.timestamp_ns = r.varint()? as i64,
            (_, wire) => r.skip(wire)?,
        }
    }
    Some(found)
}

/// The last `timestamp_ns` a line states before its first event; `None`
/// for anything unusual.
pub(super) fn head_timestamp(line: &[u8]) -> Option<i64> {
    let mut timestamp_ns = 0;
    let mut r = Cursor::new(line);
    while !r.done() {
        match r.tag()? {
            (EVENTS, BYTES) => break,
            (LINE_TIMESTAMP, VARINT) => timestamp_ns = r.varint()? as i64,
            (_, wire) => r.skip(wire)?,
        }
    }
    Some(timestamp_ns)
}

/// The line and the `timestamp_ns` it states, from a line of `count`
/// events where [`framing`] counted them (else the columns are sized as
/// its first events take room); `None`: decode it field by field.
pub(super) fn decode(
    builder: &mut PlaneBuilder,
    line: &[u8],
    origin: Option<i64>,
    strings: &mut Interner,
    count: Option<usize>,
) -> Option<(Line, i64)> {
    let mut header = XLine::default();
    let mut events = builder.start_line(count.unwrap_or(0));
    let (mut stats, mut base_ps, mut i, mut first) = (Vec::new(), None, 0, 0);
    let mut r = Cursor::new(line);
    while !r.done() {
        let start = r.pos();
        let (number, wire) = r.tag()?;
        if (number, wire) == (EVENTS, BYTES) {
            if base_ps.is_none() {
                first = start;
            }
            let payload = r.bytes_field()?;
            // The events' times count from the timestamp stated before them.
            let base = *base_ps.get_or_insert_with(|| line_base_ps(&header, origin));
            builder.push_encoded(&mut events, &header, base, i, payload, &mut stats, strings).ok()?;
            i += 1;
            // The columns' room, once, as the first events take it (no more
            // than the rest of the line can hold: an event or a stat takes
            // 2 bytes or more).
            if i == SAMPLED {
                let left = line.len() - r.pos();
                let rest = count.map_or_else(|| estimate(i, r.pos() - first, left), |n| n.saturating_sub(i));
                if count.is_none() {
                    events.reserve(rest);
                }
                events.stats.reserve_like(i, rest, left / 2);
            }
            continue;
        }
        r.skip(wire)?;
        if number == EVENTS || !LINE.iter().any(|(n, _)| *n == number) {
            continue;
        }
        // Kept fields as `wire::decode_except` merges them.
        let raw = &line[start..r.pos()];
        if (number == LINE_TIMESTAMP && base_ps.is_some()) || raw.len() > wire::PRUNE_ABOVE {
            return None;
        }
        prost::Message::merge(&mut header, raw).ok()?;
    }
    let base_ps = base_ps.unwrap_or_else(|| line_base_ps(&header, origin));
    let timestamp_ns = header.timestamp_ns;
    Some((finish_line(header, base_ps, events, strings), timestamp_ns))
}
