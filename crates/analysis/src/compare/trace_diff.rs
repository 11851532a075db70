//! HTA's trace diff: HolisticTraceAnalysis 0.5.0's
//! `TraceDiff.compare_traces(control, test, …, device_type=ALL,
//! use_short_name=False)` over two imported PyTorch (Kineto) traces.
//!
//! Per event name it gives the number of events and their summed duration
//! in the chosen iterations of each trace, and test − control. The rules
//! below are HTA's (its trace parser and `add_iteration`), checked row by
//! row against its output in `tests/trace_diff_parity.rs`:
//!
//! * **Events, times and iterations** are HTA's trace parser's and its
//!   `add_iteration`'s, as [`crate::passes::kineto::hta`] describes them:
//!   µs-rounded events with a `cat`, host events in the `ProfilerStep#N`
//!   holding their start, device work in its launch's iteration, stream-0
//!   work in none.
//! * **Order.** HTA returns the rows by name; the goldens, and this, sort
//!   them by |diff_duration|, largest first, then by name.

use super::model::{TraceDiff, TraceDiffRow};
use crate::context::ToolError;
use crate::passes::kineto::hta::{assign_iterations, events, steps_of, Iteration};
use proflens_model::Profile;
use std::collections::{BTreeMap, BTreeSet};

/// Per event name, counts and summed durations (µs) over `control_iterations`
/// and `test_iterations` (`ProfilerStep#N` numbers), as HTA's
/// `TraceDiff.compare_traces` with `device_type=ALL`.
///
/// `None` means every iteration of that trace (HTA's default is only the
/// first; a comparison of whole traces wants them all). A trace without any
/// `ProfilerStep#N` counts as one iteration spanning the whole trace: its
/// host events and the device work they launched all count, and the result
/// lists no iteration for it. Asking for iterations of such a trace, or for
/// one it does not have, is an error that names what the trace has.
pub fn trace_diff(
    control: &Profile,
    test: &Profile,
    control_iterations: Option<&[i64]>,
    test_iterations: Option<&[i64]>,
) -> Result<TraceDiff, ToolError> {
    let control = summarize(control, control_iterations, "control")?;
    let test = summarize(test, test_iterations, "test")?;
    let names: BTreeSet<&str> = control.totals.keys().chain(test.totals.keys()).copied().collect();
    let mut rows: Vec<(u64, TraceDiffRow)> = names
        .into_iter()
        .map(|name| {
            let (c_count, c_us) = control.totals.get(name).copied().unwrap_or_default();
            let (t_count, t_us) = test.totals.get(name).copied().unwrap_or_default();
            let diff_counts = signed(t_count).saturating_sub(signed(c_count));
            let diff_us = t_us.saturating_sub(c_us);
            let category = match diff_counts.signum() {
                1 => "+",
                -1 => "-",
                _ => "=",
            };
            let row = TraceDiffRow {
                name: name.to_string(),
                control_counts: c_count,
                control_total_duration: c_us as f64,
                test_counts: t_count,
                test_total_duration: t_us as f64,
                diff_counts,
                diff_duration: diff_us as f64,
                counts_change_categories: category.to_string(),
            };
            (diff_us.unsigned_abs(), row)
        })
        .collect();
    rows.sort_by(|(a_abs, a), (b_abs, b)| b_abs.cmp(a_abs).then_with(|| a.name.cmp(&b.name)));
    Ok(TraceDiff {
        control_iterations: control.iterations,
        test_iterations: test.iterations,
        rows: rows.into_iter().map(|(_, row)| row).collect(),
    })
}

fn signed(count: u64) -> i64 {
    i64::try_from(count).unwrap_or(i64::MAX)
}

/// One side of the diff: the iterations used and, per name, (count, µs).
struct Summary<'p> {
    iterations: Vec<i64>,
    totals: BTreeMap<&'p str, (u64, i64)>,
}

/// Counts and sums the events of `chosen` iterations (`None`: all of them,
/// or the whole trace when it has no step). `role` names the side in errors.
fn summarize<'p>(profile: &'p Profile, chosen: Option<&[i64]>, role: &str) -> Result<Summary<'p>, ToolError> {
    let events = events(profile);
    let steps = steps_of(&events);
    let available: Vec<i64> = steps.iter().map(|s| s.number).collect::<BTreeSet<_>>().into_iter().collect();
    let iterations = match chosen {
        None => available.clone(),
        Some(list) => {
            let wanted: Vec<i64> = list.iter().copied().collect::<BTreeSet<_>>().into_iter().collect();
            check_iterations(&wanted, &available, role)?;
            wanted
        }
    };
    // With no step at all, the whole trace is the one iteration.
    let whole_trace = available.is_empty();
    let mut totals: BTreeMap<&str, (u64, i64)> = BTreeMap::new();
    for (event, iteration) in events.iter().zip(assign_iterations(&events, &steps)) {
        let counted = match iteration {
            Iteration::Step(n) => iterations.binary_search(&n).is_ok(),
            Iteration::NoStep => whole_trace,
            Iteration::NoLaunch | Iteration::Unassigned => false,
        };
        if counted {
            let (count, us) = totals.entry(event.name()).or_default();
            *count = count.saturating_add(1);
            *us = us.saturating_add(event.dur_us);
        }
    }
    Ok(Summary { iterations, totals })
}

/// Errors for a choice of iterations the trace cannot satisfy.
fn check_iterations(wanted: &[i64], available: &[i64], role: &str) -> Result<(), ToolError> {
    let Some(&first) = wanted.first() else {
        return Err(ToolError::Failed(format!(
            "no iteration of the {role} trace was chosen; choose at least one, or all of them"
        )));
    };
    if available.is_empty() {
        return Err(ToolError::Failed(format!(
            "the {role} trace has no ProfilerStep#N steps, so its iteration {first} cannot be chosen; \
             compare it as a whole instead"
        )));
    }
    if let Some(missing) = wanted.iter().find(|n| available.binary_search(n).is_err()) {
        return Err(ToolError::Failed(format!(
            "the {role} trace has no iteration {missing} (ProfilerStep#{missing}); its iterations are {}",
            ranges(available)
        )));
    }
    Ok(())
}

/// Sorted numbers as runs: `1009–1014, 1020`.
fn ranges(sorted: &[i64]) -> String {
    let mut runs: Vec<(i64, i64)> = Vec::new();
    for &n in sorted {
        match runs.last_mut() {
            Some((_, last)) if last.checked_add(1) == Some(n) => *last = n,
            _ => runs.push((n, n)),
        }
    }
    let text: Vec<String> =
        runs.iter().map(|&(a, b)| if a == b { a.to_string() } else { format!("{a}–{b}") }).collect();
    text.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::passes::kineto::hta::tests::TRACE;

    fn profile(json: &str) -> Profile {
        proflens_format::load_profile(json.as_bytes(), &Default::default(), &mut |_| {}).unwrap()
    }

    #[test]
    fn diff_of_two_iterations() {
        let p = profile(TRACE);
        let diff = trace_diff(&p, &p, Some(&[1]), Some(&[2, 2])).unwrap();
        assert_eq!((diff.control_iterations, diff.test_iterations), (vec![1], vec![2]));
        let row = |name: &str| diff.rows.iter().find(|r| r.name == name).unwrap();
        let step1 = row("ProfilerStep#1");
        assert_eq!((step1.control_counts, step1.control_total_duration), (2, 160.0));
        assert_eq!((step1.test_counts, step1.diff_counts, step1.diff_duration), (0, -2, -160.0));
        assert_eq!(step1.counts_change_categories, "-");
        assert_eq!(row("at_2").counts_change_categories, "+");
        assert_eq!(diff.rows[0].name, "ProfilerStep#1");
        assert!(diff.rows.windows(2).all(|w| w[0].diff_duration.abs() >= w[1].diff_duration.abs()));
    }

    #[test]
    fn whole_trace_without_steps() {
        let p = profile(
            r#"{"schemaVersion":1,"traceEvents":[
              {"ph":"X","cat":"cpu_op","name":"op","pid":1,"tid":1,"ts":10,"dur":4},
              {"ph":"X","cat":"cuda_runtime","name":"launch","pid":1,"tid":1,"ts":11,"dur":1,"args":{"correlation":3}},
              {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":20,"dur":2,"args":{"device":0,"stream":7,"correlation":3}},
              {"ph":"X","cat":"kernel","name":"orphan","pid":0,"tid":7,"ts":30,"dur":2,"args":{"device":0,"stream":7}}
            ]}"#,
        );
        let diff = trace_diff(&p, &p, None, None).unwrap();
        assert!(diff.control_iterations.is_empty() && diff.test_iterations.is_empty());
        let names: Vec<&str> = diff.rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["k", "launch", "op"]);
        assert!(diff.rows.iter().all(|r| r.diff_counts == 0 && r.counts_change_categories == "="));
        let err = trace_diff(&p, &p, Some(&[1]), None).unwrap_err().to_string();
        assert_eq!(
            err,
            "the control trace has no ProfilerStep#N steps, so its iteration 1 cannot be chosen; \
             compare it as a whole instead"
        );
    }

    #[test]
    fn unknown_or_no_iterations_are_errors() {
        let p = profile(TRACE);
        let err = trace_diff(&p, &p, None, Some(&[1, 5])).unwrap_err().to_string();
        assert_eq!(err, "the test trace has no iteration 5 (ProfilerStep#5); its iterations are 1–2");
        let err = trace_diff(&p, &p, Some(&[]), None).unwrap_err().to_string();
        assert!(err.starts_with("no iteration of the control trace was chosen"), "{err}");
    }

    #[test]
    fn ranges_of_iterations() {
        assert_eq!(ranges(&[1, 2, 3, 5, 7, 8]), "1–3, 5, 7–8");
        assert_eq!(ranges(&[i64::MAX - 1, i64::MAX]), format!("{}–{}", i64::MAX - 1, i64::MAX));
    }
}
