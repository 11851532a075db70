use super::output::outlier_kind;
use super::*;

/// Three steps (the last one dropped by default); launches whose GPU work
/// starts after the call ends, before it ends (delay 0), on stream 0, twice
/// under one correlation id, never; a driver launch HTA does not count.
const TRACE: &str = r#"{"schemaVersion":1,"distributedInfo":{"rank":2,"world_size":4},"traceEvents":[
  {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":1000},
  {"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":1000,"dur":1000},
  {"ph":"X","cat":"user_annotation","name":"ProfilerStep#3","pid":1,"tid":1,"ts":2000,"dur":1000},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":100,"dur":10,"args":{"correlation":1}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernelExC","pid":1,"tid":2,"ts":50,"dur":60,"args":{"correlation":2}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","pid":1,"tid":1,"ts":300,"dur":8,"args":{"correlation":3}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaMemsetAsync","pid":1,"tid":1,"ts":400,"dur":4,"args":{"correlation":4}},
  {"ph":"X","cat":"cuda_driver","name":"cuLaunchKernel","pid":1,"tid":1,"ts":600,"dur":5,"args":{"correlation":5}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1100,"dur":10,"args":{"correlation":6}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":2100,"dur":10,"args":{"correlation":7}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":700,"dur":3,"args":{"correlation":8}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaStreamSynchronize","pid":1,"tid":1,"ts":800,"dur":3,"args":{"correlation":9}},
  {"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":150,"dur":5,"args":{"device":0,"stream":7,"correlation":1}},
  {"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":7,"ts":105,"dur":200,"args":{"device":0,"stream":7,"correlation":2}},
  {"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD","pid":0,"tid":7,"ts":500,"dur":20,"args":{"device":0,"stream":7,"correlation":3}},
  {"ph":"X","cat":"gpu_memset","name":"Memset","pid":0,"tid":0,"ts":410,"dur":2,"args":{"device":0,"stream":0,"correlation":4}},
  {"ph":"X","cat":"kernel","name":"k5","pid":0,"tid":7,"ts":620,"dur":3,"args":{"device":0,"stream":7,"correlation":5}},
  {"ph":"X","cat":"kernel","name":"k6b","pid":0,"tid":7,"ts":1200,"dur":1,"args":{"device":0,"stream":7,"correlation":6}},
  {"ph":"X","cat":"kernel","name":"k6a","pid":0,"tid":8,"ts":1150,"dur":2,"args":{"device":0,"stream":8,"correlation":6}},
  {"ph":"X","cat":"kernel","name":"k7","pid":0,"tid":7,"ts":2200,"dur":4,"args":{"device":0,"stream":7,"correlation":7}}
]}"#;

fn profile(json: &str) -> Profile {
    proflens_format::load_profile(json.as_bytes(), &Default::default(), &mut |_| {}).unwrap()
}

/// (correlation, runtime call, GPU event, cpu, gpu, delay) per launch.
fn rows(r: &RankLaunches) -> Vec<(u64, &str, &str, i64, i64, i64)> {
    r.launches
        .iter()
        .map(|l| (l.correlation, r.name(l.runtime), r.name(l.kernel), l.cpu_duration, l.gpu_duration, l.launch_delay))
        .collect()
}

#[test]
fn launches_follow_hta() {
    let p = profile(TRACE);
    let r = rank_launches(&p, "trace", &Params::default());
    assert_eq!((r.rank, r.host.as_str()), (2, "trace"));
    assert_eq!((r.profiler_steps_used.as_slice(), r.dropped_steps.as_slice()), (&[1, 2][..], &[3][..]));
    // By the call's start; the GPU starting before the call ends is no delay;
    // two kernels under one id are two launches, by their start.
    assert_eq!(
        rows(&r),
        [
            (2, "cudaLaunchKernelExC", "k2", 60, 200, 0),
            (1, "cudaLaunchKernel", "k1", 10, 5, 40),
            (3, "cudaMemcpyAsync", "Memcpy HtoD", 8, 20, 192),
            (4, "cudaMemsetAsync", "Memset", 4, 2, 6),
            (6, "cudaLaunchKernel", "k6a", 10, 2, 40),
            (6, "cudaLaunchKernel", "k6b", 10, 1, 90),
        ]
    );
    let s = &r.summary;
    assert_eq!((s.num_launches, s.gpu_shorter_than_cpu, s.cpu_runtime_outliers, s.launch_delay_outliers), (6, 4, 1, 1));
    assert_eq!(s.cpu_duration, Some(Stats { sum: 102.0, mean: 17.0, p50: 10.0, p95: 47.5, max: 60.0 }));
    assert_eq!(s.launch_delay.map(|d| (d.p50, d.p95, d.max)), Some((40.0, 166.5, 192.0)));
    assert_eq!(r.uncounted, [NameCount { name: "cuLaunchKernel".into(), count: 1 }]);
    let params = Params::default();
    let kinds: Vec<&str> = r.launches.iter().map(|l| outlier_kind(l, &params)).collect();
    assert_eq!(kinds, ["cpu_runtime", "", "launch_delay", "", "", ""]);
}

#[test]
fn the_last_step_and_memory_events_on_request() {
    let p = profile(TRACE);
    let all = rank_launches(&p, "t", &Params { include_last_profiler_step: true, ..Params::default() });
    assert_eq!((all.profiler_steps_used.as_slice(), all.dropped_steps.len()), (&[1, 2, 3][..], 0));
    assert_eq!(rows(&all).last(), Some(&(7, "cudaLaunchKernel", "k7", 10, 4, 90)));
    let kernels_only = rank_launches(&p, "t", &Params { include_memory_events: false, ..Params::default() });
    let ids: Vec<u64> = kernels_only.launches.iter().map(|l| l.correlation).collect();
    assert_eq!(ids, [2, 1, 6, 6]);
    let left_out: Vec<(&str, u64)> = kernels_only.uncounted.iter().map(|u| (u.name.as_str(), u.count)).collect();
    assert_eq!(left_out, [("cuLaunchKernel", 1), ("cudaMemcpyAsync", 1), ("cudaMemsetAsync", 1)]);
}

#[test]
fn no_launches_and_no_rank() {
    let p = profile(
        r#"{"traceEvents":[
          {"ph":"X","cat":"cuda_runtime","name":"hipLaunchKernel","pid":1,"tid":1,"ts":1,"dur":5,"args":{"correlation":1}},
          {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":9,"dur":1,"args":{"device":0,"stream":7,"correlation":1}}
        ]}"#,
    );
    let r = rank_launches(&p, "rocm", &Params::default());
    assert_eq!((r.rank, r.launches.len()), (0, 0));
    assert_eq!(r.summary, Summary::default());
    assert_eq!(r.uncounted, [NameCount { name: "hipLaunchKernel".into(), count: 1 }]);
    assert_eq!(output::summary_json(&r.summary), serde_json::json!({ "num_launches": 0 }));
    let model = KernelLaunchStats { params: Params::default(), ranks: vec![r] };
    assert_eq!(to_hta_json(&model)["per_rank"]["0"]["columns"]["correlation"], serde_json::json!([]));
}

#[test]
fn hta_json_and_csv() {
    let p = profile(TRACE);
    let rank = rank_launches(&p, "trace", &Params::default());
    let model = KernelLaunchStats { params: Params::default(), ranks: vec![rank.clone()] };
    let hta = to_hta_json(&model);
    assert_eq!(hta["api"], "TraceAnalysis.get_cuda_kernel_launch_stats");
    assert_eq!(hta["params"]["ranks"], serde_json::json!([2]));
    assert_eq!(hta["load"]["profiler_steps_used"], serde_json::json!([1, 2]));
    let two = &hta["per_rank"]["2"];
    assert_eq!(two["summary"]["cpu_duration"]["mean"], 17.0);
    assert_eq!(two["columns"]["correlation"], serde_json::json!([2, 1, 3, 4, 6, 6]));
    assert_eq!(two["columns"]["launch_delay"][2], 192.0);
    // Two traces of one rank: keyed by host.
    let mut other = rank.clone();
    other.host = "again".into();
    let both = to_hta_json(&KernelLaunchStats { params: Params::default(), ranks: vec![rank.clone(), other] });
    let keys: Vec<&String> = both["per_rank"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["again", "trace"]);

    let csv = to_csv(&model);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[0],
        "rank,host,correlation,runtime_call,gpu_event,cpu_duration_us,gpu_duration_us,launch_delay_us"
    );
    assert_eq!(lines[1], "2,trace,2,cudaLaunchKernelExC,k2,60,200,0");
    assert_eq!(lines.len(), 7);
    let outliers = outliers_csv(&rank, &Params::default());
    let lines: Vec<&str> = outliers.lines().collect();
    assert_eq!(lines.len(), 3);
    assert!(lines[0].ends_with(",outlier"));
    assert_eq!(lines[2], "2,trace,3,cudaMemcpyAsync,Memcpy HtoD,8,20,192,launch_delay");
}

#[test]
fn percentiles_and_rounding_are_pandas() {
    let q = |v: &[f64], p| quantile(v, p);
    assert_eq!(q(&[1.0], 0.95), 1.0);
    assert_eq!(q(&[1.0, 2.0], 0.5), 1.5);
    assert_eq!(q(&[0.0, 10.0, 20.0, 30.0, 40.0], 0.95), 38.0);
    // numpy interpolates from the upper neighbour when the fraction is at least ½.
    let v = [1.0, 1.0 + 2f64.powi(-50) * 3.0];
    assert_eq!(q(&v, 0.75), v[1] - (v[1] - v[0]) * 0.25);
    assert_eq!(py_round(8.0625, 3), 8.062);
    assert_eq!(py_round(2.675, 2), 2.67);
    assert_eq!(py_round(28.0695, 3), 28.07);
    assert!(py_round(f64::NAN, 3).is_nan());
    assert_eq!(Stats::of(std::iter::empty()), None);
}

/// MTIA's launch call is a launch (synthetic trace,
/// [`crate::passes::kineto::test_traces::MTIA_TRACE`]): 5 µs calls at 10,
/// 20 and 110 of k1 at 30, k2 at 60 and k3 at 150; k4's launch is in the
/// dropped last step, and the DMA has no correlation id to join on.
#[test]
fn mtia_launches_count() {
    use crate::passes::kineto::hta::MTIA_LAUNCH;
    use crate::passes::kineto::test_traces::MTIA_TRACE;
    let r = rank_launches(&profile(MTIA_TRACE), "mtia", &Params::default());
    assert_eq!(
        rows(&r),
        [(1, MTIA_LAUNCH, "k1", 5, 20, 15), (2, MTIA_LAUNCH, "k2", 5, 10, 35), (3, MTIA_LAUNCH, "k3", 5, 20, 35)]
    );
    assert!(r.uncounted.is_empty(), "{:?}", r.uncounted);
    assert_eq!(r.summary.num_launches, 3);
}
