//! HTA's frame ([`hta::events`]) cut to what the analyses of launched GPU
//! work read — kernel launch stats, idle time, queue length, memory
//! bandwidth, stragglers — so that they fit beside a large trace's model in
//! a browser worker (4 GiB in all).
//!
//! Those analyses look at an event only when it is
//!
//! * on the GPU side: on a stream (≠ −1), or one of HTA's GPU events
//!   ([`HtaEvent::is_gpu`]);
//! * a step: its name contains `ProfilerStep` (HTA's last-step filter and
//!   `iteration` column read those);
//! * a host event with the correlation id of a GPU-side event: its launch
//!   (HTA's merges and `index_correlation` join on that id).
//!
//! The other events — host ops, and runtime calls that launch nothing, most
//! of a PyTorch trace — change no row of those analyses; they only add the
//! steps they fall in (HTA's `iteration` of a host event, which the idle
//! time breakdown's `profiler_steps_used` and the stragglers' step extents
//! read), which the frame sums up per step as it is built rather than
//! holding them. On the 1.0 GB synthetic Kineto trace the frame keeps 27 %
//! of the events.
//!
//! The frame is one of a host's shared passes (`HostContext::gpu_frame`):
//! built once per load, with one read of the model (and one of its steps
//! alone), and read by each of those analyses, which each built their own
//! before (four reads of the model each, five for the idle time and the
//! stragglers). It holds each of its events in 56 bytes, without the
//! pointer to the texts that [`HtaEvent`] has, so that it can be kept
//! beside the profile; the analyses read it back with that pointer.

use super::hta::{self, Detached, HtaEvent, StepLookup, Window};
use proflens_model::Profile;
use std::collections::BTreeMap;

// Bytes per event of the whole trace (not only the frame's), counted by
// allocator on the 1.0 GB synthetic Kineto trace (2.70 M events, of which
// the frame keeps a quarter; `examples/hta_heap.rs`), a tenth more for
// margin: the room check's weights (`Held::over_gpu_frame`).

/// What the frame keeps, the host's `gpu_frame` pass: 56 bytes for each of
/// its events (14.1 bytes an event of the trace).
pub const FRAME_BYTES_PER_EVENT: u64 = 16;

/// What building the frame holds at its peak (28.3): the candidates (the
/// frame and the runtime calls that launch nothing, 56 bytes each), then the
/// frame put together beside them.
pub const FRAME_BUILD_BYTES_PER_EVENT: u64 = 32;

/// The kernel launch stats' own work beside the kept frame (37.9): the
/// frame's events it analyses, copied with their texts (64 bytes each), the
/// launches it finds (56 bytes each) and the sorted lists that join them.
/// The most of the analyses over the frame; the others weigh their own
/// (their `tool.rs`).
pub const LAUNCH_STATS_BYTES_PER_EVENT: u64 = 42;

/// What the kernel launch stats hold at once while the host does not keep
/// the frame yet (the frame kept, the tool's work beside it): the most any
/// analysis over this frame needs.
pub const WORKING_BYTES_PER_EVENT: u64 = FRAME_BYTES_PER_EVENT + LAUNCH_STATS_BYTES_PER_EVENT;

/// [`Detached::marks`]: kept by HTA's last-step filter
/// ([`hta::traced_mask`]) without, and with, the last step.
const KEPT: [u8; 2] = [1, 2];
/// [`Detached::marks`] while the frame is built: on the GPU side or a step,
/// so in the frame whatever the GPU side's ids.
const SURE: u8 = 4;

/// The events of [`hta::events`] that the analyses of launched GPU work
/// read (module docs), in the same order, built once per load of a host
/// (`HostContext::gpu_frame`) and read by every one of those analyses. It
/// holds no borrow of the profile (a pass is kept beside it): its events
/// are read back with [`GpuFrame::events`] from the profile it was built
/// from.
pub struct GpuFrame {
    events: Vec<Detached>,
    /// HTA's `profiler_steps_used` before the last-step filter.
    steps: Vec<i64>,
    /// What the host events the frame leaves out add to the analyses (they
    /// are on stream −1 and neither a step nor a launch, so all HTA reads of
    /// them is their time and the step they start in): the earliest start
    /// of any of them…
    left_out_first_ts_us: Option<i64>,
    /// … and per step, (earliest start, latest end) of those the last-step
    /// filter keeps that start in it, the last step left out (`[0]`) or
    /// kept (`[1]`). A few numbers per step, where the events are most of
    /// the trace.
    left_out_spans: [BTreeMap<i64, (i64, i64)>; 2],
}

/// On a stream or one of HTA's GPU events.
fn gpu_side(e: &HtaEvent) -> bool {
    e.stream != -1 || e.is_gpu()
}

/// Events are gathered in blocks of this many (224 KiB) rather than in one
/// list grown by doubling, which holds up to three times its size while it
/// moves: blocks leave at most one block's room unused.
const BLOCK: usize = 1 << 12;

/// What the left-out host events add, summed up as they are read.
struct LeftOut {
    /// Without the last step, and with it.
    windows: [Window; 2],
    lookup: StepLookup,
    first_ts_us: Option<i64>,
    spans: [BTreeMap<i64, Span>; 2],
    /// The step of the last events added and their extents not yet in
    /// `spans`: a line's events come by start, so most follow one another
    /// in one step, and a map is updated once per run of them.
    run: Option<(i64, [Option<Span>; 2])>,
}

/// (earliest start, latest end), µs.
type Span = (i64, i64);

impl LeftOut {
    fn add(&mut self, e: &HtaEvent) {
        self.first_ts_us = Some(self.first_ts_us.map_or(e.ts_us, |first| first.min(e.ts_us)));
        let Some(n) = self.lookup.step_at(e.ts_us) else { return };
        if self.run.is_some_and(|(step, _)| step != n) {
            self.flush();
        }
        let (_, run) = self.run.get_or_insert((n, [None, None]));
        for (window, span) in self.windows.iter().zip(run) {
            if window.keeps_all() || window.keeps_cpu(e) {
                *span = Some(widen(*span, (e.ts_us, e.end_us())));
            }
        }
    }

    fn flush(&mut self) {
        let Some((n, run)) = self.run.take() else { return };
        for (spans, span) in self.spans.iter_mut().zip(run) {
            if let Some(span) = span {
                let at = spans.entry(n).or_insert(span);
                *at = widen(Some(*at), span);
            }
        }
    }
}

/// Marks the events [`hta::traced_mask`] keeps with each window (without
/// the last step, and with it), both at once: a GPU event is kept when a
/// CPU event with its correlation id is, and as a window keeps the CPU
/// events up to a time, when the earliest of them is.
fn mark_traced(events: &mut [Detached], profile: &Profile, windows: &[Window; 2]) {
    let strings = &profile.strings;
    // (correlation id, start, position) of the CPU events, the earliest of
    // each id first: sorted rather than hashed, for millions of launches.
    let mut launches: Vec<(u64, i64, usize)> = events
        .iter()
        .enumerate()
        .filter_map(|(i, d)| {
            let e = d.attach(strings);
            Some((e.correlation().filter(|_| !e.is_gpu())?, e.ts_us, i))
        })
        .collect();
    launches.sort_unstable();
    launches.dedup_by_key(|l| l.0);
    for i in 0..events.len() {
        let e = events[i].attach(strings);
        let launch = match e.is_gpu() {
            true => e.correlation().and_then(|c| {
                let at = launches.binary_search_by_key(&c, |l| l.0).ok()?;
                Some(events[launches[at].2].attach(strings))
            }),
            false => None,
        };
        let mut marks = 0;
        for (window, mark) in windows.iter().zip(KEPT) {
            let kept = match (window.keeps_all(), e.is_gpu(), &launch) {
                (true, _, _) => true,
                (false, true, Some(launch)) => window.keeps_cpu(launch),
                (false, true, None) => false,
                (false, false, _) => window.keeps_cpu(&e),
            };
            if kept {
                marks |= mark;
            }
        }
        events[i].marks = marks;
    }
}

/// `span` widened to cover `by` (both (start, end)).
fn widen(span: Option<Span>, by: Span) -> Span {
    span.map_or(by, |(start, end)| (start.min(by.0), end.max(by.1)))
}

impl GpuFrame {
    /// Reads the steps first (the events named `ProfilerStep`, found by
    /// their names rather than by reading every event), then the model
    /// once: the frame's candidates (the GPU side, the steps, and every
    /// host event with a correlation id, which is a launch only if the GPU
    /// side has its id) and the GPU side's ids are kept; the other events
    /// are summed up as they come (the steps tell where they fall).
    pub fn new(profile: &Profile) -> GpuFrame {
        let is_step = |name: &str| name.contains("ProfilerStep");
        let mut step_events = Vec::new();
        hta::scan_named(profile, |_, name| is_step(name), |e| step_events.push(e));
        let mut left = LeftOut {
            // HTA's window and iterations need only the steps (`Window::of`).
            windows: [Window::of(&step_events, false), Window::of(&step_events, true)],
            lookup: StepLookup::new(&hta::steps_of(&step_events)),
            first_ts_us: None,
            spans: Default::default(),
            run: None,
        };
        let steps = hta::step_numbers(&step_events);
        drop(step_events);

        let mut blocks: Vec<Vec<Detached>> = Vec::new();
        let mut ids: Vec<u64> = Vec::new();
        hta::scan(profile, |e| {
            let side = gpu_side(&e);
            if side {
                ids.extend(e.correlation());
            }
            let sure = side || is_step(e.name());
            if !sure && e.correlation().is_none() {
                left.add(&e);
                return;
            }
            if blocks.last().is_none_or(|b| b.len() == b.capacity()) {
                blocks.push(Vec::with_capacity(BLOCK));
            }
            let mut d = e.detach();
            d.marks = if sure { SURE } else { 0 };
            blocks.last_mut().expect("pushed").push(d);
        });
        ids.sort_unstable();
        ids.dedup();
        // The host events with a correlation id that no GPU event has are
        // left out too.
        let strings = &profile.strings;
        for block in &mut blocks {
            block.retain_mut(|d| {
                if d.marks & SURE != 0 {
                    d.marks = 0;
                    return true;
                }
                let e = d.attach(strings);
                let kept = e.correlation().is_some_and(|c| ids.binary_search(&c).is_ok());
                if !kept {
                    left.add(&e);
                }
                kept
            });
            // Before the frame is put together: each block's spare room
            // would be held beside the whole frame.
            block.shrink_to_fit();
        }
        drop(ids);
        left.flush();
        let mut events = Vec::with_capacity(blocks.iter().map(Vec::len).sum());
        for block in blocks {
            events.extend(block);
        }

        mark_traced(&mut events, profile, &left.windows);
        GpuFrame { events, steps, left_out_first_ts_us: left.first_ts_us, left_out_spans: left.spans }
    }

    /// How many events the frame holds.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// The frame's events with their texts, in [`hta::events`]'s order;
    /// `profile` must be the one the frame was built from.
    pub fn events<'p>(&self, profile: &'p Profile) -> Vec<HtaEvent<'p>> {
        self.events.iter().map(|d| d.attach(&profile.strings)).collect()
    }

    /// [`hta::traced_iterations`] of [`GpuFrame::events`]: the events the
    /// analysis keeps with or without the last step.
    pub fn traced<'p>(&self, profile: &'p Profile, include_last: bool) -> Vec<HtaEvent<'p>> {
        let mark = KEPT[usize::from(include_last)];
        let kept = |d: &&Detached| d.marks & mark != 0;
        // Counted first: a list grown by doubling would hold up to three
        // times its size while it moves.
        let mut out = Vec::with_capacity(self.events.iter().filter(kept).count());
        out.extend(self.events.iter().filter(kept).map(|d| d.attach(&profile.strings)));
        out
    }

    /// [`hta::traced_mask`] of [`GpuFrame::events`].
    pub fn traced_mask(&self, include_last: bool) -> Vec<bool> {
        let mark = KEPT[usize::from(include_last)];
        self.events.iter().map(|d| d.marks & mark != 0).collect()
    }

    /// [`hta::step_numbers`] of [`GpuFrame::events`]: the steps before the
    /// last-step filter.
    pub fn step_numbers(&self) -> &[i64] {
        &self.steps
    }

    /// The earliest start (µs, as [`HtaEvent::ts_us`]) of the host events
    /// the frame left out.
    pub fn left_out_first_ts_us(&self) -> Option<i64> {
        self.left_out_first_ts_us
    }

    /// Step → (earliest start, latest end) of the host events the frame
    /// left out that the last-step filter keeps (with or without the last
    /// step) and that start in that step: HTA's `iteration` of a host event.
    pub fn left_out_spans(&self, include_last: bool) -> &BTreeMap<i64, (i64, i64)> {
        &self.left_out_spans[usize::from(include_last)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passes::kineto::hta::tests::TRACE;

    fn profile(json: &str) -> Profile {
        proflens_format::load_profile(json.as_bytes(), &Default::default(), &mut |_| {}).unwrap()
    }

    #[test]
    fn the_frame_keeps_steps_the_gpu_side_and_launches_and_sums_up_the_rest() {
        let p = profile(TRACE);
        let all = hta::events(&p);
        let frame = GpuFrame::new(&p);
        let events = frame.events(&p);
        // In the model's order (each line by start): the steps, launches
        // and the GPU side; not the host ops.
        assert_eq!(
            events.iter().map(|e| e.name()).collect::<Vec<_>>(),
            [
                "ProfilerStep#1",
                "launch",
                "ProfilerStep#2",
                "launch_2",
                "ProfilerStep#1",
                "stream0",
                "k",
                "orphan",
                "k_2"
            ]
        );
        let held: Vec<_> = events.iter().map(|e| e.at()).collect();
        let left: Vec<_> = all.iter().filter(|e| !held.contains(&e.at())).collect();
        assert_eq!(
            left.iter().map(|e| e.name()).collect::<Vec<_>>(),
            ["sub_us", "in_1", "at_2", "in_gpu_copy", "outside"]
        );
        // The left-out host ops, µs from the first event: sub_us [21, 20)
        // (a sub-µs event rounds to −1 µs), in_1 [50, 60), at_2 [100, 105),
        // in_gpu_copy [160, 161) (in the device copy of step 1, which comes
        // later in the trace than step 2), outside [300, 301) in no step.
        // The last step starts at 110 (the device copy's start; it ends at
        // 200): without it only the host ops before 110 count.
        assert_eq!(frame.left_out_first_ts_us(), Some(21));
        assert_eq!(frame.left_out_spans(false), &BTreeMap::from([(1, (21, 60)), (2, (100, 105))]));
        assert_eq!(frame.left_out_spans(true), &BTreeMap::from([(1, (21, 161)), (2, (100, 105))]));
        assert_eq!(frame.step_numbers(), hta::step_numbers(&all));
        // The last-step filter gives the frame's events the same answer as
        // HTA's whole frame.
        for include_last in [false, true] {
            let whole: Vec<_> = hta::traced_iterations(all.clone(), include_last)
                .iter()
                .filter(|e| held.contains(&e.at()))
                .map(|e| e.at())
                .collect();
            let cut: Vec<_> = frame.traced(&p, include_last).iter().map(|e| e.at()).collect();
            assert_eq!(whole, cut);
            assert_eq!(frame.traced_mask(include_last), hta::traced_mask(&events, include_last));
        }
    }

    #[test]
    fn the_left_out_spans_follow_hta_s_iterations_of_the_whole_frame() {
        // Against HTA's rules run over every event (`assign_iterations`
        // and `traced_mask` of `hta::events`), on each trace of the tests.
        for trace in [TRACE, crate::passes::kineto::test_traces::MTIA_TRACE] {
            let p = profile(trace);
            let all = hta::events(&p);
            let frame = GpuFrame::new(&p);
            let held: Vec<_> = frame.events(&p).iter().map(|e| e.at()).collect();
            let iterations = hta::assign_iterations(&all, &hta::steps_of(&all));
            for include_last in [false, true] {
                let kept = hta::traced_mask(&all, include_last);
                let mut spans = BTreeMap::new();
                for ((e, it), k) in all.iter().zip(&iterations).zip(kept) {
                    let hta::Iteration::Step(n) = it else { continue };
                    if k && !held.contains(&e.at()) {
                        let span = spans.entry(*n).or_insert((e.ts_us, e.end_us()));
                        *span = (span.0.min(e.ts_us), span.1.max(e.end_us()));
                    }
                }
                assert_eq!(frame.left_out_spans(include_last), &spans);
            }
        }
    }

    #[test]
    fn a_host_event_sharing_a_launch_id_with_no_gpu_event_is_left_out() {
        let p = profile(
            r#"{"traceEvents":[
              {"ph":"X","cat":"cuda_runtime","name":"cudaEventQuery","pid":1,"tid":1,"ts":1,"dur":1,"args":{"correlation":3}},
              {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":3,"dur":1,"args":{"correlation":4}},
              {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":5,"dur":1,"args":{"device":0,"stream":7,"correlation":4}}
            ]}"#,
        );
        let frame = GpuFrame::new(&p);
        let names: Vec<_> = frame.events(&p).iter().map(|e| e.name()).collect();
        assert_eq!(names, ["cudaLaunchKernel", "k"]);
        // Without steps the event is in none: it adds only its start.
        assert_eq!(frame.left_out_first_ts_us(), Some(0));
        assert!(frame.left_out_spans(false).is_empty());
    }

    #[test]
    fn a_held_event_takes_56_bytes() {
        // The frame's size per event, which its room estimate counts.
        assert_eq!(std::mem::size_of::<Detached>(), 56);
    }
}
