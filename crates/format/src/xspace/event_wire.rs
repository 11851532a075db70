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

pub(super) const VARINT: u64 = 0;
const FIXED64: u64 = 1;
pub(super) const BYTES: u64 = 2;
const FIXED32: u64 = 5;

/// Reads the event encoded in `bytes`; its stats are appended to `stats`
/// (cleared first). `None`: not sure, decode it with prost instead.
pub(super) fn read_event<'a>(bytes: &'a [u8], stats: &mut Vec<StatIn<'a>>) -> Option<EventIn> {
    stats.clear();
    let mut event = EventIn::default();
    let mut r = Cursor::new(bytes);
    while !r.done() {
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

/// One stat's encoding (of an event, or of event metadata); `None`: not sure.
/// Inlined: returned through memory, the stat made its reader wait.
#[inline(always)]
pub(super) fn read_stat(bytes: &[u8]) -> Option<StatIn<'_>> {
    let mut stat = StatIn { metadata_id: 0, value: None };
    let mut r = Cursor::new(bytes);
    while !r.done() {
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

/// A message's encoding read field by field (`None`: not sure).
pub(super) struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    pub(super) fn new(bytes: &'a [u8]) -> Cursor<'a> {
        Cursor { bytes, pos: 0 }
    }

    /// Where the next field starts.
    #[inline]
    pub(super) fn pos(&self) -> usize {
        self.pos
    }

    /// Whether every field was read.
    #[inline]
    pub(super) fn done(&self) -> bool {
        self.pos >= self.bytes.len()
    }

    /// A varint of at most 10 bytes whose last byte holds at most bit 63.
    #[inline(always)]
    pub(super) fn varint(&mut self) -> Option<u64> {
        // Most varints of an event (tags, ids, small values) are one byte.
        if let Some(&byte @ 0..0x80) = self.bytes.get(self.pos) {
            self.pos += 1;
            return Some(u64::from(byte));
        }
        self.varint_long()
    }

    /// [`Cursor::varint`] of two bytes or more: up to 8 read from one word
    /// (times and values are 3 to 7 bytes long), without a branch a byte.
    #[inline]
    fn varint_long(&mut self) -> Option<u64> {
        let Some(word) = self.bytes.get(self.pos..self.pos + 8) else {
            return self.varint_near_end();
        };
        let word = u64::from_le_bytes(word.try_into().ok()?);
        // The last byte is the first without its top bit.
        let stops = !word & 0x8080_8080_8080_8080;
        if stops == 0 {
            return self.varint_near_end();
        }
        let len = (stops.trailing_zeros() as usize + 1) / 8;
        let x = word & (u64::MAX >> (64 - 8 * len)) & 0x7f7f_7f7f_7f7f_7f7f;
        // The 7-bit groups side by side: pairs, then fours, then all eight.
        let x = (x & 0x007f_007f_007f_007f) | ((x & 0x7f00_7f00_7f00_7f00) >> 1);
        let x = (x & 0x0000_3fff_0000_3fff) | ((x & 0x3fff_0000_3fff_0000) >> 2);
        let x = (x & 0x0000_0000_0fff_ffff) | ((x & 0x0fff_ffff_0000_0000) >> 4);
        self.pos += len;
        Some(x)
    }

    /// [`Cursor::varint`] byte by byte: near the end, or 9 bytes or more.
    fn varint_near_end(&mut self) -> Option<u64> {
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
    pub(super) fn tag(&mut self) -> Option<(u64, u64)> {
        let tag = self.varint()?;
        let number = tag >> 3;
        (1..=0x1fff_ffff).contains(&number).then_some((number, tag & 7))
    }

    #[inline]
    pub(super) fn bytes_field(&mut self) -> Option<&'a [u8]> {
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
    pub(super) fn skip(&mut self, wire: u64) -> Option<()> {
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
    fn varints_of_every_length_read_as_prost_reads_them() {
        let values = (0..64).map(|b| 1u64 << b).chain((0..64).map(|b| (1u64 << b) - 1)).chain([u64::MAX, 300]);
        for v in values {
            let mut bytes = Vec::new();
            prost::encoding::encode_varint(v, &mut bytes);
            // Alone (near the end) and with bytes after it (read from one word).
            for tail in [0, 1, 9] {
                let mut padded = bytes.clone();
                padded.extend(std::iter::repeat_n(0x80, tail));
                let mut r = Cursor::new(&padded);
                assert_eq!((r.varint(), r.pos()), (Some(v), bytes.len()), "{v} + {tail}");
            }
        }
        // Past 64 bits, and longer than 10 bytes: refused, however many bytes follow.
        for bad in [&[0xff; 9][..], &[0xff; 11][..]] {
            let mut bytes = bad.to_vec();
            bytes.push(0x7f);
            bytes.extend([0; 10]);
            assert_eq!(Cursor::new(&bytes).varint(), None, "{bad:?}");
        }
        assert_eq!(Cursor::new(&[0x80, 0x80]).varint(), None);
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
