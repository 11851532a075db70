//! Tracks derived from a GPU plane's kernels, as XProf's trace viewer shows
//! them (xprof/utils/derived_timeline.cc): `Steps`, `XLA Ops` and
//! `Framework Ops`. Files that already carry these lines (TF writes them at
//! capture time) keep their own and get none derived.

use super::annotations::{self, Annotation, AnnotationTracks, XLA_MODULES, XLA_OPS};
use super::{DerivedTrack, Track, TrackSource};
use crate::common::schema::{event_stat, is_derived_line, StatKeys};
use crate::hlo::gpu::GpuHlo;
use crate::passes::grouping::Grouping;
use proflens_model::{nesting_depths, Profile, StatValue};

pub const STEPS: &str = "Steps";
pub const FRAMEWORK_OPS: &str = "Framework Ops";
/// Older TensorFlow names the framework-op line this way.
const LEGACY_FRAMEWORK_OPS: &str = "TensorFlow Ops";

/// Builds derived events from (start, end, name) runs in time order.
#[derive(Default)]
struct Builder {
    track: DerivedTrack,
}

impl Builder {
    fn push(&mut self, start: i64, end: i64, name: &str) {
        let id = match self.track.names.iter().position(|n| n == name) {
            Some(i) => i,
            None => {
                self.track.names.push(name.to_string());
                self.track.names.len() - 1
            }
        };
        let e = &mut self.track.events;
        e.start_ps.push(start);
        e.duration_ps.push((end - start).max(0));
        e.metadata.push(id as u32);
        e.stats.end_owner();
    }

    /// Extends the last event to `end` when it has `name`; else starts a new one.
    fn merge_or_push(&mut self, start: i64, end: i64, name: &str) {
        let e = &self.track.events;
        if let Some(last) = e.len().checked_sub(1) {
            if self.track.names.get(e.metadata[last] as usize).is_some_and(|n| n == name)
                && start >= e.start_ps.at(last)
            {
                let new_end = end.max(e.end_ps(last));
                self.track.events.duration_ps.set(last, new_end - self.track.events.start_ps.at(last));
                return;
            }
        }
        self.push(start, end, name);
    }

    fn finish(mut self, name: String, tid: i64) -> Option<Track> {
        if self.track.events.is_empty() {
            return None;
        }
        let e = &mut self.track.events;
        e.depth = nesting_depths(&e.start_ps, &e.duration_ps);
        Some(Track { name, tid, source: TrackSource::Derived(Box::new(self.track)) })
    }
}

/// Derived line ids: XProf's `0xdeadbeef`-based range (as a 32-bit int).
const DERIVED_ID: i64 = 0xdead_beef_u32 as i32 as i64;

/// The derived tracks of GPU plane `p`: Steps, then per kernel stream the
/// annotation tracks ([`annotations`]). The framework op of an XLA kernel
/// is its HLO instruction's `op_name` where `hlo` knows it (JAX kernels
/// carry only `XlaModule:` as `tf_op`), else the kernel's `tf_op`.
pub fn gpu_tracks(profile: &Profile, grouping: &Grouping, hlo: &GpuHlo<'_>, p: usize) -> Vec<Track> {
    let plane = &profile.planes[p];
    let keys = StatKeys::new(profile);
    let has_line = |name: &str| plane.lines.iter().any(|l| profile.str(l.name) == name);
    let mut tracks = Vec::new();

    if !has_line(STEPS) {
        tracks.extend(steps_track(profile, grouping, p));
    }
    let present =
        annotations::TITLES.map(|title| has_line(title) || (title == FRAMEWORK_OPS && has_line(LEGACY_FRAMEWORK_OPS)));
    let streams: Vec<usize> = (0..plane.lines.len()).filter(|&l| !is_derived_line(&plane.lines[l])).collect();
    for (n, &l) in streams.iter().enumerate() {
        let line = &plane.lines[l];
        let mut derived = AnnotationTracks::new(true, present);
        for i in 0..line.events.len() {
            // Kernels only: memcpys and allocations carry no annotations.
            if event_stat(profile, plane, line, i, keys.kernel_details).is_none() {
                continue;
            }
            let stat = |key| event_stat(profile, plane, line, i, key);
            let program = stat(keys.program_id).and_then(|v| v.as_u64());
            let tf_op = stat(keys.tf_op).map(|v| v.to_string());
            let text = |key| match stat(key) {
                Some(StatValue::Str(s)) => s,
                _ => "",
            };
            let hlo_op = text(keys.hlo_op);
            let mut a = Annotation::resolve(hlo, program, hlo_op, tf_op.as_deref());
            let module = text(keys.hlo_module);
            if !module.is_empty() {
                a.module = program.map_or_else(|| module.to_string(), |id| format!("{module}({id})"));
            }
            derived.add(&a, line.events.start_ps.at(i), line.events.end_ps(i), grouping.group(p, l, i));
        }
        // XProf names a GPU's derived tracks by their stream, even when there is one.
        // Each stream's tracks get their own ids, as XProf's derived line ids.
        tracks.extend(derived.finish(&format!(" - from #{}", line.id), DERIVED_ID + 8 * n as i64));
    }
    tracks
}

/// The tracks XProf derives on a TPU core from its `XLA Ops` line and the
/// HLO: Framework Name Scope, Framework Ops and Source code (the file has
/// the XLA Modules and XLA Ops lines). An op's program is that of the
/// `XLA Modules` event around it (`name(program id)`).
pub fn tpu_tracks(profile: &Profile, grouping: &Grouping, hlo: &GpuHlo<'_>, p: usize) -> Vec<Track> {
    let plane = &profile.planes[p];
    let line_named = |name: &str| plane.lines.iter().position(|l| profile.str(l.name) == name);
    let (Some(ops), Some(modules)) =
        (line_named(annotations::TITLES[XLA_OPS]), line_named(annotations::TITLES[XLA_MODULES]))
    else {
        return Vec::new();
    };
    if hlo.is_empty() {
        return Vec::new();
    }
    let present = annotations::TITLES.map(|title| line_named(title).is_some());
    let (ops_line, modules_line) = (&plane.lines[ops], &plane.lines[modules]);
    let mut derived = AnnotationTracks::new(false, present);
    let mut m = 0;
    for i in 0..ops_line.events.len() {
        let start = ops_line.events.start_ps.at(i);
        while m + 1 < modules_line.events.len() && modules_line.events.start_ps.at(m + 1) <= start {
            m += 1;
        }
        let meta = |events: &proflens_model::Events, k: usize| {
            let md = &plane.event_metadata[events.metadata[k] as usize];
            profile.str(md.display_name.unwrap_or(md.name))
        };
        let inside = m < modules_line.events.len() && modules_line.events.start_ps.at(m) <= start;
        let program = inside.then(|| program_of(meta(&modules_line.events, m))).flatten();
        let a = Annotation::resolve(hlo, program, meta(&ops_line.events, i), None);
        // XProf groups a TPU program run's ops together: one run, one group.
        let group = grouping.group(p, ops, i).or(inside.then_some(m as i32));
        derived.add(&a, start, ops_line.events.end_ps(i), group);
    }
    derived.finish("", DERIVED_ID)
}

/// The program id of an XLA module event named `name(id)`.
fn program_of(module_event: &str) -> Option<u64> {
    module_event.strip_suffix(')')?.rsplit_once('(')?.1.parse().ok()
}

/// XProf's `ThreadpoolListener::Region` events of host line `l`: one from
/// each `StartRegion` to the `StopRegion` after it (tsl's threadpool line
/// mutator), on a track of their own next to the thread.
pub fn threadpool_regions(profile: &Profile, p: usize, l: usize) -> Option<Track> {
    let plane = &profile.planes[p];
    let line = &plane.lines[l];
    let name_of = |i: usize| profile.str(plane.event_metadata[line.events.metadata[i] as usize].name);
    let mut builder = Builder::default();
    let mut open: Option<i64> = None;
    for i in 0..line.events.len() {
        match name_of(i) {
            "ThreadpoolListener::StartRegion" => open = Some(line.events.start_ps.at(i)),
            "ThreadpoolListener::StopRegion" => {
                if let Some(start) = open.take() {
                    builder.push(start, line.events.end_ps(i), THREADPOOL_REGION);
                }
            }
            _ => {}
        }
    }
    let name = format!("{} · {THREADPOOL_REGION}", profile.str(line.shown_name()));
    builder.finish(name, line.display_id)
}

pub const THREADPOOL_REGION: &str = "ThreadpoolListener::Region";

/// One event per step, from the first to the last device event of its group;
/// ungrouped events belong to the step of the latest grouped event before them.
fn steps_track(profile: &Profile, grouping: &Grouping, p: usize) -> Option<Track> {
    let plane = &profile.planes[p];
    let mut events: Vec<(i64, i64, Option<i32>)> = Vec::new();
    for (l, line) in plane.lines.iter().enumerate() {
        if is_derived_line(line) {
            continue;
        }
        for i in 0..line.events.len() {
            events.push((line.events.start_ps.at(i), line.events.end_ps(i), grouping.group(p, l, i)));
        }
    }
    if events.iter().all(|e| e.2.is_none()) {
        return None;
    }
    events.sort_by_key(|e| e.0);
    let mut builder = Builder::default();
    let mut current: Option<i32> = None;
    for (start, end, group) in events {
        if group.is_some() {
            current = group;
        }
        let Some(g) = current else { continue };
        let name = grouping.names.get(&g).cloned().unwrap_or_else(|| g.to_string());
        builder.merge_or_push(start, end, &name);
    }
    builder.finish(STEPS.to_string(), DERIVED_ID)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proflens_model::Events;

    fn columns(track: &Track) -> &Events {
        match &track.source {
            TrackSource::Derived(d) => &d.events,
            TrackSource::Line(..) | TrackSource::Counter(_) => panic!("not derived"),
        }
    }

    #[test]
    fn consecutive_same_names_merge() {
        let mut b = Builder::default();
        b.merge_or_push(0, 10, "dot");
        b.merge_or_push(12, 20, "dot");
        b.merge_or_push(20, 30, "add");
        let track = b.finish("XLA Ops".into(), 1).unwrap();
        let e = columns(&track);
        assert_eq!(e.start_ps, vec![0, 20]);
        assert_eq!(e.duration_ps, vec![20, 10]);
        assert_eq!(Builder::default().finish("x".into(), 1).map(|t| t.name), None);
    }
}
