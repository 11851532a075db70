//! Trace-event times (µs as JSON numbers) → integer picoseconds, exactly.
//!
//! Kineto writes `ts`/`dur` in µs with three decimals (ns precision), and
//! older traces write absolute epoch µs (~1.6e15). Going through `f64` loses
//! the last nanosecond of such values, so the decimal text is parsed instead.
//! The result is `i128`: epoch µs in ps do not fit in `i64`; callers subtract
//! the trace's first time before narrowing.
//!
//! Some writers give the time as a JSON string holding the number (Ascend's
//! torch_npu writes `"ts": "1700000000123.456"`, keeping every digit that a
//! double would round away); it reads as the number. A string that holds no
//! number is a field of the wrong type: the event is skipped with a warning
//! naming the field, as events with other fields of the wrong type are.

use super::args::Raw;
use serde::de::{Deserialize, Deserializer, Error as _};
use serde_json::value::RawValue;

/// Picoseconds per microsecond.
const PS_PER_US: i128 = 1_000_000;

/// A JSON number's text (or a string holding one) in µs → ps. Digits past
/// the sixth decimal round half up; exponent forms go through `f64`.
pub(crate) fn us_text_to_ps(text: &str) -> Option<i128> {
    if let Some(ps) = plain_us_to_ps(text.as_bytes()) {
        return Some(ps);
    }
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

/// [`us_text_to_ps`] of the form nearly every trace writes (`-?D*(.D*)?`,
/// at most 18 integer digits), in one pass over the bytes; `None` for any
/// other text, which the general reading then takes (so the two agree).
fn plain_us_to_ps(text: &[u8]) -> Option<i128> {
    let (negative, digits) = match text.split_first()? {
        (b'-', rest) => (true, rest),
        _ => (false, text),
    };
    let int_len = digits.iter().take_while(|b| b.is_ascii_digit()).count();
    if int_len > 18 {
        return None;
    }
    let int = digits[..int_len].iter().fold(0i64, |v, b| v * 10 + i64::from(b - b'0'));
    let frac = match &digits[int_len..] {
        [] => &[][..],
        [b'.', frac @ ..] => frac,
        _ => return None,
    };
    if (int_len == 0 && frac.is_empty()) || !frac.iter().all(u8::is_ascii_digit) {
        return None;
    }
    // The first six decimals are whole ps; the seventh rounds half up.
    let mut sub = 0i64;
    let mut scale = (PS_PER_US / 10) as i64;
    for &b in frac.iter().take(6) {
        sub += i64::from(b - b'0') * scale;
        scale /= 10;
    }
    if frac.get(6).is_some_and(|&b| b >= b'5') {
        sub += 1;
    }
    let ps = i128::from(int) * PS_PER_US + i128::from(sub);
    Some(if negative { -ps } else { ps })
}

/// `deserialize_with` of `ts`: its raw text, refused when a string holds no number.
pub(crate) fn ts_field<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    time_field(d, "ts")
}

/// `deserialize_with` of `dur`, as [`ts_field`].
pub(crate) fn dur_field<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    time_field(d, "dur")
}

/// [`ts_field`] as [`Raw`] text.
pub(crate) fn ts_raw<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Raw<'de>>, D::Error> {
    Ok(ts_field(d)?.map(|r| Raw(r.get())))
}

/// [`dur_field`] as [`Raw`] text.
pub(crate) fn dur_raw<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Raw<'de>>, D::Error> {
    Ok(dur_field(d)?.map(|r| Raw(r.get())))
}

/// Numbers, `null` and other types are kept as written (a time that does
/// not read leaves the event without one, as before); only a string is
/// checked, since a string is what a writer means as a number.
fn time_field<'de, D: Deserializer<'de>>(d: D, field: &str) -> Result<Option<&'de RawValue>, D::Error> {
    let raw = <&RawValue>::deserialize(d)?;
    let text = raw.get();
    if text.starts_with('"') && us_text_to_ps(text).is_none() {
        // The text is cut so that a huge string makes a short message.
        let shown: String = text.chars().take(40).collect();
        let more = if shown.len() < text.len() { "…" } else { "" };
        return Err(D::Error::custom(format!("\"{field}\" is the string {shown}{more}, which is not a number of µs")));
    }
    Ok(Some(raw))
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
        // Ascend torch_npu's string form, with the spaces some writers pad it with.
        assert_eq!(us_text_to_ps("\"1700000000123.456\""), Some(1_700_000_000_123_456_000));
        assert_eq!(us_text_to_ps("\" 7.5 \""), Some(7_500_000));
    }

    #[test]
    fn a_string_time_must_hold_a_number() {
        #[derive(serde::Deserialize, Debug)]
        struct E<'a> {
            #[serde(borrow, default, deserialize_with = "ts_field")]
            ts: Option<&'a RawValue>,
            #[serde(borrow, default, deserialize_with = "dur_field")]
            dur: Option<&'a RawValue>,
        }
        let ok: E = serde_json::from_str(r#"{"ts":"1700000000123.456","dur":"2"}"#).unwrap();
        assert_eq!(ok.ts.map(|t| us_text_to_ps(t.get())), Some(Some(1_700_000_000_123_456_000)));
        assert_eq!(ok.dur.map(|t| us_text_to_ps(t.get())), Some(Some(2_000_000)));
        // Not strings: kept as written, as before.
        let kept: E = serde_json::from_str(r#"{"ts":null,"dur":true}"#).unwrap();
        assert_eq!((kept.ts.map(RawValue::get), kept.dur.map(RawValue::get)), (Some("null"), Some("true")));
        let absent: E = serde_json::from_str("{}").unwrap();
        assert!(absent.ts.is_none() && absent.dur.is_none());
        for (json, field) in [(r#"{"ts":"soon"}"#, "\"ts\""), (r#"{"ts":1,"dur":"1.2.3"}"#, "\"dur\"")] {
            let e = serde_json::from_str::<E>(json).unwrap_err();
            assert!(e.is_data(), "{e}");
            assert!(e.to_string().contains(field) && e.to_string().contains("not a number"), "{e}");
        }
        let long = format!(r#"{{"ts":"{}"}}"#, "x".repeat(10_000));
        let e = serde_json::from_str::<E>(&long).unwrap_err().to_string();
        assert!(e.len() < 200, "{e}");
    }

    #[test]
    fn the_plain_form_reads_as_the_general_one() {
        for text in [
            "0",
            "-0",
            "7",
            "68.0",
            "4458676522690.655",
            "1623142623460111",
            "0.0000015",
            "0.0000014",
            "-1.5",
            ".5",
            "5.",
            "-.25",
            "123456789012345678",
            "1234567890123456789",
            "1.1234565",
            "9.9999999",
        ] {
            let general = us_text_to_ps(&format!(" {text}"));
            assert_eq!(plain_us_to_ps(text.as_bytes()).or(general), general, "{text}");
        }
        for other in ["", "-", ".", "1e3", "\"1\"", "1.2.3", "1x", " 1"] {
            assert_eq!(plain_us_to_ps(other.as_bytes()), None, "{other}");
        }
    }

    #[test]
    fn rejects_non_numbers() {
        for bad in ["", "-", ".", "abc", "1.2.3", "null", "1x", "inf"] {
            assert_eq!(us_text_to_ps(bad), None, "{bad}");
        }
    }
}
