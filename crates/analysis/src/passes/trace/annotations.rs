//! XProf's device tracks derived from the XLA annotations of each kernel or
//! TPU op (xprof/utils/derived_timeline.cc, DeriveEventsFromAnnotations):
//! `Framework Name Scope`, `Framework Ops`, `XLA Modules`, `XLA Ops` and
//! `Source code`. Nested names become levels of one track, and an event
//! extends the previous one of its level when the name (and step) is the
//! same — on GPUs always, elsewhere only across a gap under twice its length.

use super::{DerivedTrack, Track, TrackSource};
use crate::common::tf_op::{parse, OpCategory};
use crate::hlo::gpu::{innermost, GpuHlo};
use proflens_model::nesting_depths;

/// XProf's order of the derived tracks of one stream.
pub const NAME_SCOPE: usize = 0;
pub const FRAMEWORK_OPS: usize = 1;
pub const XLA_MODULES: usize = 2;
pub const XLA_OPS: usize = 3;
pub const SOURCE: usize = 4;
pub const TITLES: [&str; 5] = ["Framework Name Scope", "Framework Ops", "XLA Modules", "XLA Ops", "Source code"];
/// XProf's derived line ids of these tracks, after `0xdeadbeef` (Steps).
const TIDS: [i64; 5] = [1, 3, 4, 5, 6];
/// A new outermost event of a track restarts the merging of these tracks
/// (XProf's dependent lines: a new module starts new scopes and XLA ops).
const DEPENDENTS: [&[usize]; 5] = [&[FRAMEWORK_OPS], &[], &[NAME_SCOPE, XLA_OPS], &[], &[]];

/// The annotations of one kernel or op, as the derived tracks need them.
#[derive(Default)]
pub struct Annotation<'a> {
    /// `name(program id)`, empty when the event belongs to no XLA module.
    pub module: String,
    /// The HLO op (nested names joined by `::`); empty for non-XLA kernels.
    pub hlo_op: &'a str,
    /// The framework op as `name:type` (TensorFlow `tf_op` or HLO `op_name:op_type`).
    pub framework_op: String,
    /// What the Framework Ops track shows for it.
    pub framework_label: String,
    /// `file:line` of the HLO instruction's Python source.
    pub source: String,
}

impl<'a> Annotation<'a> {
    /// The framework op and source of `hlo_op` in `program`, from the HLO
    /// when it is known; `fallback_tf_op` (the kernel's `tf_op`) otherwise.
    pub fn resolve(hlo: &GpuHlo<'_>, program: Option<u64>, hlo_op: &'a str, fallback_tf_op: Option<&str>) -> Self {
        let mut a = Annotation { hlo_op, ..Default::default() };
        let instruction = program.and_then(|p| hlo.instruction(p, innermost(hlo_op)));
        match instruction {
            Some((module, instr)) if !instr.metadata.op_name.is_empty() => {
                a.framework_op = format!("{}:{}", instr.metadata.op_name, instr.metadata.op_type);
                a.framework_label = instr.metadata.op_name.clone();
                let (file, line) = module.source_location(instr);
                if !file.is_empty() {
                    a.source = format!("{file}:{line}");
                }
            }
            _ => {
                if let Some(tf_op) = fallback_tf_op.filter(|t| !t.is_empty()) {
                    a.framework_op = tf_op.to_string();
                    a.framework_label = tf_op.to_string();
                }
            }
        }
        a
    }
}

/// An event that may still be extended (its index), with its step.
type OpenEvent = Option<(usize, Option<i32>)>;

/// The five derived tracks of one stream (or TPU core) being built.
pub struct AnnotationTracks {
    tracks: [DerivedTrack; 5],
    /// Per track and level.
    open: [Vec<OpenEvent>; 5],
    /// GPUs extend regardless of the gap.
    gpu: bool,
    /// Which tracks the file already has (they are not derived again).
    present: [bool; 5],
}

impl AnnotationTracks {
    pub fn new(gpu: bool, present: [bool; 5]) -> AnnotationTracks {
        AnnotationTracks { tracks: Default::default(), open: Default::default(), gpu, present }
    }

    /// Adds one event `[start, end)` of step `group` with annotation `a`.
    pub fn add(&mut self, a: &Annotation<'_>, start: i64, end: i64, group: Option<i32>) {
        if !a.module.is_empty() {
            self.extend_or_push(XLA_MODULES, 0, &a.module, start, end, group);
        }
        if !a.hlo_op.is_empty() {
            self.extend_or_push(XLA_OPS, 0, innermost(a.hlo_op), start, end, group);
        }
        if !a.framework_op.is_empty() {
            let op = parse(&a.framework_op);
            if matches!(op.category, OpCategory::TensorFlow | OpCategory::Jax) {
                let scopes: Vec<&str> = op.name.split('/').collect();
                let scopes = &scopes[..scopes.len() - 1];
                for (level, scope) in scopes.iter().enumerate() {
                    self.extend_or_push(NAME_SCOPE, level, scope, start, end, group);
                }
                if !scopes.is_empty() {
                    self.close(NAME_SCOPE, scopes.len());
                }
            }
            self.extend_or_push(FRAMEWORK_OPS, 0, &a.framework_label, start, end, group);
        }
        if !a.source.is_empty() {
            self.extend_or_push(SOURCE, 0, &a.source, start, end, group);
        }
    }

    fn extend_or_push(&mut self, track: usize, level: usize, name: &str, start: i64, end: i64, group: Option<i32>) {
        if let Some(&Some((i, open_group))) = self.open[track].get(level) {
            let t = &mut self.tracks[track];
            let e = &mut t.events;
            let near = self.gpu || group.is_some() || e.end_ps(i) + 2 * e.duration_ps.at(i) >= start;
            if open_group == group && near && t.names[e.metadata[i] as usize] == name {
                e.duration_ps.set(i, end.max(e.end_ps(i)) - e.start_ps.at(i));
                return;
            }
        }
        self.close(track, level);
        let t = &mut self.tracks[track];
        let id = match t.names.iter().position(|n| n == name) {
            Some(id) => id,
            None => {
                t.names.push(name.to_string());
                t.names.len() - 1
            }
        };
        let e = &mut t.events;
        e.start_ps.push(start);
        e.duration_ps.push((end - start).max(0));
        e.metadata.push(id as u32);
        e.stats.end_owner();
        let open = &mut self.open[track];
        open.resize(level + 1, None);
        open[level] = Some((e.len() - 1, group));
    }

    /// No event of `track` at `level` or deeper is extended any more.
    fn close(&mut self, track: usize, level: usize) {
        self.open[track].truncate(level);
        if level == 0 {
            for &dependent in DEPENDENTS[track] {
                self.close(dependent, 0);
            }
        }
    }

    /// The non-empty tracks the file does not already have, in XProf's
    /// order; `suffix` tells apart the tracks of several streams.
    pub fn finish(self, suffix: &str, base_tid: i64) -> Vec<Track> {
        let present = self.present;
        self.tracks
            .into_iter()
            .enumerate()
            .filter(|(k, t)| !present[*k] && !t.events.is_empty())
            .map(|(k, mut track)| {
                let e = &mut track.events;
                e.depth = nesting_depths(&e.start_ps, &e.duration_ps);
                Track {
                    name: format!("{}{suffix}", TITLES[k]),
                    tid: base_tid + TIDS[k],
                    source: TrackSource::Derived(Box::new(track)),
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(track: &Track) -> Vec<(i64, i64, String)> {
        let TrackSource::Derived(d) = &track.source else { panic!("derived") };
        (0..d.events.len())
            .map(|i| (d.events.start_ps.at(i), d.events.end_ps(i), d.names[d.events.metadata[i] as usize].clone()))
            .collect()
    }

    fn jax(op: &str, module: &str) -> Annotation<'static> {
        Annotation {
            module: module.into(),
            framework_op: format!("{op}:dot_general"),
            framework_label: op.into(),
            ..Default::default()
        }
    }

    #[test]
    fn scopes_nest_and_merge_until_the_module_changes() {
        let mut t = AnnotationTracks::new(true, [false; 5]);
        t.add(&jax("jit(f)/jit(main)/dot_general", "jit_f(1)"), 0, 10, None);
        t.add(&jax("jit(f)/jit(main)/dot_general", "jit_f(1)"), 50, 60, None);
        t.add(&jax("jit(f)/jit(main)/dot_general", "jit_g(2)"), 70, 80, None);
        let tracks = t.finish("", 0);
        let by_title = |title: &str| names(tracks.iter().find(|t| t.name == title).unwrap());
        assert_eq!(by_title("XLA Modules"), vec![(0, 60, "jit_f(1)".into()), (70, 80, "jit_g(2)".into())]);
        // Two levels of scopes; a new module starts new scope events.
        assert_eq!(
            by_title("Framework Name Scope"),
            vec![
                (0, 60, "jit(f)".into()),
                (0, 60, "jit(main)".into()),
                (70, 80, "jit(f)".into()),
                (70, 80, "jit(main)".into())
            ]
        );
        assert_eq!(by_title("Framework Ops").len(), 2);
    }

    #[test]
    fn off_gpus_a_long_gap_starts_a_new_event() {
        let mut t = AnnotationTracks::new(false, [false; 5]);
        let a = Annotation { source: "f.py:3".into(), ..Default::default() };
        t.add(&a, 0, 10, None);
        t.add(&a, 25, 30, None); // gap 15 < 2 × 10: extends
        t.add(&a, 100, 110, None); // gap 70 > 2 × 30: new event
        let tracks = t.finish("", 0);
        assert_eq!(names(&tracks[0]), vec![(0, 30, "f.py:3".into()), (100, 110, "f.py:3".into())]);
        assert_eq!(tracks[0].name, "Source code");
    }
}
