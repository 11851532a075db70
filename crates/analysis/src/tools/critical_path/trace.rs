//! The trace as the critical path reads it: HTA's events (µs-rounded, the
//! last step dropped as `TraceAnalysis` loads it) and, over the whole trace,
//! what HTA's `CPGraph` looks up in `full_trace_df`: each launch's kernel,
//! the per-stream queue length (`TraceCounters`), the kernel a
//! `cudaEventRecord` captured and the kernel a `cudaStreamWaitEvent` holds.

use crate::common::schema::StatPicker;
use crate::passes::kineto::hta::{self, HtaEvent};
use proflens_model::{Profile, StatValue};
use rustc_hash::FxHashMap;

/// HTA's kernel and memory launches (`get_runtime_launch_events_query`).
const LAUNCHES: &[&str] = &[
    "cudaLaunchKernel",
    "cudaLaunchKernelExC",
    "cuLaunchKernel",
    "cudaMemcpyAsync",
    "cudaMemsetAsync",
    "runFunction - job_prep_and_submit_for_execution",
    "hipLaunchKernel",
    "hipExtModuleLaunchKernel",
    "hipMemsetAsync",
    "hipMemcpyAsync",
    "hipMemcpyWithStream",
];

/// Runtime calls whose own time HTA counts as 0 on the path (`BLOCKING_SYNC_CALLS`).
pub(super) const BLOCKING: &[&str] = &[
    "cudaDeviceSynchronize",
    "cudaStreamSynchronize",
    "cudaEventQuery",
    "cudaEventSynchronize",
    "cudaMemcpy",
    "cudaMemcpyAsync",
];

/// One rank's events and the lookups over all of them.
pub(super) struct Trace<'p> {
    pub events: Vec<HtaEvent<'p>>,
    /// Per event: the `wait_on_stream` and `wait_on_cuda_event_record_corr_id`
    /// args of a `cuda_sync` event (−1 / none without them).
    pub wait: Vec<(i64, Option<u64>)>,
    /// HTA's `index_correlation`: a GPU event's host call, a host call's GPU event.
    pub partner: Vec<Option<usize>>,
    /// The stream's queue length after this launch or kernel start.
    pub queue: FxHashMap<usize, i64>,
    /// `wait_on_cuda_event_record_corr_id` → the kernel the record captured.
    pub recorded_kernel: FxHashMap<u64, usize>,
    /// A `cudaStreamWaitEvent` call → the kernel of the next launch from its
    /// thread onto the waiting stream.
    pub next_kernel: FxHashMap<usize, usize>,
}

pub(super) fn is_host_call(e: &HtaEvent) -> bool {
    matches!(e.cat(), "cpu_op" | "cuda_runtime" | "cuda_driver")
}

impl<'p> Trace<'p> {
    pub fn new(profile: &'p Profile) -> Trace<'p> {
        let events = hta::traced_iterations(hta::events(profile), false);
        let wait = wait_args(profile, &events);
        let partner = partners(&events);
        let mut trace = Trace {
            events,
            wait,
            partner,
            queue: FxHashMap::default(),
            recorded_kernel: FxHashMap::default(),
            next_kernel: FxHashMap::default(),
        };
        trace.queue_lengths();
        trace.event_links();
        trace
    }

    /// The launches (by HTA's names) that have a GPU event, by start time;
    /// the position is HTA's `launch_id`.
    fn launches(&self) -> Vec<usize> {
        let mut l: Vec<usize> = (0..self.events.len())
            .filter(|&i| {
                let e = &self.events[i];
                e.stream == -1 && LAUNCHES.contains(&e.name()) && self.partner[i].is_some()
            })
            .collect();
        l.sort_by_key(|&i| self.events[i].ts_us);
        l
    }

    /// HTA's `_get_queue_length_time_series_for_rank`: per stream, +1 at each
    /// launch, −1 at each start of a launched GPU event, in time order (a
    /// launch before a kernel start at the same µs).
    fn queue_lengths(&mut self) {
        let mut changes: Vec<(i64, u8, usize, i64)> = Vec::new();
        for l in self.launches() {
            let Some(k) = self.partner[l] else { continue };
            changes.push((self.events[l].ts_us, 0, l, self.events[k].stream));
            changes.push((self.events[k].ts_us, 1, k, self.events[k].stream));
        }
        changes.sort_unstable();
        let mut per_stream: FxHashMap<i64, i64> = FxHashMap::default();
        for (_, kind, i, stream) in changes {
            let q = per_stream.entry(stream).or_insert(0);
            *q += if kind == 0 { 1 } else { -1 };
            self.queue.insert(i, *q);
        }
    }

    /// The kernel each `cudaEventRecord` captured (the latest launch onto
    /// the recorded stream by then; streams are told apart by number alone,
    /// as in HTA's queue lengths), and the kernel each
    /// `cudaStreamWaitEvent` holds back (the next launch from the same
    /// thread onto the waiting stream).
    fn event_links(&mut self) {
        let ev = &self.events;
        // Record correlation → stream, from the sync events that name it.
        let mut recorded_on: FxHashMap<u64, i64> = FxHashMap::default();
        for &(stream, record) in &self.wait {
            if let (true, Some(r)) = (stream > -1, record) {
                recorded_on.entry(r).or_insert(stream);
            }
        }
        // Launches by target stream, and by (thread, target stream), in time order.
        let mut by_stream: FxHashMap<i64, Vec<usize>> = FxHashMap::default();
        let mut by_thread: FxHashMap<(usize, usize, i64), Vec<usize>> = FxHashMap::default();
        for l in self.launches() {
            let Some(k) = self.partner[l] else { continue };
            by_stream.entry(ev[k].stream).or_default().push(l);
            by_thread.entry((ev[l].at().0, ev[l].at().1, ev[k].stream)).or_default().push(l);
        }
        for e in ev.iter() {
            if e.name() != "cudaEventRecord" || e.stream != -1 {
                continue;
            }
            let Some(c) = e.correlation() else { continue };
            let Some(list) = recorded_on.get(&c).and_then(|s| by_stream.get(s)) else { continue };
            let before = list.partition_point(|&l| ev[l].ts_us <= e.ts_us);
            if let Some(k) = before.checked_sub(1).and_then(|p| self.partner[list[p]]) {
                self.recorded_kernel.insert(c, k);
            }
        }
        for (i, e) in ev.iter().enumerate() {
            if e.name() != "cudaStreamWaitEvent" || e.stream != -1 {
                continue;
            }
            let Some(stream) = self.partner[i].map(|g| ev[g].stream) else { continue };
            let Some(list) = by_thread.get(&(e.at().0, e.at().1, stream)) else { continue };
            let next = list.partition_point(|&l| ev[l].ts_us < e.ts_us);
            if let Some(k) = list.get(next).and_then(|&l| self.partner[l]) {
                self.next_kernel.insert(i, k);
            }
        }
    }
}

/// The `cuda_sync` args each event carries.
fn wait_args(profile: &Profile, events: &[HtaEvent]) -> Vec<(i64, Option<u64>)> {
    let key = |k: &str| profile.strings.lookup(k);
    let picker = StatPicker::new(profile, &[key("wait_on_stream"), key("wait_on_cuda_event_record_corr_id")]);
    let mut values: [Option<StatValue>; 2] = [None; 2];
    events
        .iter()
        .map(|e| {
            if e.cat() != "cuda_sync" {
                return (-1, None);
            }
            let (p, l, i) = e.at();
            let plane = &profile.planes[p];
            picker.pick(profile, plane, &plane.lines[l], i, &mut values);
            let stream = match values[0] {
                Some(StatValue::Int(v)) => v,
                Some(StatValue::Uint(v)) => i64::try_from(v).unwrap_or(-1),
                Some(StatValue::Double(v)) if v.is_finite() => v as i64,
                Some(StatValue::Str(s)) => s.trim().parse().unwrap_or(-1),
                _ => -1,
            };
            let record = match values[1] {
                Some(StatValue::Int(v)) if v >= 0 => Some(v as u64),
                Some(StatValue::Uint(v)) => Some(v),
                Some(StatValue::Double(v)) if v >= 0.0 => Some(v as u64),
                Some(StatValue::Str(s)) => s.trim().parse().ok(),
                _ => None,
            };
            (stream, record)
        })
        .collect()
}

/// HTA's `index_correlation`: GPU events (on a stream, and the device-wide
/// `Context Sync` / `Event Sync`) pair with the host runtime call of their
/// correlation id, and that call with them (the last one of each wins).
fn partners(events: &[HtaEvent]) -> Vec<Option<usize>> {
    let mut host: FxHashMap<u64, usize> = FxHashMap::default();
    let mut gpu: FxHashMap<u64, usize> = FxHashMap::default();
    for (i, e) in events.iter().enumerate() {
        let Some(c) = e.correlation() else { continue };
        if e.is_gpu() {
            gpu.insert(c, i);
        } else if e.stream == -1 && matches!(e.cat(), "cuda_runtime" | "cuda_driver") {
            host.insert(c, i);
        }
    }
    events
        .iter()
        .map(|e| {
            let c = e.correlation()?;
            if e.is_gpu() {
                host.get(&c).copied()
            } else if e.stream == -1 && matches!(e.cat(), "cuda_runtime" | "cuda_driver") {
                gpu.get(&c).copied()
            } else {
                None
            }
        })
        .collect()
}
