//! CUPTI records → XSpace, laid out as XLA's CUPTI collector and the
//! profiler's post-processing leave a saved `.xplane.pb`
//! (xla/backends/profiler/gpu/cupti_collector.cc; formats.md §7.3):
//!
//! * `/device:GPU:<ordinal>` per device (plane id = ordinal) with the device's
//!   capabilities as plane stats, one line per stream named
//!   `Stream #<id>(<kinds>)`, kernels with `kernel_details`, copies with
//!   `memcpy_details`, every activity with its `correlation_id`;
//! * `/host:CPU` with one line per thread holding the CUDA API calls (whose
//!   `correlation_id` links each launch to its kernel) and the thread's NVTX
//!   ranges; ranges named like `train 3` become step roots (`_r`, `step_num`);
//! * step groups decided here ([`steps`]): `group_id` on every event of a
//!   step and a derived `Steps` line per GPU spanning each step's device work,
//!   as TensorFlow's GPU profiler saves them;
//! * `Task Environment` with the capture's wall-clock start and stop; line
//!   timestamps are relative to that start, as post-processing leaves them.

use super::records::{Capture, DeviceInfo, OverheadObject, Record};
use super::steps::{self, step_of};
use crate::xplane_builder::{PlaneBuilder, Value};
use proflens_format::proto::XSpace;
use std::collections::{BTreeMap, BTreeSet};

/// Lines that are not streams or threads (ids above any u32 stream/thread id).
const OVERHEAD_LINE: i64 = 1 << 40;
const SYNC_LINE: i64 = (1 << 40) + 1;

/// Stream line kinds, in the order their names are joined.
const STREAM_KINDS: [&str; 7] =
    ["Compute", "MemcpyH2D", "MemcpyD2H", "MemcpyD2D", "MemcpyP2P", "MemcpyOther", "Memset"];

/// The derived `Steps` line of device planes (trace_utils.h kThreadIdDerivedMin).
const STEPS_LINE: i64 = 0xdead_beef;

/// Converts one capture into the XSpace of `host_name`.
pub fn to_xspace(capture: &Capture, devices: &[DeviceInfo], host_name: &str) -> XSpace {
    let window = Window { start: capture.start_gpu_ns, end: capture.end_gpu_ns };
    let mut gpus: BTreeMap<u32, PlaneBuilder> = BTreeMap::new();
    let mut stream_kinds: BTreeMap<(u32, u32), BTreeSet<usize>> = BTreeMap::new();
    let mut host = PlaneBuilder::new(0, "/host:CPU");
    let mut outside = 0u64;
    let groups = steps::group(&capture.records);
    // Per (device, group): the first start and last end of the step's device work, ps.
    let mut device_steps: BTreeMap<(u32, i64), (i64, i64)> = BTreeMap::new();

    for (i, record) in capture.records.iter().enumerate() {
        let (start, end) = times(record);
        let Some((offset, duration)) = window.place(start, end) else {
            outside += 1;
            continue;
        };
        let group = groups.of(i, record);
        let group_stat = group.map(|g| ("group_id", Value::I64(g)));
        if let (Some(g), Some(device)) = (group, device_of(record)) {
            let span = device_steps.entry((device, g)).or_insert((offset, offset + duration));
            *span = (span.0.min(offset), span.1.max(offset + duration));
        }
        match record {
            Record::Kernel(k) => {
                let plane = gpu(&mut gpus, k.device_id);
                stream_line(plane, &mut stream_kinds, k.device_id, k.stream_id, "Compute");
                let details = format!(
                    "regs:{} static_shared:{} dynamic_shared:{} grid:{},{},{} block:{},{},{}",
                    k.registers_per_thread,
                    k.static_shared_memory,
                    k.dynamic_shared_memory,
                    k.grid[0],
                    k.grid[1],
                    k.grid[2],
                    k.block[0],
                    k.block[1],
                    k.block[2]
                );
                let stats = vec![
                    ("correlation_id", Value::U64(u64::from(k.correlation_id))),
                    ("context_id", Value::Str(format!("$${}", k.context_id))),
                    ("kernel_details", Value::Str(details)),
                ];
                let stats = stats.into_iter().chain(group_stat).collect();
                plane.event(i64::from(k.stream_id), &k.name, offset, duration, stats);
            }
            Record::Memcpy(m) => {
                let plane = gpu(&mut gpus, m.device_id);
                let name = m.copy_kind.event_name();
                stream_line(plane, &mut stream_kinds, m.device_id, m.stream_id, name);
                let details = format!(
                    "kind_src:{} kind_dst:{} size:{} dest:{} async:{}",
                    m.src_kind.name(),
                    m.dst_kind.name(),
                    m.bytes,
                    m.dst_device_id.unwrap_or(m.device_id),
                    u8::from(m.is_async)
                );
                let stats = vec![
                    ("correlation_id", Value::U64(u64::from(m.correlation_id))),
                    ("context_id", Value::Str(format!("$${}", m.context_id))),
                    ("memcpy_details", Value::Str(details)),
                ];
                let stats = stats.into_iter().chain(group_stat).collect();
                plane.event(i64::from(m.stream_id), name, offset, duration, stats);
            }
            Record::Memset(m) => {
                let plane = gpu(&mut gpus, m.device_id);
                stream_line(plane, &mut stream_kinds, m.device_id, m.stream_id, "Memset");
                let details =
                    format!("kind:{} num_bytes:{} async:{}", m.memory_kind.name(), m.bytes, u8::from(m.is_async));
                let stats = vec![
                    ("correlation_id", Value::U64(u64::from(m.correlation_id))),
                    ("context_id", Value::Str(format!("$${}", m.context_id))),
                    ("Memset_details", Value::Str(details)),
                ];
                let stats = stats.into_iter().chain(group_stat).collect();
                plane.event(i64::from(m.stream_id), "Memset", offset, duration, stats);
            }
            Record::Synchronization(s) => {
                // A line of their own: a wait spans kernels of its stream and
                // would break the stream line's nesting.
                let plane = gpu(&mut gpus, s.device_id);
                plane.line(SYNC_LINE, "Synchronization");
                let mut stats = vec![
                    ("correlation_id", Value::U64(u64::from(s.correlation_id))),
                    ("context_id", Value::Str(format!("$${}", s.context_id))),
                ];
                if let Some(stream) = s.stream_id {
                    stats.push(("stream", Value::U64(u64::from(stream))));
                }
                plane.event(SYNC_LINE, s.kind.event_name(), offset, duration, stats);
            }
            Record::Overhead(o) => {
                let plane = match o.object {
                    OverheadObject::Device { device_id, .. } => gpu(&mut gpus, device_id),
                    OverheadObject::Thread { .. } => &mut host,
                };
                plane.line(OVERHEAD_LINE, "CUPTI overhead");
                plane.event(OVERHEAD_LINE, o.kind.event_name(), offset, duration, vec![]);
            }
            Record::Api(a) => {
                let line = i64::from(a.thread_id);
                host.line(line, &format!("Host Threads/{}", a.thread_id));
                let mut stats = vec![("correlation_id", Value::U64(u64::from(a.correlation_id)))];
                if let Some(device) = a.device_id {
                    stats.push(("device_id", Value::U64(u64::from(device))));
                }
                stats.extend(group_stat);
                host.event(line, &a.name, offset, duration, stats);
            }
            Record::Nvtx(r) => {
                // Same line as the thread's API calls, so a step range
                // encloses the launches it made and grouping reaches their kernels.
                let line = i64::from(r.thread_id);
                host.line(line, &format!("Host Threads/{}", r.thread_id));
                match (step_of(&r.name), group) {
                    (Some((label, number)), Some(g)) => {
                        let stats = vec![
                            ("_r", Value::I64(1)),
                            ("step_num", Value::I64(number)),
                            ("group_id", Value::I64(g)),
                            ("step_name", Value::Str(format!("{label} {number}"))),
                        ];
                        host.event(line, label, offset, duration, stats);
                    }
                    _ => host.event(line, &r.name, offset, duration, group_stat.into_iter().collect()),
                }
            }
        }
    }

    for ((device, stream), kinds) in &stream_kinds {
        if let Some(plane) = gpus.get_mut(device) {
            let joined: Vec<&str> = kinds.iter().map(|&k| STREAM_KINDS[k]).collect();
            plane.rename_line(i64::from(*stream), format!("Stream #{stream}({})", joined.join(",")));
        }
    }
    for ((device, g), (start, end)) in device_steps {
        let plane = gpu(&mut gpus, device);
        plane.line(STEPS_LINE, "Steps");
        // Named by group id, as XProf's derived timeline names device steps.
        plane.event(STEPS_LINE, &g.to_string(), start, end - start, vec![("group_id", Value::I64(g))]);
    }
    for info in devices {
        device_stats(gpu(&mut gpus, info.ordinal), info);
    }

    let mut space =
        XSpace { hostnames: vec![host_name.to_string()], errors: capture.errors.clone(), ..Default::default() };
    space.planes.extend(gpus.into_values().map(PlaneBuilder::finish));
    space.planes.push(host.finish());
    space.planes.push(task_environment(capture));
    if capture.dropped_records > 0 {
        space.warnings.push(format!(
            "Detected GPU events dropped on {host_name}: CUPTI dropped {} records (its buffers were full)",
            capture.dropped_records
        ));
    }
    if outside > 0 {
        space.warnings.push(format!("{outside} CUPTI records outside the capture window were left out"));
    }
    space
}

/// The capture window on CUPTI's clock.
struct Window {
    start: u64,
    end: u64,
}

impl Window {
    /// (offset, duration) in ps from the window's start, or None for records
    /// outside the window or ending before they start.
    fn place(&self, start: u64, end: u64) -> Option<(i64, i64)> {
        if start < self.start || end > self.end || end < start {
            return None;
        }
        let ps = |ns: u64| i64::try_from(ns).ok()?.checked_mul(1000);
        // The end's offset too: events' ends (offset + duration) are summed later,
        // and an overflow there would panic inside the traced program.
        ps(end - self.start)?;
        Some((ps(start - self.start)?, ps(end - start)?))
    }
}

fn times(record: &Record) -> (u64, u64) {
    match record {
        Record::Kernel(r) => (r.start_ns, r.end_ns),
        Record::Memcpy(r) => (r.start_ns, r.end_ns),
        Record::Memset(r) => (r.start_ns, r.end_ns),
        Record::Synchronization(r) => (r.start_ns, r.end_ns),
        Record::Overhead(r) => (r.start_ns, r.end_ns),
        Record::Api(r) => (r.start_ns, r.end_ns),
        Record::Nvtx(r) => (r.start_ns, r.end_ns),
    }
}

/// The device a device-side record ran on.
fn device_of(record: &Record) -> Option<u32> {
    match record {
        Record::Kernel(r) => Some(r.device_id),
        Record::Memcpy(r) => Some(r.device_id),
        Record::Memset(r) => Some(r.device_id),
        _ => None,
    }
}

fn gpu(gpus: &mut BTreeMap<u32, PlaneBuilder>, ordinal: u32) -> &mut PlaneBuilder {
    gpus.entry(ordinal).or_insert_with(|| PlaneBuilder::new(i64::from(ordinal), &format!("/device:GPU:{ordinal}")))
}

fn stream_line(
    plane: &mut PlaneBuilder,
    kinds: &mut BTreeMap<(u32, u32), BTreeSet<usize>>,
    device: u32,
    stream: u32,
    kind: &str,
) {
    plane.line(i64::from(stream), &format!("Stream #{stream}"));
    if let Some(k) = STREAM_KINDS.iter().position(|&s| s == kind) {
        kinds.entry((device, stream)).or_default().insert(k);
    }
}

fn device_stats(plane: &mut PlaneBuilder, info: &DeviceInfo) {
    let int = |v: u64| Value::I64(i64::try_from(v).unwrap_or(i64::MAX));
    plane.plane_stat("device_vendor", Value::Str("Nvidia".into()));
    plane.plane_stat("gpu_device_name", Value::Str(info.name.clone()));
    plane.plane_stat("clock_rate", int(info.clock_rate_khz));
    plane.plane_stat("core_count", int(info.core_count));
    plane.plane_stat("memory_bandwidth", int(info.memory_bandwidth));
    plane.plane_stat("memory_size", int(info.memory_size));
    plane.plane_stat("compute_cap_major", int(u64::from(info.compute_capability.0)));
    plane.plane_stat("compute_cap_minor", int(u64::from(info.compute_capability.1)));
}

fn task_environment(capture: &Capture) -> proflens_format::proto::XPlane {
    let mut plane = PlaneBuilder::new(-1, proflens_format::xspace::TASK_ENVIRONMENT_PLANE);
    let stop = capture.start_walltime_ns.saturating_add(capture.end_gpu_ns.saturating_sub(capture.start_gpu_ns));
    plane.plane_stat("profile_start_time", Value::U64(capture.start_walltime_ns));
    plane.plane_stat("profile_stop_time", Value::U64(stop));
    plane.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_drops_records_outside_and_reversed() {
        let w = Window { start: 1000, end: 2000 };
        assert_eq!(w.place(1000, 1500), Some((0, 500_000)));
        assert_eq!(w.place(999, 1500), None);
        assert_eq!(w.place(1500, 2001), None);
        assert_eq!(w.place(1600, 1500), None);
        // Each part fits in i64 picoseconds, their sum would not.
        let huge = Window { start: 0, end: u64::MAX };
        let half = i64::MAX as u64 / 1000 - 1;
        assert_eq!(huge.place(half, 2 * half), None);
    }
}
