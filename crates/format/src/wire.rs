//! Walking protobuf fields without decoding them, so that an XSpace's big
//! repeated fields (lines, events) can be decoded one element at a time
//! instead of materialising the whole message: peak memory stays close to
//! the model's own.
//!
//! Public so that the analysis crate decodes the small protobuf messages that
//! profiles store in stats with this same reader, not a copy of it.

use crate::sniff::read_varint;
use crate::Error;

/// A field's value, as far as its wire type tells.
pub enum Value<'a> {
    Varint(u64),
    /// A length-delimited payload (bytes, string or nested message).
    Bytes(&'a [u8]),
    /// A 32- or 64-bit fixed-width value, not read.
    Fixed,
}

/// One field: number, value and its whole encoding (tag included).
pub struct Field<'a> {
    pub number: u64,
    pub value: Value<'a>,
    pub raw: &'a [u8],
}

impl Field<'_> {
    /// The bits of a fixed-width value (`fixed64`, `double`, `fixed32`,
    /// `float`), read from the end of its encoding; `None` for other wire types.
    pub fn fixed_bits(&self) -> Option<u64> {
        if !matches!(self.value, Value::Fixed) {
            return None;
        }
        let tail = |n: usize| self.raw.get(self.raw.len().checked_sub(n)?..);
        match tail(8).filter(|_| self.raw.first().is_some_and(|b| b & 7 == 1)) {
            Some(b) => Some(u64::from_le_bytes(b.try_into().ok()?)),
            None => tail(4).map(|b| u64::from(u32::from_le_bytes(b.try_into().unwrap_or_default()))),
        }
    }
}

/// An iterator over a message's fields; see [`fields`].
pub struct Fields<'a> {
    bytes: &'a [u8],
    pos: usize,
    what: &'static str,
}

/// The fields of a message's encoding, in order. A malformed field yields an
/// error naming `what`; stop at the first error, as the walk may not go on.
pub fn fields<'a>(bytes: &'a [u8], what: &'static str) -> Fields<'a> {
    Fields { bytes, pos: 0, what }
}

impl<'a> Fields<'a> {
    fn truncated(&self) -> Error {
        Error::Truncated { detail: format!("a {} ends inside a field at byte {}", self.what, self.pos) }
    }
}

impl<'a> Iterator for Fields<'a> {
    type Item = Result<Field<'a>, Error>;

    // Inlined: an XSpace's lines are walked field by field, an event a field.
    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.pos >= self.bytes.len() {
            return None;
        }
        let start = self.pos;
        let Some((tag, after_tag)) = read_varint(self.bytes, start) else {
            self.pos = self.bytes.len();
            return Some(Err(self.truncated()));
        };
        let (value, end) = match tag & 7 {
            0 => match read_varint(self.bytes, after_tag) {
                Some((v, end)) => (Value::Varint(v), end),
                None => return Some(Err(self.truncated())),
            },
            1 => (Value::Fixed, after_tag + 8),
            5 => (Value::Fixed, after_tag + 4),
            2 => match read_varint(self.bytes, after_tag) {
                Some((len, at)) if len <= (self.bytes.len() - at) as u64 => {
                    let end = at + len as usize;
                    (Value::Bytes(&self.bytes[at..end]), end)
                }
                _ => {
                    self.pos = self.bytes.len();
                    return Some(Err(self.truncated()));
                }
            },
            other => {
                self.pos = self.bytes.len();
                return Some(Err(Error::Corrupt {
                    detail: format!("a {} has a field of wire type {other}, which protobuf does not define", self.what),
                }));
            }
        };
        if end > self.bytes.len() {
            self.pos = self.bytes.len();
            return Some(Err(self.truncated()));
        }
        self.pos = end;
        Some(Ok(Field { number: tag >> 3, value, raw: &self.bytes[start..end] }))
    }
}

/// What a field of a known message holds, for [`prune`].
pub(crate) enum Kind {
    /// Kept as it is (numbers, bytes, packed lists).
    Keep,
    /// A string, cut to this many bytes.
    Text(usize),
    /// A nested message with these fields.
    Message(Schema),
}

/// The fields of a message that decoding keeps; others are dropped.
pub(crate) type Schema = &'static [(u64, Kind)];

/// Messages no longer than this are copied as they are: none of their
/// strings can be over a cap.
pub(crate) const PRUNE_ABOVE: usize = 1 << 20;

/// Decodes the fields of `bytes` that `schema` lists, except field `skip`
/// (a big repeated field, walked with [`payloads`] and decoded one item at a
/// time). Unknown fields are never copied, and strings over their cap are
/// cut (see [`prune`]), so a crafted gigabyte field costs no memory.
pub(crate) fn decode_except<M: prost::Message + Default>(
    bytes: &[u8],
    skip: u64,
    schema: Schema,
    what: &'static str,
) -> Result<M, Error> {
    decode_except_with(bytes, skip, schema, what, |_| {})
}

/// [`decode_except`], handing each field numbered `skip` to `skipped` (a
/// line's events are counted in the same walk).
pub(crate) fn decode_except_with<M: prost::Message + Default>(
    bytes: &[u8],
    skip: u64,
    schema: Schema,
    what: &'static str,
    mut skipped: impl FnMut(&Field),
) -> Result<M, Error> {
    let mut message = M::default();
    let mut pruned = Vec::new();
    for field in fields(bytes, what) {
        let field = field?;
        if field.number == skip {
            skipped(&field);
            continue;
        }
        if !schema.iter().any(|(n, _)| *n == field.number) {
            continue;
        }
        if field.raw.len() > PRUNE_ABOVE {
            pruned.clear();
            prune_field(&field, schema, &mut pruned)?;
            message.merge(pruned.as_slice()).map_err(corrupt)?;
        } else {
            message.merge(field.raw).map_err(corrupt)?;
        }
    }
    Ok(message)
}

/// The payloads of the length-delimited field `number`, in order.
pub(crate) fn payloads<'a>(
    bytes: &'a [u8],
    number: u64,
    what: &'static str,
) -> impl Iterator<Item = Result<&'a [u8], Error>> {
    fields(bytes, what).filter_map(move |field| match field {
        Ok(Field { number: n, value: Value::Bytes(payload), .. }) if n == number => Some(Ok(payload)),
        Ok(_) => None,
        Err(e) => Some(Err(e)),
    })
}

/// Decodes one message, pruned first when it is big enough to hold a string
/// over its cap.
pub(crate) fn decode_pruned<M: prost::Message + Default>(bytes: &[u8], schema: Schema) -> Result<M, Error> {
    if bytes.len() <= PRUNE_ABOVE {
        return M::decode(bytes).map_err(corrupt);
    }
    let mut pruned = Vec::new();
    prune(bytes, schema, &mut pruned)?;
    M::decode(pruned.as_slice()).map_err(corrupt)
}

pub(crate) fn corrupt(e: prost::DecodeError) -> Error {
    Error::Corrupt { detail: format!("the protobuf does not decode ({e})") }
}

/// Appends to `out` the fields of `bytes` that `schema` lists, each string
/// cut to its cap on a character boundary.
fn prune(bytes: &[u8], schema: Schema, out: &mut Vec<u8>) -> Result<(), Error> {
    for field in fields(bytes, "message") {
        prune_field(&field?, schema, out)?;
    }
    Ok(())
}

fn prune_field(field: &Field, schema: Schema, out: &mut Vec<u8>) -> Result<(), Error> {
    let Some((_, kind)) = schema.iter().find(|(n, _)| *n == field.number) else {
        return Ok(());
    };
    match (kind, &field.value) {
        (Kind::Text(cap), Value::Bytes(text)) if text.len() > *cap => {
            let cut = text.len().min(*cap);
            // Back to the start of a character, so the cut text is still UTF-8.
            let end = (0..=cut).rev().find(|&i| i == text.len() || text[i] & 0xC0 != 0x80).unwrap_or(0);
            put_bytes(out, field.number, &text[..end]);
        }
        (Kind::Message(inner), Value::Bytes(payload)) if payload.len() > PRUNE_ABOVE => {
            let mut nested = Vec::new();
            prune(payload, inner, &mut nested)?;
            put_bytes(out, field.number, &nested);
        }
        _ => out.extend_from_slice(field.raw),
    }
    Ok(())
}

fn put_bytes(out: &mut Vec<u8>, number: u64, payload: &[u8]) {
    put_varint(out, number << 3 | 2);
    put_varint(out, payload.len() as u64);
    out.extend_from_slice(payload);
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::proto::{XLine, XSpace};

    const LINE: Schema = &[(1, Kind::Keep), (2, Kind::Text(4))];

    #[test]
    fn splits_repeated_fields_from_the_rest() {
        // field 1 varint 5, field 3 bytes "ab", field 3 bytes "c", field 2 bytes "x", field 7 unknown
        let msg = [0x08, 5, 0x1a, 2, b'a', b'b', 0x1a, 1, b'c', 0x12, 1, b'x', 0x3a, 1, b'?'];
        let line: XLine = decode_except(&msg, 3, LINE, "test").unwrap();
        let items: Result<Vec<_>, _> = payloads(&msg, 3, "test").collect();
        assert_eq!(items.unwrap(), vec![&b"ab"[..], &b"c"[..]]);
        assert_eq!((line.id, line.name.as_str()), (5, "x"));
        assert!(matches!(decode_except::<XLine>(&msg[..7], 3, LINE, "test"), Err(Error::Truncated { .. })));
        assert!(matches!(decode_except::<XLine>(&[0x0f], 3, LINE, "test"), Err(Error::Corrupt { .. })));
    }

    #[test]
    fn giant_strings_and_unknown_fields_are_not_copied() {
        let name = "é".repeat(PRUNE_ABOVE);
        let mut msg = Vec::new();
        put_bytes(&mut msg, 2, name.as_bytes());
        put_bytes(&mut msg, 9, &vec![0; PRUNE_ABOVE * 2]);
        let line: XLine = decode_pruned(&msg, LINE).unwrap();
        assert_eq!(line.name, "éé");
        let line: XLine = decode_except(&msg, 4, LINE, "test").unwrap();
        assert_eq!(line.name, "éé");
        // Nested: the space's plane holds the name and the unknown field.
        const SPACE: Schema = &[(1, Kind::Message(LINE))];
        let mut space = Vec::new();
        put_bytes(&mut space, 1, &msg);
        let decoded: XSpace = decode_pruned(&space, SPACE).unwrap();
        assert_eq!(decoded.planes[0].name, "éé");
    }
}
