//! Numbers and times written for people.

/// `9587` → `9,587`.
pub fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Picoseconds as milliseconds with three decimals: `1_234_567_000` → `1.235`.
pub fn ps_as_ms(ps: i64) -> String {
    let ms = ps as f64 / 1e9;
    let text = format!("{:.3}", ms.abs());
    let (int, frac) = text.split_once('.').unwrap_or((&text, "000"));
    let int: u64 = int.parse().unwrap_or(0);
    let sign = if ms < 0.0 && text != "0.000" { "-" } else { "" };
    format!("{sign}{}.{frac}", count(int))
}

/// `v` with `places` decimals and thousands separators: `(12345.678, 1)` →
/// `12,345.7`. Not-a-number and infinities read "—".
pub fn decimal(v: f64, places: usize) -> String {
    if !v.is_finite() {
        return "—".to_string();
    }
    let text = format!("{:.*}", places, v.abs());
    let (int, frac) = text.split_once('.').unwrap_or((&text, ""));
    let int = int.parse::<u64>().map(count).unwrap_or_else(|_| int.to_string());
    let zero = text.bytes().all(|b| b == b'0' || b == b'.');
    let sign = if v < 0.0 && !zero { "-" } else { "" };
    if frac.is_empty() {
        format!("{sign}{int}")
    } else {
        format!("{sign}{int}.{frac}")
    }
}

/// Milliseconds for people: `110.2 ms`; more decimals below 10 ms so that
/// small parts are not all `0.0`.
pub fn ms(v: f64) -> String {
    let places = if v.abs() >= 10.0 || v == 0.0 {
        1
    } else if v.abs() >= 0.1 {
        2
    } else {
        3
    };
    format!("{} ms", decimal(v, places))
}

/// A share 0..=1 as a percentage with one decimal: `0.351` → `35.1%`.
pub fn fraction_percent(f: f64) -> String {
    percent(f * 100.0)
}

/// A percentage 0..=100 with one decimal: `35.14` → `35.1%`.
pub fn percent(p: f64) -> String {
    format!("{}%", decimal(p, 1))
}

/// A share of a whole as a percentage, where a small but non-zero share
/// reads `<0.1%` rather than `0.0%`.
pub fn share(part: f64, whole: f64) -> String {
    if whole.is_nan() || whole <= 0.0 || !part.is_finite() {
        return "—".to_string();
    }
    let p = 100.0 * part / whole;
    if p > 0.0 && p < 0.05 {
        "<0.1%".to_string()
    } else {
        percent(p)
    }
}

/// A change with its sign: `+1,234.5`, `-0.25`, `0.0` (no sign when it
/// rounds to zero).
pub fn signed(v: f64, places: usize) -> String {
    let text = decimal(v, places);
    if v > 0.0 && text.bytes().any(|b| b.is_ascii_digit() && b != b'0') {
        format!("+{text}")
    } else {
        text
    }
}

/// A relative change: `+12.5%`; "new" when there was nothing to compare with.
pub fn signed_percent(p: Option<f64>) -> String {
    match p {
        Some(p) => format!("{}%", signed(p, 1)),
        None => "new".to_string(),
    }
}

/// Nanoseconds since the Unix epoch as `2026-11-22 09:04:34.123 UTC`.
pub fn utc_datetime(ns: u64) -> String {
    let secs = ns / 1_000_000_000;
    let millis = (ns % 1_000_000_000) / 1_000_000;
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}.{millis:03} UTC", rem / 3600, (rem / 60) % 60, rem % 60)
}

/// Days since 1970-01-01 → (year, month, day), proleptic Gregorian
/// (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// "1 file" / "3 files".
pub fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{} {many}", count(n as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts() {
        assert_eq!(count(0), "0");
        assert_eq!(count(999), "999");
        assert_eq!(count(9587), "9,587");
        assert_eq!(count(1_234_567), "1,234,567");
    }

    #[test]
    fn decimals() {
        assert_eq!(decimal(12345.678, 1), "12,345.7");
        assert_eq!(decimal(-0.04, 1), "0.0");
        assert_eq!(decimal(-2.4, 0), "-2");
        assert_eq!(decimal(f64::NAN, 1), "—");
        assert_eq!(ms(110.17), "110.2 ms");
        assert_eq!(ms(0.913532), "0.91 ms");
        assert_eq!(ms(0.0), "0.0 ms");
        assert_eq!(fraction_percent(0.351), "35.1%");
        assert_eq!(share(1.0, 4.0), "25.0%");
        assert_eq!(share(1.0, 1e6), "<0.1%");
        assert_eq!(share(0.0, 1e6), "0.0%");
        assert_eq!(share(1.0, 0.0), "—");
    }

    #[test]
    fn signed_changes() {
        assert_eq!(signed(1234.46, 1), "+1,234.5");
        assert_eq!(signed(-0.25, 2), "-0.25");
        assert_eq!(signed(0.01, 1), "0.0");
        assert_eq!(signed(0.0, 0), "0");
        assert_eq!(signed_percent(Some(12.54)), "+12.5%");
        assert_eq!(signed_percent(Some(-3.0)), "-3.0%");
        assert_eq!(signed_percent(None), "new");
    }

    #[test]
    fn times() {
        assert_eq!(ps_as_ms(1_234_567_000), "1.235");
        assert_eq!(ps_as_ms(2_500_000_000_000), "2,500.000");
        assert_eq!(ps_as_ms(-1_000_000_000), "-1.000");
        assert_eq!(utc_datetime(0), "1970-01-01 00:00:00.000 UTC");
        assert_eq!(utc_datetime(1_795_338_274_123_000_000), "2026-11-22 09:04:34.123 UTC");
    }
}
