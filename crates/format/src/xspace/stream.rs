//! XSpace decoded from a stream without holding the file: peak memory is
//! the model, the planes' metadata and the longest line no longer than a
//! read (a longer one is decoded as it streams).
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
//! A line longer than a read (most of a big profile's bytes lie in a few
//! threads' lines) is decoded as it streams, an event at a time
//! ([`line`]), not read whole first: its bytes were the largest thing
//! decoding held (the 10.4M-event profile's longest line is 110 MiB). Its
//! columns are allocated once, at about their size: the first pass counts
//! its events where it walks the line whole (gzip), and otherwise estimates
//! them from the first events the reader holds (walking the line to count
//! them read the file twice).
//!
//! Errors are the slice decoder's: the same checks, with offsets counted
//! the same way, so a damaged file reads the same either way. A line
//! decoded as it streams that fails in any way has the file decoded again
//! with every line read whole, whose errors are those.

use super::{
    capture_window, decode_line, new_profile, PlaneBuilder, EVENTS, LINES, LINE_TIMESTAMP, PLANE, PLANES, SPACE,
};

mod fields;
mod line;
use crate::gunzip_stream::GunzipFill;
use crate::proto::{XPlane, XSpace};
use crate::source::ByteSource;
use crate::stream_reader::{Reader, SourceFill};
use crate::{wire, Error, FileKind, Progress};
use fields::{copy_bytes, put_varint, skip, skip_held_events, Message, Value};
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
    /// How many events it holds, where the first pass counted them or
    /// (for a long line it jumped over) estimated them.
    events: Option<u64>,
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
    let streamed = Lines::StreamedAbove(chunk as u64);
    match input {
        Input::Raw(_) => {
            let heads = Heads::Only { whole_above: chunk as u64 };
            if let Ok(Some(profile)) = decode_with(input, looks, chunk, heads, streamed, progress) {
                return Ok(profile);
            }
        }
        // Inflating is most of the time: the errors of a first try stand
        // (they are the slice decoder's) but where a streamed line failed.
        Input::Gzip(..) => {
            if let Some(profile) = decode_with(input, looks, chunk, Heads::Whole, streamed, progress)? {
                return Ok(profile);
            }
        }
    }
    // Whole heads state the timestamps decoding reads, unless the file changes between the passes.
    let changed = || Error::Unreadable { detail: "it changed while it was read".into() };
    decode_with(input, looks, chunk, Heads::Whole, Lines::Whole, progress)?.ok_or_else(changed)
}

/// How the first pass reads a line.
#[derive(Clone, Copy)]
enum Heads {
    /// Every field (the slice decoder's checks, in its order).
    Whole,
    /// Its fields up to its first event; the rest is jumped over (the
    /// events of a line longer than `whole_above` bytes are first estimated
    /// from those the reader holds).
    Only { whole_above: u64 },
}

/// How the second pass reads a line.
#[derive(Clone, Copy)]
enum Lines {
    /// Whole, then decoded from memory.
    Whole,
    /// As it streams when it is longer than this many bytes, else whole.
    StreamedAbove(u64),
}

/// One decode; `Ok(None)` when a line's timestamp was not the one its
/// head stated (only with [`Heads::Only`]), or a streamed line failed.
fn decode_with(
    input: Input,
    looks: Looks,
    chunk: usize,
    heads: Heads,
    lines_read: Lines,
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
    let mut profile = new_profile(&head, headers.len(), capture_window(&headers), &line_starts)?;
    let origin = profile.origin_ns.map(|o| i64::try_from(o).unwrap_or(i64::MAX));
    let total_lines = line_starts.len() as u64;
    let mut line_starts = line_starts.into_iter();
    let mut lines_done = 0u64;
    let mut reader = input.open(chunk);
    let streamed = |line: &LineAt| matches!(lines_read, Lines::StreamedAbove(n) if line.len > n);
    // Room for the longest line read whole, once: grown line by line, the
    // buffer kept up to twice the longest line (Vec growth doubles), and the
    // old room beside the new while it moved.
    let whole = planes.iter().flat_map(|(_, lines)| lines).filter(|line| !streamed(line));
    let longest = whole.map(|line| line.len).max().unwrap_or(0);
    let mut bytes = Vec::with_capacity(usize::try_from(longest).unwrap_or(usize::MAX));
    let shorter = || Error::Unreadable { detail: "it became shorter while it was read".into() };
    for (header, lines) in planes {
        let mut builder = PlaneBuilder::new(header, &mut profile.strings)?;
        let mut built = Vec::with_capacity(lines.len());
        for line in lines {
            // The first pass read these bytes, so they are there unless the file changed since.
            if !reader.skip_to(line.pos)? {
                return Err(shorter());
            }
            let decoded = if streamed(&line) {
                let stated = line_starts.as_slice().first().copied().unwrap_or(0);
                let read = line::Read { len: line.len, events: line.events, timestamp_ns: stated, origin };
                match line::decode(&mut reader, &mut builder, &read, &mut profile.strings, &mut bytes).ok() {
                    Some(decoded) => decoded,
                    None => return Ok(None),
                }
            } else {
                bytes.clear();
                bytes.resize(usize::try_from(line.len).unwrap_or(usize::MAX), 0);
                if !reader.read_exact(&mut bytes)? {
                    return Err(shorter());
                }
                decode_line(&mut builder, &bytes, origin, &mut profile.strings)?
            };
            let (line, timestamp_ns) = decoded;
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
                let events = match line_head(r, len, heads) {
                    Ok((ts, events)) => {
                        line_starts.push(ts);
                        events
                    }
                    Err(Stop::End) => return Err(Stop::End),
                    Err(Stop::Fail(e)) => {
                        found.line.get_or_insert(e);
                        line_starts.push(0);
                        skip(r, (pos + len).saturating_sub(r.pos()))?;
                        None
                    }
                };
                lines.push(LineAt { pos, len, events });
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

/// A line's `timestamp_ns` (the last one, as protobuf reads it; where
/// [`Heads::Only`] jumps over its events, the last before the first), and
/// how many events it holds: counted where it was walked whole, estimated
/// from the events the reader holds where a long line is jumped over. The
/// reader ends after the line.
fn line_head(r: &mut Reader, len: u64, heads: Heads) -> Scan<(i64, Option<u64>)> {
    let (jump, long) = match heads {
        Heads::Whole => (false, false),
        Heads::Only { whole_above } => (true, len > whole_above),
    };
    let (mut ts, mut events) = (0, 0);
    let mut walk = Message::new(r, len, "line");
    loop {
        if !jump {
            // Events lying whole in the buffer are counted there.
            events += skip_held_events(r, walk.end)?;
        }
        let field_start = r.pos();
        let Some((tag, value)) = walk.next(r)? else { break };
        match value {
            Value::Varint(v) if tag >> 3 == LINE_TIMESTAMP => ts = v as i64,
            _ if jump && tag >> 3 == EVENTS => {
                let estimate = if long { Some(estimate_events(r, &walk, field_start, value)?) } else { None };
                return skip(r, walk.end - r.pos()).map(|()| (ts, estimate));
            }
            other => {
                events += u64::from(tag >> 3 == EVENTS);
                walk.skip_value(r, other)?;
            }
        }
    }
    Ok((ts, Some(events)))
}

/// How many events a line holds from `field_start` (its first event's
/// field, whose `value` is next) to its end, estimated from those the
/// reader holds, with a sixteenth more: the columns are allocated at it,
/// so that they need not grow (read whole, the file was read twice). At
/// most one per 8 bytes, whatever the first events are.
fn estimate_events(r: &mut Reader, walk: &Message, field_start: u64, value: Value) -> Scan<u64> {
    walk.skip_value(r, value)?;
    let held = 1 + skip_held_events(r, walk.end)?;
    let (sampled, rest) = (r.pos() - field_start, walk.end - field_start);
    let estimate = u128::from(held) * u128::from(rest) / u128::from(sampled.max(1));
    Ok(u64::try_from(estimate + estimate / 16).unwrap_or(u64::MAX).min(rest / 8 + 1))
}
