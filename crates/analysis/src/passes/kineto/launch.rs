//! Which host op launched each device event, including the kernels a CUDA
//! graph replays.
//!
//! Kineto gives a kernel the `External id` of the innermost op that
//! launched it and the `correlation` of its runtime call. A
//! `cudaGraphLaunch` (`hipGraphLaunch`) replays many kernels under the one
//! correlation id of the launch; their `External id` is the launch's own,
//! which is often no op's id (torch.compile's CUDA graphs: the launch's
//! External id is its correlation id). Such kernels belong to the op that
//! made the runtime call: the innermost `cpu_op` around it on its thread.

use super::{HostKind, KinetoIndex};
use rustc_hash::{FxHashMap, FxHashSet};

impl KinetoIndex {
    /// For each device event (in `self.device` order), the external id of
    /// the host op (cpu_op or user_annotation) that launched it: its own
    /// External id when an op has it; else its runtime call's External id
    /// when an op has that; else the External id of the innermost cpu_op
    /// around its runtime call on the same thread; else its own External id
    /// (or the runtime call's), which names no op.
    pub fn device_external_ids(&self) -> Vec<Option<i64>> {
        let op_ids: FxHashSet<i64> = self
            .host
            .iter()
            .filter(|h| matches!(h.kind, HostKind::CpuOp | HostKind::Annotation))
            .filter_map(|h| h.external_id.get())
            .collect();
        let runtime_of: FxHashMap<i64, usize> = self
            .host
            .iter()
            .enumerate()
            .filter(|(_, h)| h.kind == HostKind::Runtime)
            .filter_map(|(i, h)| Some((h.correlation_id.get()?, i)))
            .collect();
        let enclosing = RangesByLine::new(
            self.host
                .iter()
                .filter(|h| h.kind == HostKind::CpuOp)
                .filter_map(|h| Some((h.line as usize, h.start_ps, h.end_ps, h.external_id.get()?))),
        );
        let mut cache: FxHashMap<usize, Option<i64>> = FxHashMap::default();
        self.device
            .iter()
            .map(|d| {
                if let Some(e) = d.external_id.get().filter(|e| op_ids.contains(e)) {
                    return Some(e);
                }
                let Some(&r) = d.correlation_id.get().and_then(|c| runtime_of.get(&c)) else {
                    return d.external_id.get();
                };
                let runtime = &self.host[r];
                if let Some(e) = runtime.external_id.get().filter(|e| op_ids.contains(e)) {
                    return Some(e);
                }
                let around =
                    *cache.entry(r).or_insert_with(|| enclosing.innermost(runtime.line as usize, runtime.start_ps));
                around.or(d.external_id.get()).or(runtime.external_id.get())
            })
            .collect()
    }
}

/// Ranges of host events per line, each with a payload, for finding the
/// innermost one around an instant (the ranges of a line nest, as a
/// thread's ops and Python frames do).
pub struct RangesByLine<T> {
    /// Per line: (start, end, payload), by start then longest first.
    lines: FxHashMap<usize, Vec<(i64, i64, T)>>,
}

impl<T: Copy> RangesByLine<T> {
    /// `ranges`: (line, start, end, payload).
    pub fn new(ranges: impl IntoIterator<Item = (usize, i64, i64, T)>) -> RangesByLine<T> {
        let mut lines: FxHashMap<usize, Vec<(i64, i64, T)>> = FxHashMap::default();
        for (line, start, end, payload) in ranges {
            lines.entry(line).or_default().push((start, end, payload));
        }
        for ranges in lines.values_mut() {
            ranges.sort_by_key(|&(s, e, _)| (s, std::cmp::Reverse(e)));
        }
        RangesByLine { lines }
    }

    /// The payload of the latest-starting range on `line` that holds `at`
    /// (ranges nest, so it is the innermost).
    pub fn innermost(&self, line: usize, at: i64) -> Option<T> {
        let ranges = self.lines.get(&line)?;
        let before = ranges.partition_point(|&(s, _, _)| s <= at);
        ranges[..before].iter().rev().find(|&&(_, end, _)| end > at).map(|&(_, _, p)| p)
    }
}

/// A hand-written trace for the tests of the tools that attribute kernels
/// to ops (times in µs, host thread 1, kernels on stream 7):
///
/// * `CompiledFunction` [100, 150), External id 7, holds a `cudaGraphLaunch`
///   at 110 (correlation 30, External id 30: no op's) that replays three
///   kernels `graph_k1..3` of 2, 3 and 4 µs;
/// * three `aten::mm` (External ids 8, 9, 10) at 200 (10 µs, dims
///   `[[2,3],[3,4]]`), 220 (20 µs, `[[8,3],[3,4]]`), 250 (30 µs,
///   `[[2,3],[3,4]]`), each launching one `volta_h884gemm` of 5, 7 and 9 µs
///   through a `cudaLaunchKernel` (correlations 20, 21, 22);
/// * `aten::relu` [290, 292) with no shapes.
#[cfg(test)]
pub(crate) fn graph_trace(device_properties: &str) -> proflens_model::Profile {
    let mut ev = vec![
        r#"{"ph":"X","cat":"cpu_op","name":"CompiledFunction","pid":1,"tid":1,"ts":100,"dur":50,"args":{"External id":7,"Input Dims":[[4,4]]}}"#.to_string(),
        r#"{"ph":"X","cat":"cuda_runtime","name":"cudaGraphLaunch","pid":1,"tid":1,"ts":110,"dur":5,"args":{"External id":30,"correlation":30}}"#.to_string(),
        r#"{"ph":"X","cat":"cpu_op","name":"aten::relu","pid":1,"tid":1,"ts":290,"dur":2,"args":{"External id":11}}"#.to_string(),
    ];
    for (i, (ts, dur)) in [(300, 2), (305, 3), (310, 4)].iter().enumerate() {
        ev.push(format!(
            r#"{{"ph":"X","cat":"kernel","name":"graph_k{}","pid":0,"tid":7,"ts":{ts},"dur":{dur},"args":{{"External id":30,"correlation":30,"device":0,"stream":7}}}}"#,
            i + 1
        ));
    }
    let mms = [(200, 10, "[[2,3],[3,4]]", 5), (220, 20, "[[8,3],[3,4]]", 7), (250, 30, "[[2,3],[3,4]]", 9)];
    for (i, (ts, dur, dims, kdur)) in mms.iter().enumerate() {
        let (ext, corr) = (8 + i, 20 + i);
        ev.push(format!(
            r#"{{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":{ts},"dur":{dur},"args":{{"External id":{ext},"Input Dims":{dims}}}}}"#
        ));
        ev.push(format!(
            r#"{{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":{},"dur":1,"args":{{"External id":{ext},"correlation":{corr}}}}}"#,
            ts + 1
        ));
        ev.push(format!(
            r#"{{"ph":"X","cat":"kernel","name":"volta_h884gemm","pid":0,"tid":7,"ts":{},"dur":{kdur},"args":{{"External id":{ext},"correlation":{corr},"device":0,"stream":7}}}}"#,
            320 + 20 * i
        ));
    }
    let json =
        format!(r#"{{"schemaVersion":1,"deviceProperties":[{device_properties}],"traceEvents":[{}]}}"#, ev.join(","));
    proflens_format::load_profile(json.as_bytes(), &Default::default(), &mut |_| {}).unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_graph_launch_s_kernels_belong_to_the_op_around_it() {
        let index = KinetoIndex::new(&graph_trace(r#"{"id":0,"name":"H100","warpSize":32}"#));
        let ids = index.device_external_ids();
        // The launchers of the kernels whose name passes `pick`, sorted.
        let launchers = |pick: &dyn Fn(&str) -> bool| {
            let mut found: Vec<Option<i64>> =
                index.device.iter().zip(&ids).filter(|(d, _)| pick(index.text(d.name))).map(|(_, e)| *e).collect();
            found.sort();
            found
        };
        assert_eq!(launchers(&|n| n.starts_with("graph_k")), vec![Some(7); 3]);
        let gemms = launchers(&|n| n.contains("gemm"));
        assert_eq!(gemms, vec![Some(8), Some(9), Some(10)]);
        assert_eq!(index.vendor, crate::passes::tensor_core::GpuVendor::Nvidia);
    }
}
