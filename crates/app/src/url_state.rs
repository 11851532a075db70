//! The URL hash keeps what is on screen: `#run=<enc>&host=<enc>&tool=overview_page`,
//! with a leading `demo=<name>&` when a demo is open (`#demo` alone opens the
//! default demo), and in compare mode
//! the baseline after them: `&base_run=<enc>&base_host=<enc>` (the run and
//! host are the candidate; `tool` may then be `trace_diff`). The trace
//! viewer's visible time range follows as `&t=<start_ps>-<end_ps>` and its
//! selected (or asked-for) event as `&event=<plane>.<line>.<index>`.

use proflens_analysis::compare;

use crate::protocol::EventAt;
use crate::tool_names;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct UrlState {
    /// The open demo's name (`crate::demos`); empty: the default demo.
    pub demo: Option<String>,
    pub run: Option<String>,
    pub host: Option<String>,
    /// A tool id of `proflens_analysis::registry`, or the trace diff.
    pub tool: Option<&'static str>,
    /// The baseline of a comparison.
    pub base_run: Option<String>,
    pub base_host: Option<String>,
    /// The trace viewer's visible time range (ps).
    pub trace_range: Option<(i64, i64)>,
    /// The event the trace viewer is to select (plane, line, index).
    pub event: Option<EventAt>,
}

impl UrlState {
    /// Parses a hash with or without its `#`. Unknown keys are ignored.
    pub fn parse(hash: &str) -> UrlState {
        let mut state = UrlState::default();
        for part in hash.trim_start_matches('#').split('&') {
            let (key, value) = part.split_once('=').unwrap_or((part, ""));
            let value = decode(value);
            match key {
                "demo" => state.demo = Some(value),
                "run" => state.run = Some(value),
                "host" => state.host = Some(value),
                "tool" => state.tool = tool_id(&value),
                "base_run" => state.base_run = Some(value),
                "base_host" => state.base_host = Some(value),
                "t" => state.trace_range = trace_range(&value),
                "event" => state.event = event_at(&value),
                _ => {}
            }
        }
        state
    }

    /// `#demo=…&run=…&host=…&tool=…`.
    pub fn to_hash(&self) -> String {
        let mut parts = Vec::new();
        match self.demo.as_deref() {
            Some("") => parts.push("demo".to_string()),
            Some(name) => parts.push(format!("demo={}", encode(name))),
            None => {}
        }
        if let Some(run) = &self.run {
            parts.push(format!("run={}", encode(run)));
        }
        if let Some(host) = &self.host {
            parts.push(format!("host={}", encode(host)));
        }
        if let Some(tool) = self.tool {
            parts.push(format!("tool={tool}"));
        }
        if let Some(run) = &self.base_run {
            parts.push(format!("base_run={}", encode(run)));
        }
        if let Some(host) = &self.base_host {
            parts.push(format!("base_host={}", encode(host)));
        }
        if let Some((start, end)) = self.trace_range {
            parts.push(format!("t={start}-{end}"));
        }
        if let Some(at) = self.event {
            parts.push(format!("event={}.{}.{}", at.plane, at.line, at.index));
        }
        format!("#{}", parts.join("&"))
    }

    /// The baseline, when the hash names both its run and host.
    pub fn base(&self) -> Option<(String, String)> {
        self.base_run.clone().zip(self.base_host.clone())
    }
}

/// The id of a tool of the registry (or its old name), or of the trace
/// diff, which exists only as a comparison.
pub fn tool_id(name: &str) -> Option<&'static str> {
    if name == compare::TRACE_DIFF {
        return Some(compare::TRACE_DIFF);
    }
    tool_names::find(name).map(|t| t.id)
}

/// `plane.line.index`, or `None` when it is not three numbers.
fn event_at(text: &str) -> Option<EventAt> {
    let mut parts = text.split('.').map(|p| p.parse::<usize>().ok());
    let at = EventAt { plane: parts.next()??, line: parts.next()??, index: parts.next()?? };
    parts.next().is_none().then_some(at)
}

/// `START-END` (ps, either may be negative), or `None` unless it is an
/// increasing pair of whole numbers.
fn trace_range(text: &str) -> Option<(i64, i64)> {
    // The separator is the first `-` after a possible sign of the start.
    let split = text.get(1..)?.find('-')? + 1;
    let (start, end) = (text[..split].parse::<i64>().ok()?, text[split + 1..].parse::<i64>().ok()?);
    (start < end).then_some((start, end))
}

/// Percent-encodes everything but unreserved characters (RFC 3986).
pub fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Undoes [`encode`]; malformed escapes are kept as written, bad UTF-8 is replaced.
pub fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push((h * 16 + l) as u8);
                    i += 3;
                    continue;
                }
                _ => out.push(b'%'),
            },
            b'+' => out.push(b' '),
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let state = UrlState {
            demo: Some("jax".into()),
            run: Some("train/2026_11 22&x=y".into()),
            host: Some("höst".into()),
            tool: Some("info"),
            base_run: None,
            base_host: None,
            trace_range: Some((-1_500, 2_000_000_000_000)),
            event: Some(EventAt { plane: 2, line: 0, index: 117 }),
        };
        let hash = state.to_hash();
        assert!(hash.starts_with("#demo=jax&run=train%2F2026_11%2022%26x%3Dy&host=h%C3%B6st"));
        assert!(hash.ends_with("&tool=info&t=-1500-2000000000000&event=2.0.117"), "{hash}");
        assert_eq!(UrlState::parse(&hash), state);
    }

    #[test]
    fn comparison_round_trip() {
        let state = UrlState {
            demo: None,
            run: Some("Selected files".into()),
            host: Some("All hosts".into()),
            tool: Some("trace_diff"),
            base_run: Some("Selected files (2)".into()),
            base_host: Some("a&b=c".into()),
            trace_range: None,
            event: None,
        };
        let hash = state.to_hash();
        assert_eq!(
            hash,
            "#run=Selected%20files&host=All%20hosts&tool=trace_diff&base_run=Selected%20files%20%282%29&base_host=a%26b%3Dc"
        );
        assert_eq!(UrlState::parse(&hash), state);
        assert_eq!(state.base(), Some(("Selected files (2)".into(), "a&b=c".into())));
        // The old keys alone still parse, with no baseline; old tool names map.
        let old = UrlState::parse("#run=r&host=h&tool=tensorflow_stats");
        assert_eq!((old.tool, old.base()), (Some("framework_op_stats"), None));
        assert_eq!(UrlState::parse("#base_run=r").base(), None);
    }

    #[test]
    fn demo_names() {
        // The old plain `#demo` still opens the default demo, and keeps its form.
        let plain = UrlState::parse("#demo&tool=info");
        assert_eq!((plain.demo.as_deref(), plain.tool), (Some(""), Some("info")));
        assert_eq!(plain.to_hash(), "#demo&tool=info");
        let named = UrlState::parse("#demo=input-bound&run=input_bound%20(demo)");
        assert_eq!(named.demo.as_deref(), Some("input-bound"));
        assert_eq!(named.run.as_deref(), Some("input_bound (demo)"));
        assert_eq!(UrlState::parse("#run=r").demo, None);
        // A name with odd characters comes back as written.
        let odd = UrlState { demo: Some("a&b=c".into()), ..UrlState::default() };
        assert_eq!(odd.to_hash(), "#demo=a%26b%3Dc");
        assert_eq!(UrlState::parse(&odd.to_hash()), odd);
    }

    #[test]
    fn bad_input_does_not_panic() {
        assert_eq!(decode("%"), "%");
        assert_eq!(decode("%4"), "%4");
        assert_eq!(decode("%zz"), "%zz");
        assert_eq!(decode("%ff"), "\u{fffd}");
        let s = UrlState::parse("#tool=nope&&=&run");
        assert_eq!(s.tool, None);
        assert_eq!(s.run, Some(String::new()));
        for bad in ["1.2", "1.2.3.4", "a.b.c", "1..3", ""] {
            assert_eq!(UrlState::parse(&format!("#event={bad}")).event, None, "{bad}");
        }
        for bad in ["", "-", "5", "5-", "-5", "a-b", "5-5", "9-2", "1-2-3", "--1-2", "1e3-2e3"] {
            assert_eq!(UrlState::parse(&format!("#t={bad}")).trace_range, None, "{bad}");
        }
        for (good, range) in [("0-1", (0, 1)), ("-20--10", (-20, -10)), ("-3-4", (-3, 4))] {
            assert_eq!(UrlState::parse(&format!("#t={good}")).trace_range, Some(range), "{good}");
        }
    }
}
