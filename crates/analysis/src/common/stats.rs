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
    }
}
