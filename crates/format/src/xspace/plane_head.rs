//! A plane's header read straight from its encoding: its event and stat
//! metadata borrowed where they lie, not decoded by prost.
//!
//! The metadata maps are a third of a TensorFlow host's bytes (the names of
//! its ops and their stats), and prost allocates every name, stat list and
//! child list of them, in a hash map, only for the builder to intern the
//! names and drop the rest. Read here, they are borrowed from the file and
//! interned once. As [`super::event_wire`] does for events, the reader takes
//! only what it is sure of: anything unusual in a plane (a field too long to
//! be copied as it is, a wire type the schema does not expect, text that is
//! not UTF-8, a map entry stating its value twice) has the whole plane's
//! header decoded by prost as before, which gives the same result or the
//! error it has always given.

use super::event_wire::{read_stat, Cursor, StatIn, BYTES, VARINT};
use super::{LINES, PLANE};
use crate::proto::XPlane;
use crate::{wire, Error};

const EVENT_METADATA: u64 = 4;
const STAT_METADATA: u64 = 5;

/// A plane's header, its lines where they lie, and its metadata: read here
/// (`metadata`), or by prost into `plane`'s maps (`metadata` is `None`).
pub(super) struct PlaneHead<'a> {
    /// Id, name and stats; the metadata maps only where prost read them.
    pub plane: XPlane,
    pub lines: Vec<&'a [u8]>,
    pub metadata: Option<MetadataIn<'a>>,
}

/// A plane's metadata as the builder reads it, each list sorted by id (where
/// an id is stated twice, the last, as a protobuf map keeps it).
#[derive(Default)]
pub(super) struct MetadataIn<'a> {
    pub events: Vec<EventMetaIn<'a>>,
    /// Each stat metadata's id and name.
    pub stat_names: Vec<(i64, &'a str)>,
    /// The event metadata's stats, each one's a range of these.
    pub stats: Vec<StatIn<'a>>,
    /// The event metadata's child ids, each one's a range of these.
    pub children: Vec<i64>,
}

/// One event metadata (its map key as its id).
pub(super) struct EventMetaIn<'a> {
    pub id: i64,
    pub name: &'a str,
    pub display_name: &'a str,
    pub stats: std::ops::Range<usize>,
    pub children: std::ops::Range<usize>,
}

impl<'a> MetadataIn<'a> {
    /// The metadata of a plane prost decoded.
    pub fn of(plane: &'a XPlane) -> MetadataIn<'a> {
        let mut metadata = MetadataIn {
            stat_names: plane.stat_metadata.iter().map(|(&id, m)| (id, m.name.as_str())).collect(),
            ..MetadataIn::default()
        };
        metadata.stat_names.sort_unstable_by_key(|&(id, _)| id);
        for (&id, m) in &plane.event_metadata {
            let stats = metadata.stats.len()..metadata.stats.len() + m.stats.len();
            metadata.stats.extend(m.stats.iter().map(StatIn::from));
            let children = metadata.children.len()..metadata.children.len() + m.child_id.len();
            metadata.children.extend_from_slice(&m.child_id);
            metadata.events.push(EventMetaIn { id, name: &m.name, display_name: &m.display_name, stats, children });
        }
        metadata.events.sort_unstable_by_key(|m| m.id);
        metadata
    }

    /// The stats of event metadata `m`.
    pub fn stats_of(&self, m: &EventMetaIn) -> &[StatIn<'a>] {
        &self.stats[m.stats.clone()]
    }

    pub fn children_of(&self, m: &EventMetaIn) -> &[i64] {
        &self.children[m.children.clone()]
    }
}

/// The header of the plane encoded in `payload`, with its lines; errors as
/// `wire::decode_except` and `wire::payloads` tell them.
pub(super) fn read_plane_head(payload: &[u8]) -> Result<PlaneHead<'_>, Error> {
    if let Some(head) = read_fast(payload) {
        return Ok(head);
    }
    let plane: XPlane = wire::decode_except(payload, LINES, PLANE, "plane")?;
    let lines = wire::payloads(payload, LINES, "plane").collect::<Result<_, _>>()?;
    Ok(PlaneHead { plane, lines, metadata: None })
}

/// `None`: not sure, decode with prost instead.
fn read_fast(payload: &[u8]) -> Option<PlaneHead<'_>> {
    let mut plane = XPlane::default();
    let (mut lines, mut metadata) = (Vec::new(), MetadataIn::default());
    for field in wire::fields(payload, "plane") {
        let field = field.ok()?;
        match (field.number, field.value) {
            (LINES, wire::Value::Bytes(line)) => lines.push(line),
            (EVENT_METADATA, wire::Value::Bytes(entry)) => read_event_entry(entry, &mut metadata)?,
            (STAT_METADATA, wire::Value::Bytes(entry)) => metadata.stat_names.push(read_stat_entry(entry)?),
            (LINES | EVENT_METADATA | STAT_METADATA, _) => return None,
            (number, _) if PLANE.iter().any(|(n, _)| *n == number) => {
                // Id, name and stats: small, merged as `decode_except` merges them.
                if field.raw.len() > wire::PRUNE_ABOVE {
                    return None;
                }
                prost::Message::merge(&mut plane, field.raw).ok()?;
            }
            _ => {}
        }
    }
    // By id, the last of an id kept (a stable sort keeps the stated order).
    metadata.stat_names.sort_by_key(|&(id, _)| id);
    metadata.stat_names = last_of_each(std::mem::take(&mut metadata.stat_names), |&(id, _)| id);
    metadata.events.sort_by_key(|m| m.id);
    metadata.events = last_of_each(std::mem::take(&mut metadata.events), |m| m.id);
    Some(PlaneHead { plane, lines, metadata: Some(metadata) })
}

/// The last item of each run of equal keys.
fn last_of_each<T>(items: Vec<T>, key: impl Fn(&T) -> i64) -> Vec<T> {
    if items.windows(2).all(|w| key(&w[0]) != key(&w[1])) {
        return items;
    }
    let mut kept: Vec<T> = Vec::with_capacity(items.len());
    for item in items {
        match kept.last_mut() {
            Some(last) if key(last) == key(&item) => *last = item,
            _ => kept.push(item),
        }
    }
    kept
}

/// A map entry's key and value payload (default: empty), each stated once.
fn read_entry(bytes: &[u8]) -> Option<(i64, &[u8])> {
    let (mut key, mut value) = (None, None);
    let mut r = Cursor::new(bytes);
    while !r.done() {
        match r.tag()? {
            (1, VARINT) if key.is_none() => key = Some(r.varint()? as i64),
            (2, BYTES) if value.is_none() => value = Some(r.bytes_field()?),
            (1 | 2, _) => return None,
            (_, wire) => r.skip(wire)?,
        }
    }
    Some((key.unwrap_or(0), value.unwrap_or(&[])))
}

/// A text field, once.
fn text<'a>(r: &mut Cursor<'a>, slot: &mut Option<&'a str>) -> Option<()> {
    if slot.is_some() {
        return None;
    }
    *slot = Some(std::str::from_utf8(r.bytes_field()?).ok()?);
    Some(())
}

fn read_stat_entry(entry: &[u8]) -> Option<(i64, &str)> {
    let (id, value) = read_entry(entry)?;
    let (mut name, mut description) = (None, None);
    let mut r = Cursor::new(value);
    while !r.done() {
        match r.tag()? {
            (1, VARINT) => drop(r.varint()?),
            (2, BYTES) => text(&mut r, &mut name)?,
            // Unused, but prost refuses it when it is not UTF-8.
            (3, BYTES) => text(&mut r, &mut description)?,
            (1..=3, _) => return None,
            (_, wire) => r.skip(wire)?,
        }
    }
    Some((id, name.unwrap_or("")))
}

fn read_event_entry<'a>(entry: &'a [u8], metadata: &mut MetadataIn<'a>) -> Option<()> {
    let (id, value) = read_entry(entry)?;
    let (mut name, mut display_name) = (None, None);
    let (stats_from, children_from) = (metadata.stats.len(), metadata.children.len());
    let mut r = Cursor::new(value);
    while !r.done() {
        match r.tag()? {
            (1, VARINT) => drop(r.varint()?),
            (2, BYTES) => text(&mut r, &mut name)?,
            (4, BYTES) => text(&mut r, &mut display_name)?,
            (3, BYTES) => drop(r.bytes_field()?),
            (5, BYTES) => metadata.stats.push(read_stat(r.bytes_field()?)?),
            (6, VARINT) => metadata.children.push(r.varint()? as i64),
            // Packed, as proto3 writes repeated numbers.
            (6, BYTES) => {
                let mut packed = Cursor::new(r.bytes_field()?);
                while !packed.done() {
                    metadata.children.push(packed.varint()? as i64);
                }
            }
            (1..=6, _) => return None,
            (_, wire) => r.skip(wire)?,
        }
    }
    metadata.events.push(EventMetaIn {
        id,
        name: name.unwrap_or(""),
        display_name: display_name.unwrap_or(""),
        stats: stats_from..metadata.stats.len(),
        children: children_from..metadata.children.len(),
    });
    Some(())
}
