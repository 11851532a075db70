//! HTA's trace diff: HolisticTraceAnalysis 0.5.0's
//! `TraceDiff.compare_traces(control, test, …, device_type=ALL,
//! use_short_name=False)` over two imported PyTorch (Kineto) traces.
//!
//! Per event name it gives the number of events and their summed duration
//! in the chosen iterations of each trace, and test − control. The rules
//! below are HTA's (its trace parser and `add_iteration`), checked row by
//! row against its output in `tests/trace_diff_parity.rs`:
//!
//! * **Which events.** HTA keeps the trace events that have both a `dur`
//!   and a `cat`, except the `Trace` span. In the model that is every event
//!   with a `cat` stat, except `Trace` and `cpu_instant_event`: the importer
//!   keeps instants (with no duration) which HTA drops, and those are the
//!   instants Kineto writes with a category; the others (`Iteration Start`,
//!   `Record Window End`, PyTorch 1.9's `[memory]`) have none.
//!   `python_function` events count: HTA 0.5.0's default JSON parser keeps
//!   them (only its ijson parsers skip them).
//! * **Times.** HTA rounds every timestamp to whole µs, start up and end down,
//!   so a sub-µs event can last −1 µs; on traces in whole µs this changes
//!   nothing. The durations are these rounded ones.
//! * **Iteration.** An event's `stream` is its `stream` arg, −1 without one.
//!   An event with stream < 0 (host events, and device events without the
//!   arg, such as `gpu_user_annotation`) belongs to the `ProfilerStep#N`
//!   whose [ts, ts + dur) holds its start; when several do (a step's host and
//!   device copies), the last one in trace order. An event with stream > 0
//!   takes the iteration of the stream −1 event with the same correlation id
//!   (its launch), and none when the launch is not in the trace. HTA never
//!   assigns stream-0 events, so they never count. The steps are every kept
//!   event named `ProfilerStep#N` (any category, `ProfilerStep #N` too).
//! * **Order.** HTA returns the rows by name; the goldens, and this, sort
//!   them by |diff_duration|, largest first, then by name.

use super::model::{TraceDiff, TraceDiffRow};
use crate::common::schema::StatPicker;
use crate::context::ToolError;
use proflens_model::{Origin, Profile, StatValue};
use rustc_hash::FxHashMap;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap};

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
    let events = kept_events(profile);
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
            let (count, us) = totals.entry(event.name).or_default();
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

/// An event as HTA's trace parser keeps it: times in whole µs.
#[derive(Debug)]
struct Kept<'p> {
    name: &'p str,
    ts_us: i64,
    dur_us: i64,
    /// The `stream` arg; −1 without one.
    stream: i64,
    /// The correlation id (`correlation` arg); `None` without one.
    correlation: Option<u64>,
}

/// Every event HTA's parser keeps, host plane first: the model's order
/// stands in for the trace's (Kineto writes host events before device ones),
/// which decides between overlapping steps and duplicate correlation ids.
fn kept_events(profile: &Profile) -> Vec<Kept<'_>> {
    let key = |k: &str| profile.strings.lookup(k);
    let picker = StatPicker::new(profile, &[key("cat"), key("correlation_id"), key("stream")]);
    let offset_ps = frame_offset_ps(profile);
    let mut values: [Option<StatValue>; 3] = [None; 3];
    let mut out = Vec::new();
    for plane in &profile.planes {
        for line in &plane.lines {
            let ev = &line.events;
            for i in 0..ev.len() {
                picker.pick(profile, plane, line, i, &mut values);
                let Some(StatValue::Str(cat)) = values[0] else { continue };
                if cat.is_empty() || cat == "Trace" || cat == "cpu_instant_event" {
                    continue;
                }
                let meta = ev.metadata.get(i).and_then(|&m| plane.event_metadata.get(m as usize));
                let (Some(meta), Some(&start), Some(&dur)) = (meta, ev.start_ps.get(i), ev.duration_ps.get(i)) else {
                    continue;
                };
                let (ts_us, dur_us) = whole_us(start, dur, offset_ps);
                out.push(Kept {
                    name: profile.str(meta.name),
                    ts_us,
                    dur_us,
                    stream: values[2].map_or(-1, stream_number),
                    correlation: values[1].and_then(correlation_id),
                });
            }
        }
    }
    out
}

const PS_PER_US: i128 = 1_000_000;

/// The sub-µs part of the trace's first timestamp, in ps. The model's times
/// count from that first event, but HTA rounds the trace's own timestamps;
/// the importer's `origin_ns` (the first event's wall-clock time) keeps that
/// part when the trace has epoch times or a whole-µs `baseTimeNanoseconds`.
/// Without it the rounding is relative to the first event (see the parity
/// notes: at most 1 µs per event, and only on traces with sub-µs times).
fn frame_offset_ps(profile: &Profile) -> i128 {
    match (profile.origin, profile.origin_ns) {
        (Origin::Kineto, Some(ns)) => i128::from(ns % 1000) * 1000,
        _ => 0,
    }
}

/// HTA's rounding: start up and end down to whole µs; the duration is their
/// difference (−1 for an event inside one µs).
fn whole_us(start_ps: i64, dur_ps: i64, offset_ps: i128) -> (i64, i64) {
    let start = i128::from(start_ps) + offset_ps;
    let end = start + i128::from(dur_ps.max(0));
    let ts = -(-start).div_euclid(PS_PER_US);
    let end = end.div_euclid(PS_PER_US);
    let narrow = |v: i128| i64::try_from(v).unwrap_or(if v < 0 { i64::MIN } else { i64::MAX });
    (narrow(ts), narrow(end - ts))
}

/// HTA's `int(stream)`, and −1 for what it cannot convert.
fn stream_number(value: StatValue) -> i64 {
    match value {
        StatValue::Int(v) => v,
        StatValue::Uint(_) => i64::MAX,
        StatValue::Double(v) if v.is_finite() => v.trunc() as i64,
        StatValue::Str(s) => s.trim().parse().unwrap_or(-1),
        _ => -1,
    }
}

/// A correlation id; HTA's −1 (its default) and non-integers are none.
fn correlation_id(value: StatValue) -> Option<u64> {
    match value {
        StatValue::Int(-1) => None,
        other => other.as_id(),
    }
}

/// `ProfilerStep#N` (HTA's `ProfilerStep\s*#\s*(\d+)`) → N.
fn step_number(name: &str) -> Option<i64> {
    let rest = name.strip_prefix("ProfilerStep")?.trim_start().strip_prefix('#')?.trim_start();
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    rest.get(..digits)?.parse().ok()
}

/// The kept events named `ProfilerStep#N`, in trace order.
fn steps_of(events: &[Kept]) -> Vec<Step> {
    events
        .iter()
        .filter_map(|e| Some(Step { ts_us: e.ts_us, dur_us: e.dur_us, number: step_number(e.name)? }))
        .collect()
}

/// One `ProfilerStep#N` range, in whole µs.
#[derive(Debug, Clone, Copy)]
struct Step {
    ts_us: i64,
    dur_us: i64,
    number: i64,
}

/// HTA's `iteration` column, with its −1 split by cause.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Iteration {
    /// In `ProfilerStep#N`, or launched from there.
    Step(i64),
    /// HTA's −1 for a host-side event outside every step (or work it launched).
    NoStep,
    /// HTA's −1 for device work whose launch is not in the trace.
    NoLaunch,
    /// Stream 0: HTA assigns no iteration.
    Unassigned,
}

/// The iteration of each event (HTA's `add_iteration`).
fn assign_iterations(events: &[Kept], steps: &[Step]) -> Vec<Iteration> {
    let lookup = StepLookup::new(steps);
    let mut out: Vec<Iteration> = events
        .iter()
        .map(|e| match e.stream {
            s if s < 0 => lookup.step_at(e.ts_us).map_or(Iteration::NoStep, Iteration::Step),
            0 => Iteration::Unassigned,
            _ => Iteration::NoLaunch,
        })
        .collect();
    // Launches: stream −1 events by correlation id (the last one wins, as in HTA's merge).
    let launches: FxHashMap<u64, usize> = events
        .iter()
        .enumerate()
        .filter(|(_, e)| e.stream == -1)
        .filter_map(|(i, e)| Some((e.correlation?, i)))
        .collect();
    for (i, e) in events.iter().enumerate() {
        if e.stream > 0 {
            if let Some(&launch) = e.correlation.and_then(|c| launches.get(&c)) {
                out[i] = out[launch];
            }
        }
    }
    out
}

/// The steps cut into disjoint segments, each with the step HTA picks there
/// (the last in trace order whose range covers it), so that finding an
/// event's step is a binary search rather than HTA's scan of every step.
struct StepLookup {
    /// Segment `k` is `[starts[k], starts[k + 1])`; the last one runs on.
    starts: Vec<i64>,
    picks: Vec<Option<i64>>,
}

impl StepLookup {
    fn new(steps: &[Step]) -> StepLookup {
        // (start, end, order, number) of the steps that cover anything.
        let mut ranges: Vec<(i64, i64, usize, i64)> = steps
            .iter()
            .enumerate()
            .filter(|(_, s)| s.dur_us > 0)
            .map(|(order, s)| (s.ts_us, s.ts_us.saturating_add(s.dur_us), order, s.number))
            .collect();
        ranges.sort_unstable();
        let mut bounds: Vec<i64> = ranges.iter().flat_map(|r| [r.0, r.1]).collect();
        bounds.sort_unstable();
        bounds.dedup();
        // Open steps, latest in trace order on top; ended ones leave lazily.
        let mut open: BinaryHeap<(usize, i64, i64)> = BinaryHeap::new();
        let mut next = 0;
        let mut picks = Vec::with_capacity(bounds.len());
        for &b in &bounds {
            while let Some(&(start, end, order, number)) = ranges.get(next) {
                if start > b {
                    break;
                }
                open.push((order, end, number));
                next += 1;
            }
            while open.peek().is_some_and(|&(_, end, _)| end <= b) {
                open.pop();
            }
            picks.push(open.peek().map(|&(_, _, number)| number));
        }
        StepLookup { starts: bounds, picks }
    }

    /// The step HTA assigns to an event starting at `ts_us`.
    fn step_at(&self, ts_us: i64) -> Option<i64> {
        let k = self.starts.partition_point(|&s| s <= ts_us).checked_sub(1)?;
        self.picks.get(k).copied().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two host steps, a launch and its kernel, device work without a launch
    /// or on stream 0, the device copy of step 1 overlapping step 2, an
    /// instant, and a sub-µs op.
    const TRACE: &str = r#"{"schemaVersion":1,"traceEvents":[
      {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":100,"dur":100},
      {"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":200,"dur":100},
      {"ph":"X","cat":"cpu_op","name":"in_1","pid":1,"tid":1,"ts":150,"dur":10},
      {"ph":"X","cat":"cpu_op","name":"at_2","pid":1,"tid":1,"ts":200,"dur":5},
      {"ph":"X","cat":"cpu_op","name":"sub_us","pid":1,"tid":1,"ts":120.4,"dur":0.3},
      {"ph":"X","cat":"cpu_op","name":"outside","pid":1,"tid":1,"ts":400,"dur":1},
      {"ph":"X","cat":"cuda_runtime","name":"launch","pid":1,"tid":1,"ts":190,"dur":20,"args":{"correlation":7}},
      {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":250,"dur":30,"args":{"device":0,"stream":7,"correlation":7}},
      {"ph":"X","cat":"kernel","name":"orphan","pid":0,"tid":7,"ts":260,"dur":3,"args":{"device":0,"stream":7,"correlation":99}},
      {"ph":"X","cat":"kernel","name":"stream0","pid":0,"tid":0,"ts":150,"dur":3,"args":{"device":0,"stream":0}},
      {"ph":"X","cat":"gpu_user_annotation","name":"ProfilerStep#1","pid":0,"tid":7,"ts":210,"dur":60,"args":{"device":0}},
      {"ph":"X","cat":"cpu_op","name":"in_gpu_copy","pid":1,"tid":1,"ts":260,"dur":1},
      {"ph":"i","cat":"cpu_instant_event","name":"mark","pid":1,"tid":1,"ts":150,"s":"t"},
      {"ph":"i","name":"Record Window End","pid":1,"tid":1,"ts":150,"s":"g"}
    ]}"#;

    fn profile(json: &str) -> Profile {
        proflens_format::load_profile(json.as_bytes(), &Default::default(), &mut |_| {}).unwrap()
    }

    #[test]
    fn iterations_follow_hta() {
        let p = profile(TRACE);
        let events = kept_events(&p);
        let got: BTreeMap<&str, Vec<Iteration>> = events
            .iter()
            .zip(assign_iterations(&events, &steps_of(&events)))
            .fold(BTreeMap::new(), |mut m, (e, it)| {
                m.entry(e.name).or_insert_with(Vec::new).push(it);
                m
            });
        use Iteration::{NoLaunch, NoStep, Step, Unassigned};
        assert_eq!(got["in_1"], [Step(1)]);
        // A step's end is exclusive.
        assert_eq!(got["at_2"], [Step(2)]);
        assert_eq!(got["sub_us"], [Step(1)]);
        assert_eq!(got["outside"], [NoStep]);
        assert_eq!(got["launch"], [Step(1)]);
        // The kernel runs in step 2's time but takes its launch's iteration.
        assert_eq!(got["k"], [Step(1)]);
        assert_eq!(got["orphan"], [NoLaunch]);
        assert_eq!(got["stream0"], [Unassigned]);
        // The device copy of step 1 has no stream arg: a host-side event,
        // and a step range that comes after step 2's, so it wins where they overlap.
        assert_eq!(got["in_gpu_copy"], [Step(1)]);
        assert_eq!(got["ProfilerStep#1"], [Step(1), Step(1)]);
        // Instants are not kept.
        assert!(!got.contains_key("mark") && !got.contains_key("Record Window End"));
        let sub_us = events.iter().find(|e| e.name == "sub_us").unwrap();
        assert_eq!((sub_us.ts_us - events[0].ts_us, sub_us.dur_us), (21, -1));
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
    fn helpers() {
        assert_eq!(step_number("ProfilerStep#12"), Some(12));
        assert_eq!(step_number("ProfilerStep # 3 tail"), Some(3));
        assert_eq!(step_number("ProfilerStep#"), None);
        assert_eq!(step_number("ProfilerStepX#1"), None);
        assert_eq!(step_number("ProfilerStep#99999999999999999999"), None);
        assert_eq!(ranges(&[1, 2, 3, 5, 7, 8]), "1–3, 5, 7–8");
        assert_eq!(ranges(&[i64::MAX - 1, i64::MAX]), format!("{}–{}", i64::MAX - 1, i64::MAX));
        // Start up, end down: 1.5 µs + 2 µs → [2, 3); inside one µs → −1.
        assert_eq!(whole_us(1_500_000, 2_000_000, 0), (2, 1));
        assert_eq!(whole_us(1_200_000, 300_000, 0), (2, -1));
        assert_eq!(whole_us(1_000_000, 0, 0), (1, 0));
        assert_eq!(whole_us(-1_500_000, 0, 0), (-1, -1));
        assert_eq!(whole_us(i64::MAX, i64::MAX, 999_000), (9_223_372_036_856, 9_223_372_036_854));
        assert_eq!(stream_number(StatValue::Str(" 7 ")), 7);
        assert_eq!(stream_number(StatValue::Str("seven")), -1);
        assert_eq!(stream_number(StatValue::Double(7.9)), 7);
        assert_eq!(correlation_id(StatValue::Int(-1)), None);
        assert_eq!(correlation_id(StatValue::Int(5)), Some(5));
    }

    #[test]
    fn overlapping_steps_pick_the_last_in_trace_order() {
        let step = |ts_us, dur_us, number| Step { ts_us, dur_us, number };
        let lookup = StepLookup::new(&[step(0, 10, 1), step(5, 15, 2), step(6, 2, 3), step(30, 0, 4)]);
        let at = |t| lookup.step_at(t);
        assert_eq!(
            [at(-1), at(0), at(5), at(6), at(8), at(19), at(20), at(30)],
            [None, Some(1), Some(2), Some(3), Some(2), Some(2), None, None]
        );
        assert_eq!(StepLookup::new(&[]).step_at(0), None);
    }
}
