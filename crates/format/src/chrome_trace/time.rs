//! Trace-event times (µs as JSON numbers) → integer picoseconds, exactly.
//!
//! Kineto writes `ts`/`dur` in µs with three decimals (ns precision), and
//! older traces write absolute epoch µs (~1.6e15). Going through `f64` loses
//! the last nanosecond of such values, so the decimal text is parsed instead.
//! The result is `i128`: epoch µs in ps do not fit in `i64`; callers subtract
//! the trace's first time before narrowing.

/// Picoseconds per microsecond.
const PS_PER_US: i128 = 1_000_000;

/// A JSON number's text (or a string holding one) in µs → ps. Digits past
/// the sixth decimal round half up; exponent forms go through `f64`.
pub(crate) fn us_text_to_ps(text: &str) -> Option<i128> {
    let t = text.trim();
    let t = t.strip_prefix('"').and_then(|s| s.strip_suffix('"')).unwrap_or(t).trim();
    if t.contains(['e', 'E']) {
        let v: f64 = t.parse().ok()?;
        return v.is_finite().then(|| (v * PS_PER_US as f64).round() as i128);
    }
    let (negative, digits) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t),
    };
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    if !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit()) || int.len() > 30 {
        return None;
    }
    let mut ps = if int.is_empty() { 0 } else { int.parse::<i128>().ok()? * PS_PER_US };
    let mut scale = PS_PER_US / 10;
    for (i, b) in frac.bytes().enumerate() {
        let digit = i128::from(b - b'0');
        if i < 6 {
            ps += digit * scale;
            scale /= 10;
        } else {
            if digit >= 5 {
                ps += 1;
            }
            break;
        }
    }
    Some(if negative { -ps } else { ps })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_to_the_picosecond() {
        assert_eq!(us_text_to_ps("4458676522690.655"), Some(4_458_676_522_690_655_000));
        assert_eq!(us_text_to_ps("1623142623460111"), Some(1_623_142_623_460_111_000_000));
        assert_eq!(us_text_to_ps("68.0"), Some(68_000_000));
        assert_eq!(us_text_to_ps("0.0000015"), Some(2));
        assert_eq!(us_text_to_ps("-1.5"), Some(-1_500_000));
        assert_eq!(us_text_to_ps("\"12.5\""), Some(12_500_000));
        assert_eq!(us_text_to_ps("1.5e3"), Some(1_500_000_000));
        assert_eq!(us_text_to_ps(".5"), Some(500_000));
    }

    #[test]
    fn rejects_non_numbers() {
        for bad in ["", "-", ".", "abc", "1.2.3", "null", "1x", "inf"] {
            assert_eq!(us_text_to_ps(bad), None, "{bad}");
        }
    }
}
