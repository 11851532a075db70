//! Summary statistics over steps, with XProf's quirks where its JSON shows them.

use serde::{Deserialize, Serialize};

/// Average, standard deviation (sample), minimum and maximum.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Summary {
    pub average: f64,
    /// `None` where XProf's own statistics produce NaN (a single zero sample).
    pub standard_deviation: Option<f64>,
    pub minimum: f64,
    pub maximum: f64,
}

impl Summary {
    /// XProf's `tsl::Stat` semantics: the sample standard deviation, zero when
    /// all samples are equal — but its "all equal" test compares against
    /// `f64::MIN_POSITIVE` as the initial maximum, so samples that are all
    /// zero are not "equal" and one zero sample gives 0/0.
    pub fn of(values: &[f64]) -> Summary {
        if values.is_empty() {
            return Summary { standard_deviation: Some(0.0), ..Summary::default() };
        }
        let n = values.len() as f64;
        let sum: f64 = values.iter().sum();
        let squares: f64 = values.iter().map(|v| v * v).sum();
        let max = values.iter().copied().fold(f64::MIN_POSITIVE, f64::max);
        let min = values.iter().copied().fold(f64::MAX, f64::min);
        let variance = if max == min { 0.0 } else { (squares - sum * sum / n) / (n - 1.0) };
        Summary {
            average: sum / n,
            standard_deviation: (!variance.is_nan()).then(|| variance.max(0.0).sqrt()),
            minimum: values.iter().copied().fold(f64::INFINITY, f64::min),
            maximum: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        }
    }
}

/// `%.1f`, as XProf prints most numbers; NaN as C's printf prints it.
pub fn one_digit(v: Option<f64>) -> String {
    match v {
        Some(v) => format!("{v:.1}"),
        None => "-nan".to_string(),
    }
}

/// `%.2f`, as XProf prints the TPU step-time averages; NaN as C prints it.
pub fn two_digits(v: Option<f64>) -> String {
    match v {
        Some(v) => format!("{v:.2}"),
        None => "-nan".to_string(),
    }
}

/// C's `%g` (six significant digits), as `std::ostream` and absl print a
/// double: fixed notation for exponents -4..6, else `d.ddddde+XX`; trailing
/// zeros dropped.
pub fn general(v: f64) -> String {
    if !v.is_finite() {
        return format!("{v}");
    }
    format_g(v, 6)
}

/// C's `printf("%.{precision}g", x)` for a finite `x`.
pub fn format_g(x: f64, precision: usize) -> String {
    let p = precision.max(1);
    if x == 0.0 {
        return if x.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    // The exponent after rounding to `p` significant digits.
    let sci = format!("{:.*e}", p - 1, x);
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if exp < -4 || exp >= p as i32 {
        let mantissa = strip_zeros(mantissa);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exp.unsigned_abs())
    } else {
        let decimals = usize::try_from(p as i32 - 1 - exp).unwrap_or(0);
        strip_zeros(&format!("{x:.decimals$}"))
    }
}

/// `1.2300` → `1.23`, `2.000` → `2` (only with a decimal point).
fn strip_zeros(s: &str) -> String {
    if !s.contains('.') {
        return s.to_string();
    }
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_xprof_statistics() {
        let s = Summary::of(&[105.998105, 109.118426, 106.198538]);
        assert!((s.standard_deviation.unwrap() - 1.7473).abs() < 1e-3);
        assert_eq!(Summary::of(&[14.875539]).standard_deviation, Some(0.0));
        assert_eq!(Summary::of(&[0.0]).standard_deviation, None);
        assert_eq!(Summary::of(&[0.0, 0.0]).standard_deviation, Some(0.0));
        assert_eq!(one_digit(None), "-nan");
        assert_eq!(one_digit(Some(110.17)), "110.2");
        assert_eq!(two_digits(Some(0.0)), "0.00");
    }

    #[test]
    fn general_is_printf_g() {
        assert_eq!(general(4.907_757e13), "4.90776e+13");
        assert_eq!(general(0.0), "0");
        assert_eq!(general(123456.0), "123456");
        assert_eq!(general(1234567.0), "1.23457e+06");
        assert_eq!(general(0.5), "0.5");
        assert_eq!(general(0.00001), "1e-05");
    }
}
