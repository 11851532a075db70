//! Critical path: the chain of host calls, launches, syncs and kernels that
//! sets a step's time — HTA 0.5.0's `TraceAnalysis.critical_path_analysis`
//! (`annotation`, `instance_id`), for every instance of the annotation on
//! one rank: `ProfilerStep#N` by default, else the iterations
//! `passes::kineto::iterations` chooses (a trace without `ProfilerStep`: its
//! longest top-level annotation, or the whole trace), or those of an
//! annotation the user names (`--annotation`).
//!
//! HTA's algorithm, kept here (docs/deviations.md lists where it differs):
//!
//! 1. **Window** ([`graph::build`]): the step's `[ts, ts + dur]`; host-side
//!    events that start in it and last, GPU events whose host call does.
//! 2. **Nodes**: the start and the end of each host call (`cpu_op`,
//!    `cuda_runtime`, `cuda_driver`) and each GPU event on a stream.
//! 3. **Host edges**, per thread along its call stack: parent start → child
//!    start, child end → next child start, last child end → parent end, each
//!    weighted by the time between; a blocking call (`cudaDeviceSynchronize`,
//!    `cudaStreamSynchronize`, `cudaEventSynchronize`, `cudaEventQuery`,
//!    `cudaMemcpy`, `cudaMemcpyAsync`) weighs 0 — its time is the GPU's; one
//!    top-level call's end → the next one's start weighs 0 (`dependency`).
//! 4. **GPU edges**, kernels in start order: start → end (its time); from the
//!    launch's start (`kernel_launch_delay`) when the stream was idle — the
//!    queue held only this launch, nothing else is queued once it starts and
//!    the previous kernel ended before the launch — else from the previous
//!    kernel's end on the stream (`kernel_kernel_delay`).
//! 5. **Syncs** (weight 0): `Stream Sync` / `Context Sync` link the last
//!    kernel on the stream (all streams) to the end of the waiting call;
//!    `Event Sync` the kernel the `cudaEventRecord` captured; a `Stream Wait
//!    Event` holds the next kernel launched onto its stream until that kernel.
//! 6. **Path** ([`longest::longest_path`]): the longest by weight (networkx's
//!    `dag_longest_path`, ties as it breaks them).
//!
//! Each edge of the path becomes a [`Segment`] spanning the time between its
//! nodes, so the segments tile the path; the breakdown sums them by [`Kind`].

mod graph;
mod longest;
mod tool;
mod trace;

#[cfg(test)]
mod tests;

pub use tool::CriticalPathTool;

use crate::passes::kineto::hta;
use crate::passes::kineto::iterations::{self, Range};
use graph::EdgeType;
use proflens_model::Profile;
use serde::{Deserialize, Serialize};
use trace::Trace;

/// What a stretch of the path is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Host time inside a call (`cpu_op`, a runtime call that does not wait).
    CpuOp,
    /// Host time between two top-level calls on a thread (Python, untraced).
    CpuGap,
    /// From a launch to its kernel's start, the stream being idle.
    LaunchDelay,
    /// A kernel (or memcpy/memset) running.
    Kernel,
    /// A kernel waiting for the one before it on its stream to end.
    KernelWait,
    /// The host (or a stream) waiting for a kernel: a sync call's time, and
    /// a kernel's end to the sync's return.
    Sync,
}

impl Kind {
    pub const ALL: [Kind; 6] =
        [Kind::CpuOp, Kind::CpuGap, Kind::LaunchDelay, Kind::Kernel, Kind::KernelWait, Kind::Sync];

    pub fn label(self) -> &'static str {
        match self {
            Kind::CpuOp => "CPU op",
            Kind::CpuGap => "CPU gap",
            Kind::LaunchDelay => "Launch delay",
            Kind::Kernel => "Kernel",
            Kind::KernelWait => "Kernel wait",
            Kind::Sync => "Sync",
        }
    }

    pub fn id(self) -> &'static str {
        match self {
            Kind::CpuOp => "cpu_op",
            Kind::CpuGap => "cpu_gap",
            Kind::LaunchDelay => "launch_delay",
            Kind::Kernel => "kernel",
            Kind::KernelWait => "kernel_wait",
            Kind::Sync => "sync",
        }
    }
}

/// A trace event a segment belongs to, with where it is in the model (to
/// select it in the trace viewer).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventRef {
    pub name: String,
    pub cat: String,
    pub ts_us: i64,
    pub dur_us: i64,
    /// −1 on the host.
    pub stream: i64,
    pub plane: usize,
    pub line: usize,
    pub index: usize,
}

/// One stretch of the path.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Segment {
    pub kind: Kind,
    /// HTA's edge type (`critical_path_operator`…).
    pub edge: String,
    /// Start, µs (the trace's time as HTA rounds it).
    pub ts_us: i64,
    /// From this segment's start to the next one's.
    pub dur_us: i64,
    /// HTA's weight of the edge (0 for dependencies, syncs and blocking calls).
    pub weight_us: i64,
    pub event: Option<EventRef>,
}

/// The path's time of one kind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KindTotal {
    pub kind: Kind,
    pub us: i64,
    /// Of the step's duration.
    pub share: f64,
    /// HTA's weight of those segments.
    pub hta_us: i64,
}

/// The critical path of one iteration (a `ProfilerStep#N`, an instance of
/// another annotation, or the whole trace).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepPath {
    /// HTA's `instance_id`: the iteration's place among the instances.
    pub instance: usize,
    /// The `N` of `ProfilerStep#N`; −1 for an iteration of another annotation.
    pub step: i64,
    /// The iteration's event name (`ProfilerStep#3`, `execute_context_…`),
    /// `whole trace` for the whole trace.
    #[serde(default)]
    pub name: String,
    pub ts_us: i64,
    pub dur_us: i64,
    /// From the step's start to the path's end (or the step's, if later).
    pub path_us: i64,
    /// HTA's length of the path (sum of its weights).
    pub hta_us: i64,
    pub breakdown: Vec<KindTotal>,
    pub segments: Vec<Segment>,
    /// Why this step has no path.
    pub error: Option<String>,
}

/// Every step's critical path, or one step's (`only`): the other steps are
/// then listed with their times alone (no segments, no breakdown).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CriticalPath {
    pub steps: Vec<StepPath>,
    /// The step whose path alone was found, when one was asked for.
    #[serde(default)]
    pub only: Option<usize>,
    /// HTA's `annotation`: the text the iterations' names contain
    /// (`ProfilerStep`); empty for the whole trace.
    #[serde(default)]
    pub annotation: String,
    /// Why the iterations are what they are, when Proflens chose them (a
    /// trace without `ProfilerStep#N`).
    #[serde(default)]
    pub note: Option<String>,
}

/// The whole trace as one iteration's name.
pub const WHOLE_TRACE: &str = "whole trace";

/// The critical path of each iteration chosen by default (`ProfilerStep#N`
/// when the trace has them; see `passes::kineto::iterations`), or of the
/// one at place `only` (the first if there are fewer).
pub fn critical_paths(profile: &Profile, only: Option<usize>) -> Result<CriticalPath, String> {
    critical_paths_of(profile, None, only)
}

/// The critical path of each instance of `annotation` on the host (HTA's
/// rule: every host event whose name contains it; `""`: the whole trace;
/// `None`: the default), as HTA's `TraceAnalysis` loads the trace (the last
/// `ProfilerStep` dropped when there are several), or of the one at place
/// `only` (the first if there are fewer).
pub fn critical_paths_of(
    profile: &Profile,
    annotation: Option<&str>,
    only: Option<usize>,
) -> Result<CriticalPath, String> {
    let trace = Trace::new(profile);
    // Host ranges only: HTA also counts the steps' GPU copies
    // (`gpu_user_annotation`) among the instances (docs/deviations.md).
    let host: Vec<usize> = (0..trace.events.len())
        .filter(|&i| {
            let e = &trace.events[i];
            e.stream == -1 && !e.is_gpu() && e.cat() != "gpu_user_annotation"
        })
        .collect();
    let ranges: Vec<Range> = host
        .iter()
        .map(|&i| {
            let e = &trace.events[i];
            Range {
                name: e.name(),
                user_annotation: e.cat() == "user_annotation",
                thread: (e.at().0, e.at().1),
                start: e.ts_us,
                end: e.end_us(),
            }
        })
        .collect();
    let (annotation, note) = match annotation {
        Some(named) => (named.to_string(), None),
        None => {
            let chosen = iterations::default_annotation(&ranges).unwrap_or_default();
            let note = iterations::default_note(&chosen);
            (chosen, note)
        }
    };
    // (start, duration, name, the event) of each iteration.
    let steps: Vec<(i64, i64, &str, Option<usize>)> = if annotation.is_empty() {
        // HTA's `annotation=""`: from the first event's start to the last one's end.
        let start = trace.events.iter().map(|e| e.ts_us).min();
        let end = trace.events.iter().map(|e| e.end_us()).max();
        start.zip(end).map(|(s, e)| (s, e - s, WHOLE_TRACE, None)).into_iter().collect()
    } else {
        iterations::instances(&ranges, &annotation)
            .into_iter()
            .map(|k| {
                let e = &trace.events[host[k]];
                (e.ts_us, e.dur_us, e.name(), Some(host[k]))
            })
            .collect()
    };
    if steps.is_empty() {
        return Err(if annotation.is_empty() {
            "This trace has no events.".to_string()
        } else {
            format!("No host event of this trace has “{annotation}” in its name; the critical path is found within an instance of the annotation.")
        });
    }
    let only = only.map(|n| if n < steps.len() { n } else { 0 });
    let steps = steps
        .iter()
        .enumerate()
        .map(|(instance, &(ts, dur, name, at))| {
            let mut out = StepPath {
                instance,
                step: hta::step_number(name).unwrap_or(-1),
                name: name.to_string(),
                ts_us: ts,
                dur_us: dur,
                path_us: 0,
                hta_us: 0,
                breakdown: Vec::new(),
                segments: Vec::new(),
                error: None,
            };
            if only.is_none_or(|n| n == instance) {
                find_path(&trace, &mut out, at);
            }
            out
        })
        .collect();
    Ok(CriticalPath { steps, only, annotation, note })
}

/// Fills in `out`'s path: the iteration's, whose event is `at` (none for
/// the whole trace).
fn find_path(trace: &Trace, out: &mut StepPath, at: Option<usize>) {
    let (ts, dur) = (out.ts_us, out.dur_us);
    let g = graph::build(trace, ts, ts + dur);
    let path = match longest::longest_path(&g) {
        Ok(p) if !p.is_empty() => p,
        Ok(_) => {
            out.error = Some("No host call or kernel lasts in this step.".into());
            return;
        }
        Err(e) => {
            out.error = Some(e);
            return;
        }
    };
    let event = |i: usize| {
        let e = &trace.events[i];
        EventRef {
            name: e.name().to_string(),
            cat: e.cat().to_string(),
            ts_us: e.ts_us,
            dur_us: e.dur_us,
            stream: e.stream,
            plane: e.at().0,
            line: e.at().1,
            index: e.at().2,
        }
    };
    let first = g.nodes[g.edges[path[0]].from].ts;
    if first > ts {
        out.segments.push(Segment {
            kind: Kind::CpuGap,
            edge: String::new(),
            ts_us: ts,
            dur_us: first - ts,
            weight_us: 0,
            event: at.map(event),
        });
    }
    for &e in &path {
        let edge = g.edges[e];
        let (a, b) = (g.nodes[edge.from], g.nodes[edge.to]);
        let owner = edge.event.map(|i| &trace.events[i]);
        let kind = match edge.kind {
            EdgeType::Operator if edge.blocking => Kind::Sync,
            EdgeType::Operator if owner.is_some_and(|o| o.stream != -1) => Kind::Kernel,
            EdgeType::Operator => Kind::CpuOp,
            EdgeType::Dependency => Kind::CpuGap,
            EdgeType::LaunchDelay => Kind::LaunchDelay,
            EdgeType::KernelKernel => Kind::KernelWait,
            EdgeType::Sync => Kind::Sync,
        };
        out.hta_us += edge.weight;
        out.segments.push(Segment {
            kind,
            edge: edge.kind.hta_name().to_string(),
            ts_us: a.ts,
            dur_us: b.ts - a.ts,
            weight_us: edge.weight,
            event: edge.event.or(at).map(event),
        });
    }
    let last = g.nodes[g.edges[path[path.len() - 1]].to].ts;
    if last < ts + dur {
        out.segments.push(Segment {
            kind: Kind::CpuGap,
            edge: String::new(),
            ts_us: last,
            dur_us: ts + dur - last,
            weight_us: 0,
            event: at.map(event),
        });
    }
    out.path_us = last.max(ts + dur) - ts;
    out.breakdown = Kind::ALL
        .iter()
        .map(|&kind| {
            let of_kind = out.segments.iter().filter(|s| s.kind == kind);
            let us: i64 = of_kind.clone().map(|s| s.dur_us).sum();
            let hta_us = of_kind.map(|s| s.weight_us).sum();
            KindTotal { kind, us, share: if dur > 0 { us as f64 / dur as f64 } else { 0.0 }, hta_us }
        })
        .collect();
}
