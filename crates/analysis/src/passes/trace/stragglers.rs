//! Stragglers per step across the hosts (or ranks) of a run: which host
//! finished each step last on the run's clock, and by how much.
//!
//! A host's steps are its step-root events (XSpace: the grouping's step
//! groups, named like XProf names them) and PyTorch's `ProfilerStep#N`
//! events; a step ends at the latest end of its events on that host.

use super::{Trace, TrackSource};
use crate::passes::grouping::{Grouping, FLAG_STEP_ROOT};
use proflens_model::Profile;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

const PROFILER_STEP: &str = "ProfilerStep#";

/// One step's end on one host (ps from the host's own origin).
#[derive(Debug, Clone, PartialEq)]
pub struct StepEnd {
    pub step: String,
    pub start_ps: i64,
    pub end_ps: i64,
}

/// The step that one host finished last.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepStraggler {
    pub step: String,
    /// The host that finished last (index into the run's hosts) and when (run's clock, ps).
    pub host: u32,
    pub end_ps: i64,
    /// Its lag behind the median host's end, and behind the first host to finish.
    pub lag_median_ps: i64,
    pub lag_first_ps: i64,
    /// How many hosts ran the step.
    pub hosts: u32,
}

/// The steps of one host, in order of their start.
pub fn step_ends(profile: &Profile, grouping: &Grouping, trace: &Trace) -> Vec<StepEnd> {
    let mut steps: BTreeMap<String, (i64, i64)> = BTreeMap::new();
    for track in trace.sections.iter().flat_map(|s| &s.tracks) {
        let TrackSource::Line(p, l) = track.source else { continue };
        let plane = &profile.planes[p];
        // Whether each metadata is a PyTorch step, decided once per line.
        let profiler_step: Vec<bool> =
            plane.event_metadata.iter().map(|m| profile.str(m.name).starts_with(PROFILER_STEP)).collect();
        let events = &plane.lines[l].events;
        for i in 0..events.len() {
            let name = if grouping.flags(p, l, i) & FLAG_STEP_ROOT != 0 {
                grouping.group(p, l, i).and_then(|g| grouping.names.get(&g)).cloned()
            } else if profiler_step.get(events.metadata[i] as usize).copied().unwrap_or(false) {
                let meta = &plane.event_metadata[events.metadata[i] as usize];
                Some(profile.str(meta.name).to_string())
            } else {
                None
            };
            let Some(name) = name else { continue };
            let (start, end) = (events.start_ps.at(i), events.end_ps(i));
            let e = steps.entry(name).or_insert((start, end));
            *e = (e.0.min(start), e.1.max(end));
        }
    }
    let mut out: Vec<StepEnd> =
        steps.into_iter().map(|(step, (start_ps, end_ps))| StepEnd { step, start_ps, end_ps }).collect();
    out.sort_by_key(|s| (s.start_ps, s.end_ps));
    out
}

/// Per step run by two hosts or more, the host that finished last. `hosts`
/// holds each host's steps and its offset on the run's clock; steps come
/// in the order of their earliest aligned start.
pub fn stragglers(hosts: &[(Vec<StepEnd>, i64)]) -> Vec<StepStraggler> {
    // step → (earliest aligned start, (host, aligned end) per host)
    type HostEnds = Vec<(u32, i64)>;
    let mut by_step: BTreeMap<&str, (i64, HostEnds)> = BTreeMap::new();
    for (h, (steps, offset)) in hosts.iter().enumerate() {
        for s in steps {
            let e = by_step.entry(&s.step).or_insert((i64::MAX, Vec::new()));
            e.0 = e.0.min(s.start_ps.saturating_add(*offset));
            e.1.push((h as u32, s.end_ps.saturating_add(*offset)));
        }
    }
    let mut out: Vec<(i64, StepStraggler)> = by_step
        .into_iter()
        .filter(|(_, (_, ends))| ends.len() >= 2)
        .map(|(step, (start, mut ends))| {
            ends.sort_by_key(|&(h, end)| (end, h));
            let (host, end_ps) = *ends.last().expect("two ends or more");
            let median = ends[(ends.len() - 1) / 2].1;
            let straggler = StepStraggler {
                step: step.to_string(),
                host,
                end_ps,
                lag_median_ps: end_ps - median,
                lag_first_ps: end_ps - ends[0].1,
                hosts: ends.len() as u32,
            };
            (start, straggler)
        })
        .collect();
    out.sort_by(|a, b| (a.0, &a.1.step).cmp(&(b.0, &b.1.step)));
    out.into_iter().map(|(_, s)| s).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn end(step: &str, start_ps: i64, end_ps: i64) -> StepEnd {
        StepEnd { step: step.into(), start_ps, end_ps }
    }

    #[test]
    fn the_last_host_of_each_shared_step_with_its_lag() {
        let a = vec![end("1", 0, 100), end("2", 100, 200), end("only a", 300, 400)];
        let b = vec![end("1", 0, 80), end("2", 90, 260)];
        let c = vec![end("1", 10, 90)];
        // c's clock starts 50 ps later than a's and b's.
        let found = stragglers(&[(a, 0), (b, 0), (c, 50)]);
        assert_eq!(found.len(), 2);
        assert_eq!((found[0].step.as_str(), found[0].host, found[0].end_ps), ("1", 2, 140));
        assert_eq!((found[0].lag_median_ps, found[0].lag_first_ps, found[0].hosts), (40, 60, 3));
        assert_eq!((found[1].step.as_str(), found[1].host, found[1].lag_first_ps), ("2", 1, 60));
    }
}
