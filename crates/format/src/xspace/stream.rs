//! XSpace decoded from a stream without holding the file: peak memory is
//! the model, the planes' metadata and the largest line.
//!
//! An XPlane's event and stat metadata come after its lines in the wire
//! order, and a line needs its plane's metadata to be built, so the walk
//! makes two passes over the stream. The first reads only framing (tags and
//! lengths), the planes' metadata and each line's timestamp, and notes
//! where each line lies; the second reads each line's bytes, one line at a
//! time, and builds it as the slice decoder does ([`super::decode_line`]).
//! Both passes read forward only, so gzip is inflated as it streams (twice).
//!
//! A raw file can be read anywhere, so there the first pass reads only each
//! line's head (up to its first event: where writers put its timestamp)
//! and jumps over its events: the file is read about once, not twice. The
//! second pass checks each line's timestamp; if a line stated another one
//! after its events, or anything fails, the file is decoded again with the
//! full first pass, so that results and errors are always those of the
//! slice decoder.
//!
//! Errors are the slice decoder's: the same checks, with offsets counted
//! the same way, so a damaged file reads the same either way.

use super::{decode_line, new_profile, PlaneBuilder, EVENTS, LINES, LINE_TIMESTAMP, PLANE, PLANES, SPACE};
use crate::gunzip_stream::GunzipFill;
use crate::proto::{XPlane, XSpace};
use crate::source::ByteSource;
use crate::stream_reader::{Reader, SourceFill};
use crate::{wire, Error, FileKind, Progress};
use proflens_model::Profile;

/// What the stream holds: an XSpace as it is, or gzip of one.
#[derive(Clone, Copy)]
pub(crate) enum Input<'a> {
    Raw(&'a dyn ByteSource),
    /// Refusing output past the limit, in bytes.
    Gzip(&'a dyn ByteSource, u64),
}

impl<'a> Input<'a> {
    fn open(self, chunk: usize) -> Reader<'a> {
        match self {
            Input::Raw(source) => Reader::new(Box::new(SourceFill::new(source)), chunk),
            Input::Gzip(source, limit) => Reader::new(Box::new(GunzipFill::new(source, limit, chunk)), chunk),
        }
    }

    fn source(self) -> &'a dyn ByteSource {
        match self {
            Input::Raw(s) | Input::Gzip(s, _) => s,
        }
    }
}

/// What the start of the (inflated) file looked like to `sniff`, which
/// judged it XSpace from its first bytes only.
#[derive(Clone, Copy)]
pub(crate) struct Looks {
    /// Its first 4 KiB are printable text.
    pub printable: bool,
}

/// Why a scan stopped: the stream ended (the file is cut), or damage.
enum Stop {
    End,
    Fail(Error),
}

impl From<Error> for Stop {
    fn from(e: Error) -> Self {
        Stop::Fail(e)
    }
}

type Scan<T> = Result<T, Stop>;

/// Where a line's encoding lies in the stream.
struct LineAt {
    pos: u64,
    len: u64,
}

/// Decodes the XSpace `input` holds, reading `chunk` bytes at a time.
pub(crate) fn decode_stream(
    input: Input,
    looks: Looks,
    chunk: usize,
    progress: &mut dyn FnMut(Progress),
) -> Result<Profile, Error> {
    // A second try reports only progress past the first's.
    let mut shown = 0.0;
    let progress = &mut |p: Progress| {
        if p.fraction() >= shown {
            shown = p.fraction();
            progress(p);
        }
    };
    if let Input::Raw(_) = input {
        if let Ok(Some(profile)) = decode_with(input, looks, chunk, Heads::Only, progress) {
            return Ok(profile);
        }
    }
    // Whole heads state the timestamps decoding reads, unless the file changes between the passes.
    let changed = || Error::Unreadable { detail: "it changed while it was read".into() };
    decode_with(input, looks, chunk, Heads::Whole, progress)?.ok_or_else(changed)
}

/// How the first pass reads a line.
#[derive(Clone, Copy, PartialEq)]
enum Heads {
    /// Every field (the slice decoder's checks, in its order).
    Whole,
    /// Its fields up to its first event; the rest is jumped over.
    Only,
}

/// One decode; `Ok(None)` when a line's timestamp was not the one its
/// head stated (only with [`Heads::Only`]).
fn decode_with(
    input: Input,
    looks: Looks,
    chunk: usize,
    heads: Heads,
    progress: &mut dyn FnMut(Progress),
) -> Result<Option<Profile>, Error> {
    let mut reader = input.open(chunk);
    let gzip = matches!(input, Input::Gzip(..));
    let total_in = input.source().len();
    if !gzip {
        progress(Progress::Parsing);
    }
    let mut report = |r: &Reader| {
        if gzip {
            progress(Progress::Inflating { done: r.consumed(), total: total_in });
        }
    };
    let known_len = (!gzip).then_some(total_in);
    let (head, planes, line_starts) = scan(&mut reader, known_len, looks, heads, &mut report)?;
    if gzip {
        progress(Progress::Parsing);
    }
    let headers: Vec<&XPlane> = planes.iter().map(|(h, _)| h).collect();
    let mut profile = new_profile(head, &headers, &line_starts)?;
    let origin = profile.origin_ns.map(|o| i64::try_from(o).unwrap_or(i64::MAX));
    let total_lines = line_starts.len() as u64;
    let mut line_starts = line_starts.into_iter();
    let mut lines_done = 0u64;
    let mut reader = input.open(chunk);
    // Room for the longest line, once: grown line by line, the buffer kept
    // up to twice the longest line (Vec growth doubles), and the old room
    // beside the new while it moved.
    let longest = planes.iter().flat_map(|(_, lines)| lines).map(|line| line.len).max().unwrap_or(0);
    let mut bytes = Vec::with_capacity(usize::try_from(longest).unwrap_or(usize::MAX));
    for (header, lines) in planes {
        let mut builder = PlaneBuilder::new(header, &mut profile.strings)?;
        let mut built = Vec::with_capacity(lines.len());
        for line in lines {
            bytes.clear();
            bytes.resize(usize::try_from(line.len).unwrap_or(usize::MAX), 0);
            // The first pass read these bytes, so they are there unless the file changed since.
            if !reader.skip_to(line.pos)? || !reader.read_exact(&mut bytes)? {
                return Err(Error::Unreadable { detail: "it became shorter while it was read".into() });
            }
            let (line, timestamp_ns) = decode_line(&mut builder, &bytes, origin, &mut profile.strings)?;
            if line_starts.next() != Some(timestamp_ns) {
                return Ok(None);
            }
            built.push(line);
            lines_done += 1;
            progress(Progress::Building { done: lines_done, total: total_lines });
        }
        profile.planes.push(builder.finish(built));
    }
    Ok(Some(profile))
}

type Scanned = (XSpace, Vec<(XPlane, Vec<LineAt>)>, Vec<i64>);

/// The first pass: the space's own fields, each plane's header and lines,
/// every line's timestamp.
fn scan(
    r: &mut Reader,
    known_len: Option<u64>,
    looks: Looks,
    heads: Heads,
    report: &mut dyn FnMut(&Reader),
) -> Result<Scanned, Error> {
    let mut head = Vec::new();
    let mut planes = Vec::new();
    let mut line_starts = Vec::new();
    let mut found = Found::default();
    let mut last_report = 0;
    while !r.at_end()? {
        let start = r.pos();
        let field = top_field(r, &mut head, looks);
        let field = match field {
            Ok(field) => field,
            Err(stop) => return Err(top_stop(r, stop, start)),
        };
        if let Some(len) = field {
            // A raw file's length is known: a plane past it is a cut file before anything else.
            if known_len.is_some_and(|n| r.pos().saturating_add(len) > n) {
                return Err(top_stop(r, Stop::End, start));
            }
            match scan_plane(r, len, heads, &mut line_starts, &mut found) {
                Ok(Some(plane)) => planes.push(plane),
                Ok(None) => {}
                Err(stop) => return Err(top_stop(r, stop, start)),
            }
        }
        if r.consumed() - last_report >= 1 << 20 {
            last_report = r.consumed();
            report(r);
        }
    }
    report(r);
    let head: XSpace = wire::decode_except(&head, PLANES, SPACE, "profile")?;
    match found {
        Found { plane: Some(e), .. } | Found { line: Some(e), .. } => Err(e),
        _ => Ok((head, planes, line_starts)),
    }
}

/// Damage met while scanning, kept to be told in the order the slice
/// decoder meets it: a cut file first, then the space's fields, then the
/// planes' headers, then the lines' framing.
#[derive(Default)]
struct Found {
    plane: Option<Error>,
    line: Option<Error>,
}

/// The error for a scan of the top level stopped by `stop` in the field
/// starting at `start`: a cut file is told as `sniff::top_level_fields` tells it.
fn top_stop(r: &mut Reader, stop: Stop, start: u64) -> Error {
    match stop {
        Stop::Fail(e) => e,
        // The length of the whole (for gzip: inflated) stream, as the slice decoder says it.
        Stop::End => match r.skip_to(u64::MAX) {
            Ok(_) => Error::Truncated {
                detail: format!("it ends inside a record that starts at byte {start} of {}", r.pos()),
            },
            Err(e) => e,
        },
    }
}

/// One top-level field: a plane's length (its payload is next), or `None`
/// once another field is kept in `head` (or skipped).
fn top_field(r: &mut Reader, head: &mut Vec<u8>, looks: Looks) -> Scan<Option<u64>> {
    let tag = r.varint(u64::MAX)?.ok_or(Stop::End)?;
    let (number, wire_type) = (tag >> 3, tag & 7);
    if wire_type != 2 || !(1..=4).contains(&number) {
        // Not XSpace after all: `sniff` would have said what it is.
        let kind = match () {
            _ if looks.printable => FileKind::Text,
            _ if (1..=536_870_911).contains(&number) && matches!(wire_type, 0 | 1 | 2 | 5) => FileKind::OtherProtobuf,
            _ => FileKind::Unknown,
        };
        return Err(Stop::Fail(Error::NotAProfile { found: kind.describe() }));
    }
    let kept = SPACE.iter().any(|(n, _)| *n == number);
    match wire_type {
        2 => {
            let len = r.varint(u64::MAX)?.ok_or(Stop::End)?;
            if number == PLANES {
                return Ok(Some(len));
            }
            if kept {
                copy_bytes(r, tag, len, head)?;
            } else {
                skip(r, len)?;
            }
        }
        0 => {
            let value = r.varint(u64::MAX)?.ok_or(Stop::End)?;
            if kept {
                put_varint(head, tag);
                put_varint(head, value);
            }
        }
        1 | 5 => {
            let mut fixed = [0; 8];
            let fixed = &mut fixed[..if wire_type == 1 { 8 } else { 4 }];
            if !r.read_exact(fixed)? {
                return Err(Stop::End);
            }
            if kept {
                put_varint(head, tag);
                head.extend_from_slice(fixed);
            }
        }
        other => {
            return Err(Stop::Fail(Error::Corrupt {
                detail: format!("a profile has a field of wire type {other}, which protobuf does not define"),
            }))
        }
    }
    Ok(None)
}

/// A plane of `len` bytes starting at the reader: its header (every kept
/// field but its lines), where each line lies, each line's timestamp.
/// `None` when it is damaged (told in `found`); the reader then ends after it.
fn scan_plane(
    r: &mut Reader,
    len: u64,
    heads: Heads,
    line_starts: &mut Vec<i64>,
    found: &mut Found,
) -> Scan<Option<(XPlane, Vec<LineAt>)>> {
    let end = r.pos().saturating_add(len);
    let mut kept = Vec::new();
    let mut lines = Vec::new();
    let header = match walk_plane(r, len, heads, &mut kept, &mut lines, line_starts, found) {
        Err(Stop::End) => return Err(Stop::End),
        // As the slice decoder merges each field as it walks, the fields before the damage first.
        Err(Stop::Fail(e)) => Err(wire::decode_except::<XPlane>(&kept, LINES, PLANE, "plane").err().unwrap_or(e)),
        Ok(()) => wire::decode_except::<XPlane>(&kept, LINES, PLANE, "plane"),
    };
    match header {
        Ok(header) => Ok(Some((header, lines))),
        Err(e) => {
            found.plane.get_or_insert(e);
            skip(r, end - r.pos().min(end))?;
            Ok(None)
        }
    }
}

fn walk_plane(
    r: &mut Reader,
    len: u64,
    heads: Heads,
    kept: &mut Vec<u8>,
    lines: &mut Vec<LineAt>,
    line_starts: &mut Vec<i64>,
    found: &mut Found,
) -> Scan<()> {
    let mut walk = Message::new(r, len, "plane");
    while let Some((tag, value)) = walk.next(r)? {
        let number = tag >> 3;
        match value {
            Value::Bytes(len) if number == LINES => {
                let pos = r.pos();
                lines.push(LineAt { pos, len });
                match line_timestamp(r, len, heads) {
                    Ok(ts) => line_starts.push(ts),
                    Err(Stop::End) => return Err(Stop::End),
                    Err(Stop::Fail(e)) => {
                        found.line.get_or_insert(e);
                        line_starts.push(0);
                        skip(r, (pos + len).saturating_sub(r.pos()))?;
                    }
                }
            }
            _ if !PLANE.iter().any(|(n, _)| *n == number) => walk.skip_value(r, value)?,
            Value::Bytes(len) => copy_bytes(r, tag, len, kept)?,
            Value::Varint(v) => {
                put_varint(kept, tag);
                put_varint(kept, v);
            }
            Value::Fixed(n) => {
                put_varint(kept, tag);
                let mut fixed = [0; 8];
                if !r.read_exact(&mut fixed[..n])? {
                    return Err(Stop::End);
                }
                kept.extend_from_slice(&fixed[..n]);
            }
        }
    }
    Ok(())
}

/// A line's `timestamp_ns` (the last one, as protobuf reads it; with
/// [`Heads::Only`], the last before its first event), reading its framing
/// only; the reader ends after the line.
fn line_timestamp(r: &mut Reader, len: u64, heads: Heads) -> Scan<i64> {
    let mut ts = 0;
    let mut walk = Message::new(r, len, "line");
    while let Some((tag, value)) = walk.next(r)? {
        match value {
            Value::Varint(v) if tag >> 3 == LINE_TIMESTAMP => ts = v as i64,
            _ if heads == Heads::Only && tag >> 3 == EVENTS => return skip(r, walk.end - r.pos()).map(|()| ts),
            other => walk.skip_value(r, other)?,
        }
    }
    Ok(ts)
}

/// A field's value as its header tells; a payload is next in the stream.
#[derive(Clone, Copy)]
enum Value {
    Varint(u64),
    Bytes(u64),
    Fixed(usize),
}

/// A nested message's fields, walked as `wire::fields` walks a slice:
/// the same checks, and errors with positions counted from its start.
struct Message {
    start: u64,
    end: u64,
    what: &'static str,
}

impl Message {
    fn new(r: &Reader, len: u64, what: &'static str) -> Message {
        Message { start: r.pos(), end: r.pos().saturating_add(len), what }
    }

    fn truncated(&self, at: u64) -> Stop {
        Stop::Fail(Error::Truncated {
            detail: format!("a {} ends inside a field at byte {}", self.what, at - self.start),
        })
    }

    /// The next field's tag and value; `None` after the last. The stream
    /// ending inside the message is [`Stop::End`].
    fn next(&mut self, r: &mut Reader) -> Scan<Option<(u64, Value)>> {
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
    fn skip_value(&self, r: &mut Reader, value: Value) -> Scan<()> {
        match value {
            Value::Varint(_) => Ok(()),
            Value::Bytes(n) => skip(r, n),
            Value::Fixed(n) => skip(r, n as u64),
        }
    }
}

fn skip(r: &mut Reader, n: u64) -> Scan<()> {
    match r.skip_to(r.pos().saturating_add(n))? {
        true => Ok(()),
        false => Err(Stop::End),
    }
}

/// Appends a length-delimited field (tag, length, the payload read from
/// the stream) to `out`, growing it as bytes arrive: a length a crafted
/// file states is never allocated before the bytes are there.
fn copy_bytes(r: &mut Reader, tag: u64, len: u64, out: &mut Vec<u8>) -> Scan<()> {
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

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}
