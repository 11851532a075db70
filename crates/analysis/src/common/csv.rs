//! CSV output of the tools' tables.

/// One CSV field, quoted when it must be (RFC 4180). Names come from
/// profiles, so a field that a spreadsheet would run as a formula (`=`, `+`,
/// `-`, `@`, tab or carriage return first) is prefixed with `'`, as OWASP
/// advises, and control characters other than tab and newlines are dropped.
pub fn csv_field(s: &str) -> String {
    let mut text: String = s.chars().filter(|c| !c.is_control() || matches!(c, '\t' | '\n' | '\r')).collect();
    if text.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        text.insert(0, '\'');
    }
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text
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

    #[test]
    fn csv_never_holds_a_formula_or_control_bytes() {
        assert_eq!(csv_field("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
        assert_eq!(csv_field("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(csv_field("-1+1"), "'-1+1");
        assert_eq!(csv_field("a\u{0}b\u{1b}[31mc"), "ab[31mc");
    }
}
