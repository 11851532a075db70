//! One XEvent read straight from its encoding, borrowing its strings.
//!
//! Events are most of an XSpace (millions per host), and prost allocates
//! for each (its stats list, every string), which is most of the decode's
//! time in wasm. This reader allocates nothing: the event's fields land in
//! an [`EventIn`], its stats in a list the caller reuses. It reads only
//! what it is sure of, and answers `None` for anything unusual (a wire type
//! the schema does not expect, an overlong varint, text that is not UTF-8,
//! an unknown group): the caller then decodes that event with prost, which
//! gives the same result or the error it has always given.

use crate::proto::{x_event, x_stat, XEvent, XStat};

/// An event's own fields (its stats are beside it, in [`StatIn`]s).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(super) struct EventIn {
    pub metadata_id: i64,
    pub data: Option<EventData>,
    pub duration_ps: i64,
}

/// The `data` oneof of an XEvent.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum EventData {
    OffsetPs(i64),
    NumOccurrences(i64),
}

/// One stat of an event (or of metadata, or a plane), borrowing its text.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct StatIn<'a> {
    pub metadata_id: i64,
    pub value: Option<StatValueIn<'a>>,
}

/// The `value` oneof of an XStat.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum StatValueIn<'a> {
    Double(f64),
    Uint(u64),
    Int(i64),
    Str(&'a str),
    Bytes(&'a [u8]),
    /// The id of stat metadata whose name is the value.
    Ref(u64),
}

impl From<&XEvent> for EventIn {
    fn from(event: &XEvent) -> EventIn {
        EventIn {
            metadata_id: event.metadata_id,
            data: event.data.map(|data| match data {
                x_event::Data::OffsetPs(o) => EventData::OffsetPs(o),
                x_event::Data::NumOccurrences(n) => EventData::NumOccurrences(n),
            }),
            duration_ps: event.duration_ps,
        }
    }
}

impl<'a> From<&'a XStat> for StatIn<'a> {
    fn from(stat: &'a XStat) -> StatIn<'a> {
        let value = stat.value.as_ref().map(|value| match value {
            x_stat::Value::DoubleValue(v) => StatValueIn::Double(*v),
            x_stat::Value::Uint64Value(v) => StatValueIn::Uint(*v),
            x_stat::Value::Int64Value(v) => StatValueIn::Int(*v),
            x_stat::Value::StrValue(s) => StatValueIn::Str(s),
            x_stat::Value::BytesValue(b) => StatValueIn::Bytes(b),
            x_stat::Value::RefValue(id) => StatValueIn::Ref(*id),
        });
        StatIn { metadata_id: stat.metadata_id, value }
    }
}

const VARINT: u64 = 0;
const FIXED64: u64 = 1;
const BYTES: u64 = 2;
const FIXED32: u64 = 5;

/// Reads the event encoded in `bytes`; its stats are appended to `stats`
/// (cleared first). `None`: not sure, decode it with prost instead.
pub(super) fn read_event<'a>(bytes: &'a [u8], stats: &mut Vec<StatIn<'a>>) -> Option<EventIn> {
    stats.clear();
    let mut event = EventIn::default();
    let mut r = Cursor { bytes, pos: 0 };
    while r.pos < bytes.len() {
        let (number, wire) = r.tag()?;
        match (number, wire) {
            (1, VARINT) => event.metadata_id = r.varint()? as i64,
            (2, VARINT) => event.data = Some(EventData::OffsetPs(r.varint()? as i64)),
            (5, VARINT) => event.data = Some(EventData::NumOccurrences(r.varint()? as i64)),
            (3, VARINT) => event.duration_ps = r.varint()? as i64,
            (4, BYTES) => stats.push(read_stat(r.bytes_field()?)?),
            (1..=5, _) => return None,
            _ => r.skip(wire)?,
        }
    }
    Some(event)
}

fn read_stat(bytes: &[u8]) -> Option<StatIn<'_>> {
    let mut stat = StatIn { metadata_id: 0, value: None };
    let mut r = Cursor { bytes, pos: 0 };
    while r.pos < bytes.len() {
        let (number, wire) = r.tag()?;
        let value = match (number, wire) {
            (1, VARINT) => {
                stat.metadata_id = r.varint()? as i64;
                continue;
            }
            (2, FIXED64) => StatValueIn::Double(f64::from_le_bytes(r.fixed::<8>()?)),
            (3, VARINT) => StatValueIn::Uint(r.varint()?),
            (4, VARINT) => StatValueIn::Int(r.varint()? as i64),
            (5, BYTES) => StatValueIn::Str(std::str::from_utf8(r.bytes_field()?).ok()?),
            (6, BYTES) => StatValueIn::Bytes(r.bytes_field()?),
            (7, VARINT) => StatValueIn::Ref(r.varint()?),
            (1..=7, _) => return None,
            _ => {
                r.skip(wire)?;
                continue;
            }
        };
        stat.value = Some(value);
    }
    Some(stat)
}

struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    /// A varint of at most 10 bytes whose last byte holds at most bit 63.
    #[inline]
    fn varint(&mut self) -> Option<u64> {
        // Most varints of an event (tags, ids, small values) are one byte.
        if let Some(&byte @ 0..0x80) = self.bytes.get(self.pos) {
            self.pos += 1;
            return Some(u64::from(byte));
        }
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = *self.bytes.get(self.pos)?;
            self.pos += 1;
            if shift == 63 && byte > 1 {
                return None;
            }
            value |= u64::from(byte & 0x7f) << shift;
            if byte < 0x80 {
                return Some(value);
            }
        }
        None
    }

    /// A field's number (1 ..= 2^29 - 1, as prost accepts) and wire type.
    #[inline]
    fn tag(&mut self) -> Option<(u64, u64)> {
        let tag = self.varint()?;
        let number = tag >> 3;
        (1..=0x1fff_ffff).contains(&number).then_some((number, tag & 7))
    }

    fn bytes_field(&mut self) -> Option<&'a [u8]> {
        let len = usize::try_from(self.varint()?).ok()?;
        let end = self.pos.checked_add(len).filter(|&end| end <= self.bytes.len())?;
        let field = &self.bytes[self.pos..end];
        self.pos = end;
        Some(field)
    }

    fn fixed<const N: usize>(&mut self) -> Option<[u8; N]> {
        let end = self.pos.checked_add(N).filter(|&end| end <= self.bytes.len())?;
        let value = self.bytes[self.pos..end].try_into().ok()?;
        self.pos = end;
        Some(value)
    }

    /// Skips an unknown field's value; groups are left to prost.
    fn skip(&mut self, wire: u64) -> Option<()> {
        match wire {
            VARINT => self.varint().map(drop),
            FIXED64 => self.fixed::<8>().map(drop),
            BYTES => self.bytes_field().map(drop),
            FIXED32 => self.fixed::<4>().map(drop),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message;

    fn stat(id: i64, value: x_stat::Value) -> XStat {
        XStat { metadata_id: id, value: Some(value) }
    }

    #[test]
    fn reads_what_prost_reads() {
        let event = XEvent {
            metadata_id: 7,
            data: Some(x_event::Data::OffsetPs(-5)),
            duration_ps: 1 << 40,
            stats: vec![
                stat(1, x_stat::Value::DoubleValue(2.5)),
                stat(2, x_stat::Value::Uint64Value(u64::MAX)),
                stat(3, x_stat::Value::Int64Value(-3)),
                stat(4, x_stat::Value::StrValue("é".into())),
                stat(5, x_stat::Value::BytesValue(vec![0, 1])),
                stat(6, x_stat::Value::RefValue(9)),
                XStat { metadata_id: 8, value: None },
            ],
        };
        let bytes = event.encode_to_vec();
        let mut stats = Vec::new();
        let read = read_event(&bytes, &mut stats).unwrap();
        assert_eq!(read, EventIn { metadata_id: 7, data: Some(EventData::OffsetPs(-5)), duration_ps: 1 << 40 });
        let values: Vec<_> = stats.iter().map(|s| (s.metadata_id, s.value)).collect();
        assert_eq!(
            values,
            vec![
                (1, Some(StatValueIn::Double(2.5))),
                (2, Some(StatValueIn::Uint(u64::MAX))),
                (3, Some(StatValueIn::Int(-3))),
                (4, Some(StatValueIn::Str("é"))),
                (5, Some(StatValueIn::Bytes(&[0, 1]))),
                (6, Some(StatValueIn::Ref(9))),
                (8, None),
            ]
        );
        let aggregated = XEvent { data: Some(x_event::Data::NumOccurrences(3)), ..XEvent::default() }.encode_to_vec();
        assert_eq!(read_event(&aggregated, &mut stats).unwrap().data, Some(EventData::NumOccurrences(3)));
        assert!(stats.is_empty());
    }

    #[test]
    fn last_value_wins_and_unknown_fields_are_skipped() {
        // metadata_id 1, then 2; unknown field 9 (bytes) and 10 (fixed32); a stat whose value is set twice.
        let stat = [0x08, 4, 0x18, 1, 0x20, 2, 0x7a, 0];
        let mut bytes = vec![0x08, 1, 0x08, 2, 0x4a, 1, 0xff, 0x55, 0, 0, 0, 0, 0x22, stat.len() as u8];
        bytes.extend_from_slice(&stat);
        let mut stats = Vec::new();
        assert_eq!(read_event(&bytes, &mut stats).unwrap().metadata_id, 2);
        // Field 15 (wire type 2) is unknown to XStat: skipped.
        assert_eq!(stats, vec![StatIn { metadata_id: 4, value: Some(StatValueIn::Int(2)) }]);
    }

    #[test]
    fn anything_unusual_is_left_to_prost() {
        let mut stats = Vec::new();
        let cases: [&[u8]; 7] = [
            &[0x09, 0, 0, 0, 0, 0, 0, 0, 0], // metadata_id as fixed64
            &[0x08],                         // cut varint
            &[0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02], // overlong
            &[0x22, 5, 0x2a, 2, 0xff, 0xfe, 0], // stat text not UTF-8
            &[0x22, 9],                      // stat longer than the event
            &[0x53, 0x54],                   // a group
            &[0x00, 0x01],                   // field number 0
        ];
        for bytes in cases {
            assert_eq!(read_event(bytes, &mut stats), None, "{bytes:?}");
        }
        // prost refuses all of these but the group, which it skips.
        for bytes in cases {
            let refused = XEvent::decode(bytes).is_err();
            assert_eq!(refused, bytes != [0x53, 0x54], "{bytes:?}");
        }
    }
}
