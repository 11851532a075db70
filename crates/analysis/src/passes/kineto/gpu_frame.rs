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
//! read), which [`GpuFrame::left_out`] gives by reading the model again
//! rather than holding them. On the 1.0 GB synthetic Kineto trace the frame
//! keeps 27 % of the events.

use super::hta::{self, HtaEvent};
use proflens_model::Profile;

/// What the kernel launch stats hold at once per event of the trace (every
/// event, not only the frame's), the most of the analyses over this frame:
/// the frame (a quarter of the events at 64 bytes), the launches it finds
/// (56 bytes each) and the sorted lists that join them. On the 1.0 GB
/// synthetic Kineto trace (2.70 M events), counted by allocator
/// (`examples/hta_heap.rs`): 38.0 bytes an event, where HTA's whole frame
/// took 124.4; a tenth more for margin. The other analyses over this frame
/// weigh their own (idle time 35.8, queue length 32.0, memory bandwidth
/// 19.8, stragglers 26.2).
pub const WORKING_BYTES_PER_EVENT: u64 = 42;

/// The events of [`hta::events`] that the analyses of launched GPU work
/// read (module docs), in the same order.
pub struct GpuFrame<'p> {
    pub events: Vec<HtaEvent<'p>>,
    /// The GPU-side events' correlation ids, sorted, each once.
    gpu_correlations: Vec<u64>,
    profile: &'p Profile,
}

/// On a stream or one of HTA's GPU events.
fn gpu_side(e: &HtaEvent) -> bool {
    e.stream != -1 || e.is_gpu()
}

impl<'p> GpuFrame<'p> {
    /// Reads the model three times (the GPU side's ids, the count, the
    /// events) so that no list grows by doubling.
    pub fn new(profile: &'p Profile) -> GpuFrame<'p> {
        let mut sided = 0usize;
        hta::scan(profile, |e| sided += usize::from(gpu_side(&e) && e.correlation().is_some()));
        let mut ids = Vec::with_capacity(sided);
        hta::scan(profile, |e| {
            if gpu_side(&e) {
                ids.extend(e.correlation());
            }
        });
        ids.sort_unstable();
        ids.dedup();
        ids.shrink_to_fit();
        let mut frame = GpuFrame { events: Vec::new(), gpu_correlations: ids, profile };
        let mut kept = 0usize;
        hta::scan(profile, |e| kept += usize::from(frame.keeps(&e)));
        let mut events = Vec::with_capacity(kept);
        hta::scan(profile, |e| {
            if frame.keeps(&e) {
                events.push(e);
            }
        });
        frame.events = events;
        frame
    }

    /// Whether the frame holds `e` (module docs).
    pub fn keeps(&self, e: &HtaEvent) -> bool {
        gpu_side(e)
            || e.name().contains("ProfilerStep")
            || e.correlation().is_some_and(|c| self.gpu_correlations.binary_search(&c).is_ok())
    }

    /// Calls `f` with each event of [`hta::events`] the frame left out, in
    /// order: host events on stream −1, none of them a step or a launch.
    pub fn left_out(&self, mut f: impl FnMut(&HtaEvent<'p>)) {
        hta::scan(self.profile, |e| {
            if !self.keeps(&e) {
                f(&e);
            }
        });
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
    fn the_frame_keeps_steps_the_gpu_side_and_launches_and_leaves_the_rest_to_a_scan() {
        let p = profile(TRACE);
        let all = hta::events(&p);
        let frame = GpuFrame::new(&p);
        // In the model's order (each line by start): the steps, launches
        // and the GPU side; not the host ops.
        assert_eq!(
            frame.events.iter().map(|e| e.name()).collect::<Vec<_>>(),
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
        let mut left = Vec::new();
        frame.left_out(|e| left.push(e.name()));
        assert_eq!(left, ["sub_us", "in_1", "at_2", "in_gpu_copy", "outside"]);
        // Together they are HTA's frame, each event once, in its order.
        let mut both: Vec<_> = frame.events.iter().map(|e| e.at()).collect();
        frame.left_out(|e| both.push(e.at()));
        both.sort_unstable();
        let mut every: Vec<_> = all.iter().map(|e| e.at()).collect();
        every.sort_unstable();
        assert_eq!(both, every);
        // The last-step filter gives the frame's events the same answer.
        for include_last in [false, true] {
            let whole: Vec<_> = hta::traced_iterations(all.clone(), include_last)
                .iter()
                .filter(|e| frame.keeps(e))
                .map(|e| e.at())
                .collect();
            let cut: Vec<_> =
                hta::traced_iterations(GpuFrame::new(&p).events, include_last).iter().map(|e| e.at()).collect();
            assert_eq!(whole, cut);
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
        let names: Vec<_> = frame.events.iter().map(|e| e.name()).collect();
        assert_eq!(names, ["cudaLaunchKernel", "k"]);
    }
}
