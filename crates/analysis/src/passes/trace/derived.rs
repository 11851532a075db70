//! Tracks derived from a GPU plane's kernels, as XProf's trace viewer shows
//! them (xprof/utils/derived_timeline.cc): `Steps`, `XLA Ops` and
//! `Framework Ops`. Files that already carry these lines (TF writes them at
//! capture time) keep their own and get none derived.

use super::{DerivedTrack, Track, TrackSource};
use crate::common::schema::{event_stat, is_derived_line, StatKeys};
use crate::hlo::gpu::{innermost, GpuHlo};
use crate::passes::grouping::Grouping;
use proflens_model::{nesting_depths, Profile};

pub const STEPS: &str = "Steps";
pub const XLA_OPS: &str = "XLA Ops";
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
            if self.track.names.get(e.metadata[last] as usize).is_some_and(|n| n == name) && start >= e.start_ps[last] {
                let new_end = end.max(e.end_ps(last));
                self.track.events.duration_ps[last] = new_end - self.track.events.start_ps[last];
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

/// The derived tracks of GPU plane `p`. The framework op of an XLA kernel is
/// its HLO instruction's `op_name` where `hlo` knows it (JAX kernels carry
/// only `XlaModule:` as `tf_op`), else the kernel's `tf_op`.
pub fn gpu_tracks(profile: &Profile, grouping: &Grouping, hlo: &GpuHlo<'_>, p: usize) -> Vec<Track> {
    let plane = &profile.planes[p];
    let keys = StatKeys::new(profile);
    let has_line = |name: &str| plane.lines.iter().any(|l| profile.str(l.name) == name);
    let mut tracks = Vec::new();

    if !has_line(STEPS) {
        tracks.extend(steps_track(profile, grouping, p));
    }
    // (line, event) of kernels on the plane's stream lines, per line in time order.
    let streams: Vec<usize> = (0..plane.lines.len()).filter(|&l| !is_derived_line(&plane.lines[l])).collect();
    let multi = streams.len() > 1;
    for (track_name, key, offset, present) in [
        (XLA_OPS, keys.hlo_op, 5, has_line(XLA_OPS)),
        (FRAMEWORK_OPS, keys.tf_op, 3, has_line(FRAMEWORK_OPS) || has_line(LEGACY_FRAMEWORK_OPS)),
    ] {
        if present || key.is_none() {
            continue;
        }
        for &l in &streams {
            let line = &plane.lines[l];
            let mut builder = Builder::default();
            for i in 0..line.events.len() {
                if event_stat(profile, plane, line, i, keys.kernel_details).is_none() {
                    continue;
                }
                let from_hlo =
                    if track_name == FRAMEWORK_OPS { hlo_framework_op(profile, &keys, hlo, p, l, i) } else { None };
                let full = match from_hlo {
                    Some(name) => name,
                    None => {
                        let Some(value) = event_stat(profile, plane, line, i, key) else { continue };
                        value.to_string()
                    }
                };
                // XLA op lists are nested `outer::inner`: the innermost names the op.
                let name = if track_name == XLA_OPS { innermost(&full) } else { &full };
                builder.merge_or_push(line.events.start_ps[i], line.events.end_ps(i), name);
            }
            let title = if multi { format!("{track_name} - from #{}", line.id) } else { track_name.to_string() };
            tracks.extend(builder.finish(title, DERIVED_ID + offset));
        }
    }
    tracks
}

/// The framework op (HLO `op_name`) of event `i` when it is an XLA kernel
/// whose instruction `hlo` knows and names one.
fn hlo_framework_op(
    profile: &Profile,
    keys: &StatKeys,
    hlo: &GpuHlo<'_>,
    p: usize,
    l: usize,
    i: usize,
) -> Option<String> {
    if hlo.is_empty() {
        return None;
    }
    let (plane, line) = (&profile.planes[p], &profile.planes[p].lines[l]);
    let hlo_op = event_stat(profile, plane, line, i, keys.hlo_op)?;
    let program = event_stat(profile, plane, line, i, keys.program_id)?.as_u64()?;
    let name = hlo.framework_op(program, hlo_op.as_str()?)?;
    (!name.is_empty()).then(|| name.to_string())
}

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
            events.push((line.events.start_ps[i], line.events.end_ps(i), grouping.group(p, l, i)));
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
            TrackSource::Line(..) => panic!("not derived"),
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
