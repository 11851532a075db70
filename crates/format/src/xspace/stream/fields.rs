//! A message's fields read from the stream, with the checks `wire` makes
//! on a slice; and the events lying whole in the reader's buffer, read
//! where they lie.

use super::{Scan, Stop, EVENTS};
use crate::stream_reader::Reader;
use crate::Error;

/// The encoding of an event field, first in `bytes`: a one-byte tag, its
/// length and the payload, as (bytes before the payload, payload length);
/// `None` when `bytes` holds no whole one.
pub(super) fn event_field(bytes: &[u8]) -> Option<(usize, usize)> {
    const EVENT_TAG: u8 = (EVENTS << 3 | 2) as u8;
    if bytes.first() != Some(&EVENT_TAG) {
        return None;
    }
    let mut len = 0usize;
    for (i, &byte) in bytes.iter().enumerate().skip(1).take(5) {
        len |= usize::from(byte & 0x7f) << (7 * (i - 1));
        if byte & 0x80 == 0 {
            return (bytes.len() - (i + 1) >= len).then_some((i + 1, len));
        }
    }
    None
}

/// The bytes the reader holds now, up to stream position `end`.
pub(super) fn held_until<'r>(r: &'r mut Reader<'_>, end: u64) -> Scan<&'r [u8]> {
    let room = usize::try_from(end.saturating_sub(r.pos())).unwrap_or(usize::MAX);
    let held = r.buffered()?;
    Ok(&held[..held.len().min(room)])
}

/// The event fields lying whole at the start of `held`, one after another:
/// each as (where it ends in `held`, its payload).
pub(super) fn event_fields(held: &[u8]) -> impl Iterator<Item = (usize, &[u8])> {
    let mut used = 0;
    std::iter::from_fn(move || {
        let (head, len) = event_field(&held[used..])?;
        let payload = &held[used + head..used + head + len];
        used += head + len;
        Some((used, payload))
    })
}

/// Reads past the events lying whole in the reader's buffer, before
/// stream position `end`; how many there were.
pub(super) fn skip_held_events(r: &mut Reader, end: u64) -> Scan<u64> {
    let (mut used, mut count) = (0, 0);
    for (field_end, _) in event_fields(held_until(r, end)?) {
        (used, count) = (field_end, count + 1);
    }
    r.consume(used);
    Ok(count)
}

/// A field's value as its header tells; a payload is next in the stream.
#[derive(Clone, Copy)]
pub(super) enum Value {
    Varint(u64),
    Bytes(u64),
    Fixed(usize),
}

/// A nested message's fields, walked as `wire::fields` walks a slice:
/// the same checks, and errors with positions counted from its start.
pub(super) struct Message {
    start: u64,
    pub(super) end: u64,
    what: &'static str,
}

impl Message {
    pub(super) fn new(r: &Reader, len: u64, what: &'static str) -> Message {
        Message { start: r.pos(), end: r.pos().saturating_add(len), what }
    }

    fn truncated(&self, at: u64) -> Stop {
        Stop::Fail(Error::Truncated {
            detail: format!("a {} ends inside a field at byte {}", self.what, at - self.start),
        })
    }

    /// The next field's tag and value; `None` after the last. The stream
    /// ending inside the message is [`Stop::End`].
    pub(super) fn next(&mut self, r: &mut Reader) -> Scan<Option<(u64, Value)>> {
        let field_start = r.pos();
        if field_start >= self.end {
            return Ok(None);
        }
        let len = self.end - self.start;
        // A varint cut by the stream (not the message) is a cut file.
        let varint = |r: &mut Reader, end: u64| -> Scan<Option<u64>> {
            match r.varint(end)? {
                None if r.pos() < end && r.at_end()? => Err(Stop::End),
                v => Ok(v),
            }
        };
        let Some(tag) = varint(r, self.end)? else {
            return Err(self.truncated(self.start + len));
        };
        let value = match tag & 7 {
            0 => Value::Varint(varint(r, self.end)?.ok_or_else(|| self.truncated(field_start))?),
            1 => Value::Fixed(8),
            5 => Value::Fixed(4),
            2 => match varint(r, self.end)? {
                Some(n) if n <= self.end - r.pos() => Value::Bytes(n),
                _ => return Err(self.truncated(self.start + len)),
            },
            other => {
                return Err(Stop::Fail(Error::Corrupt {
                    detail: format!("a {} has a field of wire type {other}, which protobuf does not define", self.what),
                }))
            }
        };
        if let Value::Fixed(n) = value {
            if r.pos() + n as u64 > self.end {
                return Err(self.truncated(self.start + len));
            }
        }
        Ok(Some((tag, value)))
    }

    /// Skips the payload of a field [`Message::next`] returned.
    pub(super) fn skip_value(&self, r: &mut Reader, value: Value) -> Scan<()> {
        match value {
            Value::Varint(_) => Ok(()),
            Value::Bytes(n) => skip(r, n),
            Value::Fixed(n) => skip(r, n as u64),
        }
    }
}

pub(super) fn skip(r: &mut Reader, n: u64) -> Scan<()> {
    match r.skip_to(r.pos().saturating_add(n))? {
        true => Ok(()),
        false => Err(Stop::End),
    }
}

/// Appends a length-delimited field (tag, length, the payload read from
/// the stream) to `out`, growing it as bytes arrive: a length a crafted
/// file states is never allocated before the bytes are there.
pub(super) fn copy_bytes(r: &mut Reader, tag: u64, len: u64, out: &mut Vec<u8>) -> Scan<()> {
    const PIECE: u64 = 1 << 20;
    put_varint(out, tag);
    put_varint(out, len);
    let mut left = len;
    while left > 0 {
        let n = left.min(PIECE) as usize;
        let at = out.len();
        out.resize(at + n, 0);
        if !r.read_exact(&mut out[at..])? {
            return Err(Stop::End);
        }
        left -= n as u64;
    }
    Ok(())
}

pub(super) fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}
