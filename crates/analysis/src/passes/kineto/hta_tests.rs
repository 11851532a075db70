//! Tests of the HTA event list (`hta.rs`).

use super::*;
use std::collections::BTreeMap;

/// Two host steps, a launch and its kernel, device work without a launch
/// or on stream 0, the device copy of step 1 overlapping step 2, an
/// instant, and a sub-µs op.
pub(crate) const TRACE: &str = r#"{"schemaVersion":1,"traceEvents":[
  {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":100,"dur":100},
  {"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":200,"dur":100},
  {"ph":"X","cat":"cpu_op","name":"in_1","pid":1,"tid":1,"ts":150,"dur":10},
  {"ph":"X","cat":"cpu_op","name":"at_2","pid":1,"tid":1,"ts":200,"dur":5},
  {"ph":"X","cat":"cpu_op","name":"sub_us","pid":1,"tid":1,"ts":120.4,"dur":0.3},
  {"ph":"X","cat":"cpu_op","name":"outside","pid":1,"tid":1,"ts":400,"dur":1},
  {"ph":"X","cat":"cuda_runtime","name":"launch","pid":1,"tid":1,"ts":190,"dur":20,"args":{"correlation":7}},
  {"ph":"X","cat":"cuda_runtime","name":"launch_2","pid":1,"tid":1,"ts":210,"dur":2,"args":{"correlation":8}},
  {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":250,"dur":30,"args":{"device":0,"stream":7,"correlation":7}},
  {"ph":"X","cat":"kernel","name":"k_2","pid":0,"tid":7,"ts":290,"dur":3,"args":{"device":0,"stream":7,"correlation":8}},
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
    let events = events(&p);
    let got: BTreeMap<&str, Vec<Iteration>> =
        events.iter().zip(assign_iterations(&events, &steps_of(&events))).fold(BTreeMap::new(), |mut m, (e, it)| {
            m.entry(e.name()).or_insert_with(Vec::new).push(it);
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
    let sub_us = events.iter().find(|e| e.name() == "sub_us").unwrap();
    assert_eq!((sub_us.ts_us - events[0].ts_us, sub_us.dur_us), (21, -1));
}

#[test]
fn traced_iterations_drop_the_last_step() {
    let p = profile(TRACE);
    let names = |include_last| -> Vec<&str> {
        let mut n: Vec<&str> = traced_iterations(events(&p), include_last).iter().map(|e| e.name()).collect();
        n.sort_unstable();
        n
    };
    // The last step starts at 210: the device copy of step 1 has no
    // stream, so it is a CPU event, and the latest. What starts there or
    // later goes, and so does the kernel of the launch at 210; the
    // orphan kernel has no launch among the kept CPU events. The
    // stream-0 kernel has no correlation id: a CPU event to HTA.
    assert_eq!(names(false), ["ProfilerStep#1", "ProfilerStep#2", "at_2", "in_1", "k", "launch", "stream0", "sub_us"]);
    // With the last step: everything starting by the last end (300).
    assert_eq!(
        names(true),
        [
            "ProfilerStep#1",
            "ProfilerStep#1",
            "ProfilerStep#2",
            "at_2",
            "in_1",
            "in_gpu_copy",
            "k",
            "k_2",
            "launch",
            "launch_2",
            "stream0",
            "sub_us"
        ]
    );
    // One step name: nothing is dropped.
    let one = profile(
        r#"{"traceEvents":[{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":1,"dur":5},
           {"ph":"X","cat":"cpu_op","name":"late","pid":1,"tid":1,"ts":9,"dur":1}]}"#,
    );
    assert_eq!(traced_iterations(events(&one), false).len(), 2);
}

#[test]
fn rank_and_steps_used() {
    let p = profile(TRACE);
    assert_eq!(rank(&p), None);
    assert_eq!(step_numbers(&events(&p)), [1, 2]);
    let ranked = profile(
        r#"{"schemaVersion":1,"distributedInfo":{"rank":3,"world_size":4},"traceEvents":[
           {"ph":"X","cat":"user_annotation","name":"ProfilerStep#7","pid":1,"tid":1,"ts":1,"dur":5}]}"#,
    );
    assert_eq!(rank(&ranked), Some(3));
    assert_eq!(step_numbers(&events(&ranked)), [7]);
}

#[test]
fn an_event_stays_compact() {
    // 56 on wasm32, where references take 4 bytes.
    assert!(std::mem::size_of::<HtaEvent>() <= 64);
}

#[test]
fn helpers() {
    assert_eq!(step_number("ProfilerStep#12"), Some(12));
    assert_eq!(step_number("ProfilerStep # 3 tail"), Some(3));
    assert_eq!(step_number("ProfilerStep#"), None);
    assert_eq!(step_number("ProfilerStepX#1"), None);
    assert_eq!(step_number("ProfilerStep#99999999999999999999"), None);
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
