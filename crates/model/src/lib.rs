//! The in-memory profile model every tool reads.
//!
//! One [`Profile`] is one host's capture (one XSpace file). It is built for
//! tens of millions of events: each [`Line`] stores its events as parallel
//! columns (start, duration, metadata, depth, stat range) instead of one
//! struct per event, every string is interned once in the profile's
//! [`Interner`], and stats are packed key/value columns. Times are
//! picoseconds relative to [`Profile::origin_ns`], which is the wall-clock
//! start of the capture when the file records it.

mod counter;
pub mod hlo;
pub mod hlo_attributes;
mod interner;
mod owner_offsets;
mod stat_keys;
mod stats;
mod times;

pub use counter::Counter;
pub use interner::{char_prefix, Interner, StrId, MAX_STRING_BYTES};
pub use stats::{StatKind, StatList, StatRef, StatValue, Stats};
pub use times::Times;

/// One host's profile (one XSpace).
#[derive(Debug, Default, PartialEq)]
pub struct Profile {
    pub strings: Interner,
    pub planes: Vec<Plane>,
    /// Collector errors and warnings recorded in the file.
    pub errors: Vec<String>,
    pub warnings: Vec<String>,
    /// Host names recorded in the file (may differ from the file name).
    pub hostnames: Vec<String>,
    /// Wall-clock time (ns since the Unix epoch) that event time 0 stands for,
    /// when the file records it (`Task Environment` plane).
    pub origin_ns: Option<u64>,
    /// Wall-clock end of the capture (ns since the Unix epoch), when recorded.
    pub stop_ns: Option<u64>,
    /// The file format the profile was read from; analyses that only make
    /// sense for one producer (the PyTorch views) check it.
    pub origin: Origin,
}

/// Which profiler wrote the file a [`Profile`] was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Origin {
    /// An XSpace (`*.xplane.pb`) from the TensorFlow / JAX profiler.
    #[default]
    XSpace,
    /// Chrome trace JSON of another producer (XProf's legacy `trace.json.gz`,
    /// or any trace-event file).
    ChromeTrace,
    /// A PyTorch profiler (Kineto) trace, mapped onto XPlane conventions.
    Kineto,
}

/// A device, or one kind of host activity.
#[derive(Debug, Default, PartialEq)]
pub struct Plane {
    pub id: i64,
    pub name: StrId,
    pub lines: Vec<Line>,
    /// Event metadata, indexed by [`MetaIdx`] (dense, not the file's ids).
    pub event_metadata: Vec<EventMetadata>,
    /// Plane-level stats (device capabilities and the like).
    pub stats: StatList,
    /// Counter series recorded on this plane (Chrome trace `"ph":"C"`, nvidia-smi logs).
    pub counters: Vec<Counter>,
}

/// Dense index into [`Plane::event_metadata`].
pub type MetaIdx = u32;

#[derive(Debug, Default, PartialEq)]
pub struct EventMetadata {
    /// The id the file used.
    pub id: i64,
    pub name: StrId,
    /// Shown in the trace viewer instead of `name` when present.
    pub display_name: Option<StrId>,
    /// Stats shared by every occurrence of the event.
    pub stats: StatList,
    /// Children (e.g. the ops of a fusion), as dense indices.
    pub children: Vec<MetaIdx>,
}

/// A timeline: a host thread, a GPU stream, or a derived row.
#[derive(Debug, Default, PartialEq)]
pub struct Line {
    pub id: i64,
    pub display_id: i64,
    pub name: StrId,
    pub display_name: Option<StrId>,
    /// The line's own start (ps from the profile origin), which event offsets
    /// in the file were relative to; some tools report those offsets.
    pub timestamp_ps: i64,
    pub events: Events,
}

/// Events of one line as parallel columns, sorted by (start asc, duration desc).
#[derive(Debug, Default, PartialEq)]
pub struct Events {
    /// Start, ps relative to the profile origin.
    pub start_ps: Times,
    pub duration_ps: Times,
    pub metadata: Vec<MetaIdx>,
    /// Nesting depth within the line (0 = outermost); saturates at u16::MAX.
    pub depth: Vec<u16>,
    /// Per-occurrence stats.
    pub stats: Stats,
    /// Aggregated events (XEvent.num_occurrences) as (event index, count);
    /// such events have no real start time.
    pub aggregated: Vec<(u32, i64)>,
}

impl Events {
    /// No events (usable in a `static`: a counter track's slices).
    pub const fn new() -> Events {
        Events {
            start_ps: Times::new(),
            duration_ps: Times::new(),
            metadata: Vec::new(),
            depth: Vec::new(),
            stats: Stats::new(),
            aggregated: Vec::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.start_ps.len()
    }

    pub fn is_empty(&self) -> bool {
        self.start_ps.is_empty()
    }

    /// Room for `additional` more events' times and metadata, at once.
    pub fn reserve(&mut self, additional: usize) {
        self.start_ps.reserve(additional);
        self.duration_ps.reserve(additional);
        self.metadata.reserve_exact(additional);
    }

    /// Releases the room that growing the columns left unused.
    pub fn shrink_to_fit(&mut self) {
        self.start_ps.shrink_to_fit();
        self.duration_ps.shrink_to_fit();
        self.metadata.shrink_to_fit();
        self.depth.shrink_to_fit();
        self.stats.shrink_to_fit();
        self.aggregated.shrink_to_fit();
    }

    /// End of event `i` in ps.
    #[inline]
    pub fn end_ps(&self, i: usize) -> i64 {
        self.start_ps.at(i).saturating_add(self.duration_ps.at(i))
    }

    /// Earliest start and latest end over the line, if it has events.
    pub fn span_ps(&self) -> Option<(i64, i64)> {
        let first = self.start_ps.first()?;
        let ends = self.start_ps.iter().zip(&self.duration_ps).map(|(s, d)| s.saturating_add(d));
        let last_end = ends.max()?;
        Some((first, last_end))
    }
}

impl Profile {
    pub fn str(&self, id: StrId) -> &str {
        self.strings.get(id)
    }

    /// Total number of events over all planes and lines.
    pub fn event_count(&self) -> usize {
        self.planes.iter().map(Plane::event_count).sum()
    }

    /// Earliest start and latest end over all events, in ps.
    pub fn span_ps(&self) -> Option<(i64, i64)> {
        self.planes
            .iter()
            .flat_map(|p| p.lines.iter())
            .filter_map(|l| l.events.span_ps())
            .reduce(|a, b| (a.0.min(b.0), a.1.max(b.1)))
    }

    /// The wall-clock span the profile covers, ns since the Unix epoch:
    /// the capture window when the file records one, else its events' span
    /// from [`Profile::origin_ns`]; `None` without a wall-clock origin.
    pub fn wall_window_ns(&self) -> Option<(u64, u64)> {
        let origin = self.origin_ns?;
        if let Some(stop) = self.stop_ns.filter(|&stop| stop >= origin) {
            return Some((origin, stop));
        }
        let (start, end) = self.span_ps().unwrap_or((0, 0));
        Some((origin.saturating_add_signed(start / 1000), origin.saturating_add_signed(end / 1000)))
    }

    pub fn plane_by_name(&self, name: &str) -> Option<&Plane> {
        let id = self.strings.lookup(name)?;
        self.planes.iter().find(|p| p.name == id)
    }
}

impl Plane {
    pub fn event_count(&self) -> usize {
        self.lines.iter().map(|l| l.events.len()).sum()
    }
}

impl Line {
    /// Each string id of the line (names, stat keys and values) becomes
    /// `map[id]` ([`Stats::remap_strings`]).
    pub fn remap_strings(&mut self, map: &[StrId]) {
        self.name = map[self.name.0 as usize];
        self.display_name = self.display_name.map(|d| map[d.0 as usize]);
        self.events.stats.remap_strings(map);
    }

    /// The name to show: display name when present, else the name.
    pub fn shown_name(&self) -> StrId {
        self.display_name.unwrap_or(self.name)
    }
}

/// Computes nesting depth for events sorted by (start asc, duration desc):
/// an event is nested in the closest earlier event that still covers its start.
pub fn nesting_depths(start_ps: &Times, duration_ps: &Times) -> Vec<u16> {
    let mut depths = Vec::with_capacity(start_ps.len());
    // Ends of the currently open ancestors, innermost last.
    let mut open_ends: Vec<i64> = Vec::new();
    for (start, dur) in start_ps.iter().zip(duration_ps) {
        while open_ends.last().is_some_and(|&end| end <= start) {
            open_ends.pop();
        }
        depths.push(u16::try_from(open_ends.len()).unwrap_or(u16::MAX));
        open_ends.push(start.saturating_add(dur));
    }
    depths
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depths_follow_nesting() {
        // [0,100) contains [10,20) and [30,90) which contains [40,50); [100,110) is a sibling.
        let start = [0, 10, 30, 40, 100];
        let dur = [100, 10, 60, 10, 10];
        assert_eq!(nesting_depths(&start.into(), &dur.into()), vec![0, 1, 1, 2, 0]);
    }

    #[test]
    fn span_covers_longest_event() {
        let ev = Events { start_ps: [5, 6].into(), duration_ps: [100, 1].into(), ..Events::default() };
        assert_eq!(ev.span_ps(), Some((5, 105)));
        assert_eq!(Events::default().span_ps(), None);
    }

    #[test]
    fn the_wall_window_is_the_capture_or_the_events_span() {
        let mut p = Profile::default();
        assert_eq!(p.wall_window_ns(), None);
        p.origin_ns = Some(1_000_000);
        let events =
            Events { start_ps: [-2_000, 5_000].into(), duration_ps: [1_000, 10_000].into(), ..Events::default() };
        p.planes.push(Plane { lines: vec![Line { events, ..Line::default() }], ..Plane::default() });
        assert_eq!(p.wall_window_ns(), Some((999_998, 1_000_015)));
        p.stop_ns = Some(3_000_000);
        assert_eq!(p.wall_window_ns(), Some((1_000_000, 3_000_000)));
    }
}
