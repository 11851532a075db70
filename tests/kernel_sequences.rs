//! Kernel sequences on real traces, against counts made **independently**
//! of Proflens by the Python script below over the trace JSON (it follows the
//! rule in docs/deviations.md, "kernel_sequences"; HTA 0.5.0's own
//! `get_frequent_cuda_kernel_sequences` fails on current pandas, so there is
//! no golden). Its output, for `sampled_rank-0.json.gz` (kineto-multirank-
//! sampled, whole µs, two `ProfilerStep`s so the last is dropped) and
//! `nccl_data.json.gz` (kineto-a100-ddp-nccl, ns timestamps, rounded), is
//! hard-coded here: per sequence (count, GPU µs, CPU µs, operator, number of
//! kernels), and the trace's GPU time and outermost `aten::` calls.
//!
//! Tolerance: every integer equal; the mean and share (ratios) within 1e-12
//! relative of the hard-coded µs.
//!
//! Run as `python3 kernel_sequences.py TRACE.json.gz`:
//!
//! ```python
//! # Independent count of kernel sequences (Proflens's kernel_sequences rule, docs/deviations.md).
//! # Usage: python3 kernel_sequences.py TRACE.json.gz [operator=aten::] [min_len=3]
//! import gzip, json, math, sys
//! from collections import defaultdict
//! from decimal import Decimal
//! path = sys.argv[1]; op = sys.argv[2] if len(sys.argv) > 2 else "aten::"; min_len = int(sys.argv[3]) if len(sys.argv) > 3 else 3
//! raw = json.load(gzip.open(path) if path.endswith(".gz") else open(path), parse_float=Decimal)["traceEvents"]
//! ev = []
//! for order, e in enumerate(raw):
//!     if "dur" not in e or not e.get("cat") or e["cat"] == "Trace":
//!         continue
//!     ts = math.ceil(Decimal(e["ts"])); end = math.floor(Decimal(e["ts"]) + Decimal(e["dur"]))
//!     a = e.get("args") or {}
//!     corr = a.get("correlation"); corr = None if corr in (None, -1) else int(corr)
//!     stream = int(a["stream"]) if "stream" in a else -1
//!     gpu = (stream >= 0 and corr is not None) or e["name"] in ("Event Sync", "Context Sync")
//!     ev.append(dict(order=order, name=e["name"], ts=ts, end=end, dur=end - ts, corr=corr, stream=stream, gpu=gpu, thread=(e.get("pid"), e.get("tid"))))
//! # include_last_profiler_step=False: drop the last step's host events and what they launched
//! if len({e["name"] for e in ev if "ProfilerStep" in e["name"]}) >= 2:
//!     last = max(e["ts"] for e in ev if not e["gpu"] and "ProfilerStep" in e["name"])
//!     cpu = [e for e in ev if not e["gpu"] and e["ts"] < last]
//!     launched = {e["corr"] for e in cpu if e["corr"] is not None}
//!     ev = cpu + [e for e in ev if e["gpu"] and e["corr"] in launched]
//! gpu = [e for e in ev if e["stream"] >= 0 and e["corr"] is not None]
//! by_corr = defaultdict(list)
//! for k in gpu:
//!     by_corr[k["corr"]].append(k)
//! # nest host events per thread; each event's outermost ancestor-or-self whose name contains `op`
//! root_kernels = defaultdict(list)
//! threads = defaultdict(list)
//! for e in ev:
//!     if e["stream"] < 0 and not e["gpu"]:
//!         threads[e["thread"]].append(e)
//! roots = []
//! for t in threads.values():
//!     t.sort(key=lambda e: (e["ts"], -e["dur"], e["order"]))
//!     stack = []
//!     for e in t:
//!         while stack and stack[-1][0]["end"] <= e["ts"]:
//!             stack.pop()
//!         parent_root = stack[-1][1] if stack else None
//!         root = parent_root if parent_root is not None else (e if op in e["name"] else None)
//!         if root is e:
//!             roots.append(e)
//!         stack.append((e, root))
//!         if root is not None and e["corr"] is not None:
//!             root_kernels[id(root)].extend(by_corr.get(e["corr"], []))
//! pat = defaultdict(lambda: [0, 0, 0])
//! for r in roots:
//!     ks = sorted(root_kernels[id(r)], key=lambda k: (k["ts"], k["order"]))
//!     if len(ks) < min_len:
//!         continue
//!     p = pat[(r["name"], tuple(k["name"] for k in ks))]
//!     p[0] += 1; p[1] += sum(max(k["dur"], 0) for k in ks); p[2] += max(r["dur"], 0)
//! total = sum(max(k["dur"], 0) for k in gpu)
//! rows = sorted(pat.items(), key=lambda kv: (-kv[1][0], -kv[1][1], kv[0][0], kv[0][1]))
//! print("gpu_time_us", total, "operators", len(roots), "patterns", len(rows))
//! for (name, ks), (n, g, c) in rows:
//!     print(n, g, c, name, list(ks))
//! ```

use proflens_analysis::tools::kernel_sequences::{kernel_sequences, KernelSequences, MIN_PATTERN_LEN, OPERATOR_NAME};

fn load(case: &str, file: &str) -> KernelSequences {
    let bytes = std::fs::read(proflens_tests::data_dir().join("kineto").join(case).join(file)).unwrap();
    let profile = proflens_format::load_profile(&bytes, &Default::default(), &mut |_| {}).unwrap();
    kernel_sequences(&profile, OPERATOR_NAME, MIN_PATTERN_LEN, false)
}

/// (count, GPU µs, CPU µs, operator, kernels) of the first rows, and the
/// trace's GPU µs, outermost calls and number of sequences.
type Expected<'a> = (&'a [(u64, i64, i64, &'a str, usize)], i64, u64, usize);

fn check(got: &KernelSequences, (rows, gpu_time, calls, patterns): Expected) {
    assert_eq!((got.gpu_time_us, got.operator_calls, got.rows.len()), (gpu_time, calls, patterns));
    for (r, &(count, gpu, cpu, operator, kernels)) in got.rows.iter().zip(rows) {
        assert_eq!(
            (r.count, r.gpu_total_us, r.cpu_total_us, r.operator.as_str(), r.kernels.len()),
            (count, gpu, cpu, operator, kernels)
        );
        let mean = gpu as f64 / count as f64;
        assert!((r.gpu_mean_us - mean).abs() <= 1e-12 * mean, "{r:?}");
        let share = gpu as f64 / gpu_time as f64;
        assert!((r.gpu_share - share).abs() <= 1e-12 * share, "{r:?}");
    }
}

#[test]
fn multirank_rank_0() {
    let got = load("kineto-multirank-sampled", "sampled_rank-0.json.gz");
    let rows = [
        (2, 303, 232, "aten::repeat_interleave", 4),
        (2, 49, 483, "aten::binary_cross_entropy_with_logits", 3),
        (1, 71, 18502, "aten::_foreach_add_", 6),
        (1, 49, 117093, "aten::_foreach_mul_", 7),
    ];
    check(&got, (&rows, 302241, 492, 4));
    assert_eq!(
        got.rows[0].kernels,
        [
            "void at_cuda_detail::cub::DeviceScanInitKernel<at_cuda_detail::cub::ScanTileState<long, true> >(at_cuda_detail::cub::ScanTileState<long, true>, int)",
            "void at_cuda_detail::cub::DeviceScanKernel<at_cuda_detail::cub::AgentScanPolicy<128, 15, long, (at_cuda_detail::cub::BlockLoadAlgorithm)3, (at_cuda_detail::cub::CacheLoadModifier)0, (at_cuda_detail::cub::BlockStoreAlgorithm)3, (at_cuda_detail::cub::BlockScanAlgorithm)2, at_cuda_detail::cub::MemBoundScaling<128, 15, long> >, long*, long*, at_cuda_detail::cub::ScanTileState<long, true>, std::plus<long>, at_cuda_detail::cub::NullType, int>(long*, long*, at_cuda_detail::cub::ScanTileState<long, true>, int, std::plus<long>, at_cuda_detail::cub::NullType, int)",
            "void compute_cuda_kernel<long>(long*, long*, long*, long, long)",
            "void at::native::(anonymous namespace)::indexSelectLargeIndex<long, long, unsigned int, 1, 1, -2, true>(at::cuda::detail::TensorInfo<long, unsigned int>, at::cuda::detail::TensorInfo<long, unsigned int>, at::cuda::detail::TensorInfo<long, unsigned int>, int, int, unsigned int, unsigned int, long)",
        ]
    );
}

#[test]
fn a100_ddp() {
    let got = load("kineto-a100-ddp-nccl", "nccl_data.json.gz");
    let rows = [
        (30, 5550, 8543, "aten::convolution_backward", 3),
        (12, 2365, 3840, "aten::convolution_backward", 6),
        (12, 2075, 3447, "aten::convolution_backward", 3),
        (12, 1685, 4056, "aten::conv2d", 3),
        (12, 1031, 4120, "aten::conv2d", 4),
        (10, 1956, 3516, "aten::convolution_backward", 10),
    ];
    check(&got, (&rows, 100462, 2456, 26));
    // Over all 26 sequences: 162 occurrences, 32,641 µs of kernels.
    assert_eq!(got.rows.iter().map(|r| r.count).sum::<u64>(), 162);
    assert_eq!(got.rows.iter().map(|r| r.gpu_total_us).sum::<i64>(), 32641);
}
