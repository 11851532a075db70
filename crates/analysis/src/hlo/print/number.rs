//! Numbers as XLA's HLO text writes them: C's `%g` at the precision that
//! round-trips the element type (tsl's FloatToBuffer for f32, DoubleToBuffer
//! for f64, `max_digits10` for bf16 and f16), and constants' element lists.

pub use crate::common::stats::format_g;
use proflens_model::hlo_attributes::{Literal, LiteralValues};

fn special(x: f64) -> Option<String> {
    if x.is_nan() {
        Some(if x.is_sign_negative() { "-nan" } else { "nan" }.into())
    } else if x.is_infinite() {
        Some(if x > 0.0 { "inf" } else { "-inf" }.into())
    } else {
        None
    }
}

/// An f32 as XLA prints it: 6 significant digits when they read back as the
/// same float, else 9.
pub fn f32_text(x: f32) -> String {
    if let Some(s) = special(f64::from(x)) {
        return s;
    }
    let short = format_g(f64::from(x), 6);
    if short.parse::<f32>().ok() == Some(x) {
        short
    } else {
        format_g(f64::from(x), 9)
    }
}

/// An f64: 15 significant digits when they round-trip, else 17.
pub fn f64_text(x: f64) -> String {
    if let Some(s) = special(x) {
        return s;
    }
    let short = format_g(x, 15);
    if short.parse::<f64>().ok() == Some(x) {
        short
    } else {
        format_g(x, 17)
    }
}

fn bf16_value(bits: u16) -> f32 {
    f32::from_bits(u32::from(bits) << 16)
}

fn f16_value(bits: u16) -> f32 {
    let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from((bits >> 10) & 0x1f);
    let frac = f32::from(bits & 0x3ff);
    match exp {
        0 => sign * frac * 2f32.powi(-24),
        31 if frac == 0.0 => sign * f32::INFINITY,
        31 => f32::NAN,
        _ => sign * (1.0 + frac / 1024.0) * 2f32.powi(exp - 15),
    }
}

/// A half-precision element: `max_digits10` significant digits (4 for
/// bf16, 5 for f16).
fn half_text(bits: u16, bf16: bool) -> String {
    let (x, digits) = if bf16 { (bf16_value(bits), 4) } else { (f16_value(bits), 5) };
    special(f64::from(x)).unwrap_or_else(|| format_g(f64::from(x), digits))
}

/// The elements of a literal as text, row-major.
fn elements(values: &LiteralValues) -> Option<Vec<String>> {
    Some(match values {
        LiteralValues::Pred(v) => v.iter().map(|b| b.to_string()).collect(),
        LiteralValues::Signed(v) => v.iter().map(i64::to_string).collect(),
        LiteralValues::Unsigned(v) => v.iter().map(u64::to_string).collect(),
        LiteralValues::F32(v) => v.iter().map(|&x| f32_text(x)).collect(),
        LiteralValues::F64(v) => v.iter().map(|&x| f64_text(x)).collect(),
        LiteralValues::Half { bf16, bits } => bits.iter().map(|&b| half_text(b, *bf16)).collect(),
        LiteralValues::Other => return None,
    })
}

/// A constant's operand text: the scalar (`0.5`), or the elements in braces
/// (`{1, 2, 3}`, nested per dimension); `{...}` when the elements are not
/// known.
pub fn literal_text(literal: &Literal) -> String {
    let Some(items) = elements(&literal.values) else { return "{...}".into() };
    let dims = &literal.dimensions;
    let count: usize = dims.iter().map(|&d| usize::try_from(d).unwrap_or(0)).product();
    if items.len() != count.max(usize::from(dims.is_empty())) {
        return "{...}".into();
    }
    if dims.is_empty() {
        return items.into_iter().next().unwrap_or_default();
    }
    nested(&items, dims)
}

/// `{a, b}` for one dimension, `{ {a, b}, {c, d} }` for more.
fn nested(items: &[String], dims: &[i64]) -> String {
    if dims.len() == 1 {
        return format!("{{{}}}", items.join(", "));
    }
    let rows = usize::try_from(dims[0]).unwrap_or(0).max(1);
    let per_row = items.len() / rows;
    let parts: Vec<String> = (0..rows).map(|r| nested(&items[r * per_row..(r + 1) * per_row], &dims[1..])).collect();
    format!("{{ {} }}", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_g_like_c() {
        assert_eq!(format_g(0.01, 6), "0.01");
        assert_eq!(format_g(1e-7, 6), "1e-07");
        assert_eq!(format_g(1234567.0, 6), "1.23457e+06");
        assert_eq!(format_g(100000.0, 6), "100000");
        assert_eq!(format_g(-0.0078125, 6), "-0.0078125");
        assert_eq!(format_g(2.0, 4), "2");
    }

    #[test]
    fn floats_round_trip_like_xla() {
        assert_eq!(f32_text(0.1), "0.1");
        assert_eq!(f32_text(2.832_976_8), "2.83297682");
        assert_eq!(f32_text(3.432_739_4e-7), "3.43273939e-07");
        assert_eq!(f32_text(f32::NEG_INFINITY), "-inf");
        // bf16 1.414 is 1.4140625: four digits.
        assert_eq!(half_text(0x3fb5, true), "1.414");
        assert_eq!(half_text(0x3c00, false), "1");
    }
}
