//! pandas' `describe()` statistics (HTA's summaries) as table columns, for
//! any row that carries one: samples, mean, std, min, quartiles, max.

use crate::widgets::fmt;
use crate::widgets::table::{Column, SortValue};
use proflens_analysis::passes::kineto::describe::Describe;

/// A row with a `describe()` summary.
pub trait Described {
    fn described(&self) -> &Describe;

    /// A statistic's cell: whole numbers as such, others to 4 decimals.
    fn stat(v: f64) -> String {
        if v.fract() == 0.0 {
            fmt::decimal(v, 0)
        } else {
            fmt::decimal(v, 4)
        }
    }
}

/// The summary's columns; `count_title` says what a sample is.
pub fn describe_columns<R: Described>(count_title: &'static str) -> Vec<Column<R>> {
    macro_rules! stat_col {
        ($id:literal, $label:literal, $title:expr, $f:expr) => {
            Column {
                id: $id,
                label: $label,
                title: $title,
                numeric: true,
                value: |r: &R| SortValue::Number(($f)(r.described())),
                cell: |r: &R| R::stat(($f)(r.described())),
            }
        };
    }
    vec![
        stat_col!("count", "Samples", count_title, |d: &Describe| d.count as f64),
        stat_col!("mean", "Mean", "Mean of the samples, in the unit of the table", |d: &Describe| d.mean),
        Column {
            id: "std",
            label: "Std",
            title: "Sample standard deviation",
            numeric: true,
            value: |r: &R| SortValue::Number(r.described().std.unwrap_or(f64::NAN)),
            cell: |r: &R| r.described().std.map_or("—".to_string(), R::stat),
        },
        stat_col!("min", "Min", "Smallest sample", |d: &Describe| d.min),
        stat_col!("p25", "25%", "First quartile: a quarter of the samples are below it", |d: &Describe| d.p25),
        stat_col!("p50", "Median", "Half the samples are below it", |d: &Describe| d.p50),
        stat_col!("p75", "75%", "Third quartile: three quarters of the samples are below it", |d: &Describe| d.p75),
        stat_col!("max", "Max", "Largest sample", |d: &Describe| d.max),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Row(Describe);

    impl Described for Row {
        fn described(&self) -> &Describe {
            &self.0
        }
    }

    #[test]
    fn whole_statistics_print_without_decimals() {
        assert_eq!(Row::stat(3.0), "3");
        assert_eq!(Row::stat(0.58333), "0.5833");
        let columns = describe_columns::<Row>("Points");
        let ids: Vec<&str> = columns.iter().map(|c| c.id).collect();
        assert_eq!(ids, ["count", "mean", "std", "min", "p25", "p50", "p75", "max"]);
        let row = Row(Describe { count: 2, mean: 1.5, std: None, min: 1.0, p25: 1.25, p50: 1.5, p75: 1.75, max: 2.0 });
        assert_eq!((columns[0].cell)(&row), "2");
        assert_eq!((columns[2].cell)(&row), "—");
    }
}
