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

/// Splits a message into the payloads of one repeated message field and the
/// encoding of all other fields (small, to be decoded with prost).
pub(crate) fn split<'a>(bytes: &'a [u8], repeated: u64, what: &'static str) -> Result<(Vec<u8>, Vec<&'a [u8]>), Error> {
    let mut rest = Vec::new();
    let mut items = Vec::new();
    for field in fields(bytes, what) {
        let field = field?;
        match (field.number, field.value) {
            (n, Value::Bytes(payload)) if n == repeated => items.push(payload),
            _ => rest.extend_from_slice(field.raw),
        }
    }
    Ok((rest, items))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_repeated_fields_from_the_rest() {
        // field 1 varint 5, field 3 bytes "ab", field 3 bytes "c", field 2 bytes "x"
        let msg = [0x08, 5, 0x1a, 2, b'a', b'b', 0x1a, 1, b'c', 0x12, 1, b'x'];
        let (rest, items) = split(&msg, 3, "test").unwrap();
        assert_eq!(items, vec![&b"ab"[..], &b"c"[..]]);
        assert_eq!(rest, vec![0x08, 5, 0x12, 1, b'x']);
        assert!(matches!(split(&msg[..7], 3, "test"), Err(Error::Truncated { .. })));
        assert!(matches!(split(&[0x0f], 3, "test"), Err(Error::Corrupt { .. })));
    }
}
