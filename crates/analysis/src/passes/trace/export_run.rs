//! Chrome Trace Event JSON of a run's hosts together: each host's own
//! export ([`super::export::write_chrome_trace`], whatever events it
//! writes) streamed through [`Rebase`], which gives each (host, process) a
//! pid of its own, names the process "host — plane", and moves times onto
//! the run's clock. One host is written at a time, so the caller may load
//! and unload hosts in turn.

use super::export::micros;
use std::collections::HashMap;
use std::io::{self, Write};

/// One host's place in the run's export.
#[derive(Debug, Clone)]
pub struct HostPlacement {
    pub name: String,
    /// Added to the host's times to put them on the run's clock (ps).
    pub offset_ps: i64,
}

/// Writes host `h`'s Chrome trace, limited to a window of its own ps when
/// given; returns its count of events.
pub type WriteHost<'a> = dyn FnMut(usize, Option<(i64, i64)>, &mut dyn Write) -> io::Result<u64> + 'a;

/// Writes every host's trace as one file. `write_host(h, window, out)`
/// writes host `h`'s Chrome trace, limited to `window` (the host's own ps)
/// when given, and returns its count of events. `window` is on the run's
/// clock. Returns the events written in all.
pub fn write_run_chrome_trace(
    hosts: &[HostPlacement],
    window: Option<(i64, i64)>,
    write_host: &mut WriteHost<'_>,
    out: &mut dyn Write,
) -> io::Result<u64> {
    out.write_all(br#"{"displayTimeUnit":"ns","metadata":{"highres-ticks":true},"traceEvents":["#)?;
    let mut pids = Pids::default();
    let mut first = true;
    let mut written = 0u64;
    for (h, host) in hosts.iter().enumerate() {
        let local = window.map(|(a, b)| (a.saturating_sub(host.offset_ps), b.saturating_sub(host.offset_ps)));
        let mut rebase =
            Rebase { out: &mut *out, host: h, place: host, pids: &mut pids, first: &mut first, line: Vec::new() };
        written += write_host(h, local, &mut rebase)?;
        rebase.finish()?;
    }
    out.write_all(b"]}\n")?;
    Ok(written)
}

/// Run-wide pids, one per (host, pid of the host's export), in order of appearance.
#[derive(Default)]
struct Pids(HashMap<(usize, i64), i64>);

impl Pids {
    fn of(&mut self, host: usize, pid: i64) -> i64 {
        let next = self.0.len() as i64 + 1;
        *self.0.entry((host, pid)).or_insert(next)
    }
}

/// A writer that takes one host's Chrome trace (one event per line, as
/// `write_chrome_trace` writes it) and passes its events on, rebased.
struct Rebase<'a> {
    out: &'a mut dyn Write,
    host: usize,
    place: &'a HostPlacement,
    pids: &'a mut Pids,
    /// No event written yet in the whole file.
    first: &'a mut bool,
    line: Vec<u8>,
}

const EVENTS_START: &[u8] = br#""traceEvents":["#;

impl Rebase<'_> {
    fn finish(mut self) -> io::Result<()> {
        let rest = std::mem::take(&mut self.line);
        self.event_line(&rest)
    }

    /// One line of the host's file: maybe the header, an event, a `,` or
    /// the closing `]}`.
    fn event_line(&mut self, line: &[u8]) -> io::Result<()> {
        let mut text = std::str::from_utf8(line).map_err(|_| io::Error::other("the trace is not UTF-8"))?.trim();
        if let Some(at) = text.find(std::str::from_utf8(EVENTS_START).unwrap_or_default()) {
            text = &text[at + EVENTS_START.len()..];
        }
        let text = text.strip_suffix(',').unwrap_or(text);
        let text = text.strip_suffix("]}").unwrap_or(text).trim();
        if text.is_empty() {
            return Ok(());
        }
        let event = self.rebase(text);
        if !std::mem::take(self.first) {
            self.out.write_all(b",\n")?;
        }
        self.out.write_all(event.as_bytes())
    }

    /// The event with its pid, time and process name made the run's.
    fn rebase(&mut self, event: &str) -> String {
        let mut event = event.to_string();
        let mut pid = None;
        if let Some((range, value)) = field(&event, "pid") {
            if let Ok(old) = value.parse::<i64>() {
                let new = self.pids.of(self.host, old);
                event.replace_range(range, &new.to_string());
                pid = Some(new);
            }
        }
        if let Some((range, value)) = field(&event, "ts") {
            if let Some(ps) = parse_micros(value) {
                event.replace_range(range, &micros(ps.saturating_add(self.place.offset_ps)));
            }
        }
        let metadata = event.contains(r#""ph":"M""#);
        if metadata && event.contains(r#""name":"process_name""#) {
            let key = r#""args":{"name":""#;
            if let Some(at) = event.find(key) {
                let prefix = serde_json::to_string(&format!("{} — ", self.place.name)).unwrap_or_default();
                let inner = prefix.trim_start_matches('"').trim_end_matches('"');
                event.insert_str(at + key.len(), inner);
            }
        } else if metadata && event.contains(r#""name":"process_sort_index""#) {
            if let (Some((range, _)), Some(pid)) = (field(&event, "sort_index"), pid) {
                event.replace_range(range, &pid.to_string());
            }
        }
        event
    }
}

impl Write for Rebase<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.line.extend_from_slice(bytes);
        while let Some(end) = self.line.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.line.drain(..=end).collect();
            self.event_line(&line)?;
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// The byte range and text of the first `"key":` number in an event (keys
/// inside strings are escaped, so the first match is a key).
fn field<'e>(event: &'e str, key: &str) -> Option<(std::ops::Range<usize>, &'e str)> {
    let pattern = format!("\"{key}\":");
    let start = event.find(&pattern)? + pattern.len();
    let len =
        event[start..].find(|c: char| !(c.is_ascii_digit() || c == '-' || c == '.')).unwrap_or(event.len() - start);
    (len > 0).then(|| (start..start + len, &event[start..start + len]))
}

/// µs as written by the export (up to six decimals) back to ps, exactly.
fn parse_micros(text: &str) -> Option<i64> {
    let (negative, text) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (whole, frac) = text.split_once('.').unwrap_or((text, ""));
    if frac.len() > 6 {
        return None;
    }
    let whole: i64 = whole.parse().ok()?;
    let frac: i64 = if frac.is_empty() { 0 } else { format!("{frac:0<6}").parse().ok()? };
    let ps = whole.checked_mul(1_000_000)?.checked_add(frac)?;
    Some(if negative { -ps } else { ps })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn micros_read_back_exactly() {
        for ps in [0, 7, 1_500_000, -2_500_000, 123_456_789_012_345] {
            assert_eq!(parse_micros(&micros(ps)), Some(ps), "{ps}");
        }
    }

    #[test]
    fn hosts_get_their_own_pids_names_and_clock() {
        let hosts = [
            HostPlacement { name: "a".into(), offset_ps: 0 },
            HostPlacement { name: "b \"2\"".into(), offset_ps: 2_000_000 },
        ];
        let mut write_host = |h: usize, _: Option<(i64, i64)>, out: &mut dyn Write| -> io::Result<u64> {
            out.write_all(br#"{"displayTimeUnit":"ns","metadata":{"highres-ticks":true},"traceEvents":["#)?;
            out.write_all(br#"{"ph":"M","pid":701,"name":"process_name","args":{"name":"/host:CPU"}},"#)?;
            out.write_all(b"\n")?;
            out.write_all(br#"{"ph":"M","pid":701,"name":"process_sort_index","args":{"sort_index":701}},"#)?;
            write!(out, "\n{{\"ph\":\"X\",\"pid\":701,\"tid\":1,\"ts\":1.5,\"dur\":1,\"name\":\"e{h}\",\"args\":{{\"ts\":\"9\"}}}}")?;
            out.write_all(b"]}\n")?;
            Ok(1)
        };
        let mut out = Vec::new();
        let n = write_run_chrome_trace(&hosts, None, &mut write_host, &mut out).expect("written");
        assert_eq!(n, 2);
        let json: serde_json::Value = serde_json::from_slice(&out).expect("valid JSON");
        let events = json["traceEvents"].as_array().expect("events");
        assert_eq!(events.len(), 6);
        let names: Vec<&str> = events
            .iter()
            .filter(|e| e["name"] == "process_name")
            .map(|e| e["args"]["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["a — /host:CPU", "b \"2\" — /host:CPU"]);
        let x: Vec<(i64, f64)> = events
            .iter()
            .filter(|e| e["ph"] == "X")
            .map(|e| (e["pid"].as_i64().unwrap(), e["ts"].as_f64().unwrap()))
            .collect();
        assert_eq!(x, [(1, 1.5), (2, 3.5)]);
        assert!(events
            .iter()
            .filter(|e| e["name"] == "process_sort_index")
            .all(|e| e["args"]["sort_index"] == e["pid"]));
    }
}
