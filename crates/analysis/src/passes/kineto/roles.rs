//! A PyTorch trace's `ProfilerStep#N` ranges as steps, each split into
//! torch-tb-profiler's roles: the PyTorch overview's step table, and what
//! the Advisor's PyTorch findings are measured in.
//!
//! A step's window starts at its host `ProfilerStep#N` range and ends at the
//! later of that range's end and the end of the device work launched inside
//! it (launch = the runtime call with the same correlation id), but never
//! past the next step's start. Inside the window every instant is given to
//! the highest-priority role active then, in this order:
//!
//! 1. **kernel**: a GPU kernel runs (any stream, any device);
//! 2. **memcpy**: a GPU memcpy runs;
//! 3. **memset**: a GPU memset runs;
//! 4. **runtime**: a host thread is in a CUDA runtime / driver call;
//! 5. **data loading**: a host thread is in `enumerate(DataLoader)…__next__`
//!    (or another range whose name has `DataLoader` and `__next__`);
//! 6. **cpu**: a host thread runs a `cpu_op`;
//! 7. **other**: the rest of the window (Python, idle, …).
//!
//! So the roles add up to the window exactly. GPU utilisation is the
//! kernel share of the window (the union of kernel time over the window).
//!
//! [`annotation_roles`] splits the instances of another annotation the same
//! way (the Advisor's steps on a trace without `ProfilerStep#N`).

use super::intervals::Intervals;
use super::{DeviceKind, HostEvent, HostKind, KinetoIndex};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StepBreakdown {
    pub step: i64,
    pub name: String,
    pub start_ps: i64,
    /// The host `ProfilerStep#N` duration (what the profiler recorded).
    pub cpu_duration_ps: i64,
    /// The window the roles split (see the module docs).
    pub window_ps: i64,
    pub kernel_ps: i64,
    pub memcpy_ps: i64,
    pub memset_ps: i64,
    pub runtime_ps: i64,
    pub dataloader_ps: i64,
    pub cpu_op_ps: i64,
    pub other_ps: i64,
    /// kernel_ps / window_ps × 100.
    pub gpu_utilization_pct: f64,
}

/// The steps' role breakdown and its mean.
pub struct Roles {
    pub steps: Vec<StepBreakdown>,
    /// Role means over the steps (step = -1).
    pub average: StepBreakdown,
    /// No `ProfilerStep#N` ranges: the whole trace is one pseudo-step.
    pub whole_trace: bool,
}

pub fn is_dataloader(name: &str) -> bool {
    name.contains("DataLoader") && name.contains("__next__")
}

/// Each step's window split into roles (module docs).
pub fn step_roles(index: &KinetoIndex) -> Roles {
    let spans: Vec<Span> = index.cpu_steps().map(|s| (s.step, s.name.clone(), s.start_ps, s.duration_ps)).collect();
    let windows = windows_of(index, &spans);
    let whole_trace = windows.is_empty();
    let windows = if whole_trace { whole_window(index).into_iter().collect() } else { windows };
    roles_over(index, windows, whole_trace)
}

/// The roles over the instances of `annotation` (the host ranges whose
/// name contains it, HTA's rule: `passes::kineto::iterations`) as the steps,
/// for a trace without `ProfilerStep#N`; `None` when no range matches.
pub fn annotation_roles(index: &KinetoIndex, annotation: &str) -> Option<Roles> {
    let mut spans: Vec<Span> = index
        .host
        .iter()
        .filter(|h| !annotation.is_empty() && index.text(h.name).contains(annotation))
        .map(|h| (-1, index.text(h.name).to_string(), h.start_ps, h.end_ps - h.start_ps))
        .collect();
    spans.sort_by_key(|s| s.2);
    let windows = windows_of(index, &spans);
    (!windows.is_empty()).then(|| roles_over(index, windows, false))
}

/// A step as its range gives it: (step, name, start, duration).
type Span = (i64, String, i64, i64);

/// The role split of each window (step, name, start, cpu duration, end).
fn roles_over(index: &KinetoIndex, windows: Vec<(i64, String, i64, i64, i64)>, whole_trace: bool) -> Roles {
    let role = |f: &dyn Fn(usize) -> Option<(i64, i64)>, n: usize| Intervals::union_of((0..n).filter_map(f).collect());
    let dev = |kind: DeviceKind| {
        role(
            &|i| {
                let d = &index.device[i];
                (d.kind == kind).then_some((d.start_ps, d.end_ps))
            },
            index.device.len(),
        )
    };
    let host = |pred: &dyn Fn(&HostEvent) -> bool| {
        role(
            &|i| {
                let h = &index.host[i];
                pred(h).then_some((h.start_ps, h.end_ps))
            },
            index.host.len(),
        )
    };
    // Priority order (module docs).
    let roles = [
        dev(DeviceKind::Kernel),
        dev(DeviceKind::Memcpy),
        dev(DeviceKind::Memset),
        host(&|h| h.kind == HostKind::Runtime),
        host(&|h| is_dataloader(index.text(h.name))),
        host(&|h| h.kind == HostKind::CpuOp),
    ];
    let steps: Vec<StepBreakdown> = windows
        .into_iter()
        .map(|(step, name, start, cpu_dur, end)| {
            let mut covered = Intervals::default();
            let mut parts = [0i64; 6];
            for (part, r) in parts.iter_mut().zip(&roles) {
                let before = covered.len_ps();
                covered = covered.union(&r.clip(start, end));
                *part = covered.len_ps() - before;
            }
            let window = end - start;
            StepBreakdown {
                step,
                name,
                start_ps: start,
                cpu_duration_ps: cpu_dur,
                window_ps: window,
                kernel_ps: parts[0],
                memcpy_ps: parts[1],
                memset_ps: parts[2],
                runtime_ps: parts[3],
                dataloader_ps: parts[4],
                cpu_op_ps: parts[5],
                other_ps: window - covered.len_ps(),
                gpu_utilization_pct: pct(parts[0], window),
            }
        })
        .collect();
    Roles { average: average(&steps), steps, whole_trace }
}

pub fn pct(part: i64, whole: i64) -> f64 {
    if whole <= 0 {
        0.0
    } else {
        part as f64 * 100.0 / whole as f64
    }
}

/// (step, name, start, cpu duration, window end) per host range `steps`
/// (in start order).
fn windows_of(index: &KinetoIndex, steps: &[Span]) -> Vec<(i64, String, i64, i64, i64)> {
    let launches = index.launch_time_of_correlation();
    // (launch time, end) of each device event whose launch is known, by
    // launch time: a step's device work is then one run of this list, found
    // by binary search, instead of a scan of every event per step.
    let mut launched: Vec<(i64, i64)> =
        index.device.iter().filter_map(|d| Some((*launches.get(&d.correlation_id.get()?)?, d.end_ps))).collect();
    launched.sort_unstable();
    steps
        .iter()
        .enumerate()
        .map(|(i, (step, name, start_ps, duration_ps))| {
            let (start_ps, duration_ps) = (*start_ps, *duration_ps);
            let cpu_end = start_ps + duration_ps;
            let limit = steps.get(i + 1).map_or(i64::MAX, |next| next.2);
            let first = launched.partition_point(|&(t, _)| t < start_ps);
            let device_end = launched[first..]
                .iter()
                .take_while(|&&(t, _)| t < cpu_end)
                .map(|&(_, end)| end)
                .max()
                .unwrap_or(cpu_end);
            let end = cpu_end.max(device_end).min(limit.max(cpu_end));
            (*step, name.clone(), start_ps, duration_ps, end)
        })
        .collect()
}

/// The whole trace as one window, for traces without steps.
fn whole_window(index: &KinetoIndex) -> Option<(i64, String, i64, i64, i64)> {
    let spans =
        index.host.iter().map(|h| (h.start_ps, h.end_ps)).chain(index.device.iter().map(|d| (d.start_ps, d.end_ps)));
    let (start, end) = spans.fold(None, |acc: Option<(i64, i64)>, (s, e)| match acc {
        Some((a, b)) => Some((a.min(s), b.max(e))),
        None => Some((s, e)),
    })?;
    Some((0, "whole trace".to_string(), start, end - start, end))
}

fn average(steps: &[StepBreakdown]) -> StepBreakdown {
    let n = steps.len().max(1) as i64;
    let mean = |f: fn(&StepBreakdown) -> i64| steps.iter().map(f).sum::<i64>() / n;
    let window = mean(|s| s.window_ps);
    let kernel = mean(|s| s.kernel_ps);
    StepBreakdown {
        step: -1,
        name: "average".to_string(),
        start_ps: 0,
        cpu_duration_ps: mean(|s| s.cpu_duration_ps),
        window_ps: window,
        kernel_ps: kernel,
        memcpy_ps: mean(|s| s.memcpy_ps),
        memset_ps: mean(|s| s.memset_ps),
        runtime_ps: mean(|s| s.runtime_ps),
        dataloader_ps: mean(|s| s.dataloader_ps),
        cpu_op_ps: mean(|s| s.cpu_op_ps),
        other_ps: mean(|s| s.other_ps),
        gpu_utilization_pct: pct(kernel, window),
    }
}
