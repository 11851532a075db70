//! Whether a tool file's step categories add up to its step times.
//!
//! XProf's steps are partitioned: a generic step's categories are its span
//! types, which cover the step (`op_stats_to_input_pipeline_analysis.cc`,
//! `unknown_time_ms` taking the rest), and a TPU step's time is the sum of
//! its categories by definition (`tpu_step_details_utils.h`, `StepTimeMs`).
//! A file whose columns do not add up (an older layout, a column Proflens
//! does not know, a hand-edited file) would show a step chart whose stacked
//! bars are not the step times; the page and the CLI say so instead of
//! silently showing either.

use super::Diagnostic;

/// The difference allowed between a step's time and its categories' sum:
/// the files print times with at least two decimals (tooltips three), so
/// rounding of up to ten values stays under 0.05 ms; longer steps get 0.1 %
/// more for files that print fewer significant digits.
pub fn tolerance_ms(step_ms: f64) -> f64 {
    0.05 + 1e-3 * step_ms.abs()
}

/// One step: its name, its time and the sum of its categories, ms.
#[derive(Debug, Clone, PartialEq)]
pub struct StepSum {
    pub name: String,
    pub step_ms: f64,
    pub categories_ms: f64,
}

/// A warning when some steps' categories (`what`: which ones, for the
/// message) do not add up to their step time beyond rounding; `None` when
/// all do.
pub fn mismatch(sums: &[StepSum], what: &str) -> Option<Diagnostic> {
    let off: Vec<&StepSum> =
        sums.iter().filter(|s| (s.categories_ms - s.step_ms).abs() > tolerance_ms(s.step_ms)).collect();
    let worst = off
        .iter()
        .max_by(|a, b| (a.categories_ms - a.step_ms).abs().total_cmp(&(b.categories_ms - b.step_ms).abs()))?;
    Some(Diagnostic {
        severity: "WARNING".into(),
        message: format!(
            "In {} of {} steps of this file the categories ({what}) do not add up to the step time: \
             step {} takes {:.3} ms, its categories {:.3} ms (the largest difference). \
             The step chart stacks the categories, so its bars are not the step times.",
            off.len(),
            sums.len(),
            worst.name,
            worst.step_ms,
            worst.categories_ms
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sum(name: &str, step_ms: f64, categories_ms: f64) -> StepSum {
        StepSum { name: name.into(), step_ms, categories_ms }
    }

    #[test]
    fn rounding_is_not_a_mismatch() {
        // XProf's TPU training overview: tooltip times in three decimals.
        assert_eq!(mismatch(&[sum("0", 120.882, 120.8823), sum("4", 3.052, 3.0523)], "x"), None);
        assert_eq!(mismatch(&[], "x"), None);
        // 0.05 ms + 0.1 % of 100 ms = 0.15 ms.
        assert_eq!(mismatch(&[sum("1", 100.0, 100.149)], "x"), None);
        assert!(mismatch(&[sum("1", 100.0, 100.151)], "x").is_some());
    }

    #[test]
    fn names_the_count_and_the_largest_difference() {
        let d =
            mismatch(&[sum("7", 2.593, 4.0864), sum("8", 12.963, 20.4320), sum("9", 5.0, 5.0)], "compute, input, idle")
                .unwrap();
        assert_eq!(d.severity, "WARNING");
        assert!(d.message.starts_with("In 2 of 3 steps"), "{}", d.message);
        assert!(d.message.contains("step 8 takes 12.963 ms, its categories 20.432 ms"), "{}", d.message);
        assert!(d.message.contains("(compute, input, idle)"), "{}", d.message);
    }
}
