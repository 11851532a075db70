//! Step events and the step database: which steps ran, how long each took and
//! how its time splits into input, compute, launch and so on.
//!
//! Follows XProf (xplane_to_step_events.cc, event_span.cc,
//! step_events_to_steps_db.cc): events of a step are typed, overlaps are
//! resolved by type priority, and the rest of the step is "unknown" time.

use crate::common::id_hash::IdHashSet;
use crate::common::schema::{
    is_derived_line, is_step_info_line, StatKeys, StatPicker, GPU_PLANE_PREFIX, HOST_PLANE, TPU_PLANE_PREFIX,
};
use crate::common::tf_op::{self, OpCategory};
use crate::passes::grouping::{Grouping, FLAG_STEP_ROOT};
use crate::passes::step_runs::{Run, RunWriter, SpanColumns, StepSlots};
use crate::passes::step_spans::for_each_piece;
pub use crate::passes::step_spans::{SpanType, SPAN_TYPES};
use proflens_model::{Plane, Profile, StatValue};
use std::collections::{BTreeMap, HashMap};

#[derive(Debug, Clone, Copy, PartialEq)]
struct Marker {
    on_device: bool,
    begin: i64,
    end: i64,
}

#[derive(Debug, Clone, Default)]
struct StepDetails {
    markers: Vec<Marker>,
    /// Where its typed events are.
    runs: Vec<Run>,
    name: Option<String>,
}

impl StepDetails {
    fn combine(&mut self, other: StepDetails) {
        self.markers.extend(other.markers);
        self.runs.extend(other.runs);
        if self.name.is_none() {
            self.name = other.name;
        }
    }

    /// The longest host marker, unless the longest device marker is not inside it.
    fn step_time(&self) -> (i64, i64) {
        let longest = |device: bool| {
            self.markers.iter().filter(|m| m.on_device == device).fold((0i64, 0i64), |best, m| {
                if m.end - m.begin > best.1 - best.0 {
                    (m.begin, m.end)
                } else {
                    best
                }
            })
        };
        let host = longest(false);
        let device = longest(true);
        if device.1 - device.0 == 0 || (host.0 <= device.0 && device.1 <= host.1) {
            host
        } else {
            device
        }
    }
}

type StepEvents = BTreeMap<i64, StepDetails>;

/// One step of the step database.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StepInfo {
    pub group: i64,
    pub name: String,
    pub begin_ps: i64,
    pub duration_ps: i64,
    /// Time of each [`SpanType`] within the step, ps.
    pub type_ps: [i64; SPAN_TYPES],
}

impl StepInfo {
    pub fn ps(&self, t: SpanType) -> i64 {
        self.type_ps[t as usize]
    }
}

#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct StepDb {
    pub steps: Vec<StepInfo>,
    pub has_device: bool,
    /// Device compute time at 16 and 32 bit over all step events (dropped
    /// steps included, as XProf counts them), ps.
    pub compute_16bit_ps: i64,
    pub compute_32bit_ps: i64,
}

/// Up to this many steps, none is dropped as incomplete.
const KEEP_ALL_STEPS_UP_TO: usize = 5;

/// Steps of one host. With `drop_incomplete_steps`, the first and last step are
/// dropped when there are more than five (they are usually cut by the capture).
pub fn step_db(profile: &Profile, grouping: &Grouping, drop_incomplete_steps: bool) -> StepDb {
    let keys = StatKeys::new(profile);
    let device_planes: Vec<usize> = {
        let tpu: Vec<usize> = planes_with_prefix(profile, TPU_PLANE_PREFIX);
        if tpu.is_empty() {
            planes_with_prefix(profile, GPU_PLANE_PREFIX)
        } else {
            tpu
        }
    };
    let has_device = !device_planes.is_empty();
    let mut columns = SpanColumns::new(profile);
    let mut step_events = StepEvents::new();
    for &p in &device_planes {
        if profile.str(profile.planes[p].name).starts_with(TPU_PLANE_PREFIX) {
            // TPU steps come from on-device step lines, which these profiles
            // only carry once grouped by the TPU runtime; not supported yet.
            continue;
        }
        for (group, details) in device_step_events(profile, grouping, &keys, p, &mut columns) {
            step_events.entry(group).or_default().combine(details);
        }
    }
    if !has_device {
        if let Some(h) = profile.planes.iter().position(|pl| profile.str(pl.name) == HOST_PLANE) {
            for (group, details) in host_step_events(profile, grouping, &keys, h, &mut columns) {
                step_events.entry(group).or_default().combine(details);
            }
        }
    }
    let mut steps = Vec::new();
    let (mut compute_16bit_ps, mut compute_32bit_ps) = (0i64, 0i64);
    let (mut events, mut open) = (Vec::new(), Vec::new());
    for (group, details) in step_events {
        events.clear();
        columns.gather(profile, &details.runs, &mut open, &mut events);
        let (begin, end) = details.step_time();
        let duration = end - begin;
        let mut type_ps = [0i64; SPAN_TYPES];
        let mut seen = [false; SPAN_TYPES];
        let mut total = 0i64;
        for_each_piece(&events, |ty, s, e| {
            match ty {
                SpanType::DeviceCompute16 => compute_16bit_ps += e - s,
                SpanType::DeviceCompute32 => compute_32bit_ps += e - s,
                _ => {}
            }
            let overlap = (e.min(end) - s.max(begin)).max(0);
            type_ps[ty as usize] += overlap;
            seen[ty as usize] = true;
            total += overlap;
        });
        if total < duration {
            type_ps[SpanType::Unknown as usize] += duration - total;
            seen[SpanType::Unknown as usize] = true;
        }
        let well_formed = if has_device {
            seen[SpanType::DeviceCompute16 as usize] || seen[SpanType::DeviceCompute32 as usize]
        } else {
            seen[SpanType::HostCompute as usize]
        };
        if !well_formed || duration == 0 {
            continue;
        }
        let name = details.name.clone().unwrap_or_else(|| group.to_string());
        steps.push(StepInfo { group, name, begin_ps: begin, duration_ps: duration, type_ps });
    }
    if drop_incomplete_steps && steps.len() > KEEP_ALL_STEPS_UP_TO {
        steps.remove(0);
        steps.pop();
    }
    StepDb { steps, has_device, compute_16bit_ps, compute_32bit_ps }
}

/// Steps of several hosts as one: the steps every host has (matched by
/// name, in the first host's order), each with its slowest host's time and
/// breakdown, since the slowest host sets the pace of a synchronous step.
pub fn combine_hosts(dbs: &[&StepDb]) -> StepDb {
    let Some(first) = dbs.first() else { return StepDb::default() };
    // Each other host's steps by name (its first of a name, as a search
    // would find): a pod has thousands of steps on each of tens of hosts.
    let by_name: Vec<HashMap<&str, &StepInfo>> = dbs[1..]
        .iter()
        .map(|db| {
            let mut steps = HashMap::with_capacity(db.steps.len());
            for s in &db.steps {
                steps.entry(s.name.as_str()).or_insert(s);
            }
            steps
        })
        .collect();
    let steps = first
        .steps
        .iter()
        .filter_map(|step| {
            let mut slowest = step;
            for steps in &by_name {
                let other = *steps.get(step.name.as_str())?;
                if other.duration_ps > slowest.duration_ps {
                    slowest = other;
                }
            }
            Some(slowest.clone())
        })
        .collect();
    StepDb {
        steps,
        has_device: dbs.iter().any(|d| d.has_device),
        compute_16bit_ps: dbs.iter().map(|d| d.compute_16bit_ps).sum(),
        compute_32bit_ps: dbs.iter().map(|d| d.compute_32bit_ps).sum(),
    }
}

fn planes_with_prefix(profile: &Profile, prefix: &str) -> Vec<usize> {
    (0..profile.planes.len()).filter(|&p| profile.str(profile.planes[p].name).starts_with(prefix)).collect()
}

fn device_step_events(
    profile: &Profile,
    grouping: &Grouping,
    keys: &StatKeys,
    p: usize,
    columns: &mut SpanColumns,
) -> StepEvents {
    let plane = &profile.planes[p];
    let mut markers = StepEvents::new();
    let mut slots: StepSlots<StepDetails> = StepSlots::new();
    let mut runs = RunWriter::new(columns, profile, p);
    let picker = StatPicker::new(profile, &[keys.correlation_id, keys.shape]);
    let mut values = [None; 2];
    for (l, line) in plane.lines.iter().enumerate() {
        let ev = &line.events;
        if is_step_info_line(line) {
            for i in 0..ev.len() {
                if let Some(g) = grouping.group(p, l, i) {
                    let m = Marker { on_device: true, begin: ev.start_ps.at(i), end: ev.end_ps(i) };
                    markers.entry(i64::from(g)).or_default().markers.push(m);
                }
            }
            continue;
        }
        if is_derived_line(line) {
            continue;
        }
        runs.start_line(l, ev.len());
        for i in 0..ev.len() {
            let Some(g) = grouping.group(p, l, i) else { continue };
            picker.pick(profile, plane, line, i, &mut values);
            let [Some(_), shape] = values else { continue };
            let name = profile.str(plane.event_metadata[ev.metadata[i] as usize].name);
            let ty = match shape {
                Some(StatValue::Str(shapes)) => classify_gpu_event(name, shapes),
                Some(other) => classify_gpu_event(name, &other.to_string()),
                None => classify_gpu_event(name, ""),
            };
            let slot = slots.slot(i64::from(g));
            runs.push(slot, &mut slots.steps[slot].1.runs, i, ty);
        }
    }
    let events: StepEvents = slots.steps.into_iter().collect();
    if events.is_empty() {
        return events;
    }
    // Keep the steps that have device step markers, with those markers.
    let mut out = StepEvents::new();
    for (g, mut details) in events {
        if let Some(m) = markers.remove(&g) {
            details.combine(m);
            out.insert(g, details);
        }
    }
    // Device steps carry no names in XProf: they show as their group id.
    out
}

fn classify_gpu_event(name: &str, shapes: &str) -> SpanType {
    match tf_op::category(name) {
        OpCategory::MemcpyHToD => return SpanType::HostToDevice,
        OpCategory::MemcpyDToH => return SpanType::DeviceToHost,
        OpCategory::MemcpyDToD => return SpanType::DeviceToDevice,
        _ => {}
    }
    if name.len() >= 4 && name[..4].eq_ignore_ascii_case("nccl") {
        return SpanType::DeviceCollectives;
    }
    let half = if shapes.is_empty() { name.contains("half") || name.contains("fp16") } else { shapes.contains("half") };
    if half {
        SpanType::DeviceCompute16
    } else {
        SpanType::DeviceCompute32
    }
}

fn is_explicit_step_marker(name: &str) -> bool {
    (name.starts_with("train") || name.starts_with("test") || name.starts_with("TraceContext")) && !name.contains('/')
}

fn is_real_cpu_compute(name: &str) -> bool {
    !(name.starts_with("EagerExecute")
        || name.starts_with("EagerLocalExecute")
        || name.starts_with("EagerKernelExecute")
        || name.starts_with("FunctionRun")
        || is_explicit_step_marker(name))
}

fn classify_cpu_event(name: &str, has_correlation: bool, root_input_stage: bool, has_device: bool) -> SpanType {
    let category = tf_op::category(name);
    let op_type = tf_op::parse(name).op_type;
    if op_type.starts_with("InfeedEnqueue") || category == OpCategory::MemcpyHToD {
        SpanType::HostToDevice
    } else if category == OpCategory::MemcpyHToH {
        SpanType::HostToHost
    } else if has_device && (has_correlation || starts_with_ignore_case(name, "ExecutorState::Process")) {
        SpanType::HostPrepare
    } else if starts_with_ignore_case(name, "IteratorGetNext") || root_input_stage {
        SpanType::HostWaitInput
    } else {
        SpanType::HostCompute
    }
}

fn starts_with_ignore_case(s: &str, prefix: &str) -> bool {
    s.len() >= prefix.len() && s.as_bytes()[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
}

/// What an event's name alone says about it as a host step event.
#[derive(Clone, Copy)]
enum HostRole {
    Marker,
    /// Real work of this type (HostCompute may turn into input wait when the
    /// event is a root input-pipeline stage).
    Work(SpanType),
    Ignored,
}

fn host_role(name: &str) -> HostRole {
    if is_explicit_step_marker(name) {
        HostRole::Marker
    } else if is_real_cpu_compute(name) {
        // Host events of host-only profiles: no device, so no kernel launches.
        HostRole::Work(classify_cpu_event(name, false, false, false))
    } else {
        HostRole::Ignored
    }
}

// Slots of the stats the host step pass reads (order of its StatPicker keys).
const PRODUCER_TYPE: usize = 0;
const PRODUCER_ID: usize = 1;
const CONSUMER_TYPE: usize = 2;
const CONSUMER_ID: usize = 3;
const STAGE_NAME: usize = 4;

fn host_step_events(
    profile: &Profile,
    grouping: &Grouping,
    keys: &StatKeys,
    p: usize,
    columns: &mut SpanColumns,
) -> StepEvents {
    let plane: &Plane = &profile.planes[p];
    let roles: Vec<HostRole> = plane.event_metadata.iter().map(|m| host_role(profile.str(m.name))).collect();
    let picker = StatPicker::new(
        profile,
        &[keys.producer_type, keys.producer_id, keys.consumer_type, keys.consumer_id, keys.ipl_stage_name],
    );
    let mut values = [None; 5];
    // Without an input-stage stat in the profile no event is a stage, so
    // the stats read below would never be asked for: they are not read.
    let stages = keys.ipl_stage_name.is_some();
    // (type, id) of every producer: consumers of these are async input-stage
    // children. Only a stage's ancestry asks, so the set is built when the
    // first stage is met (most profiles have none).
    let mut async_parents: Option<IdHashSet<(i64, u64)>> = None;
    let mut slots: StepSlots<StepDetails> = StepSlots::new();
    let mut runs = RunWriter::new(columns, profile, p);
    for (l, line) in plane.lines.iter().enumerate() {
        let ev = &line.events;
        runs.start_line(l, ev.len());
        let Some(groups) = grouping.planes.get(p).and_then(|lines| lines.get(l)) else { continue };
        let mut stack: Vec<Enclosing> = Vec::new();
        for i in 0..ev.len() {
            let (s, e) = (ev.start_ps.at(i), ev.end_ps(i));
            // The enclosing events only matter to stages' ancestry: without
            // stages they are not kept (a push and pop per event).
            let (mut is_stage, mut parent_stage_path) = (false, false);
            if stages {
                picker.pick(profile, plane, line, i, &mut values);
                is_stage = values[STAGE_NAME].and_then(|v| v.as_str().map(|s| !s.is_empty())).unwrap_or(false);
                let ct = values[CONSUMER_TYPE].and_then(|v| v.as_i64());
                let cid = values[CONSUMER_ID].and_then(|v| v.as_u64());
                while stack.last().is_some_and(|p| !(p.start <= s && e <= p.end)) {
                    stack.pop();
                }
                parent_stage_path = stack.last().is_some_and(|p| p.stage_path);
                stack.push(Enclosing {
                    start: s,
                    end: e,
                    consumes: ct.zip(cid),
                    stage_path: is_stage || parent_stage_path,
                    consumer_path: None,
                });
            }
            // Whether the event descends from an async input stage: it, or
            // an enclosing event, consumes a producer's output, or an
            // enclosing event is a stage.
            let mut descendant = || {
                parent_stage_path || {
                    let parents = async_parents.get_or_insert_with(|| producers(profile, plane, &picker));
                    consumer_path(&mut stack, parents)
                }
            };
            let Some(g) = groups.group.get(i) else { continue };
            let g = i64::from(g);
            let has_step_name = groups.flags.get(i).is_some_and(|f| f & FLAG_STEP_ROOT != 0);
            let slot = slots.slot(g);
            let details = &mut slots.steps[slot].1;
            match roles[ev.metadata[i] as usize] {
                HostRole::Marker => details.markers.push(Marker { on_device: false, begin: s, end: e }),
                _ if has_step_name => details.markers.push(Marker { on_device: false, begin: s, end: e }),
                HostRole::Work(SpanType::HostCompute) if is_stage && !descendant() => {
                    runs.push(slot, &mut details.runs, i, SpanType::HostWaitInput)
                }
                HostRole::Work(ty) => runs.push(slot, &mut details.runs, i, ty),
                HostRole::Ignored => {}
            }
            if has_step_name {
                details.name = i32::try_from(g).ok().and_then(|g| grouping.names.get(&g).cloned());
            }
        }
    }
    slots.steps.into_iter().collect()
}

/// An event enclosing the current one on its line, for the host step pass.
#[derive(Clone, Copy)]
struct Enclosing {
    start: i64,
    end: i64,
    /// (type, id) of the context it consumes.
    consumes: Option<(i64, u64)>,
    /// It or an enclosing event is an input stage.
    stage_path: bool,
    /// It or an enclosing event consumes a producer's output (computed on demand).
    consumer_path: Option<bool>,
}

/// Whether the innermost event of `stack` or one enclosing it consumes one
/// of `producers`; answers are kept on the stack for the next asks.
fn consumer_path(stack: &mut [Enclosing], producers: &IdHashSet<(i64, u64)>) -> bool {
    let known = stack.iter().rposition(|e| e.consumer_path.is_some());
    let mut path = known.and_then(|k| stack[k].consumer_path).unwrap_or(false);
    for e in &mut stack[known.map_or(0, |k| k + 1)..] {
        path = path || e.consumes.is_some_and(|key| producers.contains(&key));
        e.consumer_path = Some(path);
    }
    path
}

/// (type, id) of every producer of a plane.
fn producers(profile: &Profile, plane: &Plane, picker: &StatPicker) -> IdHashSet<(i64, u64)> {
    let mut values = [None; 5];
    let mut out = IdHashSet::default();
    for line in &plane.lines {
        for i in 0..line.events.len() {
            picker.pick(profile, plane, line, i, &mut values);
            let t = values[PRODUCER_TYPE].and_then(|v| v.as_i64());
            let id = values[PRODUCER_ID].and_then(|v| v.as_u64());
            if let (Some(t), Some(id)) = (t, id) {
                out.insert((t, id));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_time_prefers_host_marker_that_contains_the_device_one() {
        let mut d = StepDetails::default();
        d.markers.push(Marker { on_device: false, begin: 0, end: 100 });
        d.markers.push(Marker { on_device: true, begin: 10, end: 90 });
        assert_eq!(d.step_time(), (0, 100));
        d.markers.push(Marker { on_device: true, begin: 50, end: 200 });
        assert_eq!(d.step_time(), (50, 200));
    }

    fn step(group: i64, name: &str, duration_ps: i64) -> StepInfo {
        StepInfo { group, name: name.into(), begin_ps: 0, duration_ps, type_ps: [0; SPAN_TYPES] }
    }

    #[test]
    fn hosts_combine_into_each_named_steps_slowest() {
        let db = |steps: Vec<StepInfo>| StepDb { steps, ..StepDb::default() };
        let a = db(vec![step(1, "1", 10), step(2, "2", 50), step(3, "3", 10)]);
        // Host b has no step 3 and two steps named 1: the first one counts.
        let b = db(vec![step(7, "1", 30), step(8, "1", 90), step(9, "2", 20)]);
        let combined = combine_hosts(&[&a, &b]);
        assert_eq!(combined.steps, vec![step(7, "1", 30), step(2, "2", 50)]);
    }

    #[test]
    fn classifies_events() {
        assert!(is_explicit_step_marker("train"));
        assert!(!is_explicit_step_marker("train/step"));
        assert_eq!(classify_cpu_event("IteratorGetNextOp::DoCompute", false, false, false), SpanType::HostWaitInput);
        assert_eq!(classify_gpu_event("ncclAllReduceKernel", ""), SpanType::DeviceCollectives);
        assert_eq!(classify_gpu_event("volta_fp16_gemm", ""), SpanType::DeviceCompute16);
    }
}
