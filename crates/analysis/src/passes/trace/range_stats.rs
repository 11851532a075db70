//! Statistics of a selected time range, per event name and per track.
//!
//! For the events of the selected tracks that overlap `[start_ps, end_ps]`:
//! - **total** and **self** are clipped to the range (the parts of an event
//!   outside it are not counted); self is an event's clipped time minus the
//!   clipped time of its direct children on the same track (depth + 1);
//! - **min, max, average, p50/p90/p99** describe the events' whole durations
//!   (what one event of that name takes), percentiles by nearest rank: the
//!   smallest duration with at least p % of the events at or below it;
//! - **share** is self time ÷ the time on offer: range × selected tracks for
//!   a name (so a column of shares adds up to the tracks' busy fraction),
//!   range for a track (the fraction of the range the track is busy).

use std::collections::HashMap;

use super::window::{max_duration, overlapping_indexes};
use super::{event_name, track_events, Trace};
use crate::passes::grouping::Grouping;
use proflens_model::Profile;
use serde::{Deserialize, Serialize};

/// One row: the events of one name, or of one track.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RangeRow {
    /// The event name, or the track's name.
    pub name: String,
    /// The track's number (across sections) in the per-track table.
    pub track: Option<u32>,
    pub count: u64,
    /// Time within the range.
    pub total_ps: i64,
    /// Time within the range minus the direct children's.
    pub self_ps: i64,
    pub min_ps: i64,
    pub max_ps: i64,
    pub average_ps: f64,
    pub p50_ps: i64,
    pub p90_ps: i64,
    pub p99_ps: i64,
    /// Self time ÷ (range × tracks) for a name, ÷ range for a track (0..=1).
    pub share: f64,
}

/// A range's statistics; rows longest total first.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RangeStats {
    pub start_ps: i64,
    pub end_ps: i64,
    pub tracks: u32,
    pub by_name: Vec<RangeRow>,
    pub by_track: Vec<RangeRow>,
}

/// Durations and times of one group of events, gathered before the row.
#[derive(Default)]
struct Gathered {
    durations: Vec<i64>,
    total_ps: i64,
    self_ps: i64,
}

impl Gathered {
    fn row(mut self, name: String, track: Option<u32>, offered_ps: f64) -> RangeRow {
        self.durations.sort_unstable();
        let count = self.durations.len() as u64;
        let sum: f64 = self.durations.iter().map(|&d| d as f64).sum();
        RangeRow {
            name,
            track,
            count,
            total_ps: self.total_ps,
            self_ps: self.self_ps,
            min_ps: self.durations.first().copied().unwrap_or(0),
            max_ps: self.durations.last().copied().unwrap_or(0),
            average_ps: if count == 0 { 0.0 } else { sum / count as f64 },
            p50_ps: nearest_rank(&self.durations, 50.0),
            p90_ps: nearest_rank(&self.durations, 90.0),
            p99_ps: nearest_rank(&self.durations, 99.0),
            share: if offered_ps > 0.0 { self.self_ps as f64 / offered_ps } else { 0.0 },
        }
    }
}

/// The nearest-rank percentile of sorted values: the value at rank
/// ⌈p/100 × n⌉ (1-based); 0 for none.
pub fn nearest_rank(sorted: &[i64], p: f64) -> i64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// One overlapping event of a track: its clipped time and, once its
/// children are taken off, its clipped self time.
pub(crate) struct Overlap {
    pub index: usize,
    pub depth: u16,
    pub clipped_ps: i64,
    pub self_ps: i64,
}

/// The events of one track overlapping `[start_ps, end_ps]`, in order, with
/// clipped total and self times.
pub(crate) fn overlapping(events: &proflens_model::Events, start_ps: i64, end_ps: i64) -> Vec<Overlap> {
    let mut out: Vec<Overlap> = Vec::new();
    // Index in `out` of the open event at each depth: the parent of the next deeper one.
    let mut open: Vec<usize> = Vec::new();
    for i in overlapping_indexes(events, max_duration(events), start_ps, end_ps) {
        let (s, e) = (events.start_ps.at(i), events.end_ps(i));
        let depth = events.depth.get(i).copied().unwrap_or(0);
        let clipped = e.min(end_ps).saturating_sub(s.max(start_ps)).max(0);
        let d = depth as usize;
        open.truncate(d);
        if d > 0 && open.len() == d && open[d - 1] != usize::MAX {
            let parent = &mut out[open[d - 1]];
            parent.self_ps = parent.self_ps.saturating_sub(clipped).max(0);
        }
        // A missing level (not expected of nesting depths) is no one's parent.
        open.resize(d, usize::MAX);
        open.push(out.len());
        out.push(Overlap { index: i, depth, clipped_ps: clipped, self_ps: clipped });
    }
    out
}

/// The statistics of `[start_ps, end_ps]` over `tracks` (numbered across sections).
pub fn range_stats(
    profile: &Profile,
    grouping: &Grouping,
    trace: &Trace,
    tracks: &[u32],
    start_ps: i64,
    end_ps: i64,
) -> RangeStats {
    let mut gather = RangeGather::new(start_ps, end_ps);
    gather.add(profile, grouping, trace, tracks, 0, |t| t);
    gather.finish()
}

/// A range's statistics gathered a timeline at a time (one host, or every
/// host of a run, each on its own clock), then finished into rows: the
/// percentiles need every duration, so hosts' rows could not be merged.
pub struct RangeGather {
    start_ps: i64,
    end_ps: i64,
    by_name: HashMap<String, Gathered>,
    by_track: Vec<RangeRow>,
    tracks: u32,
}

impl RangeGather {
    pub fn new(start_ps: i64, end_ps: i64) -> RangeGather {
        let (start_ps, end_ps) = (start_ps.min(end_ps), start_ps.max(end_ps));
        RangeGather { start_ps, end_ps, by_name: HashMap::new(), by_track: Vec::new(), tracks: 0 }
    }

    /// Adds `tracks` of one timeline whose clock is `offset_ps` behind the
    /// range's; `id` gives the number a track's row carries.
    pub fn add(
        &mut self,
        profile: &Profile,
        grouping: &Grouping,
        trace: &Trace,
        tracks: &[u32],
        offset_ps: i64,
        id: impl Fn(u32) -> u32,
    ) {
        let (start_ps, end_ps) = (self.start_ps.saturating_sub(offset_ps), self.end_ps.saturating_sub(offset_ps));
        let all: Vec<_> = trace.sections.iter().flat_map(|s| &s.tracks).collect();
        let range = end_ps.saturating_sub(start_ps) as f64;
        for &t in tracks {
            let Some(track) = all.get(t as usize) else { continue };
            self.tracks += 1;
            let events = track_events(profile, track);
            let mut mine = Gathered::default();
            for o in overlapping(events, start_ps, end_ps) {
                let duration = events.duration_ps.at(o.index);
                let name = event_name(profile, grouping, track, o.index);
                if !self.by_name.contains_key(name) {
                    self.by_name.insert(name.to_string(), Gathered::default());
                }
                let g = self.by_name.get_mut(name).expect("inserted above");
                for g in [g, &mut mine] {
                    g.durations.push(duration);
                    g.total_ps = g.total_ps.saturating_add(o.clipped_ps);
                    g.self_ps = g.self_ps.saturating_add(o.self_ps);
                }
            }
            if !mine.durations.is_empty() {
                self.by_track.push(mine.row(track.name.clone(), Some(id(t)), range));
            }
        }
    }

    pub fn finish(self) -> RangeStats {
        let offered = self.end_ps.saturating_sub(self.start_ps) as f64 * f64::from(self.tracks);
        let mut by_name: Vec<RangeRow> = self.by_name.into_iter().map(|(name, g)| g.row(name, None, offered)).collect();
        let mut by_track = self.by_track;
        let order = |a: &RangeRow, b: &RangeRow| b.total_ps.cmp(&a.total_ps).then_with(|| a.name.cmp(&b.name));
        by_name.sort_by(order);
        by_track.sort_by(order);
        RangeStats { start_ps: self.start_ps, end_ps: self.end_ps, tracks: self.tracks, by_name, by_track }
    }
}

#[cfg(test)]
#[path = "range_stats_tests.rs"]
pub(crate) mod tests;
