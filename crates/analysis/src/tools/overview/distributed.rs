//! The distributed view: per rank of one job, how device time splits into
//! computation, communication and memory work and how much they overlap
//! (the questions HTA's temporal, kernel-type and comm/comp-overlap
//! breakdowns answer, computed here at ns precision).
//!
//! Classes, as HTA: a kernel whose name contains `nccl` (any case) is
//! **communication**, any other kernel **computation**, memcpy and memset
//! **memory**. Times are unions over all streams and devices of the rank.

use crate::passes::kineto::intervals::Intervals;
use crate::passes::kineto::{DeviceEvent, DeviceKind, KinetoIndex};
use serde::{Deserialize, Serialize};

/// Which device events a breakdown covers. With steps, device work counts
/// when the host call that launched it (same correlation id) falls in the
/// step range, as HTA selects it: work whose launch is not in the trace
/// cannot be placed in a step and is left out. Work without a correlation
/// id at all (MTIA's on-device events often have none) counts when it
/// starts in the range itself: HTA 0.5.0's `_filter_irrelevant_gpu_kernels`
/// (`hta/common/trace.py`) treats it as a CPU event, kept by its own start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Scope {
    /// Every device event of the trace.
    All,
    /// Work launched from the first `ProfilerStep#N` start to the last one's
    /// end (HTA's `include_last_profiler_step=True`); all without steps.
    Steps,
    /// Work launched from the first step's start to the last step's start:
    /// HTA's default, which drops the last (often incomplete) step; the same
    /// as [`Scope::Steps`] with fewer than two steps.
    StepsExceptLast,
}

/// The time of one combination of classes running at once.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KernelTypeShare {
    /// HTA's names: `COMPUTATION`, `COMMUNICATION overlapping MEMORY`, …
    pub kernel_type: String,
    pub ps: i64,
    /// Share of the busy time (all shares add up to 100).
    pub pct: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RankView {
    /// `distributedInfo.rank`, when recorded.
    pub rank: Option<i64>,
    pub world_size: Option<i64>,
    /// The file or host the rank was read from.
    pub label: String,
    pub kernels: u64,
    /// First device-event start to last end.
    pub window_ps: i64,
    /// Time any device event runs.
    pub busy_ps: i64,
    pub computation_ps: i64,
    pub communication_ps: i64,
    pub memory_ps: i64,
    /// Computation and communication at once.
    pub overlap_ps: i64,
    /// overlap / communication × 100 (HTA's `comp_comm_overlap_pctg`);
    /// `None` without communication.
    pub comm_comp_overlap_pct: Option<f64>,
    /// HTA's temporal breakdown over the window: idle, computation, and
    /// busy-but-not-computing (communication or memory only).
    pub idle_pct: f64,
    pub compute_pct: f64,
    pub non_compute_pct: f64,
    pub kernel_types: Vec<KernelTypeShare>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DistributedView {
    pub ranks: Vec<RankView>,
}

/// Communication kernels, as HTA classifies them.
pub fn is_communication(name: &str) -> bool {
    name.to_ascii_lowercase().contains("nccl")
}

fn in_scope(index: &KinetoIndex, scope: Scope) -> Vec<&DeviceEvent> {
    let steps: Vec<_> = index.cpu_steps().collect();
    let range = match (scope, steps.first(), steps.last()) {
        (Scope::All, _, _) | (_, None, _) | (_, _, None) => None,
        (Scope::StepsExceptLast, Some(first), Some(last)) if steps.len() >= 2 => Some((first.start_ps, last.start_ps)),
        (_, Some(first), Some(last)) => Some((first.start_ps, last.start_ps + last.duration_ps)),
    };
    let Some((from, to)) = range else { return index.device.iter().collect() };
    let launches = index.launch_time_of_correlation();
    index
        .device
        .iter()
        .filter(|d| {
            // HTA's GPU events have a correlation id ≥ 0 (its −1 is none).
            let placed_at = match d.correlation_id.get().filter(|&c| c >= 0) {
                Some(c) => launches.get(&c).copied(),
                None => Some(d.start_ps),
            };
            placed_at.is_some_and(|t| (from..to).contains(&t))
        })
        .collect()
}

pub fn rank_view(index: &KinetoIndex, label: &str, scope: Scope) -> RankView {
    let events = in_scope(index, scope);
    let union = |pred: &dyn Fn(&DeviceEvent) -> bool| {
        Intervals::union_of(events.iter().filter(|d| pred(d)).map(|d| (d.start_ps, d.end_ps)).collect())
    };
    let comp = union(&|d| d.kind == DeviceKind::Kernel && !is_communication(index.text(d.name)));
    let comm = union(&|d| d.kind == DeviceKind::Kernel && is_communication(index.text(d.name)));
    let mem = union(&|d| d.kind != DeviceKind::Kernel);
    let all = comp.union(&comm).union(&mem);
    let window = match (events.iter().map(|d| d.start_ps).min(), events.iter().map(|d| d.end_ps).max()) {
        (Some(s), Some(e)) => e - s,
        _ => 0,
    };
    let overlap = comp.intersect(&comm);
    let (cc, cm, mm) = (overlap.len_ps(), comp.intersect(&mem).len_ps(), comm.intersect(&mem).len_ps());
    let all3 = overlap.intersect(&mem).len_ps();
    let parts = [
        ("COMPUTATION", comp.len_ps() - cc - cm + all3),
        ("COMMUNICATION", comm.len_ps() - cc - mm + all3),
        ("MEMORY", mem.len_ps() - cm - mm + all3),
        ("COMPUTATION overlapping COMMUNICATION", cc - all3),
        ("COMPUTATION overlapping MEMORY", cm - all3),
        ("COMMUNICATION overlapping MEMORY", mm - all3),
        ("COMPUTATION overlapping COMMUNICATION overlapping MEMORY", all3),
    ];
    let busy = all.len_ps();
    let pct = |part: i64, whole: i64| if whole > 0 { part as f64 * 100.0 / whole as f64 } else { 0.0 };
    RankView {
        rank: index.rank,
        world_size: index.world_size,
        label: label.to_string(),
        kernels: events.iter().filter(|d| d.kind == DeviceKind::Kernel).count() as u64,
        window_ps: window,
        busy_ps: busy,
        computation_ps: comp.len_ps(),
        communication_ps: comm.len_ps(),
        memory_ps: mem.len_ps(),
        overlap_ps: cc,
        comm_comp_overlap_pct: (comm.len_ps() > 0).then(|| pct(cc, comm.len_ps())),
        idle_pct: pct(window - busy, window),
        compute_pct: pct(comp.len_ps(), window),
        non_compute_pct: pct(busy - comp.len_ps(), window),
        kernel_types: parts
            .into_iter()
            .filter(|&(_, ps)| ps > 0)
            .map(|(name, ps)| KernelTypeShare { kernel_type: name.to_string(), ps, pct: pct(ps, busy) })
            .collect(),
    }
}

/// The ranks' rows, by rank then label.
pub fn distributed_of(mut views: Vec<RankView>) -> DistributedView {
    views.sort_by(|a, b| a.rank.cmp(&b.rank).then_with(|| a.label.cmp(&b.label)));
    DistributedView { ranks: views }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passes::kineto::OptId;

    /// An index of device events (kind, name, start, end).
    fn index_of(events: &[(DeviceKind, &str, i64, i64)]) -> KinetoIndex {
        let mut index = KinetoIndex::default();
        index.device = events.iter().map(|&(kind, name, start, end)| dev(&mut index, kind, name, start, end)).collect();
        index
    }

    fn dev(index: &mut KinetoIndex, kind: DeviceKind, name: &str, start: i64, end: i64) -> DeviceEvent {
        DeviceEvent {
            device: 0,
            stream: 7,
            start_ps: start,
            end_ps: end,
            kind,
            name: index.intern(name),
            external_id: OptId::NONE,
            correlation_id: OptId::NONE,
            kernel_details: None,
        }
    }

    #[test]
    fn shares_and_overlap() {
        let index = index_of(&[
            (DeviceKind::Kernel, "gemm", 0, 10),
            (DeviceKind::Kernel, "ncclDevKernel_AllReduce", 5, 20),
            (DeviceKind::Memcpy, "Memcpy HtoD", 18, 25),
            (DeviceKind::Kernel, "gemm", 30, 40),
        ]);
        let v = rank_view(&index, "r", Scope::All);
        assert_eq!((v.window_ps, v.busy_ps, v.overlap_ps), (40, 35, 5));
        assert_eq!(v.comm_comp_overlap_pct, Some(100.0 * 5.0 / 15.0));
        assert!((v.idle_pct - 12.5).abs() < 1e-9 && (v.compute_pct - 50.0).abs() < 1e-9);
        let share = |t: &str| v.kernel_types.iter().find(|k| k.kernel_type == t).map(|k| k.ps);
        assert_eq!(share("COMPUTATION"), Some(15));
        assert_eq!(share("COMPUTATION overlapping COMMUNICATION"), Some(5));
        assert_eq!(share("COMMUNICATION"), Some(8));
        assert_eq!(share("COMMUNICATION overlapping MEMORY"), Some(2));
        assert_eq!(share("MEMORY"), Some(5));
        let no_comm = index_of(&[(DeviceKind::Kernel, "gemm", 0, 1)]);
        assert_eq!(rank_view(&no_comm, "r", Scope::Steps).comm_comp_overlap_pct, None);
    }
}
