//! The trace viewer's timeline of one host: its tracks in order with what
//! the viewer's queries need of each (span, deepest nesting, longest
//! event), and the flow-arrow index once a selection asks for it.

use super::links::LinkIndex;
use super::window::max_duration;
use super::{track_counter, track_events, Trace, Track};
use crate::hlo::gpu::GpuHlo;
use crate::passes::grouping::Grouping;
use proflens_model::Profile;

/// Rows a counter track's area chart takes.
pub const COUNTER_ROWS: u16 = 3;

/// A host's timeline and what queries need about each track.
pub struct TraceIndex {
    pub trace: Trace,
    /// Per track, numbered across sections in order.
    pub tracks: Vec<TrackMeta>,
    pub span: (i64, i64),
    pub events: u64,
    /// The flow-arrow index, built at the first selection that asks.
    pub links: std::cell::OnceCell<LinkIndex>,
    /// Building it took (ms), as the caller measured.
    pub build_ms: f64,
}

pub struct TrackMeta {
    pub section: usize,
    pub index: usize,
    /// The longest event: how far before a window an overlapping event may start.
    pub max_duration: i64,
    /// Rows the track needs: its deepest nesting level plus one.
    pub rows: u16,
}

impl TraceIndex {
    /// The timeline of `profile`; `hlo` names the framework ops of XLA kernels on GPUs.
    pub fn new(profile: &Profile, grouping: &Grouping, hlo: &GpuHlo<'_>) -> TraceIndex {
        let trace = Trace::with_hlo(profile, grouping, hlo);
        let mut tracks = Vec::new();
        let mut span: Option<(i64, i64)> = None;
        let mut events = 0u64;
        for (s, section) in trace.sections.iter().enumerate() {
            for (index, track) in section.tracks.iter().enumerate() {
                let columns = track_events(profile, track);
                events += columns.len() as u64;
                if let Some((a, b)) = columns.span_ps() {
                    span = Some(span.map_or((a, b), |(x, y)| (x.min(a), y.max(b))));
                }
                let deepest = columns.depth.iter().copied().max().unwrap_or(0);
                let mut rows = deepest.saturating_add(1);
                if let Some(counter) = track_counter(track) {
                    rows = COUNTER_ROWS;
                    if let Some((a, b)) = counter.span_ps() {
                        span = Some(span.map_or((a, b), |(x, y)| (x.min(a), y.max(b))));
                    }
                }
                tracks.push(TrackMeta { section: s, index, max_duration: max_duration(columns), rows });
            }
        }
        TraceIndex { trace, tracks, span: span.unwrap_or((0, 0)), events, links: Default::default(), build_ms: 0.0 }
    }

    /// A track by its number across sections, with what queries need of it.
    pub fn track(&self, id: u32) -> Option<(&Track, &TrackMeta)> {
        let meta = self.tracks.get(id as usize)?;
        Some((self.trace.sections.get(meta.section)?.tracks.get(meta.index)?, meta))
    }
}
