//! Trace JSON read in a stream from its source (raw or gzip), never held
//! whole: a small scanner finds each event's extent in the `traceEvents`
//! list (minding strings, escapes and nesting) and that one event is
//! parsed exactly as the in-memory path parses it ([`super::parse_event`]). The mappings walk the
//! events in passes ([`super::walk`]), so the file is read two or three
//! times (three when it has flow events); memory is the model plus one
//! event and the read buffer. A hand scanner rather than serde's
//! `StreamDeserializer` over a `Read`: serde cannot borrow from a reader,
//! so every string and raw number would be copied, and the mappings would
//! need an owned event type of their own.
//!
//! The top-level keys other than `traceEvents` (small: versions, device
//! properties) are gathered into one JSON object and parsed as the
//! in-memory path parses the top level, so both read them alike.

use super::event_walk::EventWalk;
use super::scan::extent;
use super::scan_event::HEAD_KEYS;
use super::value_end::{Step, ValueEnd};
use super::walk::Survey;
use super::{build, head, json_error, parse_event, unclosed_list, RawEvent, RawTrace, Skipped};
use crate::gunzip_stream::GunzipFill;
use crate::source::ByteSource;
use crate::stream_reader::{Reader, SourceFill};
use crate::{Error, Progress};
use proflens_model::Profile;
use serde::de::IgnoredAny;

/// Decodes the trace JSON in `source` (gzip, refusing output past the
/// limit, when `gzip` is given), reading `chunk` bytes at a time.
pub(crate) fn decode_stream(
    source: &dyn ByteSource,
    gzip: Option<u64>,
    chunk: usize,
    progress: &mut dyn FnMut(Progress),
) -> Result<Profile, Error> {
    if gzip.is_none() {
        progress(Progress::Parsing);
    }
    let mut walk = StreamWalk { source, gzip, chunk };
    let mut head_json = Vec::new();
    let mut survey = Survey::default();
    let mut skipped = Skipped::default();
    let mut n = 0;
    let read = walk.read(&mut head_json, &mut |bytes, consumed| {
        if gzip.is_some() && (n + skipped.count) % 65_536 == 0 {
            progress(Progress::Inflating { done: consumed, total: source.len() });
        }
        match parse_event(bytes) {
            Ok(e) => {
                survey.see(n, &e);
                n += 1;
            }
            // Fields of the wrong type: skipped, as the in-memory lenient pass does.
            Err(e) if e.is_data() => {
                skipped.count += 1;
                skipped.first.get_or_insert_with(|| e.to_string());
            }
            Err(e) => return Err(json_error(e)),
        }
        Ok(())
    });
    let top = match read {
        // In memory, an event of the wrong types before the damage is what is reported.
        Err(Error::Truncated { .. } | Error::BadJson { .. }) if skipped.count > 0 => {
            let first = skipped.first.unwrap_or_default();
            return Err(Error::BadJson { detail: format!("a field has the wrong type ({first})") });
        }
        read => read?,
    };
    let raw: RawTrace<IgnoredAny> = match top {
        Top::List { unclosed } => {
            skipped.unclosed = unclosed;
            RawTrace::default()
        }
        Top::Object { .. } => serde_json::from_slice(&head_json).map_err(json_error)?,
    };
    if let Top::Object { events: false } = top {
        // `"traceEvents": null` parses as absent; a list of anything else is refused above.
        return Err(Error::NotATrace { detail: "it is an object without a \"traceEvents\" list".to_string() });
    }
    if n == 0 && skipped.count > 0 {
        return Err(Error::BadJson {
            detail: format!(
                "none of its {} trace events has the expected fields ({})",
                skipped.count,
                skipped.first.unwrap_or_default()
            ),
        });
    }
    let head = head(raw)?;
    if gzip.is_some() {
        progress(Progress::Parsing);
    }
    build(&head, &survey, &mut walk, skipped, progress)
}

/// Called with each event's bytes, and the bytes of the file read so far.
type OnEvent<'a> = dyn FnMut(&[u8], u64) -> Result<(), Error> + 'a;

/// The trace's source, read from its start once per pass.
struct StreamWalk<'a> {
    source: &'a dyn ByteSource,
    gzip: Option<u64>,
    chunk: usize,
}

impl EventWalk for StreamWalk<'_> {
    fn each(&mut self, f: &mut dyn FnMut(usize, &RawEvent)) -> Result<(), Error> {
        let mut n = 0;
        // The first pass refused what does not parse; the rest are skipped as it skipped them.
        self.read(&mut Vec::new(), &mut |bytes, _| {
            if let Ok(e) = parse_event(bytes) {
                f(n, &e);
                n += 1;
            }
            Ok(())
        })?;
        Ok(())
    }
}

/// What the top level was.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Top {
    /// A list of events; `unclosed`: it ends without its `]`.
    List { unclosed: bool },
    /// An object; `events`: it has a `traceEvents` list.
    Object { events: bool },
}

impl<'a> StreamWalk<'a> {
    fn open(&self) -> Reader<'a> {
        match self.gzip {
            None => Reader::new(Box::new(SourceFill::new(self.source)), self.chunk),
            Some(limit) => Reader::new(Box::new(GunzipFill::new(self.source, limit, self.chunk)), self.chunk),
        }
    }

    /// Reads the file once: each event's bytes go to `on_event`; the other
    /// top-level keys, with their values, to `head` as one JSON object.
    fn read(&self, head: &mut Vec<u8>, on_event: &mut OnEvent) -> Result<Top, Error> {
        let mut r = self.open();
        skip_bom(&mut r)?;
        let top = match skip_ws(&mut r)? {
            None => return Err(Error::Empty),
            Some(b'[') => {
                r.consume(1);
                Top::List { unclosed: events(&mut r, on_event, true)? }
            }
            Some(b'{') => {
                r.consume(1);
                object(&mut r, head, on_event)?
            }
            Some(_) => return Err(Error::NotATrace { detail: "it is neither a JSON object nor a list".to_string() }),
        };
        match skip_ws(&mut r)? {
            None => Ok(top),
            Some(_) => Err(bad(&r, "trailing characters after the trace")),
        }
    }
}

/// The top-level object's keys, after its `{`.
fn object(r: &mut Reader, head: &mut Vec<u8>, on_event: &mut OnEvent) -> Result<Top, Error> {
    head.push(b'{');
    let mut events_list = false;
    let mut trace_events_seen = false;
    if skip_ws(r)? == Some(b'}') {
        r.consume(1);
        head.push(b'}');
        return Ok(Top::Object { events: false });
    }
    let (mut key, mut scratch) = (Vec::new(), Vec::new());
    loop {
        if skip_ws(r)? != Some(b'"') {
            return Err(end_or_bad(r, "a key expected")?);
        }
        key.clear();
        value(r, &mut key, value_damage)?;
        let name: String = serde_json::from_slice(&key).map_err(json_error)?;
        if skip_ws(r)? != Some(b':') {
            return Err(end_or_bad(r, "':' expected")?);
        }
        r.consume(1);
        if name == "traceEvents" {
            if trace_events_seen {
                return Err(bad(r, "duplicate field `traceEvents`"));
            }
            trace_events_seen = true;
        }
        if name == "traceEvents" && skip_ws(r)? == Some(b'[') {
            r.consume(1);
            // Perfetto reads an object cut inside its list as incomplete: an error here too.
            events(r, on_event, false)?;
            events_list = true;
        } else if name != "traceEvents" && !HEAD_KEYS.contains(&name.as_str()) {
            // Ignored, as serde ignores it: its syntax checked, not its text.
            scratch.clear();
            value(r, &mut scratch, syntax_damage)?;
            if let Some(e) = syntax_damage(&scratch) {
                return Err(e);
            }
        } else {
            if head.len() > 1 {
                head.push(b',');
            }
            head.extend_from_slice(&key);
            head.push(b':');
            let start = head.len();
            value(r, head, value_damage)?;
            // Checked now, so that damage here fails here, as in memory.
            if let Some(e) = value_damage(&head[start..]) {
                return Err(e);
            }
        }
        match skip_ws(r)? {
            Some(b',') => r.consume(1),
            Some(b'}') => {
                r.consume(1);
                break;
            }
            _ => return Err(end_or_bad(r, "',' or '}' expected")?),
        }
    }
    head.push(b'}');
    Ok(Top::Object { events: events_list })
}

/// The events of a list, after its `[`: each one's bytes to `on_event`.
/// With `may_end`, the end of the file may close the list, as in memory
/// ([`super::unclosed_list`], whose rules this follows): then `true`.
fn events(r: &mut Reader, on_event: &mut OnEvent, may_end: bool) -> Result<bool, Error> {
    if skip_ws(r)? == Some(b']') {
        r.consume(1);
        return Ok(false);
    }
    // An event cut by the end is dropped, not read: only its syntax counts.
    let check: Check = if may_end { cut_damage } else { event_damage };
    let mut event = Vec::new();
    let mut complete = 0usize;
    loop {
        event.clear();
        // Most events lie whole in the read buffer: found there at once.
        let buf = r.buffered()?;
        let start = buf.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(buf.len());
        if let Some(n) = buf.get(start..).filter(|b| b.first() == Some(&b'{')).and_then(extent) {
            event.extend_from_slice(&buf[start..start + n]);
            r.consume(start + n);
        } else {
            match value(r, &mut event, check) {
                // The end of the file, not of a gzip stream cut short.
                Err(Error::Truncated { .. }) if may_end && r.ended() => return list_end(r, complete),
                read => read?,
            }
        }
        // A number or literal that runs to the end may have lost digits:
        // left out, unless it is damaged already (as in memory).
        if may_end && !matches!(event.first(), Some(b'{' | b'[' | b'"')) && r.at_end()? {
            return match cut_damage(&event) {
                Some(e) => Err(e),
                None => list_end(r, complete),
            };
        }
        on_event(&event, r.consumed())?;
        complete += 1;
        match skip_ws(r)? {
            Some(b',') => r.consume(1),
            Some(b']') => {
                r.consume(1);
                return Ok(false);
            }
            None if may_end => return list_end(r, complete),
            _ => return Err(end_or_bad(r, "',' or ']' expected")?),
        }
    }
}

/// The end of the file in a list after `complete` events: truncated before
/// the first, else the list's end.
fn list_end(r: &Reader, complete: usize) -> Result<bool, Error> {
    if complete == 0 {
        return Err(truncated(r));
    }
    Ok(true)
}

/// Appends one JSON value's bytes to `out`: an object, list or string to
/// its end (serde checks what is inside), a number or literal to the next
/// delimiter.
fn value(r: &mut Reader, out: &mut Vec<u8>, check: Check) -> Result<(), Error> {
    match skip_ws(r)? {
        None => Err(truncated(r)),
        Some(b'{' | b'[' | b'"') => nested(r, out, check),
        Some(_) => scalar(r, out),
    }
}

/// An object, list or string, whose first byte is next. A bracket that
/// closes the wrong kind is refused here; the rest of the syntax inside is
/// serde's to check, except where the value runs long (damage that makes
/// the rest of the file one value): serde then checks it at each doubling,
/// so a damaged file fails at its damage, as in memory, and holds little.
fn nested(r: &mut Reader, out: &mut Vec<u8>, check: Check) -> Result<(), Error> {
    let start = out.len();
    let mut check_at = start + CHECK_FIRST;
    let mut scan = ValueEnd::default();
    loop {
        let buf = r.buffered()?;
        if buf.is_empty() {
            return Err(check(&out[start..]).unwrap_or_else(|| truncated(r)));
        }
        let mut end = None;
        let mut wrong = false;
        for (i, &b) in buf.iter().enumerate() {
            match scan.feed(b) {
                Step::Inside => {}
                Step::End => {
                    end = Some(i + 1);
                    break;
                }
                Step::Wrong => {
                    (end, wrong) = (Some(i + 1), true);
                    break;
                }
            }
        }
        let n = end.unwrap_or(buf.len());
        out.extend_from_slice(&buf[..n]);
        r.consume(n);
        if wrong {
            return Err(check(&out[start..]).unwrap_or_else(|| bad(r, "a bracket closes the wrong kind")));
        }
        if end.is_some() {
            return Ok(());
        }
        if out.len() >= check_at {
            // A read can end inside a number: that is no damage.
            if let Some(e) = cut_damage(&out[start..]) {
                return Err(e);
            }
            if out.len() - start > MAX_VALUE_BYTES {
                return Err(bad(r, &format!("a value longer than {} MiB", MAX_VALUE_BYTES >> 20)));
            }
            check_at = start + 2 * (out.len() - start);
        }
    }
}

/// When a value still open is first checked for damage (bytes).
const CHECK_FIRST: usize = 1 << 20;

/// The longest value (one event, one top-level key) taken: events are
/// kilobytes; only damage makes one this long.
const MAX_VALUE_BYTES: usize = 256 << 20;

/// The error the in-memory parse meets in the start of a value before the
/// value's end, if any (one only cut short has none): serde reads up to the
/// first error, so a damaged file fails at its damage, as in memory.
type Check = fn(&[u8]) -> Option<Error>;

/// [`Check`] for an event (read as the in-memory path reads events).
fn event_damage(value: &[u8]) -> Option<Error> {
    first_error(serde_json::from_slice::<RawEvent>(value).err())
}

/// [`Check`] for any other value (strings checked as UTF-8, as in memory).
fn value_damage(value: &[u8]) -> Option<Error> {
    first_error(serde_json::from_slice::<serde_json::Value>(value).err())
}

/// [`Check`] for a value serde skips: its syntax only.
fn syntax_damage(value: &[u8]) -> Option<Error> {
    first_error(serde_json::from_slice::<IgnoredAny>(value).err())
}

/// [`Check`] for the start of a value cut by the end of a read or of the
/// file ([`unclosed_list::prefix_damage`]).
fn cut_damage(value: &[u8]) -> Option<Error> {
    unclosed_list::prefix_damage(value).map(json_error)
}

fn first_error(e: Option<serde_json::Error>) -> Option<Error> {
    e.filter(|e| !e.is_eof()).map(json_error)
}

/// A number or literal: the bytes up to the next delimiter.
fn scalar(r: &mut Reader, out: &mut Vec<u8>) -> Result<(), Error> {
    let start = out.len();
    loop {
        let buf = r.buffered()?;
        let end = buf.iter().position(|&b| matches!(b, b',' | b']' | b'}' | b':') || b.is_ascii_whitespace());
        let n = end.unwrap_or(buf.len());
        out.extend_from_slice(&buf[..n]);
        r.consume(n);
        if end.is_some() || n == 0 {
            break;
        }
    }
    if out.len() == start {
        return Err(end_or_bad(r, "a value expected")?);
    }
    Ok(())
}

/// The next byte that is not whitespace, left unread; `None` at the end.
fn skip_ws(r: &mut Reader) -> Result<Option<u8>, Error> {
    loop {
        let buf = r.buffered()?;
        if buf.is_empty() {
            return Ok(None);
        }
        match buf.iter().position(|b| !b.is_ascii_whitespace()) {
            Some(i) => {
                let b = buf[i];
                r.consume(i);
                return Ok(Some(b));
            }
            None => {
                let n = buf.len();
                r.consume(n);
            }
        }
    }
}

/// Skips a UTF-8 byte-order mark (Windows tools write one).
fn skip_bom(r: &mut Reader) -> Result<(), Error> {
    if r.buffered()?.first() == Some(&0xEF) {
        let mut bom = [0u8; 3];
        if !r.read_exact(&mut bom)? || bom != [0xEF, 0xBB, 0xBF] {
            return Err(bad(r, "it starts with bytes that are not JSON"));
        }
    }
    Ok(())
}

fn truncated(r: &Reader) -> Error {
    Error::Truncated { detail: format!("the JSON ends early, at byte {}", r.pos()) }
}

fn bad(r: &Reader, what: &str) -> Error {
    Error::BadJson { detail: format!("it is not valid JSON ({what} at byte {})", r.pos()) }
}

/// [`truncated`] at the end of the stream, else [`bad`].
fn end_or_bad(r: &mut Reader, what: &str) -> Result<Error, Error> {
    Ok(if r.at_end()? { truncated(r) } else { bad(r, what) })
}
