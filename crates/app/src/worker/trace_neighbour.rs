//! `.` and `,` in the trace viewer: the next or previous slice of the
//! selected event's track at the same depth, as Perfetto steps (same track,
//! same nesting level), so that stepping walks siblings and never jumps into
//! a child. A track's events are sorted by start (longest first on ties),
//! so the neighbour is the nearest event of that depth in index order.

use proflens_analysis::passes::trace::track_events;
use proflens_model::Events;

use super::trace_queries::{self as queries, Timeline};
use crate::protocol::TraceAnswer;

/// The index of the event after (`forward`) or before event `i` at its
/// depth, if any. Aggregated events (no real start time) are skipped.
pub fn neighbour_index(events: &Events, i: usize, forward: bool) -> Option<usize> {
    let depth = *events.depth.get(i)?;
    let same = |j: &usize| events.depth[*j] == depth && !events.aggregated.iter().any(|&(a, _)| a as usize == *j);
    if forward {
        (i + 1..events.len()).find(same)
    } else {
        (0..i).rev().find(same)
    }
}

/// The neighbouring slice with its details, or a sentence saying there is none.
pub fn neighbour(t: Timeline, track: u32, event: u32, forward: bool) -> TraceAnswer {
    let Some((on, _)) = t.index.track(track) else {
        return TraceAnswer::Failed { message: "That track is not in this profile.".to_string() };
    };
    match neighbour_index(track_events(t.profile, on), event as usize, forward) {
        Some(j) => queries::event(t, track, j as u32),
        None => TraceAnswer::Failed {
            message: format!("No {} slice at this depth on this track.", if forward { "later" } else { "earlier" }),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proflens_analysis::hlo::gpu::GpuHlo;
    use proflens_analysis::passes::grouping::{group_events, Grouping};
    use proflens_analysis::passes::trace::index::TraceIndex;
    use proflens_model::Profile;

    const INPUT_BOUND: &[u8] =
        include_bytes!("../../../../tests/data/xspace/input_bound/plugins/profile/2026_11_22_09_04_29/vm.xplane.pb");

    fn fixture() -> (Profile, Grouping, TraceIndex) {
        let profile = proflens_format::load_xspace(INPUT_BOUND, &Default::default(), &mut |_| {}).expect("decodes");
        let grouping = group_events(&profile);
        let index = TraceIndex::new(&profile, &grouping, &GpuHlo::new(&[]));
        (profile, grouping, index)
    }

    #[test]
    fn steps_walk_siblings_of_the_same_depth_in_time_order() {
        let (profile, grouping, index) = fixture();
        let t = Timeline { profile: &profile, grouping: &grouping, index: &index };
        let mut checked = 0;
        for id in 0..index.tracks.len() as u32 {
            let (track, _) = index.track(id).expect("track");
            let events = track_events(&profile, track);
            // Every depth's events in time order, computed apart: the expected walk.
            let mut by_depth: std::collections::BTreeMap<u16, Vec<usize>> = Default::default();
            for i in 0..events.len() {
                by_depth.entry(events.depth[i]).or_default().push(i);
            }
            for list in by_depth.values_mut() {
                list.sort_by_key(|&i| (events.start_ps.at(i), std::cmp::Reverse(events.duration_ps.at(i)), i));
                for (k, &i) in list.iter().enumerate() {
                    assert_eq!(neighbour_index(events, i, true), list.get(k + 1).copied(), "track {id} event {i}");
                    assert_eq!(neighbour_index(events, i, false), k.checked_sub(1).map(|p| list[p]), "track {id}");
                    checked += 1;
                }
            }
            // The answer: the next slice's details, where it is drawn.
            if let Some(list) = by_depth.values().find(|l| l.len() >= 2) {
                let TraceAnswer::Event { event } = neighbour(t, id, list[0] as u32, true) else {
                    panic!("track {id}: no next slice")
                };
                assert_eq!((event.at.track, event.at.event), (id, list[1] as u32));
                assert_eq!(event.at.depth, events.depth[list[0]]);
                assert!(event.at.start_ps >= events.start_ps.at(list[0]));
                let last = *list.last().expect("events") as u32;
                assert!(matches!(neighbour(t, id, last, true), TraceAnswer::Failed { .. }));
            }
        }
        assert!(checked > 20_000, "{checked} events checked");
        assert!(matches!(neighbour(t, u32::MAX, 0, true), TraceAnswer::Failed { .. }));
    }
}
