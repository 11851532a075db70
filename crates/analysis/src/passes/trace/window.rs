//! Level of detail: what to draw of a track in a time window at a given
//! resolution. Events narrower than a pixel merge with their neighbours at
//! the same depth, so a frame never carries more than two boxes per pixel
//! and depth (a sub-pixel event right after a wide one keeps its own box),
//! however many events the profile has.

use proflens_model::Events;
use serde::{Deserialize, Serialize};

/// A box to draw: one event, or several merged ones (`merged` > 1).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Rect {
    pub start_ps: i64,
    pub end_ps: i64,
    pub depth: u16,
    /// The first event of the box (index into the track's events).
    pub event: u32,
    /// How many events the box stands for.
    pub merged: u32,
}

/// Longest event duration of a track, which bounds how far before a window
/// an overlapping event can start.
pub fn max_duration(events: &Events) -> i64 {
    events.duration_ps.iter().max().unwrap_or(0)
}

/// Indexes of the events overlapping `[start_ps, end_ps]`, in order: from
/// the first that may (no event is longer than `max_duration`) to the last
/// that starts in the window.
pub fn overlapping_indexes(
    events: &Events,
    max_duration: i64,
    start_ps: i64,
    end_ps: i64,
) -> impl Iterator<Item = usize> + '_ {
    let from = events.start_ps.partition_point(|s| s < start_ps.saturating_sub(max_duration));
    (from..events.len())
        .take_while(move |&i| events.start_ps.at(i) <= end_ps)
        .filter(move |&i| events.end_ps(i) >= start_ps)
}

/// Boxes of `events` overlapping `[start_ps, end_ps]`, merged below
/// `ps_per_pixel` (the width one screen pixel stands for).
pub fn visible(events: &Events, max_duration: i64, start_ps: i64, end_ps: i64, ps_per_pixel: f64) -> Vec<Rect> {
    let mut out: Vec<Rect> = Vec::new();
    if events.is_empty() || end_ps < start_ps {
        return out;
    }
    let pixel = ps_per_pixel.max(1.0);
    // Index in `out` of the last box at each depth, to extend it.
    let mut last_at_depth: Vec<Option<usize>> = Vec::new();
    for i in overlapping_indexes(events, max_duration, start_ps, end_ps) {
        let (s, e) = (events.start_ps.at(i), events.end_ps(i));
        let depth = events.depth.get(i).copied().unwrap_or(0);
        let d = depth as usize;
        if last_at_depth.len() <= d {
            last_at_depth.resize(d + 1, None);
        }
        let small = (e.saturating_sub(s) as f64) < pixel;
        if small {
            if let Some(k) = last_at_depth[d] {
                let prev = &mut out[k];
                // Merge into the previous box when it is small too and this one starts within a pixel of its end.
                let prev_small = prev.merged > 1 || (prev.end_ps.saturating_sub(prev.start_ps) as f64) < pixel;
                if prev_small && (s.saturating_sub(prev.end_ps) as f64) < pixel {
                    prev.end_ps = prev.end_ps.max(e);
                    prev.merged += 1;
                    continue;
                }
            }
        }
        out.push(Rect { start_ps: s, end_ps: e, depth, event: i as u32, merged: 1 });
        last_at_depth[d] = Some(out.len() - 1);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proflens_model::{nesting_depths, Times};

    fn events(spans: &[(i64, i64)]) -> Events {
        let start_ps: Times = spans.iter().map(|s| s.0).collect();
        let duration_ps: Times = spans.iter().map(|s| s.1).collect();
        let depth = nesting_depths(&start_ps, &duration_ps);
        Events { start_ps, duration_ps, depth, ..Events::default() }
    }

    #[test]
    fn tiny_neighbours_merge_and_wide_events_stay() {
        // One wide event holding 1000 one-ps events, then a wide sibling.
        let mut spans = vec![(0, 10_000)];
        spans.extend((0..1000).map(|k| (k * 2, 1)));
        spans.push((20_000, 5_000));
        let ev = events(&spans);
        let rects = visible(&ev, max_duration(&ev), 0, 30_000, 100.0);
        let depth1: Vec<&Rect> = rects.iter().filter(|r| r.depth == 1).collect();
        assert_eq!(depth1.len(), 1, "the 1000 tiny events become one box");
        assert_eq!(depth1[0].merged, 1000);
        assert_eq!(rects.iter().filter(|r| r.depth == 0).count(), 2);
        // Zoomed in, every event is its own box.
        let close = visible(&ev, max_duration(&ev), 0, 100, 0.01);
        assert_eq!(close.iter().filter(|r| r.depth == 1).count(), 51, "starts 0, 2, …, 100");
    }

    #[test]
    fn window_finds_events_that_start_before_it() {
        let ev = events(&[(0, 1_000_000), (2_000_000, 10)]);
        let rects = visible(&ev, max_duration(&ev), 500_000, 600_000, 10.0);
        assert_eq!(rects.len(), 1);
        assert_eq!(rects[0].event, 0);
        assert!(visible(&ev, max_duration(&ev), 3_000_000, 4_000_000, 10.0).is_empty());
    }
}
