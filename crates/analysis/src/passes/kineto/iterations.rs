//! Which host ranges of a PyTorch trace are its iterations, for the
//! analyses that work one iteration at a time (the critical path, the
//! Advisor's per-step findings) on traces with or without `ProfilerStep#N`.
//!
//! HTA 0.5.0's rule (`CriticalPathAnalysis.critical_path_analysis(t, rank,
//! annotation, instance_id)`, `hta/analyzers/critical_path_analysis.py`):
//! the iterations are the events whose name *contains* `annotation` (any
//! category: a `user_annotation`, a `cpu_op`, …), and `instance_id` picks
//! one of them (or a range); `annotation=""` is the whole trace, from the
//! first event's start to the last one's end. HTA's callers pass
//! `"ProfilerStep"`.
//!
//! Proflens's default, where HTA needs the caller to name one: `ProfilerStep`
//! when the trace has a `ProfilerStep#N`; else the trace's longest top-level
//! `user_annotation` (one inside no other annotation on its thread: an
//! inference trace's `record_function` around a request or a generation
//! step, e.g. vLLM's `execute_context_…`), whose instances are then the
//! iterations, provided they cover at least half of the host's time (so a
//! short range — one collective's `record_function` — never stands for the
//! trace); else the whole trace.

use super::hta::step_number;
use super::{HostKind, KinetoIndex};

/// HTA's annotation for training steps.
pub const PROFILER_STEP: &str = "ProfilerStep";

/// A host range as the choice reads it (a host event, µs or ps: any unit).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Range<'a> {
    pub name: &'a str,
    /// A `user_annotation` (`record_function`) range.
    pub user_annotation: bool,
    /// The thread the range ran on (any key that tells threads apart).
    pub thread: (usize, usize),
    pub start: i64,
    pub end: i64,
}

/// The host events of a Kineto index as ranges (ps; a thread is a line of
/// the host plane).
pub fn ranges_of(index: &KinetoIndex) -> Vec<Range<'_>> {
    index
        .host
        .iter()
        .map(|h| Range {
            name: index.text(h.name),
            user_annotation: h.kind == HostKind::Annotation,
            thread: (0, h.line as usize),
            start: h.start_ps,
            end: h.end_ps,
        })
        .collect()
}

/// The share of the host's time (first start to last end) an annotation's
/// instances must cover to be the default iterations.
pub const MIN_COVERAGE: f64 = 0.5;

/// The annotation the iterations default to: `ProfilerStep` when a range is
/// a `ProfilerStep#N`, else the name of the longest top-level user
/// annotation (ties: the earliest) if its instances cover
/// [`MIN_COVERAGE`] of the host's time, else `None` (the whole trace).
pub fn default_annotation(ranges: &[Range]) -> Option<String> {
    if ranges.iter().any(|r| step_number(r.name).is_some()) {
        return Some(PROFILER_STEP.to_string());
    }
    let name = top_level_annotations(ranges)
        .into_iter()
        .map(|i| &ranges[i])
        .max_by(|a, b| (a.end - a.start).cmp(&(b.end - b.start)).then(b.start.cmp(&a.start)))?
        .name;
    let span = ranges.iter().map(|r| r.end).max()? - ranges.iter().map(|r| r.start).min()?;
    let covered: i64 = instances(ranges, name).iter().map(|&i| ranges[i].end - ranges[i].start).sum();
    (covered as f64 >= MIN_COVERAGE * span as f64).then(|| name.to_string())
}

/// The user annotations no other user annotation on their thread encloses.
fn top_level_annotations(ranges: &[Range]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..ranges.len()).filter(|&i| ranges[i].user_annotation).collect();
    // By thread, then start; the longer first on a tie, so it encloses.
    order.sort_by_key(|&i| (ranges[i].thread, ranges[i].start, std::cmp::Reverse(ranges[i].end), i));
    let mut top = Vec::new();
    let mut open: Option<((usize, usize), i64)> = None;
    for i in order {
        let r = &ranges[i];
        match open {
            Some((thread, end)) if thread == r.thread && r.start < end => {}
            _ => {
                top.push(i);
                open = Some((r.thread, r.end));
            }
        }
    }
    top
}

/// HTA's instances of `annotation`: the ranges whose name contains it, by
/// start (then by place). Empty for the empty annotation (the whole trace).
pub fn instances(ranges: &[Range], annotation: &str) -> Vec<usize> {
    if annotation.is_empty() {
        return Vec::new();
    }
    let mut found: Vec<usize> = (0..ranges.len()).filter(|&i| ranges[i].name.contains(annotation)).collect();
    found.sort_by_key(|&i| (ranges[i].start, i));
    found
}

/// Why the iterations are what they are, when Proflens chose them (`None`
/// for `ProfilerStep` or an annotation the user named).
pub fn default_note(annotation: &str) -> Option<String> {
    match annotation {
        PROFILER_STEP => None,
        "" => Some(
            "This trace has no ProfilerStep#N and no user annotation that covers half of it: the whole trace is \
             one iteration."
                .to_string(),
        ),
        name => Some(format!(
            "This trace has no ProfilerStep#N: its iterations are the instances of its longest top-level \
             annotation, “{name}”."
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(name: &str, user_annotation: bool, tid: usize, start: i64, end: i64) -> Range<'_> {
        Range { name, user_annotation, thread: (0, tid), start, end }
    }

    #[test]
    fn profiler_steps_come_first() {
        let ranges = [r("ProfilerStep#3", true, 1, 0, 10), r("long", true, 1, 0, 100)];
        assert_eq!(default_annotation(&ranges).as_deref(), Some(PROFILER_STEP));
        assert_eq!(instances(&ranges, PROFILER_STEP), [0]);
    }

    #[test]
    fn else_the_longest_top_level_annotation() {
        let ranges = [
            // Inside "request" on thread 1: not top level, though the longest but one.
            r("inner", true, 1, 5, 85),
            r("request", true, 1, 0, 90),
            // A cpu_op is never chosen, however long.
            r("aten::mm", false, 1, 0, 150),
            // Top level on thread 2, but shorter.
            r("other", true, 2, 0, 60),
            r("request", true, 1, 100, 180),
        ];
        assert_eq!(default_annotation(&ranges).as_deref(), Some("request"));
        // Every range whose name contains it, by start.
        assert_eq!(instances(&ranges, "request"), [1, 4]);
        // HTA's substring rule, any category.
        assert_eq!(instances(&ranges, "aten"), [2]);
        assert_eq!(instances(&ranges, ""), Vec::<usize>::new());
        // No annotation at all: the whole trace.
        assert_eq!(default_annotation(&[r("aten::mm", false, 1, 0, 5)]), None);
        assert!(default_note("").unwrap().contains("whole trace"));
        assert!(default_note("request").unwrap().contains("“request”"));
        assert_eq!(default_note(PROFILER_STEP), None);
    }

    #[test]
    fn a_short_annotation_does_not_stand_for_the_trace() {
        // `nccl` (10 of 100) is the only annotation: the whole trace.
        let ranges = [r("aten::mm", false, 1, 0, 100), r("nccl:all_reduce", true, 1, 40, 50)];
        assert_eq!(default_annotation(&ranges), None);
        // Five instances of 10 cover half: they are the iterations.
        let mut ranges: Vec<Range> = (0..5).map(|k| r("generate", true, 1, 20 * k, 20 * k + 10)).collect();
        ranges.push(r("aten::mm", false, 1, 0, 100));
        assert_eq!(default_annotation(&ranges).as_deref(), Some("generate"));
    }

    #[test]
    fn ties_go_to_the_earliest() {
        let ranges = [r("b", true, 1, 30, 60), r("a", true, 1, 0, 30)];
        assert_eq!(default_annotation(&ranges).as_deref(), Some("a"));
    }
}
