//! The critical path on real PyTorch traces (tests/data/kineto). HTA 0.5.0's
//! `critical_path_analysis` does not run under current pandas, so there is
//! no golden: the hand-worked cases are the unit tests beside the code
//! (crates/analysis/src/tools/critical_path/tests.rs). Here, on every step
//! of two real traces (and the default iteration of a third, without
//! `ProfilerStep`), what must hold whatever the path:
//!
//! * the segments tile the path: the first starts at the step's start and
//!   each starts where the one before ends;
//! * the path lasts the step's duration (within 1 µs) when it ends inside
//!   the step, and its kinds' totals add up to it;
//! * HTA's length (the sum of the weights) is at most the path's;
//! * every segment's event is in the trace, at the place the segment names,
//!   with the name and (µs-rounded) times it reports.

use proflens_analysis::advice::{of_kineto, Basis};
use proflens_analysis::passes::kineto::hta::{self, HtaEvent};
use proflens_analysis::passes::kineto::KinetoIndex;
use proflens_analysis::tools::critical_path::{critical_paths, critical_paths_of, Kind, StepPath};
use proflens_model::Profile;
use std::collections::HashMap;

const TRACES: &[&str] = &[
    "kineto/kineto-h100-hf-inference/gaunernst_bert-small-uncased__1016001.json.gz",
    "kineto/kineto-multirank-sampled/sampled_rank-0.json.gz",
];

/// What every iteration's path satisfies (module docs).
fn check_path(file: &str, s: &StepPath, by_place: &HashMap<(usize, usize, usize), &HtaEvent>) {
    assert_eq!(s.error, None, "{file} step {}", s.step);
    let segs = &s.segments;
    assert!(segs.len() > 10, "{file} step {}: {} segments", s.step, segs.len());
    assert_eq!(segs[0].ts_us, s.ts_us, "{file}: the path starts with the step");
    for w in segs.windows(2) {
        assert_eq!(w[0].ts_us + w[0].dur_us, w[1].ts_us, "{file} step {}: a hole after {:?}", s.step, w[0]);
    }
    let end = segs.last().map(|g| g.ts_us + g.dur_us).unwrap();
    assert_eq!(end - s.ts_us, s.path_us, "{file}");
    if end <= s.ts_us + s.dur_us + 1 {
        assert!((s.path_us - s.dur_us).abs() <= 1, "{file}: path {} µs, step {} µs", s.path_us, s.dur_us);
    }
    assert_eq!(s.breakdown.iter().map(|k| k.us).sum::<i64>(), s.path_us, "{file}");
    assert!(s.hta_us <= s.path_us && s.hta_us > 0, "{file}: HTA's length {}", s.hta_us);
    for g in segs {
        let r = g.event.as_ref().expect("every segment belongs to an event");
        let e = by_place.get(&(r.plane, r.line, r.index)).unwrap_or_else(|| panic!("{file}: no event at {r:?}"));
        assert_eq!(
            (e.name(), e.cat(), e.ts_us, e.dur_us, e.stream),
            (r.name.as_str(), r.cat.as_str(), r.ts_us, r.dur_us, r.stream)
        );
        // Where the segment lies against its event: a launch delay
        // ends as its kernel starts, a kernel wait starts as the
        // kernel before ends, an operator edge lies inside its event
        // — unless HTA gave it to the enclosing annotation or Python
        // frame of the call before it, which may have ended already.
        let (start, stop) = (g.ts_us, g.ts_us + g.dur_us);
        match g.kind {
            Kind::LaunchDelay => assert_eq!(stop, e.ts_us, "{file}: {g:?}"),
            Kind::KernelWait => assert_eq!(start, e.end_us(), "{file}: {g:?}"),
            Kind::CpuOp | Kind::Kernel if !matches!(e.cat(), "user_annotation" | "python_function") => {
                assert!(start >= e.ts_us && stop <= e.end_us(), "{file}: {g:?}")
            }
            _ => {}
        }
    }
}

fn load(file: &str) -> Profile {
    let bytes = std::fs::read(proflens_tests::data_dir().join(file)).unwrap();
    proflens_format::load_profile(&bytes, &Default::default(), &mut |_| {}).unwrap()
}

#[test]
fn paths_tile_their_steps_and_name_real_events() {
    for file in TRACES {
        let profile = load(file);
        let events = hta::events(&profile);
        let by_place: HashMap<_, _> = events.iter().map(|e| (e.at(), e)).collect();
        let got = critical_paths(&profile, None).unwrap();
        assert_eq!((got.annotation.as_str(), got.note.clone()), ("ProfilerStep", None), "{file}");
        assert!(!got.steps.is_empty(), "{file}");
        for s in &got.steps {
            assert_eq!(s.name, format!("ProfilerStep#{}", s.step));
            check_path(file, s, &by_place);
        }
    }
}

/// A real inference trace without `ProfilerStep#N` (vLLM on B200, no HTA
/// golden: HTA's critical path does not run under current pandas). The
/// default iteration is the rule's, worked out here from the trace's own
/// events: its longest `user_annotation` that no other encloses on its
/// thread (vLLM's `execute_context_…` around the forward pass). The path
/// keeps every invariant, and the Advisor measures the same iteration.
#[test]
fn a_trace_without_steps_takes_its_longest_top_level_annotation() {
    let file = "kineto/kineto-b200-vllm-tp8/eager_trace.json.gz";
    let profile = load(file);
    let events = hta::events(&profile);
    assert!(events.iter().all(|e| hta::step_number(e.name()).is_none()), "the trace has no ProfilerStep");
    let annotations: Vec<&HtaEvent> = events.iter().filter(|e| e.cat() == "user_annotation").collect();
    let encloses = |b: &HtaEvent, a: &HtaEvent| {
        (b.at().0, b.at().1) == (a.at().0, a.at().1)
            && b.ts_us <= a.ts_us
            && b.end_us() >= a.end_us()
            && b.at() != a.at()
    };
    let longest = annotations
        .iter()
        .filter(|a| !annotations.iter().any(|b| encloses(b, a)))
        .max_by_key(|a| (a.dur_us, std::cmp::Reverse(a.ts_us)))
        .expect("a top-level annotation");
    assert!(longest.name().starts_with("execute_context"), "{}", longest.name());

    let got = critical_paths(&profile, None).unwrap();
    assert_eq!(got.annotation, longest.name());
    assert!(got.note.as_deref().unwrap().contains(longest.name()));
    assert_eq!(got.steps.len(), 1, "its name is the one instance");
    let s = &got.steps[0];
    assert_eq!((s.name.as_str(), s.step, s.ts_us, s.dur_us), (longest.name(), -1, longest.ts_us, longest.dur_us));
    let by_place: HashMap<_, _> = events.iter().map(|e| (e.at(), e)).collect();
    check_path(file, s, &by_place);
    // The kernels of the forward pass are on the path.
    assert!(s.breakdown.iter().any(|k| k.kind == Kind::Kernel && k.us > 0), "{:?}", s.breakdown);

    // Another annotation, named as HTA takes it (a part of its name).
    let named = critical_paths_of(&profile, Some("CompiledFxGraph"), None).unwrap();
    assert_eq!(named.steps.len(), 1);
    assert!(named.steps[0].name.contains("CompiledFxGraph") && named.steps[0].error.is_none());

    // The Advisor's steps are the same iteration (its window also runs to
    // the end of the GPU work launched inside it).
    let advice = of_kineto(&KinetoIndex::new(&profile), Some(&profile));
    assert_eq!((advice.basis, advice.steps), (Basis::Step, 1));
    assert!(advice.iterations.as_deref().unwrap().contains(longest.name()));
    assert!(advice.step_ms * 1e3 >= longest.dur_us as f64 - 1.0, "{} ms", advice.step_ms);
}

/// The tool through the registry, as the CLI runs it: CSV has one row per segment.
#[test]
fn csv_through_the_registry() {
    use proflens_analysis::context::Rendered;
    let bytes = std::fs::read(proflens_tests::data_dir().join(TRACES[0])).unwrap();
    let profile = proflens_format::load_profile(&bytes, &Default::default(), &mut |_| {}).unwrap();
    let got = critical_paths(&profile, None).unwrap();
    let csv = got.csv().unwrap();
    let rows: usize = got.steps.iter().map(|s| s.segments.len()).sum();
    assert_eq!(csv.lines().count(), rows + 1);
    assert!(csv.starts_with("step,instance,segment,kind,edge,ts_us,dur_us,weight_us,event_name"));
}

/// One step asked for (as the page asks, a step at a time) is that step of
/// every step's paths, and the other steps keep their times without a path.
#[test]
fn one_step_alone_is_its_part_of_every_steps() {
    // The DDP trace has two steps, so one is left without its path.
    let mut several = false;
    for file in TRACES.iter().chain(&["kineto/kineto-a100-ddp-nccl/nccl_data.json.gz"]) {
        let bytes = std::fs::read(proflens_tests::data_dir().join(file)).unwrap();
        let profile = proflens_format::load_profile(&bytes, &Default::default(), &mut |_| {}).unwrap();
        let all = critical_paths(&profile, None).unwrap();
        assert_eq!(all.only, None);
        for (n, step) in all.steps.iter().enumerate() {
            let one = critical_paths(&profile, Some(n)).unwrap();
            assert_eq!(one.only, Some(n), "{file}");
            assert_eq!(one.steps.len(), all.steps.len(), "{file}");
            for (m, s) in one.steps.iter().enumerate() {
                if m == n {
                    assert_eq!(s, step, "{file} step {n}");
                } else {
                    assert_eq!(
                        (s.step, s.ts_us, s.dur_us),
                        (all.steps[m].step, all.steps[m].ts_us, all.steps[m].dur_us)
                    );
                    assert!(s.segments.is_empty() && s.breakdown.is_empty(), "{file} step {m}");
                }
            }
        }
        several |= all.steps.len() > 1;
        // A place past the last step means the first.
        assert_eq!(critical_paths(&profile, Some(all.steps.len())).unwrap().only, Some(0), "{file}");
    }
    assert!(several);
}
