use super::*;

fn profile(json: &str) -> Profile {
    proflens_format::load_profile(json.as_bytes(), &Default::default(), &mut |_| {}).unwrap()
}

/// Two overlapping DtoD copies (10 and 30 GB/s), a 0 µs memset (lasts 1 µs),
/// an HtoD copy starting as the first DtoD ends, and a kernel (not counted).
const TRACE: &str = r#"{"schemaVersion":1,"traceEvents":[
  {"ph":"X","cat":"gpu_memcpy","name":"Memcpy DtoD (Device -> Device)","pid":0,"tid":7,"ts":10,"dur":10,"args":{"device":0,"stream":7,"correlation":1,"memory bandwidth (GB/s)":10.0}},
  {"ph":"X","cat":"gpu_memcpy","name":"Memcpy DtoD (Device -> Device)","pid":0,"tid":8,"ts":15,"dur":10,"args":{"device":0,"stream":8,"correlation":2,"memory bandwidth (GB/s)":30.0}},
  {"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pageable -> Device)","pid":0,"tid":7,"ts":20,"dur":5,"args":{"device":0,"stream":7,"correlation":3,"memory bandwidth (GB/s)":2.0}},
  {"ph":"X","cat":"gpu_memset","name":"Memset (Device)","pid":0,"tid":7,"ts":40,"dur":0,"args":{"device":0,"stream":7,"correlation":4,"memory bandwidth (GB/s)":4.0}},
  {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":50,"dur":5,"args":{"device":0,"stream":7,"correlation":5}}
]}"#;

#[test]
fn sums_bandwidth_in_flight() {
    let m = rank_memory_bandwidth(&profile(TRACE), "t", false);
    // Times count from the trace's first event (ts 10).
    let series: Vec<(&str, Vec<i64>, Vec<f64>)> =
        m.series.iter().map(|s| (s.name.as_str(), s.ts_us.clone(), s.gbps.clone())).collect();
    assert_eq!(
        series,
        [
            ("Memcpy DtoD", vec![0, 5, 10, 15], vec![10.0, 40.0, 30.0, 0.0]),
            ("Memcpy HtoD", vec![10, 15], vec![2.0, 0.0]),
            ("Memset", vec![30, 31], vec![4.0, 0.0]),
        ]
    );
    // Zero points are left out of the summary.
    let names: Vec<(&str, usize)> = m.rows.iter().map(|r| (r.name.as_str(), r.summary.count)).collect();
    assert_eq!(names, [("Memcpy DtoD", 3), ("Memcpy HtoD", 1), ("Memset", 1)]);
    let dtod = &m.rows[0].summary;
    assert_eq!(
        (dtod.mean, dtod.min, dtod.p25, dtod.p50, dtod.p75, dtod.max),
        (80.0 / 3.0, 10.0, 20.0, 30.0, 35.0, 40.0)
    );
    assert_eq!(m.rows[1].summary.std, None);
    assert_eq!(to_csv(&m).lines().nth(2), Some("0,Memcpy HtoD,1,2,,2,2,2,2,2"));
}

#[test]
fn kinds_as_hta_names_them() {
    assert_eq!(memory_kind("Memcpy DtoH (Device -> Pinned)"), "Memcpy DtoH");
    assert_eq!(memory_kind("Memset (Device)"), "Memset");
    assert_eq!(memory_kind("CUDA Memcpy"), "Memcpy Unknown");
    assert!(is_memory_op("Memcpy PtoP") && !is_memory_op("gemm") && !is_memory_op("ncclMemcpyKernel"));
}

#[test]
fn prints_hta_shape() {
    use crate::context::Rendered;
    let hta = rank_memory_bandwidth(&profile(TRACE), "t.json", true).hta().unwrap();
    assert_eq!(hta["api"], "TraceAnalysis.get_memory_bw_summary");
    assert_eq!(hta["value"], "memory_bw_gbps");
    assert_eq!(hta["load"]["include_last_profiler_step"], true);
    assert_eq!(hta["rows"][0]["name"], "Memcpy DtoD");
    assert_eq!(hta["rows"][1]["std"], serde_json::Value::Null);
}
