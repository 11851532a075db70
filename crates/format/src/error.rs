//! Typed decode errors with messages written for the person who opened the file.

use std::fmt;

#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// Zero bytes, or a profile with no planes.
    Empty,
    /// The content is something else (JSON, text, unknown binary...).
    NotAProfile { found: &'static str },
    /// The data stops in the middle of a record.
    Truncated { detail: String },
    /// Over a size limit (input, or decompressed output: gzip bombs).
    TooLarge { what: &'static str, limit: u64 },
    /// gzip data that expands far beyond what real profiles do.
    GzipBomb { ratio: u64 },
    /// Well-formed framing but invalid content.
    Corrupt { detail: String },
    /// An event or stat refers to metadata the plane does not define.
    InconsistentIds { detail: String },
    /// JSON that breaks JSON's syntax, or whose trace fields have the wrong
    /// types (`traceEvents` not a list, say).
    BadJson { detail: String },
    /// Well-formed JSON that is not a Chrome or PyTorch trace (no `traceEvents`).
    NotATrace { detail: String },
    /// A trace whose events are all unusable (no phase, no time, unmatched).
    NoEvents { detail: String },
    /// The file could not be read (moved, changed or deleted since it was opened).
    Unreadable { detail: String },
    /// The decoded profile would not fit in a browser tab's memory: about
    /// `events` events needing about `need_bytes`, against `room_bytes`.
    TooLargeForBrowser { events: u64, need_bytes: u64, room_bytes: u64 },
}

/// A name from a file as a message quotes it: in quotes, at most 80
/// characters, control characters escaped so that a newline or a terminal
/// escape in a crafted name cannot break or forge the message.
pub fn quoted(name: &str) -> String {
    const MAX_CHARS: usize = 80;
    let mut out = String::from("'");
    out.push_str(&escape_controls(&name.chars().take(MAX_CHARS).collect::<String>()));
    if name.chars().nth(MAX_CHARS).is_some() {
        out.push('…');
    }
    out.push('\'');
    out
}

/// `text` with control characters written as escapes (`\n`, `\u{1b}`).
pub fn escape_controls(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return std::borrow::Cow::Borrowed(text);
    }
    text.chars().flat_map(|c| if c.is_control() { c.escape_default().collect() } else { vec![c] }).collect()
}

/// A size as people read it: `3.6 GiB`, `512 bytes`.
pub fn human_bytes(n: u64) -> String {
    human_bytes_to(n, 1)
}

/// `need` as [`human_bytes`] writes it, with two decimals where one would
/// read as `room` ("needs about 4.0 GiB; holds at most 4.0 GiB").
fn human_bytes_past(need: u64, room: u64) -> String {
    let text = human_bytes(need);
    if text == human_bytes(room) {
        human_bytes_to(need, 2)
    } else {
        text
    }
}

fn human_bytes_to(n: u64, decimals: usize) -> String {
    const UNITS: [&str; 5] = ["bytes", "KiB", "MiB", "GiB", "TiB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} bytes")
    } else {
        format!("{value:.decimals$} {}", UNITS[unit])
    }
}

/// A count in words a reader takes in at a glance: `83 million`, `4,200`.
pub fn millions(n: u64) -> String {
    if n >= 1_000_000 {
        format!("{} million", n / 1_000_000)
    } else {
        n.to_string()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Empty => write!(f, "The file is empty: it holds no profile data."),
            Error::NotAProfile { found } => write!(
                f,
                "This is not an XSpace profile (*.xplane.pb): the content looks like {found}."
            ),
            Error::Truncated { detail } => write!(
                f,
                "The profile is truncated ({detail}); copy the file again from the profiler's log directory."
            ),
            Error::TooLarge { what, limit } => write!(
                f,
                "The {what} is larger than the {} limit, so it was not opened (a gzip bomb or a capture too large to analyse here).",
                human_bytes(*limit)
            ),
            Error::GzipBomb { ratio } => write!(
                f,
                "The gzip data expands {ratio}-fold; real profiles expand at most about 35-fold, so past {}-fold it is refused as a gzip bomb.",
                crate::inflate::MAX_RATIO
            ),
            Error::Corrupt { detail } => write!(f, "The profile is damaged: {detail}."),
            Error::InconsistentIds { detail } => {
                write!(f, "The profile is inconsistent: {detail}.")
            }
            Error::BadJson { detail } => write!(f, "The trace JSON is damaged: {detail}."),
            Error::NoEvents { detail } => write!(f, "The trace has no event to show: {detail}."),
            Error::NotATrace { detail } => {
                write!(f, "This JSON is not a Chrome or PyTorch (Kineto) trace: {detail}.")
            }
            Error::Unreadable { detail } => write!(f, "The file could not be read: {detail}."),
            Error::TooLargeForBrowser { events, need_bytes, room_bytes } => write!(
                f,
                "This host's ~{} events need about {} of memory; a browser tab's worker holds at most {}, so it was not opened. Use the CLI (`proflens tool FILE TOOL`), or `proflens summarize` to write summaries the page can open.",
                millions(*events),
                human_bytes_past(*need_bytes, *room_bytes),
                human_bytes(*room_bytes)
            ),
        }
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_sentences() {
        let e = Error::TooLarge { what: "decompressed profile", limit: 2 << 30 };
        assert_eq!(
            e.to_string(),
            "The decompressed profile is larger than the 2.0 GiB limit, so it was not opened (a gzip bomb or a capture too large to analyse here)."
        );
        assert!(Error::Empty.to_string().ends_with('.'));
        assert_eq!(human_bytes(512), "512 bytes");
    }

    #[test]
    fn quoted_names_are_short_and_on_one_line() {
        assert_eq!(quoted("a\nb\u{1b}[2J"), "'a\\nb\\u{1b}[2J'");
        let long = quoted(&"x".repeat(1000));
        assert_eq!(long.chars().count(), 83);
        assert_eq!(escape_controls("plain"), "plain");
    }
}
