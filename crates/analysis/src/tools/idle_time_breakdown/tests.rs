//! A trace small enough to count by hand.

use super::*;

/// Two steps; four kernels on stream 7 launched in step 1, a fifth launched
/// in step 2 (the last one, dropped by default), one memcpy on stream 20,
/// and a Triton `cpu_op` on the host with a `stream` arg but no
/// correlation id, which HTA does not count as GPU work.
///
/// Stream 7 by hand: k1 [20, 30) comes first (other, no interval); k2 [35,
/// 40) was launched at 12 < 30 and waited 5 µs (kernel_wait); k3 [80, 85)
/// was launched at 60 > 40 (host_wait, 40 µs); k4 [130, 135) was launched at
/// 70 < 85 and waited 45 ≥ 30 µs (other); k5 [160, 170) was launched at
/// 150 > 135 (host_wait, 25 µs) but belongs to the last step.
const TRACE: &str = r#"{"schemaVersion":1,"distributedInfo":{"rank":3,"world_size":4},"traceEvents":[
  {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},
  {"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":100,"dur":100},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":10,"dur":2,"args":{"correlation":1}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":12,"dur":2,"args":{"correlation":2}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","pid":1,"tid":1,"ts":14,"dur":2,"args":{"correlation":6}},
  {"ph":"X","cat":"cpu_op","name":"triton_poi_fused","pid":1,"tid":1,"ts":16,"dur":2,"args":{"stream":0}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":60,"dur":2,"args":{"correlation":3}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":70,"dur":2,"args":{"correlation":4}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":150,"dur":2,"args":{"correlation":5}},
  {"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":20,"dur":10,"args":{"device":0,"stream":7,"correlation":1}},
  {"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":7,"ts":35,"dur":5,"args":{"device":0,"stream":7,"correlation":2}},
  {"ph":"X","cat":"kernel","name":"k3","pid":0,"tid":7,"ts":80,"dur":5,"args":{"device":0,"stream":7,"correlation":3}},
  {"ph":"X","cat":"kernel","name":"k4","pid":0,"tid":7,"ts":130,"dur":5,"args":{"device":0,"stream":7,"correlation":4}},
  {"ph":"X","cat":"kernel","name":"k5","pid":0,"tid":7,"ts":160,"dur":10,"args":{"device":0,"stream":7,"correlation":5}},
  {"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD","pid":0,"tid":20,"ts":50,"dur":4,"args":{"device":0,"stream":20,"correlation":6}}
]}"#;

fn profile() -> Profile {
    proflens_format::load_profile(TRACE.as_bytes(), &Default::default(), &mut |_| {}).unwrap()
}

fn summary(r: &RankIdle) -> Vec<(i64, &'static str, f64, Option<f64>, u64)> {
    r.streams
        .iter()
        .flat_map(|s| {
            s.categories
                .iter()
                .map(move |c| (s.stream, c.category.name(), c.idle_time_us, c.idle_time_ratio, c.stats.count))
        })
        .collect()
}

#[test]
fn counted_by_hand() {
    let p = profile();
    assert_eq!(crate::passes::kineto::hta::rank(&p), Some(3));
    let r = rank_idle(&p, 3, "t", false, CONSECUTIVE_KERNEL_DELAY_US);
    assert_eq!(r.profiler_steps_used, [1]);
    assert_eq!(
        summary(&r),
        [
            // 40 + 5 + 45 = 90 µs idle: 0.444…, 0.0555…, 0.5.
            (7, "host_wait", 40.0, Some(0.44), 1),
            (7, "kernel_wait", 5.0, Some(0.06), 1),
            // The first kernel counts in `other` with no interval.
            (7, "other", 45.0, Some(0.5), 1),
            // One event: no idle time, and HTA's 0/0.
            (20, "other", 0.0, None, 0),
        ]
    );
    assert_eq!(r.streams.iter().map(|s| s.events).collect::<Vec<_>>(), [4, 1]);
    let other = &r.streams[1].categories[0].stats;
    assert_eq!(other, &IntervalStats::default());
}

#[test]
fn with_the_last_step() {
    let r = rank_idle(&profile(), 0, "t", true, CONSECUTIVE_KERNEL_DELAY_US);
    assert_eq!(r.profiler_steps_used, [1, 2]);
    // k5 waited 25 µs for its launch: host_wait is 40 + 25 of 115.
    assert_eq!(summary(&r)[0], (7, "host_wait", 65.0, Some(0.57), 2));
    let s = &r.streams[0].categories[0].stats;
    assert_eq!((s.mean, s.std, s.min, s.p50, s.max), (Some(32.5), Some(10.61), Some(25.0), Some(32.5), Some(40.0)));
    // A larger delay makes k4's 45 µs a kernel wait.
    let r = rank_idle(&profile(), 0, "t", false, 50);
    assert_eq!(summary(&r)[1], (7, "kernel_wait", 50.0, Some(0.56), 2));
}

#[test]
fn hta_shape_and_csv() {
    let b = IdleTimeBreakdown {
        consecutive_kernel_delay_us: 30,
        include_last_profiler_step: false,
        ranks: vec![rank_idle(&profile(), 3, "t.json", false, 30)],
    };
    let v = to_hta_json(&b);
    assert_eq!(v["params"]["ranks"], json!([3]));
    assert_eq!(v["load"]["ranks"], json!({"3": "t.json"}));
    assert_eq!(v["load"]["profiler_steps_used"], json!([1]));
    assert_eq!(v["idle_time"].as_array().unwrap().len(), 4);
    assert_eq!(
        v["idle_interval_stats"][2],
        json!({"rank": 3, "stream": 7, "idle_category": "other", "count": 1.0, "mean": 45.0, "std": null,
               "min": 45.0, "25%": 45.0, "50%": 45.0, "75%": 45.0, "max": 45.0})
    );
    assert_eq!(v["idle_time"][3]["idle_time_ratio"], Value::Null);
    let csv = to_csv(&b);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 5);
    assert_eq!(lines[1], "3,7,host_wait,40,0.44,1,40,,40,40,40,40,40");
    assert_eq!(lines[4], "3,20,other,0,,0,,,,,,,");
}

/// HTA 0.5.0 keeps only kernels, memcpys, memsets and MTIA device events
/// (synthetic trace, [`SYNC_TRACE`]): the `Stream Sync` on stream 7 would
/// wait a negative 34 µs before k1, and the `Context Sync` would make a
/// stream 4294967295 of its own.
#[test]
fn sync_events_are_not_device_work() {
    use crate::passes::kineto::test_traces::{profile, SYNC_TRACE};
    let r = rank_idle(&profile(SYNC_TRACE), 0, "t", false, CONSECUTIVE_KERNEL_DELAY_US);
    assert_eq!(r.streams.iter().map(|s| (s.stream, s.events)).collect::<Vec<_>>(), [(7, 2)]);
    // k2 [35, 45) was launched at 12, before k1 ended at 30: a 5 µs kernel wait.
    assert_eq!(summary(&r), [(7, "kernel_wait", 5.0, Some(1.0), 1), (7, "other", 0.0, Some(0.0), 0)]);
}

/// MTIA's on-device events count, with or without a correlation id
/// (synthetic trace, [`MTIA_TRACE`]). Stream 5 by hand: k1 [30, 50) first
/// (other); k2 [60, 70) launched at 20 < 50, 10 µs (kernel_wait); dma_in
/// [75, 80) has no launch, 5 µs (kernel_wait); k3 [150, 170) launched at
/// 110 > 80, 70 µs (host_wait); k4 belongs to the last step.
#[test]
fn mtia_device_events_count_without_a_correlation_id() {
    use crate::passes::kineto::test_traces::{profile, MTIA_TRACE};
    let p = profile(MTIA_TRACE);
    let r = rank_idle(&p, 0, "t", false, CONSECUTIVE_KERNEL_DELAY_US);
    assert_eq!(r.profiler_steps_used, [1, 2]);
    assert_eq!(r.streams.iter().map(|s| (s.stream, s.events)).collect::<Vec<_>>(), [(5, 4)]);
    assert_eq!(
        summary(&r),
        [
            (5, "host_wait", 70.0, Some(0.82), 1),
            (5, "kernel_wait", 15.0, Some(0.18), 2),
            (5, "other", 0.0, Some(0.0), 0)
        ]
    );
    // With the last step, k4 [230, 250) launched at 210 > 170: host_wait.
    let r = rank_idle(&p, 0, "t", true, CONSECUTIVE_KERNEL_DELAY_US);
    assert_eq!(summary(&r)[0], (5, "host_wait", 130.0, Some(0.9), 2));
}
