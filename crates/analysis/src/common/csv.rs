//! CSV output of the tools' tables.

/// One CSV field, quoted when it must be (RFC 4180).
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quotes_only_when_needed() {
        assert_eq!(csv_field("a::b"), "a::b");
        assert_eq!(csv_field("x,\"y\""), "\"x,\"\"y\"\"\"");
    }
}
