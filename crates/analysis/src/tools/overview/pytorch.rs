//! The PyTorch overview: each `ProfilerStep#N`'s role breakdown
//! ([`crate::passes::kineto::roles`]), the devices, and computation against
//! communication.

use super::distributed::{distributed_of, rank_view, DistributedView, RankView, Scope};
pub use crate::passes::kineto::roles::StepBreakdown;
use crate::passes::kineto::roles::{step_roles, Roles};
use crate::passes::kineto::{facts, DeviceFacts, KinetoIndex};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PytorchOverview {
    pub steps: Vec<StepBreakdown>,
    /// Role means over the steps (step = -1).
    pub average: StepBreakdown,
    /// Devices with kernels and their kernel counts.
    pub devices: Vec<DeviceFacts>,
    /// Set when the trace has no `ProfilerStep#N` ranges: the breakdown is
    /// then of the whole trace as one pseudo-step.
    pub whole_trace: bool,
    pub rank: Option<i64>,
    pub world_size: Option<i64>,
    /// Computation vs communication on this rank's devices (over the steps).
    pub communication: RankView,
}

/// One rank's overview in a multi-rank run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RankOverview {
    /// The file (host) the rank was read from.
    pub label: String,
    pub overview: PytorchOverview,
}

/// Several ranks of one job: each rank's overview and the ranks side by side.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MultiRankOverview {
    pub ranks: Vec<RankOverview>,
    pub distributed: DistributedView,
}

/// The overview of every rank and the distributed view over the steps.
pub fn multi_rank(ranks: &[(String, &KinetoIndex)]) -> MultiRankOverview {
    multi_rank_of(ranks.iter().map(|(label, index)| rank_part(label, index)).collect())
}

/// A rank's part of the multi-rank overview (its rank summary's): its
/// overview and its row of the distributed view over the steps.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OverviewPart {
    pub rank: RankOverview,
    pub view: RankView,
}

pub fn rank_part(label: &str, index: &KinetoIndex) -> OverviewPart {
    OverviewPart {
        rank: RankOverview { label: label.to_string(), overview: overview(index) },
        view: rank_view(index, label, Scope::Steps),
    }
}

/// [`multi_rank`] of the ranks' parts, in the run's order.
pub fn multi_rank_of(parts: Vec<OverviewPart>) -> MultiRankOverview {
    let (ranks, views) = parts.into_iter().map(|p| (p.rank, p.view)).unzip();
    MultiRankOverview { ranks, distributed: distributed_of(views) }
}

/// The step table as CSV (times in µs).
pub fn steps_csv(view: &PytorchOverview) -> String {
    let mut out = String::from(
        "step,name,start_us,cpu_duration_us,window_us,kernel_us,memcpy_us,memset_us,runtime_us,dataloader_us,cpu_op_us,other_us,gpu_utilization_pct\n",
    );
    let us = |ps: i64| ps as f64 / 1e6;
    for s in view.steps.iter().chain(std::iter::once(&view.average)) {
        out += &format!(
            "{},{},{},{},{},{},{},{},{},{},{},{},{:.2}\n",
            s.step,
            crate::common::csv::csv_field(&s.name),
            us(s.start_ps),
            us(s.cpu_duration_ps),
            us(s.window_ps),
            us(s.kernel_ps),
            us(s.memcpy_ps),
            us(s.memset_ps),
            us(s.runtime_ps),
            us(s.dataloader_ps),
            us(s.cpu_op_ps),
            us(s.other_ps),
            s.gpu_utilization_pct
        );
    }
    out
}

pub fn overview(index: &KinetoIndex) -> PytorchOverview {
    let Roles { steps, average, whole_trace } = step_roles(index);
    PytorchOverview {
        average,
        steps,
        devices: facts(index).devices,
        whole_trace,
        rank: index.rank,
        world_size: index.world_size,
        communication: rank_view(index, "", Scope::Steps),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passes::kineto::{DeviceEvent, DeviceKind, HostEvent, HostKind, OptId, StepSpan};

    fn host(
        index: &mut KinetoIndex,
        kind: HostKind,
        name: &str,
        start: i64,
        end: i64,
        correlation: Option<i64>,
    ) -> HostEvent {
        HostEvent {
            line: 0,
            start_ps: start,
            end_ps: end,
            kind,
            name: index.intern(name),
            external_id: OptId::NONE,
            correlation_id: OptId::new(correlation),
            input_dims: None,
        }
    }

    fn device(index: &mut KinetoIndex, kind: DeviceKind, start: i64, end: i64, correlation: i64) -> DeviceEvent {
        DeviceEvent {
            device: 0,
            stream: 7,
            start_ps: start,
            end_ps: end,
            kind,
            name: index.intern("k"),
            external_id: OptId::NONE,
            correlation_id: OptId::new(Some(correlation)),
            kernel_details: None,
        }
    }

    #[test]
    fn roles_take_time_by_priority_and_add_up() {
        let mut index = KinetoIndex::default();
        index.host = vec![
            host(&mut index, HostKind::Annotation, "ProfilerStep#1", 0, 100, None),
            host(&mut index, HostKind::CpuOp, "aten::mm", 0, 50, None),
            host(&mut index, HostKind::Runtime, "cudaLaunchKernel", 5, 15, Some(1)),
            host(&mut index, HostKind::Runtime, "cudaMemcpyAsync", 15, 16, Some(2)),
        ];
        // The memcpy launched in the step ends after it: the window grows to 120.
        index.device =
            vec![device(&mut index, DeviceKind::Kernel, 10, 30, 1), device(&mut index, DeviceKind::Memcpy, 20, 120, 2)];
        index.steps =
            vec![StepSpan { name: "ProfilerStep#1".into(), step: 1, on_device: false, start_ps: 0, duration_ps: 100 }];
        let s = &overview(&index).steps[0];
        assert_eq!((s.cpu_duration_ps, s.window_ps), (100, 120));
        // kernel [10,30); memcpy [30,120); runtime [5,10); cpu [0,5); nothing else.
        assert_eq!((s.kernel_ps, s.memcpy_ps, s.runtime_ps, s.cpu_op_ps, s.other_ps), (20, 90, 5, 5, 0));
        assert!((s.gpu_utilization_pct - 100.0 * 20.0 / 120.0).abs() < 1e-9);
    }

    /// MTIA's device events are the device's kernels and its launch call a
    /// runtime call (synthetic trace,
    /// [`crate::passes::kineto::test_traces::MTIA_TRACE`]). Step 1 [0, 100):
    /// k1 [30, 50), k2 [60, 70) and the DMA [75, 80) are 35 µs of kernel
    /// time, the launches [10, 15) and [20, 25) 10 µs of runtime.
    #[test]
    fn mtia_device_events_are_found() {
        use crate::passes::kineto::test_traces::{profile, MTIA_TRACE};
        let view = overview(&KinetoIndex::new(&profile(MTIA_TRACE)));
        let devices: Vec<(i64, u64, &[i64])> =
            view.devices.iter().map(|d| (d.device, d.kernels, d.streams.as_slice())).collect();
        assert_eq!(devices, [(0, 5, &[5][..])]);
        let s = &view.steps[0];
        assert_eq!(
            (s.window_ps, s.kernel_ps, s.runtime_ps, s.other_ps),
            (100_000_000, 35_000_000, 10_000_000, 55_000_000)
        );
        assert!((s.gpu_utilization_pct - 35.0).abs() < 1e-9);
        // Over the steps: the four launched kernels and the DMA, which has no
        // correlation id and is placed by its own start. Device time runs
        // from 30 to 250 µs, 75 µs of it busy, all computation.
        let c = &view.communication;
        assert_eq!((c.kernels, c.window_ps, c.busy_ps), (5, 220_000_000, 75_000_000));
        assert!((c.compute_pct - 100.0 * 75.0 / 220.0).abs() < 1e-9);
        assert!((c.idle_pct - 100.0 * 145.0 / 220.0).abs() < 1e-9 && c.non_compute_pct.abs() < 1e-9);
    }
}
