//! Critical paths worked out by hand. Each trace is one `ProfilerStep#1` on
//! host thread 1 (pid 1), its kernels on device 0 (pid 0), times in µs.

use super::*;

fn profile(events: &[&str]) -> Profile {
    let json = format!(r#"{{"schemaVersion":1,"traceEvents":[{}]}}"#, events.join(","));
    proflens_format::load_profile(json.as_bytes(), &Default::default(), &mut |_| {}).unwrap()
}

fn host(cat: &str, name: &str, ts: i64, dur: i64, corr: Option<u64>) -> String {
    let args = corr.map_or(String::new(), |c| format!(r#","args":{{"correlation":{c}}}"#));
    format!(r#"{{"ph":"X","cat":"{cat}","name":"{name}","pid":1,"tid":1,"ts":{ts},"dur":{dur}{args}}}"#)
}

fn gpu(cat: &str, name: &str, ts: i64, dur: i64, args: &str) -> String {
    format!(
        r#"{{"ph":"X","cat":"{cat}","name":"{name}","pid":0,"tid":7,"ts":{ts},"dur":{dur},"args":{{"device":0,{args}}}}}"#
    )
}

fn kernel(name: &str, ts: i64, dur: i64, stream: i64, corr: u64) -> String {
    gpu("kernel", name, ts, dur, &format!(r#""stream":{stream},"correlation":{corr}"#))
}

fn step(dur: i64) -> String {
    host("user_annotation", "ProfilerStep#1", 0, dur, None)
}

/// (kind, start − step start, duration, event name) of each segment.
fn path(p: &Profile) -> (StepPath, Vec<(&'static str, i64, i64, String)>) {
    let got = critical_paths(p, None).unwrap();
    assert_eq!(got.steps.len(), 1);
    let s = got.steps.into_iter().next().unwrap();
    assert_eq!(s.error, None);
    let segs = s
        .segments
        .iter()
        .map(|g| (g.kind.id(), g.ts_us - s.ts_us, g.dur_us, g.event.as_ref().map_or(String::new(), |e| e.name.clone())))
        .collect();
    (s, segs)
}

fn seg(kind: &'static str, ts: i64, dur: i64, name: &str) -> (&'static str, i64, i64, String) {
    (kind, ts, dur, name.to_string())
}

fn total(s: &StepPath, kind: Kind) -> i64 {
    s.breakdown.iter().find(|k| k.kind == kind).unwrap().us
}

/// A CPU-bound step of 100 µs: `a` [10, 40] holding `b` [15, 25]; `c`
/// [50, 90] holding a launch [60, 65] of a 5 µs kernel at 70.
///
/// Host edges: a.s→b.s 5, b.s→b.e 10, b.e→a.e 15, a.e→c.s 0 (dependency),
/// c.s→L.s 10, L.s→L.e 5, L.e→c.e 25. The kernel: launch delay L.s→k.s
/// 10 (the stream is idle), k.s→k.e 5. Through the host: 30 + 40 = 70;
/// through the kernel from c: 10 + 10 + 5 = 25 < 40. So the path is all
/// host, and the step's first 10 µs, the gap a→c and its last 10 µs are
/// CPU gaps of ProfilerStep#1.
#[test]
fn cpu_bound_step() {
    let p = profile(&[
        &step(100),
        &host("cpu_op", "a", 10, 30, None),
        &host("cpu_op", "b", 15, 10, None),
        &host("cpu_op", "c", 50, 40, None),
        &host("cuda_runtime", "cudaLaunchKernel", 60, 5, Some(1)),
        &kernel("k", 70, 5, 7, 1),
    ]);
    let (s, segs) = path(&p);
    assert_eq!(
        segs,
        [
            seg("cpu_gap", 0, 10, "ProfilerStep#1"),
            seg("cpu_op", 10, 5, "a"),
            seg("cpu_op", 15, 10, "b"),
            seg("cpu_op", 25, 15, "a"),
            seg("cpu_gap", 40, 10, "ProfilerStep#1"),
            seg("cpu_op", 50, 10, "c"),
            seg("cpu_op", 60, 5, "cudaLaunchKernel"),
            seg("cpu_op", 65, 25, "c"),
            seg("cpu_gap", 90, 10, "ProfilerStep#1"),
        ]
    );
    assert_eq!((s.hta_us, s.path_us, s.dur_us), (70, 100, 100));
    assert_eq!((total(&s, Kind::CpuOp), total(&s, Kind::CpuGap), total(&s, Kind::Kernel)), (70, 30, 0));
    let share = s.breakdown.iter().find(|k| k.kind == Kind::CpuOp).unwrap().share;
    assert!((share - 0.7).abs() < 1e-12);
}

/// A GPU-bound step of 200 µs: launches at 10 and 25 of k1 [20, 80] and
/// k2 [80, 150] on stream 7, then `cudaDeviceSynchronize` [35, 155] (its
/// `Context Sync` on the device) and `x` [160, 180].
///
/// k1's launch finds the stream idle (queue 1 after it, 0 once k1 starts):
/// launch delay 10 → 20. k2 was launched while k1 ran: kernel–kernel edge
/// k1.e → k2.s (0 µs). The Context Sync links the last kernel (k2, ends
/// 150) to the sync call's end (155); the sync call's own 120 µs weigh 0.
/// Path: 10 + 60 + 0 + 70 + 0 (sync) + 0 (dependency) + 20 = 160 by weight,
/// against 30 through the host alone.
#[test]
fn gpu_bound_step_with_device_sync() {
    let p = profile(&[
        &step(200),
        &host("cuda_runtime", "cudaLaunchKernel", 10, 5, Some(1)),
        &host("cuda_runtime", "cudaLaunchKernel", 25, 5, Some(2)),
        &host("cuda_runtime", "cudaDeviceSynchronize", 35, 120, Some(3)),
        &host("cpu_op", "x", 160, 20, None),
        &kernel("k1", 20, 60, 7, 1),
        &kernel("k2", 80, 70, 7, 2),
        &gpu("cuda_sync", "Context Sync", 35, 120, r#""correlation":3"#),
    ]);
    let (s, segs) = path(&p);
    assert_eq!(
        segs,
        [
            seg("cpu_gap", 0, 10, "ProfilerStep#1"),
            seg("launch_delay", 10, 10, "k1"),
            seg("kernel", 20, 60, "k1"),
            seg("kernel_wait", 80, 0, "k1"),
            seg("kernel", 80, 70, "k2"),
            seg("sync", 150, 5, "cudaDeviceSynchronize"),
            seg("cpu_gap", 155, 5, "ProfilerStep#1"),
            seg("cpu_op", 160, 20, "x"),
            seg("cpu_gap", 180, 20, "ProfilerStep#1"),
        ]
    );
    assert_eq!((s.hta_us, s.path_us), (160, 200));
    assert_eq!(total(&s, Kind::Kernel), 130);
    assert_eq!(total(&s, Kind::Sync), 5);
    let edges: Vec<&str> = s.segments.iter().map(|g| g.edge.as_str()).collect();
    assert_eq!(
        edges[1..6],
        [
            "critical_path_kernel_launch_delay",
            "critical_path_operator",
            "critical_path_kernel_kernel_delay",
            "critical_path_operator",
            "critical_path_sync_dependency"
        ]
    );
}

/// Two streams and event syncs, 300 µs: k1 [20, 120] on stream 7 (launched
/// at 10); `cudaEventRecord` at 20 records stream 7 (its last launch: k1);
/// `cudaStreamWaitEvent` at 30 makes stream 8 wait for it, so the next
/// launch onto stream 8 (at 40: k2 [125, 175]) waits for k1; a record at 60
/// on stream 8 (last launch: k2) and `cudaEventSynchronize` [70, 180] on it;
/// then `x` [190, 250].
///
/// k2's launch finds stream 8 idle but its wait ends (120) after the launch
/// (40): no launch edge, only the sync edge k1.e → k2.s. The Event Sync
/// links k2's end (175) to the sync call's end (180). Path by weight: 10
/// (launch) + 100 + 0 + 50 + 0 + 0 + 60 = 220.
#[test]
fn two_streams_and_event_syncs() {
    let sync = |name: &str, ts, dur, stream: Option<i64>, corr, on, record| {
        let stream = stream.map_or(String::new(), |s| format!(r#""stream":{s},"#));
        gpu(
            "cuda_sync",
            name,
            ts,
            dur,
            &format!(
                r#"{stream}"correlation":{corr},"wait_on_stream":{on},"wait_on_cuda_event_record_corr_id":{record}"#
            ),
        )
    };
    let p = profile(&[
        &step(300),
        &host("cuda_runtime", "cudaLaunchKernel", 10, 5, Some(1)),
        &host("cuda_runtime", "cudaEventRecord", 20, 2, Some(2)),
        &host("cuda_runtime", "cudaStreamWaitEvent", 30, 2, Some(3)),
        &host("cuda_runtime", "cudaLaunchKernel", 40, 5, Some(4)),
        &host("cuda_runtime", "cudaEventRecord", 60, 2, Some(6)),
        &host("cuda_runtime", "cudaEventSynchronize", 70, 110, Some(7)),
        &host("cpu_op", "x", 190, 60, None),
        &kernel("k1", 20, 100, 7, 1),
        &kernel("k2", 125, 50, 8, 4),
        &sync("Stream Wait Event", 35, 1, Some(8), 3, 7, 2),
        &sync("Event Sync", 70, 110, None, 7, 8, 6),
    ]);
    let (s, segs) = path(&p);
    assert_eq!(
        segs,
        [
            seg("cpu_gap", 0, 10, "ProfilerStep#1"),
            seg("launch_delay", 10, 10, "k1"),
            seg("kernel", 20, 100, "k1"),
            seg("sync", 120, 5, "k2"),
            seg("kernel", 125, 50, "k2"),
            seg("sync", 175, 5, "cudaEventSynchronize"),
            seg("cpu_gap", 180, 10, "ProfilerStep#1"),
            seg("cpu_op", 190, 60, "x"),
            seg("cpu_gap", 250, 50, "ProfilerStep#1"),
        ]
    );
    assert_eq!((s.hta_us, s.path_us), (220, 300));
    assert_eq!(s.breakdown.iter().map(|k| k.us).sum::<i64>(), 300);
}

#[test]
fn every_step_and_no_step() {
    // Two steps: HTA's loader drops the last, so one path remains.
    let p = profile(&[
        &step(50),
        &host("user_annotation", "ProfilerStep#2", 50, 50, None),
        &host("cpu_op", "a", 10, 20, None),
        &host("cpu_op", "b", 60, 20, None),
    ]);
    let got = critical_paths(&p, None).unwrap();
    assert_eq!(got.steps.iter().map(|s| (s.instance, s.step)).collect::<Vec<_>>(), [(0, 1)]);
    // No step and no annotation: the whole trace is the one iteration.
    let p = profile(&[&host("cpu_op", "a", 10, 20, None)]);
    let got = critical_paths(&p, None).unwrap();
    assert_eq!((got.annotation.as_str(), got.steps.len(), got.steps[0].name.as_str()), ("", 1, WHOLE_TRACE));
    assert!(got.note.unwrap().contains("no ProfilerStep#N"));
    // An annotation no event has is an error naming it.
    assert!(critical_paths_of(&p, Some("nowhere"), None).unwrap_err().contains("“nowhere”"));
    // A step with nothing in it says so.
    let p = profile(&[&step(50)]);
    assert!(critical_paths(&p, None).unwrap().steps[0].error.is_some());
}

/// (kind, start, duration) of each segment and whether it has an event.
fn kinds(s: &StepPath) -> Vec<(&'static str, i64, i64, bool)> {
    s.segments.iter().map(|g| (g.kind.id(), g.ts_us, g.dur_us, g.event.is_some())).collect()
}

#[test]
fn without_profiler_steps_an_annotation_is_the_iteration() {
    // No ProfilerStep. `serve` (0–100) is the longest top-level user
    // annotation; `inner` lies inside it; `tail` (120–130) is shorter.
    let p = profile(&[
        &host("user_annotation", "serve", 0, 100, None),
        &host("user_annotation", "inner", 5, 90, None),
        &host("cpu_op", "a", 10, 20, None),
        &host("cpu_op", "b", 40, 50, None),
        &host("user_annotation", "tail", 120, 10, None),
        &host("cpu_op", "c", 121, 8, None),
    ]);
    let got = critical_paths(&p, None).unwrap();
    assert_eq!(got.annotation, "serve");
    assert!(got.note.as_deref().unwrap().contains("“serve”"));
    assert_eq!(got.steps.len(), 1);
    let s = &got.steps[0];
    assert_eq!((s.name.as_str(), s.step, s.ts_us, s.dur_us, s.error.clone()), ("serve", -1, 0, 100, None));
    // a, the gap to b, b; the window's gaps before a and after b.
    assert_eq!(
        kinds(s),
        [
            ("cpu_gap", 0, 10, true),
            ("cpu_op", 10, 20, true),
            ("cpu_gap", 30, 10, true),
            ("cpu_op", 40, 50, true),
            ("cpu_gap", 90, 10, true),
        ]
    );
    assert_eq!((s.path_us, s.hta_us), (100, 70));

    // Named as HTA takes it: every host event whose name contains the text.
    let named = critical_paths_of(&p, Some("tail"), None).unwrap();
    assert_eq!((named.annotation.as_str(), named.note.clone()), ("tail", None));
    assert_eq!(
        named.steps.iter().map(|s| (s.name.as_str(), s.ts_us, s.dur_us)).collect::<Vec<_>>(),
        [("tail", 120, 10)]
    );
    assert_eq!(named.steps[0].path_us, 10);
    // "a" is in `a` and in `tail`: two instances, by start; the second alone asked for.
    let two = critical_paths_of(&p, Some("a"), Some(1)).unwrap();
    assert_eq!(two.steps.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["a", "tail"]);
    assert!(two.steps[0].segments.is_empty() && !two.steps[1].segments.is_empty());

    // HTA's annotation "": the whole trace, from the first start to the last end.
    let whole = critical_paths_of(&p, Some(""), None).unwrap();
    let w = &whole.steps[0];
    assert_eq!((w.name.as_str(), w.ts_us, w.dur_us), (WHOLE_TRACE, 0, 130));
    assert_eq!(w.path_us, 130);
    // The gap before the first call belongs to no event; the path's own edges do.
    assert_eq!(kinds(w)[0], ("cpu_gap", 0, 10, false));
    assert!(w.segments[1..w.segments.len() - 1].iter().all(|g| g.event.is_some()));
}
