//! How many ops a step dispatches one at a time from Python: TensorFlow's
//! eager fast path and JAX's per-program executions. TensorFlow 2 runs an
//! eager op as a one-op function, which records no op event (XProf's eager
//! share stays 0), so the dispatches themselves are counted on the host.

use crate::common::schema::HOST_PLANE;
use proflens_model::Profile;

/// Host events that mark one dispatch: TensorFlow's Python fast path (one
/// per op call; a `tf.function` step is one call) and PjRt's execution of
/// one XLA program (JAX: one per jitted call; a step of un-jitted ops runs
/// a program per op).
fn is_dispatch(name: &str) -> bool {
    name.starts_with("TFE_Py_FastPathExecute") || name.contains("PjRtLoadedExecutable::ExecuteHelper")
}

/// Dispatches per step above which a step counts as run op by op.
pub const MIN_DISPATCHES_PER_STEP: f64 = 20.0;

/// Dispatch events inside the steps `spans` (start, duration, ps; sorted by
/// start), per step. `None` without steps.
pub fn dispatches_per_step(profile: &Profile, spans: &[(i64, i64)]) -> Option<f64> {
    if spans.is_empty() {
        return None;
    }
    let inside = |t: i64| {
        let i = spans.partition_point(|&(s, _)| s <= t);
        i > 0 && t < spans[i - 1].0.saturating_add(spans[i - 1].1)
    };
    let mut count = 0usize;
    for plane in profile.planes.iter().filter(|p| profile.str(p.name) == HOST_PLANE) {
        let marks: Vec<bool> = plane.event_metadata.iter().map(|m| is_dispatch(profile.str(m.name))).collect();
        if !marks.contains(&true) {
            continue;
        }
        for line in &plane.lines {
            let e = &line.events;
            count += (0..e.len()).filter(|&i| marks[e.metadata[i] as usize] && inside(e.start_ps.at(i))).count();
        }
    }
    Some(count as f64 / spans.len() as f64)
}
