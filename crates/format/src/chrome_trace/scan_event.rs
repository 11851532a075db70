//! Trace events read by hand ([`super::scan`]) instead of by serde: only
//! the fields the mappings read are kept, borrowed from the input, and an
//! event's `args` are kept as their text until a mapping reads them
//! ([`LazyArgs`]): the passes that only place or survey events never pay
//! for them. Whatever the scanner is not sure of makes it give up, and the
//! caller reads the bytes with serde as before, so results and error
//! messages are serde's; this is the fast path, not a second reader.

use super::args::{LazyArgs, Raw, Text};
use super::scan::{Bail, Cursor, Scan};
use super::{head, Head, RawEvent, RawTrace};
use serde::de::IgnoredAny;

/// The top-level keys the mappings read besides `traceEvents` ([`RawTrace`]).
pub(crate) const HEAD_KEYS: [&str; 9] = [
    "baseTimeNanoseconds",
    "deviceProperties",
    "distributedInfo",
    "schemaVersion",
    "cuda_runtime_version",
    "cuda_driver_version",
    "cupti_version",
    "roctracer_version",
    "hip_runtime_version",
];

/// A whole trace held in memory: its top level and its events, when the
/// scanner reads all of it.
pub(crate) fn document(bytes: &[u8]) -> Scan<(Head, Vec<RawEvent<'_>>)> {
    let text = std::str::from_utf8(bytes).map_err(|_| Bail)?;
    let mut c = Cursor::new(text);
    let (head_json, events) = match c.peek() {
        Some(b'[') => (None, list(&mut c)?),
        Some(b'{') => {
            let (head_json, events) = object(&mut c)?;
            (Some(head_json), events)
        }
        _ => return Err(Bail),
    };
    if c.peek().is_some() {
        return Err(Bail);
    }
    let head = match head_json {
        None => Head::default(),
        // The few top-level keys read, as the in-memory path reads them.
        Some(json) => {
            head(serde_json::from_slice::<RawTrace<IgnoredAny>>(&json).map_err(|_| Bail)?).map_err(|_| Bail)?
        }
    };
    Ok((head, events))
}

/// The top-level object: its events, and its other keys read by the
/// mappings as one JSON object.
fn object<'a>(c: &mut Cursor<'a>) -> Scan<(Vec<u8>, Vec<RawEvent<'a>>)> {
    c.expect(b'{')?;
    let mut head_json = b"{".to_vec();
    let mut events = None;
    if c.peek() != Some(b'}') {
        loop {
            let (key, escaped) = c.key()?;
            if escaped {
                return Err(Bail);
            }
            if key == "traceEvents" {
                if events.is_some() {
                    return Err(Bail);
                }
                events = Some(list(c)?);
            } else if HEAD_KEYS.contains(&key) {
                if head_json.len() > 1 {
                    head_json.push(b',');
                }
                head_json.extend_from_slice(format!("\"{key}\":").as_bytes());
                head_json.extend_from_slice(c.value()?.as_bytes());
            } else {
                c.value()?;
            }
            if c.peek() == Some(b',') {
                c.at += 1;
            } else {
                break;
            }
        }
    }
    c.expect(b'}')?;
    head_json.push(b'}');
    Ok((head_json, events.ok_or(Bail)?))
}

/// A list of events, its `[` next.
fn list<'a>(c: &mut Cursor<'a>) -> Scan<Vec<RawEvent<'a>>> {
    c.expect(b'[')?;
    // Kineto's events are 300 bytes or so: room for more than that, so the
    // list is not copied as it grows (pages not filled are never touched).
    let mut events = Vec::with_capacity(c.text.len() / 256);
    if c.peek() == Some(b']') {
        c.at += 1;
        return Ok(events);
    }
    loop {
        events.push(event(c)?);
        match c.peek() {
            Some(b',') => c.at += 1,
            Some(b']') => {
                c.at += 1;
                return Ok(events);
            }
            _ => return Err(Bail),
        }
    }
}

/// One event whose bytes are exactly `bytes` (the streamed reader's).
pub(crate) fn event_bytes(bytes: &[u8]) -> Scan<RawEvent<'_>> {
    let mut c = Cursor::new(std::str::from_utf8(bytes).map_err(|_| Bail)?);
    let e = event(&mut c)?;
    if c.peek().is_some() {
        return Err(Bail);
    }
    Ok(e)
}

/// One event, its `{` next. Each field read is checked to be of the type
/// serde would take (else: give up); the others are skipped, their grammar
/// checked.
fn event<'a>(c: &mut Cursor<'a>) -> Scan<RawEvent<'a>> {
    c.expect(b'{')?;
    let mut e = RawEvent::default();
    if c.peek() == Some(b'}') {
        c.at += 1;
        return Ok(e);
    }
    // Fields seen, one bit each: serde refuses a field given twice.
    let mut seen = 0u16;
    loop {
        let (key, escaped) = c.key()?;
        if escaped {
            return Err(Bail);
        }
        let bit = match key {
            "ph" => 0,
            "name" => 1,
            "cat" => 2,
            "pid" => 3,
            "tid" => 4,
            "ts" => 5,
            "dur" => 6,
            "args" => 7,
            "id" => 8,
            "bp" => 9,
            "bind_id" => 10,
            "flow_in" => 11,
            "flow_out" => 12,
            _ => 16,
        };
        if bit < 16 {
            if seen & (1 << bit) != 0 {
                return Err(Bail);
            }
            seen |= 1 << bit;
        }
        match bit {
            0 => e.ph = text(c)?,
            1 => e.name = text(c)?,
            2 => e.cat = text(c)?,
            3 => e.pid = raw(c)?,
            4 => e.tid = raw(c)?,
            5 => e.ts = Some(time(c)?),
            6 => e.dur = Some(time(c)?),
            7 => e.args = args_text(c)?,
            8 => e.id = raw(c)?,
            9 => e.bp = text(c)?,
            10 => e.bind_id = raw(c)?,
            11 => e.flow_in = raw(c)?,
            12 => e.flow_out = raw(c)?,
            _ => {
                c.value()?;
            }
        }
        match c.peek() {
            Some(b',') => c.at += 1,
            Some(b'}') => {
                c.at += 1;
                return Ok(e);
            }
            _ => return Err(Bail),
        }
    }
}

/// `null` (as serde reads it into an `Option`), else the value.
fn is_null(c: &mut Cursor) -> bool {
    if c.peek() == Some(b'n') && c.text.as_bytes()[c.at..].starts_with(b"null") {
        c.at += 4;
        return true;
    }
    false
}

/// A string field: borrowed unless it has escapes.
fn text<'a>(c: &mut Cursor<'a>) -> Scan<Option<Text<'a>>> {
    if is_null(c) {
        return Ok(None);
    }
    if c.peek() != Some(b'"') {
        return Err(Bail);
    }
    Ok(Some(Text(c.text()?)))
}

/// A field kept as its text.
fn raw<'a>(c: &mut Cursor<'a>) -> Scan<Option<Raw<'a>>> {
    if is_null(c) {
        return Ok(None);
    }
    Ok(Some(Raw(c.value()?)))
}

/// `ts` or `dur`: its text, whatever its type, unless a string that holds
/// no number ([`super::time`]: serde reports the event).
fn time<'a>(c: &mut Cursor<'a>) -> Scan<Raw<'a>> {
    let text = c.value()?;
    if text.starts_with('"') && super::us_text_to_ps(text).is_none() {
        return Err(Bail);
    }
    Ok(Raw(text))
}

/// `args`: an object kept as its text (its grammar checked), or `null`.
fn args_text<'a>(c: &mut Cursor<'a>) -> Scan<LazyArgs<'a>> {
    if is_null(c) {
        return Ok(LazyArgs::default());
    }
    if c.peek() != Some(b'{') {
        return Err(Bail);
    }
    Ok(LazyArgs::of_text(c.value()?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chrome_trace::ArgValue;

    fn serde_event(json: &str) -> Option<RawEvent<'_>> {
        serde_json::from_str::<RawEvent>(json).ok()
    }

    fn same(a: &RawEvent, b: &RawEvent) -> bool {
        let raw = |r: Option<Raw>| r.map(|r| r.0.to_string());
        (a.ph(), a.name(), a.cat(), a.bp.as_ref().map(|t| &t.0))
            == (b.ph(), b.name(), b.cat(), b.bp.as_ref().map(|t| &t.0))
            && [a.pid, a.tid, a.ts, a.dur, a.id, a.bind_id, a.flow_in, a.flow_out].map(raw)
                == [b.pid, b.tid, b.ts, b.dur, b.id, b.bind_id, b.flow_in, b.flow_out].map(raw)
            && a.args.get().map(|a| a.iter().map(|(k, v)| (k.to_string(), json(v))).collect::<Vec<_>>())
                == b.args.get().map(|a| a.iter().map(|(k, v)| (k.to_string(), json(v))).collect::<Vec<_>>())
    }

    /// An arg as the JSON value it stands for (a kept list as its parse).
    fn json(v: &ArgValue) -> serde_json::Value {
        serde_json::to_value(v).unwrap()
    }

    #[test]
    fn reads_events_as_serde_does_or_gives_up() {
        let cases = [
            r#"{"ph":"X","name":"a\"b","cat":"kernel","pid":1,"tid":"stream 7","ts":1.5,"dur":"2","extra":[1,{"x":null}],
               "args":{"z":1,"s":"t","b":true,"n":null,"f":1.25,"neg":-3,"big":18446744073709551615,"neg0":-0,
                       "dims":[[1,2],[]],"types":["float",""],"obj":{"b":1,"a":2},"spaced":[1, 2],"z":2,"e\u00e9":1e3}}"#,
            r#"{"ph":"s","id":"0x1","bp":"e","bind_id":5,"flow_in":true,"flow_out":null,"pid":null,"name":null}"#,
            r#"{}"#,
            r#"{"ts":null,"dur":true,"args":null}"#,
            // serde refuses these: the scanner must give up on them.
            r#"{"ph":"X","ph":"Y"}"#,
            r#"{"name":7}"#,
            r#"{"ts":"soon"}"#,
            r#"{"args":[1]}"#,
            r#"{"args":{"a":01}}"#,
            r#"{"ph":"X",}"#,
            r#"{"p\u0068":"X"}"#,
            r#"[1]"#,
        ];
        for json in cases {
            let ours = event_bytes(json.as_bytes());
            match (ours, serde_event(json)) {
                (Ok(a), Some(b)) => assert!(same(&a, &b), "{json}"),
                (Err(Bail), _) => assert!(
                    serde_event(json).is_none() || json.contains("\\u0068"),
                    "gave up on what serde reads: {json}"
                ),
                (Ok(_), None) => panic!("read what serde refuses: {json}"),
            }
        }
    }
}
