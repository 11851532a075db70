use super::*;

fn profile(json: &str) -> Profile {
    proflens_format::load_profile(json.as_bytes(), &Default::default(), &mut |_| {}).unwrap()
}

/// Three launches on stream 7 (one kernel, one memcpy, one memset) and one
/// on stream 9; a launch whose kernel is missing; a kernel with no launch;
/// a launch and a kernel start at the same µs (t = 30).
const TRACE: &str = r#"{"schemaVersion":1,"traceEvents":[
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":10,"dur":2,"args":{"correlation":1}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","pid":1,"tid":1,"ts":20,"dur":2,"args":{"correlation":2}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaMemsetAsync","pid":1,"tid":1,"ts":30,"dur":2,"args":{"correlation":3}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":40,"dur":2,"args":{"correlation":4}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":45,"dur":2,"args":{"correlation":5}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaStreamSynchronize","pid":1,"tid":1,"ts":46,"dur":2,"args":{"correlation":6}},
  {"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":30,"dur":20,"args":{"device":0,"stream":7,"correlation":1}},
  {"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pageable -> Device)","pid":0,"tid":7,"ts":50,"dur":5,"args":{"device":0,"stream":7,"correlation":2}},
  {"ph":"X","cat":"gpu_memset","name":"Memset (Device)","pid":0,"tid":7,"ts":55,"dur":1,"args":{"device":0,"stream":7,"correlation":3}},
  {"ph":"X","cat":"kernel","name":"k4","pid":0,"tid":9,"ts":41,"dur":3,"args":{"device":0,"stream":9,"correlation":4}},
  {"ph":"X","cat":"kernel","name":"orphan","pid":0,"tid":9,"ts":60,"dur":3,"args":{"device":0,"stream":9,"correlation":99}}
]}"#;

#[test]
fn counts_launches_and_starts() {
    let p = profile(TRACE);
    let q = rank_queue_length(&p, "t", false);
    let series: Vec<(i64, Vec<i64>)> = q.series.iter().map(|s| (s.stream, s.queue.clone())).collect();
    // Stream 7: +1 (10), +1 (20), then at 30 the memset's launch before
    // k1's start: 3, 2; the memcpy starts at 50 (1), the memset at 55 (0).
    // Stream 9: +1 at 40, −1 at 41. The launch at 45 has no device event,
    // the orphan no launch, the synchronize is no launch.
    assert_eq!(series, [(7, vec![1, 2, 3, 2, 1, 0]), (9, vec![1, 0])]);
    let s7 = &q.rows[0].summary;
    assert_eq!((q.rows[0].rank, q.rows[0].stream, s7.count), (0, 7, 6));
    assert_eq!((s7.mean, s7.min, s7.p25, s7.p50, s7.p75, s7.max), (1.5, 0.0, 1.0, 1.5, 2.0, 3.0));
    assert!((s7.std.unwrap() - 1.0488088481701516).abs() < 1e-15);
    let csv = to_csv(&q);
    assert_eq!(csv.lines().nth(2), Some("0,9,2,0.5,0.7071067811865476,0,0.25,0.5,0.75,1"));
}

#[test]
fn prints_hta_shape() {
    use crate::context::Rendered;
    let q = rank_queue_length(&profile(TRACE), "trace.json", false);
    let hta = q.hta().unwrap();
    assert_eq!(hta["api"], "TraceAnalysis.get_queue_length_summary");
    assert_eq!(hta["params"]["ranks"], serde_json::json!([0]));
    assert_eq!(hta["load"]["ranks"]["0"], "trace.json");
    assert_eq!(hta["rows"][1]["stream"], 9);
    assert_eq!(hta["rows"][1]["count"], 2.0);
    assert_eq!(hta["rows"][1]["25%"], 0.25);
}

#[test]
fn thins_long_series() {
    let points: Vec<(i64, i64)> = (0..10_000).map(|i| (i, i % 7)).collect();
    let s = thin(0, 7, &points);
    assert!(s.ts_us.len() <= MAX_POINTS);
    assert_eq!((s.points, s.ts_us[1], s.queue[0]), (10_000, 3, 2));
}

/// MTIA's launch call enqueues (synthetic trace,
/// [`crate::passes::kineto::test_traces::MTIA_TRACE`]): +1 at 10 and 20,
/// −1 at k1's start (30) and k2's (60), +1 at 110, −1 at 150; k4's launch
/// is in the dropped last step and the DMA has no launch.
#[test]
fn mtia_launches_enqueue() {
    use crate::passes::kineto::test_traces::MTIA_TRACE;
    let q = rank_queue_length(&profile(MTIA_TRACE), "mtia", false);
    let series: Vec<(i64, Vec<i64>, Vec<i64>)> =
        q.series.iter().map(|s| (s.stream, s.ts_us.clone(), s.queue.clone())).collect();
    assert_eq!(series, [(5, vec![10, 20, 30, 60, 110, 150], vec![1, 2, 1, 0, 1, 0])]);
}
