//! The URL hash keeps what is on screen: `#run=<enc>&host=<enc>&tool=overview_page`,
//! with a leading `demo&` when the bundled demo is open.

use proflens_analysis::registry;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct UrlState {
    pub demo: bool,
    pub run: Option<String>,
    pub host: Option<String>,
    /// A tool id of `proflens_analysis::registry`.
    pub tool: Option<&'static str>,
}

impl UrlState {
    /// Parses a hash with or without its `#`. Unknown keys are ignored.
    pub fn parse(hash: &str) -> UrlState {
        let mut state = UrlState::default();
        for part in hash.trim_start_matches('#').split('&') {
            let (key, value) = part.split_once('=').unwrap_or((part, ""));
            let value = decode(value);
            match key {
                "demo" => state.demo = true,
                "run" => state.run = Some(value),
                "host" => state.host = Some(value),
                "tool" => state.tool = registry::find(&value).map(|t| t.id()),
                _ => {}
            }
        }
        state
    }

    /// `#demo&run=…&host=…&tool=…`.
    pub fn to_hash(&self) -> String {
        let mut parts = Vec::new();
        if self.demo {
            parts.push("demo".to_string());
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
        format!("#{}", parts.join("&"))
    }
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
            demo: true,
            run: Some("train/2026_11 22&x=y".into()),
            host: Some("höst".into()),
            tool: Some("info"),
        };
        let hash = state.to_hash();
        assert!(hash.starts_with("#demo&run=train%2F2026_11%2022%26x%3Dy&host=h%C3%B6st"));
        assert_eq!(UrlState::parse(&hash), state);
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
    }
}
