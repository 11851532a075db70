//! The list form of a trace (`[{…},{…}`) that ends without its closing
//! `]`, as a process that dies mid-write leaves it (often after the comma
//! that followed its last event). The Trace Event Format allows it, and
//! Chrome and Perfetto open such files: Perfetto's JSON tokenizer accepts
//! the end of the file inside the top-level list (and only there: the end
//! of the file inside the object form's `traceEvents` is "incomplete", an
//! error), keeping every complete event and dropping one cut short.
//!
//! This is the in-memory side; the streamed reader ([`super::stream`])
//! keeps the same events by the same rules:
//! * only the end of the file may break the list: any other damage fails
//!   as it fails in a closed list;
//! * an element cut short by the end is left out, and so is a number or
//!   literal that runs to the very end (its last digits may be missing);
//! * a list with no complete element is truncated, as before.

use super::json_error;
use super::value_end::{Step, ValueEnd};
use crate::Error;
use serde::de::IgnoredAny;
use serde::Deserialize;

/// The warning a profile of an unclosed list carries.
pub(crate) const WARNING: &str = "The trace's event list ends without its closing \"]\" (the process writing it \
     may have stopped early): the complete events before the end are shown, and an event cut short is left out.";

/// Whether `bytes` are a list that breaks off before its `]` with no other
/// damage: serde's syntax check meets the end of the input first.
pub(crate) fn is_unclosed_list(bytes: &[u8]) -> bool {
    bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[')
        && serde_json::from_slice::<IgnoredAny>(bytes).is_err()
        && prefix_damage(bytes).is_none()
}

/// The damage serde meets in the start of a JSON value (the whole input
/// cut anywhere), if any: none when it only ends early (or is whole). A
/// number cut after its `.`, `e` or sign is "invalid" to serde rather than
/// cut short, so such a number is checked completed by a digit.
pub(crate) fn prefix_damage(value: &[u8]) -> Option<serde_json::Error> {
    let e = serde_json::from_slice::<IgnoredAny>(value).err()?;
    if e.is_eof() {
        return None;
    }
    if !matches!(value.last(), Some(b'.' | b'e' | b'E' | b'+' | b'-')) {
        return Some(e);
    }
    let mut completed = Vec::with_capacity(value.len() + 1);
    completed.extend_from_slice(value);
    completed.push(b'0');
    serde_json::from_slice::<IgnoredAny>(&completed).err().filter(|e| !e.is_eof())
}

/// The complete elements of an unclosed list (see [`is_unclosed_list`]),
/// each parsed as `E`: the first that does not parse is the error, as in a
/// whole list.
pub(crate) fn complete_elements<'a, E: Deserialize<'a>>(bytes: &'a [u8]) -> Result<Vec<E>, Error> {
    let mut elements = Vec::new();
    let mut at = bytes.iter().position(|&b| b == b'[').map_or(bytes.len(), |i| i + 1);
    loop {
        // Whitespace and the commas between elements (the syntax is checked).
        while bytes.get(at).is_some_and(|&b| b == b',' || b.is_ascii_whitespace()) {
            at += 1;
        }
        let Some(len) = bytes.get(at..).and_then(complete_len) else { break };
        elements.push(serde_json::from_slice(&bytes[at..at + len]).map_err(json_error)?);
        at += len;
    }
    if elements.is_empty() {
        return Err(Error::Truncated { detail: "the event list ends before its first complete event".to_string() });
    }
    Ok(elements)
}

/// The length of the JSON value `rest` starts with, if it ends before the
/// input does: an object, list or string at its closing byte, a number or
/// literal at the delimiter after it (the stream reader's delimiters).
fn complete_len(rest: &[u8]) -> Option<usize> {
    let first = *rest.first()?;
    if !matches!(first, b'{' | b'[' | b'"') {
        return rest.iter().position(|&b| matches!(b, b',' | b']' | b'}' | b':') || b.is_ascii_whitespace());
    }
    // The input has no damage but its end (see `is_unclosed_list`), so no
    // bracket closes the wrong kind.
    let mut scan = ValueEnd::default();
    rest.iter().position(|&b| scan.feed(b) != Step::Inside).map(|i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chrome_trace::RawEvent;

    fn names(bytes: &str) -> Result<Vec<String>, Error> {
        assert!(is_unclosed_list(bytes.as_bytes()), "{bytes}");
        let events: Vec<RawEvent> = complete_elements(bytes.as_bytes())?;
        Ok(events.iter().map(|e| e.name().to_string()).collect())
    }

    // Synthetic lists, cut where a writer that died would leave them.
    #[test]
    fn keeps_the_complete_events() {
        let a = r#"{"name":"a","ph":"X","ts":1}"#;
        let b = r#"{"name":"b]}\"{","ph":"X","ts":2,"args":{"l":[1,{"x":"}"}]}}"#;
        assert_eq!(names(&format!("[{a},{b}")).unwrap(), ["a", "b]}\"{"]);
        // After the comma of the last event, with the writer's newlines.
        assert_eq!(names(&format!("[\n{a},\n{b},\n")).unwrap(), ["a", "b]}\"{"]);
        // An event cut short is left out, wherever the cut falls in it.
        let mut cuts = 0;
        for cut in 1..b.len() {
            let text = format!("[{a}, {}", &b[..cut]);
            if is_unclosed_list(text.as_bytes()) {
                assert_eq!(names(&text).unwrap(), ["a"], "{text}");
                cuts += 1;
            }
        }
        assert!(cuts > b.len() / 2, "{cuts}");
        // A number running to the end may have lost digits: left out.
        let elements: Vec<IgnoredAny> = complete_elements(b"[1, 2, 34").unwrap();
        assert_eq!(elements.len(), 2);
        let elements: Vec<IgnoredAny> = complete_elements(b"[1, 2, 34 ").unwrap();
        assert_eq!(elements.len(), 3);
    }

    #[test]
    fn only_the_end_may_break_the_list() {
        for closed in [
            "[]",
            r#"[{"ph":"X"}]"#,
            "{\"traceEvents\":[{}",
            "  ",
            "[{]",
            "[{\"a\":1}}",
            "[1 2",
            "[1 2.",
            "[{\"a\":1}-",
        ] {
            assert!(!is_unclosed_list(closed.as_bytes()), "{closed}");
        }
        for unclosed in ["[", " [ {", "[{\"a\":1},", "[\"x", "[1, tr", "[{\"a\":1.", "[{\"a\":-", "[{\"a\":1e+"] {
            assert!(is_unclosed_list(unclosed.as_bytes()), "{unclosed}");
        }
        // No complete event: truncated, as before.
        assert!(matches!(names("[ {\"name\":\"a"), Err(Error::Truncated { .. })));
        assert!(matches!(names("[ "), Err(Error::Truncated { .. })));
        // An event of the wrong types is the error a whole list gives.
        assert!(matches!(names(r#"[{"name":7},"#), Err(Error::BadJson { .. })));
    }
}
