//! A PyTorch (Kineto) trace as HolisticTraceAnalysis 0.5.0 loads it: the
//! frame every HTA-parity analysis starts from (the trace diff, kernel
//! launch statistics, idle time, queue length, memory bandwidth, …).
//!
//! * **Which events** ([`events`]). HTA keeps the trace events that have
//!   both a `dur` and a `cat`, except the `Trace` span. In the model that is
//!   every event with a `cat` stat, except `Trace` and `cpu_instant_event`:
//!   the importer keeps instants (with no duration) which HTA drops, and
//!   those are the instants Kineto writes with a category; the others
//!   (`Iteration Start`, `Record Window End`, PyTorch 1.9's `[memory]`) have
//!   none. `python_function` events count: HTA 0.5.0's default JSON parser
//!   keeps them (only its ijson parsers skip them).
//! * **GPU events and device work.** [`HtaEvent::is_gpu`] is HTA's split of
//!   the frame into GPU and CPU events (which links launches to their work
//!   and drops the last step's); [`HtaEvent::is_device_work`] is the
//!   narrower choice of the idle time breakdown, by category (no syncs;
//!   MTIA's on-device events, with or without a correlation id).
//! * **Times** (`ns_rounding=True`, HTA's default). Every timestamp is
//!   rounded to whole µs, start up and end down, so a sub-µs event can last
//!   −1 µs; on traces in whole µs this changes nothing.
//! * **Iteration** ([`assign_iterations`]). An event's `stream` is its
//!   `stream` arg, −1 without one. An event with stream < 0 (host events,
//!   and device events without the arg, such as `gpu_user_annotation`)
//!   belongs to the `ProfilerStep#N` whose [ts, ts + dur) holds its start;
//!   when several do (a step's host and device copies), the last one in
//!   trace order. An event with stream > 0 takes the iteration of the
//!   stream −1 event with the same correlation id (its launch), and none
//!   when the launch is not in the trace. HTA never assigns stream-0 events.
//! * **Traced iterations** ([`traced_iterations`]): `TraceAnalysis` loads a
//!   trace with `include_last_profiler_step=False` by default, which drops
//!   the host events from the last step's start on and the device work they
//!   launched (HTA's `_filter_irrelevant_gpu_kernels`).

use crate::common::schema::StatPicker;
use proflens_model::{Interner, Origin, Profile, StatValue, StrId};
use rustc_hash::FxHashMap;
use std::collections::BinaryHeap;

/// What a tool over HTA's whole frame (the critical path, the kernel
/// sequences) holds at once per event of the trace: the frame (64 bytes an
/// event) and per-event lists and maps beside it. On the 1.0 GB synthetic
/// Kineto trace (2.70 M events), counted by allocator
/// (`examples/hta_heap.rs`): 99.3 bytes an event for the kernel sequences,
/// 174.7 for one step's critical path (206.7 while events took 96 bytes),
/// a tenth more for margin. The analyses of launched GPU work read a
/// smaller frame ([`super::gpu_frame`]).
pub const WORKING_BYTES_PER_EVENT: u64 = 192;

/// An event as HTA's trace parser keeps it: times in whole µs. Its texts
/// are the model's (interned), its place packed: 64 bytes where plain
/// fields took 96, for the millions of events an analysis may hold.
#[derive(Debug, Clone, Copy)]
pub struct HtaEvent<'p> {
    strings: &'p Interner,
    name: StrId,
    /// Kineto's category (`cpu_op`, `cuda_runtime`, `kernel`, `gpu_memcpy`…).
    cat: StrId,
    pub ts_us: i64,
    pub dur_us: i64,
    /// The `stream` arg; −1 without one.
    pub stream: i64,
    /// The correlation id, [`NO_CORRELATION`] without one.
    correlation: u64,
    /// Where the event is in the model (plane, line, event index).
    at: [u32; 3],
}

/// The correlation id that stands for none (HTA's −1): no profiler counts
/// that far.
const NO_CORRELATION: u64 = u64::MAX;

impl<'p> HtaEvent<'p> {
    pub fn name(&self) -> &'p str {
        self.strings.get(self.name)
    }

    /// Kineto's category (`cpu_op`, `cuda_runtime`, `kernel`, `gpu_memcpy`…).
    pub fn cat(&self) -> &'p str {
        self.strings.get(self.cat)
    }

    /// The correlation id (`correlation` arg); `None` without one (HTA's −1).
    pub fn correlation(&self) -> Option<u64> {
        (self.correlation != NO_CORRELATION).then_some(self.correlation)
    }

    /// Where the event is in the model (plane, line, event index), to read
    /// any other arg it carries.
    pub fn at(&self) -> (usize, usize, usize) {
        (self.at[0] as usize, self.at[1] as usize, self.at[2] as usize)
    }

    /// `ts + dur`, HTA's `end` column.
    pub fn end_us(&self) -> i64 {
        self.ts_us.saturating_add(self.dur_us)
    }

    /// HTA's GPU events (`GPUKernelFilter`): work on a stream with a
    /// correlation id, and the device-wide `Event Sync` / `Context Sync`
    /// (on stream −1 though they run on the GPU). Everything else is a CPU
    /// event (`CPUOperatorFilter`).
    pub fn is_gpu(&self) -> bool {
        (self.stream >= 0 && self.correlation().is_some()) || matches!(self.name(), "Event Sync" | "Context Sync")
    }

    /// Work that runs on a device stream, as the idle time breakdown picks
    /// it: an event on a stream (≠ −1) whose category is one of
    /// [`DEVICE_WORK_CATS`], with or without a correlation id. Unlike
    /// [`HtaEvent::is_gpu`] this leaves out the `cuda_sync` events (a sync
    /// is the device or the host waiting, not work; a `Context Sync`'s
    /// stream is CUPTI's "none", 4294967295) and host events that carry a
    /// `stream` arg (Triton's `cpu_op`s), and keeps MTIA's on-device events,
    /// which often have no correlation id.
    pub fn is_device_work(&self) -> bool {
        self.stream != -1 && DEVICE_WORK_CATS.contains(&self.cat())
    }
}

/// An [`HtaEvent`] without its pointer to the profile's texts, for a pass
/// that is kept beside the profile rather than borrowing it
/// ([`super::gpu_frame::GpuFrame`]): 56 bytes, and the same again by
/// [`Detached::attach`] to the profile it came from.
#[derive(Debug, Clone, Copy)]
pub struct Detached {
    name: StrId,
    cat: StrId,
    ts_us: i64,
    dur_us: i64,
    stream: i64,
    correlation: u64,
    at: [u32; 3],
    /// Free for the holder's own flags: it fills what would be padding.
    pub marks: u8,
}

impl<'p> HtaEvent<'p> {
    /// The event without its texts' table, no marks set.
    pub fn detach(&self) -> Detached {
        let HtaEvent { strings: _, name, cat, ts_us, dur_us, stream, correlation, at } = *self;
        Detached { name, cat, ts_us, dur_us, stream, correlation, at, marks: 0 }
    }
}

impl Detached {
    /// The event again, reading its texts from `strings`: the interner of
    /// the profile it was detached from (another profile's would name it
    /// wrongly).
    pub fn attach(self, strings: &Interner) -> HtaEvent<'_> {
        let Detached { name, cat, ts_us, dur_us, stream, correlation, at, marks: _ } = self;
        HtaEvent { strings, name, cat, ts_us, dur_us, stream, correlation, at }
    }
}

/// The categories of device work HolisticTraceAnalysis 0.5.0 keeps for the
/// idle time breakdown (`BreakdownAnalysis.get_idle_time_breakdown`,
/// `hta/analyzers/breakdown_analysis.py`: "filter out events with
/// `cuda_sync` category"): kernels, memsets and memcpys under their current
/// and PyTorch 1.9 names, and MTIA's on-device events (`mtia_ccp_events`,
/// also in HTA's `KERNEL_CATEGORY_PATTERN`, `hta/common/types.py`).
pub const DEVICE_WORK_CATS: [&str; 7] =
    ["kernel", "Kernel", "gpu_memset", "Memset", "gpu_memcpy", "Memcpy", "mtia_ccp_events"];

/// MTIA's kernel launch: the host call HTA 0.5.0 counts beside
/// `cudaLaunchKernel` (`TraceSymbolTable.get_runtime_launch_events_query`,
/// `hta/common/trace_symbol_table.py`; `CudaKernelAnalysis.get_cuda_kernel_launch_stats`,
/// `hta/analyzers/cuda_kernel_analysis.py`).
pub const MTIA_LAUNCH: &str = "runFunction - job_prep_and_submit_for_execution";

/// Every event HTA's parser keeps, host plane first: the model's order
/// stands in for the trace's (Kineto writes host events before device ones),
/// which decides between overlapping steps and duplicate correlation ids.
/// It holds 96 bytes an event; the analyses of launched GPU work read the
/// smaller [`super::gpu_frame::GpuFrame`] instead.
pub fn events(profile: &Profile) -> Vec<HtaEvent<'_>> {
    // Room for every event up front: a list grown by doubling would hold
    // up to three times its size at once.
    let all: usize = profile.planes.iter().flat_map(|p| &p.lines).map(|l| l.events.len()).sum();
    let mut out = Vec::with_capacity(all);
    scan(profile, |e| out.push(e));
    out.shrink_to_fit();
    out
}

/// Calls `f` with each event [`events`] keeps, in its order, holding none
/// of them: what an analysis needs of the events it does not keep.
pub fn scan<'p>(profile: &'p Profile, f: impl FnMut(HtaEvent<'p>)) {
    scan_named(profile, |_, _| true, f)
}

/// [`scan`] of the events whose name `named` accepts, asked once per name
/// of each plane (its index, the name) and not per event: a read of a few
/// kinds of event (the steps) that skips the others' args.
pub fn scan_named<'p>(
    profile: &'p Profile,
    mut named: impl FnMut(usize, &str) -> bool,
    mut f: impl FnMut(HtaEvent<'p>),
) {
    let key = |k: &str| profile.strings.lookup(k);
    let picker = StatPicker::new(profile, &[key("cat"), key("correlation_id"), key("stream")]);
    let offset_ps = frame_offset_ps(profile);
    let mut values: [Option<StatValue>; 3] = [None; 3];
    // The category's id, looked up once per run of events that share it.
    let mut last_cat: Option<(&str, StrId)> = None;
    let narrow = |v: usize| u32::try_from(v).unwrap_or(u32::MAX);
    for (p, plane) in profile.planes.iter().enumerate() {
        let wanted: Vec<bool> = plane.event_metadata.iter().map(|m| named(p, profile.str(m.name))).collect();
        for (l, line) in plane.lines.iter().enumerate() {
            let ev = &line.events;
            for i in 0..ev.len() {
                // An event without a name (metadata) is not kept either way.
                if !ev.metadata.get(i).is_some_and(|&m| wanted.get(m as usize).copied().unwrap_or(false)) {
                    continue;
                }
                picker.pick(profile, plane, line, i, &mut values);
                let Some(StatValue::Str(cat)) = values[0] else { continue };
                if cat.is_empty() || cat == "Trace" || cat == "cpu_instant_event" {
                    continue;
                }
                let meta = ev.metadata.get(i).and_then(|&m| plane.event_metadata.get(m as usize));
                let (Some(meta), Some(start), Some(dur)) = (meta, ev.start_ps.get(i), ev.duration_ps.get(i)) else {
                    continue;
                };
                let cat = match last_cat {
                    Some((text, id)) if std::ptr::eq(text, cat) => id,
                    _ => {
                        // The stat's text is the interner's own.
                        let Some(id) = profile.strings.lookup(cat) else { continue };
                        last_cat = Some((cat, id));
                        id
                    }
                };
                let (ts_us, dur_us) = whole_us(start, dur, offset_ps);
                f(HtaEvent {
                    strings: &profile.strings,
                    name: meta.name,
                    cat,
                    ts_us,
                    dur_us,
                    stream: values[2].map_or(-1, stream_number),
                    correlation: values[1].and_then(correlation_id).unwrap_or(NO_CORRELATION),
                    at: [narrow(p), narrow(l), narrow(i)],
                });
            }
        }
    }
}

/// The trace's rank: `distributedInfo.rank` (the host plane's `rank`
/// stat), when it has one.
pub fn rank(profile: &Profile) -> Option<i64> {
    let key = profile.strings.lookup("rank")?;
    let host = profile.planes.iter().find(|p| profile.str(p.name) == crate::common::schema::HOST_PLANE)?;
    host.stats.get(key, &profile.strings)?.as_i64()
}

/// The step numbers among `events` (HTA's `profiler_steps_used` once the
/// last step is dropped or kept), sorted, each once.
pub fn step_numbers(events: &[HtaEvent]) -> Vec<i64> {
    let mut numbers: Vec<i64> = events.iter().filter(|e| !e.is_gpu()).filter_map(|e| step_number(e.name())).collect();
    numbers.sort_unstable();
    numbers.dedup();
    numbers
}

/// The events `TraceAnalysis` analyses with `include_last_profiler_step`
/// (HTA's `_filter_irrelevant_gpu_kernels`): with at least two distinct
/// names containing `ProfilerStep`, CPU events starting before the last
/// step's start (`include_last`: at or before the last step's end) and the
/// GPU events whose correlation id one of those CPU events carries.
/// Otherwise every event. The order of `events` is kept.
pub fn traced_iterations<'p>(mut events: Vec<HtaEvent<'p>>, include_last: bool) -> Vec<HtaEvent<'p>> {
    let keep = traced_mask(&events, include_last);
    // In place: `retain` visits the events once each, in order.
    let mut kept = keep.into_iter();
    events.retain(|_| kept.next().unwrap_or(false));
    events
}

/// Which of `events` [`traced_iterations`] keeps, for callers that first
/// need HTA's view of the whole trace (iterations are assigned before the
/// filter, as HTA's parser does).
pub fn traced_mask(events: &[HtaEvent], include_last: bool) -> Vec<bool> {
    Window::of(events, include_last).mask(events)
}

/// The CPU side of [`traced_mask`]: with at least two distinct names
/// containing `ProfilerStep`, the CPU events starting before the last
/// step's start (`include_last`: at or before its end); otherwise all.
#[derive(Debug, Clone, Copy)]
pub struct Window {
    /// `None`: every event is kept.
    last: Option<(i64, i64)>,
    include_last: bool,
}

impl Window {
    /// The window of `events`, which must hold every event whose name
    /// contains `ProfilerStep` (the others do not change it).
    pub fn of(events: &[HtaEvent], include_last: bool) -> Window {
        let mut step_names: Vec<&str> =
            events.iter().map(|e| e.name()).filter(|n| n.contains("ProfilerStep")).collect();
        step_names.sort_unstable();
        step_names.dedup();
        if step_names.len() < 2 {
            return Window { last: None, include_last };
        }
        let cpu_steps = events.iter().filter(|e| !e.is_gpu() && e.name().contains("ProfilerStep"));
        let last = cpu_steps.fold((i64::MIN, i64::MIN), |(s, e), ev| (s.max(ev.ts_us), e.max(ev.end_us())));
        Window { last: Some(last), include_last }
    }

    /// [`traced_mask`] of `events` with this window, found from them or from
    /// their steps alone.
    pub fn mask(&self, events: &[HtaEvent]) -> Vec<bool> {
        if self.keeps_all() {
            return vec![true; events.len()];
        }
        // Sorted rather than hashed: a trace has millions of launches.
        let mut launched: Vec<u64> =
            events.iter().filter(|e| self.keeps_cpu(e)).filter_map(|e| e.correlation()).collect();
        launched.sort_unstable();
        launched.dedup();
        let launched = |c: u64| launched.binary_search(&c).is_ok();
        events
            .iter()
            .map(|e| if e.is_gpu() { e.correlation().is_some_and(launched) } else { self.keeps_cpu(e) })
            .collect()
    }

    /// Fewer than two step names: every event is kept, GPU events too.
    pub fn keeps_all(&self) -> bool {
        self.last.is_none()
    }

    /// Whether `e`, a CPU event, is kept ([`traced_mask`]'s rule for
    /// events that are not [`HtaEvent::is_gpu`]).
    pub fn keeps_cpu(&self, e: &HtaEvent) -> bool {
        match self.last {
            None => !e.is_gpu(),
            Some((start, end)) => !e.is_gpu() && if self.include_last { e.ts_us <= end } else { e.ts_us < start },
        }
    }
}

/// The whole µs of wall-clock time at which the model's time 0 falls, so
/// that [`HtaEvent::ts_us`] + this is the trace's own (rounded) timestamp:
/// HTA aligns ranks by those (`_align_all_ranks`).
pub fn origin_us(profile: &Profile) -> i64 {
    match (profile.origin, profile.origin_ns) {
        (Origin::Kineto, Some(ns)) => i64::try_from(ns / 1000).unwrap_or(i64::MAX),
        _ => 0,
    }
}

const PS_PER_US: i128 = 1_000_000;

/// The sub-µs part of the trace's first timestamp, in ps. The model's times
/// count from that first event, but HTA rounds the trace's own timestamps;
/// the importer's `origin_ns` (the first event's wall-clock time) keeps that
/// part when the trace has epoch times or a whole-µs `baseTimeNanoseconds`.
/// Without it the rounding is relative to the first event (at most 1 µs per
/// event, and only on traces with sub-µs times).
fn frame_offset_ps(profile: &Profile) -> i128 {
    match (profile.origin, profile.origin_ns) {
        (Origin::Kineto, Some(ns)) => i128::from(ns % 1000) * 1000,
        _ => 0,
    }
}

/// HTA's rounding: start up and end down to whole µs; the duration is their
/// difference (−1 for an event inside one µs).
pub(crate) fn whole_us(start_ps: i64, dur_ps: i64, offset_ps: i128) -> (i64, i64) {
    let start = i128::from(start_ps) + offset_ps;
    let end = start + i128::from(dur_ps.max(0));
    let ts = -(-start).div_euclid(PS_PER_US);
    let end = end.div_euclid(PS_PER_US);
    let narrow = |v: i128| i64::try_from(v).unwrap_or(if v < 0 { i64::MIN } else { i64::MAX });
    (narrow(ts), narrow(end - ts))
}

/// HTA's `int(stream)`, and −1 for what it cannot convert.
fn stream_number(value: StatValue) -> i64 {
    match value {
        StatValue::Int(v) => v,
        StatValue::Uint(_) => i64::MAX,
        StatValue::Double(v) if v.is_finite() => v.trunc() as i64,
        StatValue::Str(s) => s.trim().parse().unwrap_or(-1),
        _ => -1,
    }
}

/// A correlation id; HTA's −1 (its default) and non-integers are none
/// (and [`NO_CORRELATION`], which no profiler reaches).
fn correlation_id(value: StatValue) -> Option<u64> {
    match value {
        StatValue::Int(-1) => None,
        other => other.as_id().filter(|&c| c != NO_CORRELATION),
    }
}

/// `ProfilerStep#N` (HTA's `ProfilerStep\s*#\s*(\d+)`) → N.
pub fn step_number(name: &str) -> Option<i64> {
    let rest = name.strip_prefix("ProfilerStep")?.trim_start().strip_prefix('#')?.trim_start();
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    rest.get(..digits)?.parse().ok()
}

/// One `ProfilerStep#N` range, in whole µs.
#[derive(Debug, Clone, Copy)]
pub struct Step {
    pub ts_us: i64,
    pub dur_us: i64,
    pub number: i64,
}

/// The kept events named `ProfilerStep#N`, in trace order.
pub fn steps_of(events: &[HtaEvent]) -> Vec<Step> {
    events
        .iter()
        .filter_map(|e| Some(Step { ts_us: e.ts_us, dur_us: e.dur_us, number: step_number(e.name())? }))
        .collect()
}

/// HTA's `iteration` column, with its −1 split by cause.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Iteration {
    /// In `ProfilerStep#N`, or launched from there.
    Step(i64),
    /// HTA's −1 for a host-side event outside every step (or work it launched).
    NoStep,
    /// HTA's −1 for device work whose launch is not in the trace.
    NoLaunch,
    /// Stream 0: HTA assigns no iteration.
    Unassigned,
}

/// The iteration of each event (HTA's `add_iteration`).
pub fn assign_iterations(events: &[HtaEvent], steps: &[Step]) -> Vec<Iteration> {
    let lookup = StepLookup::new(steps);
    let mut out: Vec<Iteration> = events
        .iter()
        .map(|e| match e.stream {
            s if s < 0 => lookup.step_at(e.ts_us).map_or(Iteration::NoStep, Iteration::Step),
            0 => Iteration::Unassigned,
            _ => Iteration::NoLaunch,
        })
        .collect();
    // Launches: stream −1 events by correlation id (the last one wins, as in HTA's merge).
    let launches: FxHashMap<u64, usize> = events
        .iter()
        .enumerate()
        .filter(|(_, e)| e.stream == -1)
        .filter_map(|(i, e)| Some((e.correlation()?, i)))
        .collect();
    for (i, e) in events.iter().enumerate() {
        if e.stream > 0 {
            if let Some(&launch) = e.correlation().and_then(|c| launches.get(&c)) {
                out[i] = out[launch];
            }
        }
    }
    out
}

/// The steps cut into disjoint segments, each with the step HTA picks there
/// (the last in trace order whose range covers it), so that finding an
/// event's step is a binary search rather than HTA's scan of every step.
pub struct StepLookup {
    /// Segment `k` is `[starts[k], starts[k + 1])`; the last one runs on.
    starts: Vec<i64>,
    picks: Vec<Option<i64>>,
}

impl StepLookup {
    pub fn new(steps: &[Step]) -> StepLookup {
        // (start, end, order, number) of the steps that cover anything.
        let mut ranges: Vec<(i64, i64, usize, i64)> = steps
            .iter()
            .enumerate()
            .filter(|(_, s)| s.dur_us > 0)
            .map(|(order, s)| (s.ts_us, s.ts_us.saturating_add(s.dur_us), order, s.number))
            .collect();
        ranges.sort_unstable();
        let mut bounds: Vec<i64> = ranges.iter().flat_map(|r| [r.0, r.1]).collect();
        bounds.sort_unstable();
        bounds.dedup();
        // Open steps, latest in trace order on top; ended ones leave lazily.
        let mut open: BinaryHeap<(usize, i64, i64)> = BinaryHeap::new();
        let mut next = 0;
        let mut picks = Vec::with_capacity(bounds.len());
        for &b in &bounds {
            while let Some(&(start, end, order, number)) = ranges.get(next) {
                if start > b {
                    break;
                }
                open.push((order, end, number));
                next += 1;
            }
            while open.peek().is_some_and(|&(_, end, _)| end <= b) {
                open.pop();
            }
            picks.push(open.peek().map(|&(_, _, number)| number));
        }
        StepLookup { starts: bounds, picks }
    }

    /// The step HTA assigns to an event starting at `ts_us`.
    pub fn step_at(&self, ts_us: i64) -> Option<i64> {
        let k = self.starts.partition_point(|&s| s <= ts_us).checked_sub(1)?;
        self.picks.get(k).copied().flatten()
    }
}

#[cfg(test)]
#[path = "hta_tests.rs"]
pub(crate) mod tests;
