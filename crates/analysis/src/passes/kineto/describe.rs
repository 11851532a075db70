//! pandas' `Series.describe()` on numbers, as HTA's summaries print it
//! (`groupby(...).describe()`): count, mean, sample standard deviation
//! (ddof = 1, none for a single value), min, the 25/50/75 % quantiles with
//! linear interpolation, max.
//!
//! The sums follow numpy's pairwise summation (what pandas' `mean` and
//! `std` reduce with), and the interpolation numpy's `_lerp`, so that the
//! figures agree with pandas to the last bits, not merely to rounding.

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

/// One `describe()` row.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Describe {
    pub count: usize,
    pub mean: f64,
    /// Sample standard deviation (ddof = 1); `None` (pandas' NaN) for one value.
    pub std: Option<f64>,
    pub min: f64,
    pub p25: f64,
    pub p50: f64,
    pub p75: f64,
    pub max: f64,
}

/// `describe()` of `values`; `None` when there are none (HTA then has no row).
pub fn describe(values: &[f64]) -> Option<Describe> {
    if values.is_empty() {
        return None;
    }
    let n = values.len();
    let mean = pairwise_sum(values) / n as f64;
    let std = (n > 1).then(|| {
        let squares: Vec<f64> = values.iter().map(|v| (mean - v) * (mean - v)).collect();
        (pairwise_sum(&squares) / (n - 1) as f64).sqrt()
    });
    let mut sorted = values.to_vec();
    sorted.sort_unstable_by(f64::total_cmp);
    Some(Describe {
        count: n,
        mean,
        std,
        min: sorted[0],
        p25: quantile(&sorted, 0.25),
        p50: quantile(&sorted, 0.5),
        p75: quantile(&sorted, 0.75),
        max: sorted[n - 1],
    })
}

/// numpy's linear quantile (`method="linear"`) of sorted values.
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    let Some(&last) = sorted.last() else { return f64::NAN };
    let index = (sorted.len() - 1) as f64 * q;
    let below = index.floor();
    let lo = below as usize;
    let Some(&b) = sorted.get(lo + 1) else { return last };
    let (a, t) = (sorted[lo], index - below);
    // numpy's `_lerp`: from the nearer end, so that t = 1 gives b exactly.
    let diff = b - a;
    if t >= 0.5 {
        b - diff * (1.0 - t)
    } else {
        a + diff * t
    }
}

/// numpy's pairwise summation (`pairwise_sum` in its loops): blocks of up to
/// 128 summed with eight accumulators, larger ranges split in halves at a
/// multiple of 8.
pub fn pairwise_sum(values: &[f64]) -> f64 {
    let n = values.len();
    if n < 8 {
        return values.iter().fold(0.0, |s, v| s + v);
    }
    if n <= 128 {
        let mut r = [0.0f64; 8];
        r.copy_from_slice(&values[..8]);
        let mut i = 8;
        while i < n - (n % 8) {
            for (k, acc) in r.iter_mut().enumerate() {
                *acc += values[i + k];
            }
            i += 8;
        }
        let mut sum = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for v in &values[i..] {
            sum += v;
        }
        return sum;
    }
    let half = (n / 2) - (n / 2) % 8;
    pairwise_sum(&values[..half]) + pairwise_sum(&values[half..])
}

/// How points at the same µs are ordered before the running sum. HTA sorts
/// with numpy's unstable quicksort (`sort_values(by="ts")`), so its order of
/// a +1 and a −1 at the same µs depends on the trace's event order and on
/// numpy's sort; Proflens puts the additions first ([`Ties::AddFirst`], a
/// stable sort of HTA's concatenation) and can put them last, which bounds
/// HTA's figures from both sides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Ties {
    /// Launches (queue length) and starts (bandwidth) before the rest.
    #[default]
    AddFirst,
    /// Device starts (queue length) and ends (bandwidth) before the rest.
    RemoveFirst,
}

impl Ties {
    /// The sort key of an addition (`true`) or a removal at the same µs.
    pub fn rank(self, adds: bool) -> u8 {
        u8::from(adds == (self == Ties::RemoveFirst))
    }
}

/// A rank an HTA summary covers: its number, its file (host) name and the
/// profiler steps analysed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HtaRank {
    pub rank: i64,
    pub name: String,
    pub steps: Vec<i64>,
}

/// A `describe()` row as HTA's goldens write it: the keys before the
/// statistics (`rank`, `stream`…), then `count` … `max` (`std` null for one value).
pub fn hta_row(keys: &[(&str, Value)], d: &Describe) -> Value {
    let mut row = Map::new();
    for (k, v) in keys {
        row.insert((*k).to_string(), v.clone());
    }
    let stats = [("count", d.count as f64), ("mean", d.mean)];
    for (k, v) in stats {
        row.insert(k.to_string(), json!(v));
    }
    row.insert("std".to_string(), d.std.map_or(Value::Null, |v| json!(v)));
    let rest = [("min", d.min), ("25%", d.p25), ("50%", d.p50), ("75%", d.p75), ("max", d.max)];
    for (k, v) in rest {
        row.insert(k.to_string(), json!(v));
    }
    Value::Object(row)
}

/// An HTA 0.5.0 summary document: the API, its `ranks` parameter, how the
/// traces were loaded (`ranks` maps each rank to its file or host name;
/// `profiler_steps_used` is every rank's steps), the value summarised and
/// the rows.
pub fn hta_summary(api: &str, ranks: &[HtaRank], include_last_step: bool, value: &str, rows: Vec<Value>) -> Value {
    let mut steps: Vec<i64> = ranks.iter().flat_map(|r| r.steps.iter().copied()).collect();
    steps.sort_unstable();
    steps.dedup();
    let files: Map<String, Value> = ranks.iter().map(|r| (r.rank.to_string(), json!(r.name))).collect();
    json!({
        "hta_version": "0.5.0",
        "api": api,
        "params": { "ranks": ranks.iter().map(|r| r.rank).collect::<Vec<_>>() },
        "load": {
            "include_last_profiler_step": include_last_step,
            "ns_rounding": true,
            "ranks": files,
            "profiler_steps_used": steps,
        },
        "time_unit": "us",
        "value": value,
        "returned_none": rows.is_empty(),
        "rows": rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn describes_as_pandas() {
        // pd.Series([0, 1, 1, 2]).describe()
        let d = describe(&[1.0, 0.0, 2.0, 1.0]).unwrap();
        assert_eq!((d.count, d.mean, d.min, d.p25, d.p50, d.p75, d.max), (4, 1.0, 0.0, 0.75, 1.0, 1.25, 2.0));
        assert!((d.std.unwrap() - (2.0f64 / 3.0).sqrt()).abs() < 1e-15);
        // One value: no standard deviation.
        let one = describe(&[3.5]).unwrap();
        assert_eq!((one.std, one.p25, one.p75), (None, 3.5, 3.5));
        assert!(describe(&[]).is_none());
        // Two values: quantiles interpolate.
        let two = describe(&[0.0, 1.0]).unwrap();
        assert_eq!((two.p25, two.p50, two.p75), (0.25, 0.5, 0.75));
    }

    #[test]
    fn pairwise_sum_matches_numpy_blocks() {
        let ones = vec![1.0; 1000];
        assert_eq!(pairwise_sum(&ones), 1000.0);
        // np.sum([0.1] * 10) is 1.0 (eight accumulators), Python's sum 0.9999999999999999.
        assert_eq!(pairwise_sum(&[0.1; 10]), 1.0);
        assert_eq!(pairwise_sum(&[]), 0.0);
    }
}
