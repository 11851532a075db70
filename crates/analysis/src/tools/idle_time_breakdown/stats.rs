//! The numbers pandas prints for a column of idle intervals, as HTA 0.5.0
//! gets them: `Series.describe()` (count, mean, sample std with ddof=1,
//! min, the 25/50/75 % quantiles by linear interpolation, max), `sum()`,
//! and `DataFrame.round(2)`.

use crate::passes::kineto::describe::{pairwise_sum, quantile};
use serde::{Deserialize, Serialize};

/// `describe()` of one (rank, stream, category) group, rounded as HTA
/// rounds it (two decimals). `None` is pandas' NaN (JSON null): every
/// statistic of a group without a single interval, and the std of a group
/// of one.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct IntervalStats {
    pub count: u64,
    pub mean: Option<f64>,
    pub std: Option<f64>,
    pub min: Option<f64>,
    pub p25: Option<f64>,
    pub p50: Option<f64>,
    pub p75: Option<f64>,
    pub max: Option<f64>,
}

/// numpy's `round(x, 2)`: scale, round half to even, scale back.
pub fn round2(x: f64) -> f64 {
    (x * 100.0).round_ties_even() / 100.0
}

/// `describe()` of a group's intervals in row order; `None` is a NaN row
/// (the first kernel of a stream, which has no previous kernel). pandas
/// skips NaN but sums with zeros in their place, which only the order of a
/// pairwise sum can tell.
pub fn describe(values: &[Option<f64>]) -> IntervalStats {
    let mut present: Vec<f64> = values.iter().flatten().copied().collect();
    let count = present.len();
    if count == 0 {
        return IntervalStats::default();
    }
    let filled: Vec<f64> = values.iter().map(|v| v.unwrap_or(0.0)).collect();
    let mean = pairwise_sum(&filled) / count as f64;
    let std = (count > 1).then(|| {
        let squares: Vec<f64> = values.iter().map(|v| v.map_or(0.0, |x| (mean - x) * (mean - x))).collect();
        (pairwise_sum(&squares) / (count - 1) as f64).sqrt()
    });
    present.sort_by(f64::total_cmp);
    IntervalStats {
        count: count as u64,
        mean: Some(round2(mean)),
        std: std.map(round2),
        min: Some(round2(present[0])),
        p25: Some(round2(quantile(&present, 0.25))),
        p50: Some(round2(quantile(&present, 0.5))),
        p75: Some(round2(quantile(&present, 0.75))),
        max: Some(round2(present[count - 1])),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn describe_as_pandas() {
        // pandas: Series([1, 2, 3, 4, 10]).describe()
        let s = describe(&[Some(1.0), Some(2.0), Some(3.0), Some(4.0), Some(10.0)]);
        assert_eq!(s.count, 5);
        assert_eq!(s.mean, Some(4.0));
        assert_eq!(s.std, Some(3.54)); // sqrt(50 / 4) = 3.5355…
        assert_eq!((s.min, s.p25, s.p50, s.p75, s.max), (Some(1.0), Some(2.0), Some(3.0), Some(4.0), Some(10.0)));
        // Four values: the quartiles fall between them.
        let s = describe(&[Some(2.0), Some(2.0), Some(3.0), Some(5.0)]);
        assert_eq!((s.p25, s.p50, s.p75), (Some(2.0), Some(2.5), Some(3.5)));
        // NaN rows are skipped; one value has no std.
        let s = describe(&[None, Some(34.0)]);
        assert_eq!((s.count, s.mean, s.std, s.p25), (1, Some(34.0), None, Some(34.0)));
        assert_eq!(describe(&[None]), IntervalStats::default());
    }

    #[test]
    fn rounding_and_sums() {
        assert_eq!(round2(0.125), 0.12);
        assert_eq!(round2(2.846), 2.85);
        assert_eq!(round2(-3.0), -3.0);
        let v: Vec<f64> = (1..=1000).map(f64::from).collect();
        assert_eq!(pairwise_sum(&v), 500_500.0);
        assert_eq!(pairwise_sum(&v[..9]), 45.0);
        assert_eq!(pairwise_sum(&[]), 0.0);
    }
}
