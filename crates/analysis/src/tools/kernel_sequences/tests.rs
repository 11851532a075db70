use super::*;
use crate::context::Rendered;

/// A host event on thread `tid` (`corr` > 0: a launch with that correlation id).
fn host(name: &str, tid: u32, ts: i64, dur: i64, corr: u32) -> String {
    let cat = if corr > 0 { "cuda_runtime" } else { "cpu_op" };
    let args = if corr > 0 { format!(r#","args":{{"correlation":{corr}}}"#) } else { String::new() };
    format!(r#"{{"ph":"X","cat":"{cat}","name":"{name}","pid":1,"tid":{tid},"ts":{ts},"dur":{dur}{args}}}"#)
}

/// A kernel on `stream`.
fn kernel(name: &str, stream: u32, ts: i64, dur: i64, corr: u32) -> String {
    format!(
        r#"{{"ph":"X","cat":"kernel","name":"{name}","pid":0,"tid":{stream},"ts":{ts},"dur":{dur},"args":{{"device":0,"stream":{stream},"correlation":{corr}}}}}"#
    )
}

/// Counted by hand (µs):
/// * thread 1: three `aten::linear` calls (10, 100, 200). The first two
///   launch gemm, splitK (inside a nested `aten::matmul`) and add (inside a
///   nested `aten::add_`): 10+5+3 and 12+5+3 µs. The third launches only
///   two kernels (4+4): too short. A launch at 60, just as the first call
///   ends, is outside it.
/// * `aten::layer_norm` (300, 20 µs): a memset and k_a, k_b launched in
///   that order on two streams, where k_b starts first: [Memset, k_b, k_a],
///   1+2+6 µs.
/// * thread 2: `aten::linear` at 10 (overlapping thread 1's) with the same
///   three kernels, 10+5+3 µs.
/// * `autograd::engine` launches three kernels (30 µs): not an `aten::` op.
/// * step 2 (the last, from 1000) holds a fourth linear with the three
///   kernels (10+5+3); an orphan kernel (7 µs) has no launch.
///
/// Sequences: linear [gemm, splitK, add] ×3, 56 µs GPU, 150 µs CPU;
/// layer_norm ×1, 9 µs, 20 µs. Calls: 5 outermost `aten::` ops. GPU time:
/// 56 + 8 + 9 + 30 + 5 (the launch at 60) = 108.
fn trace() -> Profile {
    let mut e = vec![
        r#"{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":1000}"#.to_string(),
        r#"{"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":1000,"dur":100}"#.to_string(),
    ];
    for (at, corr, gpu, gemm) in [(10, 1, 100, 10), (100, 4, 200, 12)] {
        e.push(host("aten::linear", 1, at, 50, 0));
        e.push(host("aten::matmul", 1, at + 1, 30, 0));
        e.push(host("cudaLaunchKernel", 1, at + 2, 2, corr));
        e.push(host("cudaLaunchKernel", 1, at + 10, 2, corr + 1));
        e.push(host("aten::add_", 1, at + 35, 10, 0));
        e.push(host("cudaLaunchKernel", 1, at + 36, 2, corr + 2));
        e.push(kernel("gemm", 7, gpu, gemm, corr));
        e.push(kernel("splitK", 7, gpu + gemm + 1, 5, corr + 1));
        e.push(kernel("add", 7, gpu + gemm + 7, 3, corr + 2));
    }
    e.push(host("cudaLaunchKernel", 1, 60, 2, 50));
    e.push(kernel("after", 7, 70, 5, 50));
    e.push(host("aten::linear", 1, 200, 50, 0));
    e.push(host("cudaLaunchKernel", 1, 201, 2, 7));
    e.push(host("cudaLaunchKernel", 1, 204, 2, 8));
    e.push(kernel("gemm", 7, 260, 4, 7));
    e.push(kernel("add", 7, 270, 4, 8));
    e.push(host("aten::layer_norm", 1, 300, 20, 0));
    e.push(host("cudaMemsetAsync", 1, 301, 2, 10));
    e.push(host("cudaLaunchKernel", 1, 304, 2, 11));
    e.push(host("cudaLaunchKernel", 1, 307, 2, 12));
    e.push(
        r#"{"ph":"X","cat":"gpu_memset","name":"Memset (Device)","pid":0,"tid":7,"ts":400,"dur":1,"args":{"device":0,"stream":7,"correlation":10}}"#
            .to_string(),
    );
    e.push(kernel("k_a", 7, 410, 6, 11));
    e.push(kernel("k_b", 9, 405, 2, 12));
    e.push(host("aten::linear", 2, 10, 50, 0));
    for (i, (name, ts, dur)) in [("gemm", 500, 10), ("splitK", 511, 5), ("add", 517, 3)].into_iter().enumerate() {
        e.push(host("cudaLaunchKernel", 2, 11 + 10 * i as i64, 2, 20 + i as u32));
        e.push(kernel(name, 7, ts, dur, 20 + i as u32));
    }
    e.push(host("autograd::engine", 1, 600, 50, 0));
    for i in 0..3 {
        e.push(host("cudaLaunchKernel", 1, 601 + 3 * i, 2, 30 + i as u32));
        e.push(kernel("bwd", 7, 700 + 20 * i, 10, 30 + i as u32));
    }
    e.push(host("aten::linear", 1, 1010, 20, 0));
    for (i, (name, ts, dur)) in [("gemm", 1100, 10), ("splitK", 1111, 5), ("add", 1117, 3)].into_iter().enumerate() {
        e.push(host("cudaLaunchKernel", 1, 1011 + 3 * i as i64, 2, 40 + i as u32));
        e.push(kernel(name, 7, ts, dur, 40 + i as u32));
    }
    e.push(kernel("orphan", 7, 900, 7, 99));
    let json = format!(r#"{{"schemaVersion":1,"traceEvents":[{}]}}"#, e.join(",\n"));
    proflens_format::load_profile(json.as_bytes(), &Default::default(), &mut |_| {}).unwrap()
}

fn names(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn sequences_counted_by_hand() {
    let m = kernel_sequences(&trace(), OPERATOR_NAME, MIN_PATTERN_LEN, false);
    assert_eq!((m.operator_calls, m.gpu_time_us), (5, 108));
    let got: Vec<_> = m.rows.iter().map(|r| (r.rank, r.operator.as_str(), r.kernels.clone(), r.count)).collect();
    assert_eq!(
        got,
        [
            (1, "aten::linear", names(&["gemm", "splitK", "add"]), 3),
            (2, "aten::layer_norm", names(&["Memset (Device)", "k_b", "k_a"]), 1)
        ]
    );
    let linear = &m.rows[0];
    assert_eq!((linear.gpu_total_us, linear.cpu_total_us), (56, 150));
    assert!((linear.gpu_mean_us - 56.0 / 3.0).abs() < 1e-12);
    assert!((linear.gpu_share - 56.0 / 108.0).abs() < 1e-12);
    assert_eq!((m.rows[1].gpu_total_us, m.rows[1].cpu_total_us, m.rows[1].gpu_mean_us), (9, 20, 9.0));
}

#[test]
fn the_last_step_and_the_threshold() {
    // With the last step: its linear is a fourth occurrence (and its kernels GPU time).
    let m = kernel_sequences(&trace(), OPERATOR_NAME, MIN_PATTERN_LEN, true);
    assert_eq!((m.operator_calls, m.gpu_time_us), (6, 126));
    assert_eq!((m.rows[0].count, m.rows[0].gpu_total_us, m.rows[0].cpu_total_us), (4, 74, 170));
    // Two kernels are enough: the short linear becomes a sequence of its own.
    let m = kernel_sequences(&trace(), OPERATOR_NAME, 2, false);
    let got: Vec<_> = m.rows.iter().map(|r| (r.kernels.len(), r.count, r.gpu_total_us)).collect();
    assert_eq!(got, [(3, 3, 56), (3, 1, 9), (2, 1, 8)]);
    // Another operator: the innermost `aten::matmul` calls launch two kernels.
    let m = kernel_sequences(&trace(), "matmul", 2, false);
    let got: Vec<_> = m.rows.iter().map(|r| (r.operator.as_str(), r.kernels.clone(), r.count)).collect();
    assert_eq!(got, [("aten::matmul", names(&["gemm", "splitK"]), 2)]);
}

#[test]
fn ties_order_by_gpu_time_then_names() {
    // linear ×3 first; then layer_norm (9 µs) and the short linear (8 µs), each ×1.
    let m = kernel_sequences(&trace(), OPERATOR_NAME, 2, false);
    assert_eq!(m.rows.iter().map(|r| r.rank).collect::<Vec<_>>(), [1, 2, 3]);
    assert_eq!(m.rows[1].operator, "aten::layer_norm");
    let csv = m.csv().unwrap();
    assert!(csv.starts_with("rank,operator,kernels,num_kernels,count,gpu_total_us"));
    assert!(csv.contains("1,aten::linear,gemm | splitK | add,3,3,56,"), "{csv}");
}
