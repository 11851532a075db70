//! Trace viewer data: the timeline as sections (one per plane: devices first,
//! then the host) of tracks (one per line, plus derived device tracks), with
//! level-of-detail queries for drawing and a Chrome-trace export.
//!
//! Events stay in the profile's columns; only derived tracks own new columns.

pub mod annotations;
pub mod collectives;
pub mod counters;
#[cfg(test)]
mod counters_tests;
pub mod derived;
pub mod export;
pub mod export_run;
pub mod flame;
pub mod index;
pub mod links;
pub mod range_stats;
pub mod run;
pub mod search;
pub mod stragglers;
pub mod window;

use crate::common::schema::{GPU_PLANE_PREFIX, HOST_PLANE, TPU_PLANE_PREFIX};
use crate::hlo::gpu::GpuHlo;
use crate::passes::grouping::{Grouping, FLAG_STEP_ROOT};
use proflens_model::{Counter, Events, Profile};
use serde::{Deserialize, Serialize};

/// Trace-viewer process id of the host plane (XProf's convention).
pub const HOST_PID: u32 = 701;

/// The whole timeline of one host.
pub struct Trace {
    pub sections: Vec<Section>,
}

pub struct Section {
    pub name: String,
    /// Chrome-trace pid: 1 + device id for devices, 701 for the host.
    pub pid: u32,
    /// Index of the plane in the profile.
    pub plane: usize,
    pub tracks: Vec<Track>,
}

pub struct Track {
    pub name: String,
    /// Chrome-trace tid (the line's display id).
    pub tid: i64,
    pub source: TrackSource,
}

pub enum TrackSource {
    /// A line of the file: (plane, line).
    Line(usize, usize),
    /// A track Proflens derived (Steps, XLA Ops, Framework Ops on GPUs).
    Derived(Box<DerivedTrack>),
    /// A counter series ([`counters`]); it has no slices.
    Counter(Box<Counter>),
}

/// Events of a derived track, with their own names.
#[derive(Debug, Default)]
pub struct DerivedTrack {
    pub events: Events,
    pub names: Vec<String>,
}

/// One event as the details pane shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventDetails {
    pub name: String,
    /// The raw metadata name when the shown name differs (XProf's `long_name`).
    pub long_name: Option<String>,
    pub start_ps: i64,
    pub duration_ps: i64,
    /// Duration minus the direct children on the same track.
    pub self_ps: i64,
    pub step: Option<String>,
    pub stats: Vec<(String, String)>,
}

impl Trace {
    /// The trace without the HLO of XLA programs ([`Trace::with_hlo`]).
    pub fn new(profile: &Profile, grouping: &Grouping) -> Trace {
        Trace::with_hlo(profile, grouping, &GpuHlo::new(&[]))
    }

    /// The trace; `hlo` names the framework ops of XLA kernels on GPUs.
    pub fn with_hlo(profile: &Profile, grouping: &Grouping, hlo: &GpuHlo<'_>) -> Trace {
        let mut device = Vec::new();
        let mut host = Vec::new();
        for (p, plane) in profile.planes.iter().enumerate() {
            let name = profile.str(plane.name);
            let is_device = name.starts_with(GPU_PLANE_PREFIX) || name.starts_with(TPU_PLANE_PREFIX);
            let mut tracks: Vec<Track> = Vec::with_capacity(plane.lines.len());
            for (l, line) in plane.lines.iter().enumerate() {
                if !is_device {
                    tracks.extend(derived::threadpool_regions(profile, p, l));
                }
                tracks.push(Track {
                    name: profile.str(line.shown_name()).to_string(),
                    tid: line.display_id,
                    source: TrackSource::Line(p, l),
                });
            }
            // Derived tracks go first, as in XProf's trace viewer.
            if name.starts_with(GPU_PLANE_PREFIX) {
                tracks.splice(0..0, derived::gpu_tracks(profile, grouping, hlo, p));
            } else if name.starts_with(TPU_PLANE_PREFIX) {
                tracks.splice(0..0, derived::tpu_tracks(profile, grouping, hlo, p));
            }
            // Counters go first, as in Perfetto.
            tracks.splice(0..0, counters::counter_tracks(profile, p));
            if tracks.is_empty() {
                continue;
            }
            let pid = if is_device { 1 + u32::try_from(plane.id).unwrap_or(0) } else { HOST_PID };
            let section = Section { name: name.to_string(), pid, plane: p, tracks };
            if is_device {
                device.push(section);
            } else if name == HOST_PLANE {
                host.insert(0, section);
            } else {
                host.push(section);
            }
        }
        device.sort_by_key(|s| s.pid);
        device.extend(host);
        Trace { sections: device }
    }

    pub fn event_count(&self, profile: &Profile) -> usize {
        self.sections.iter().flat_map(|s| &s.tracks).map(|t| track_events(profile, t).len()).sum()
    }
}

/// The event columns behind a track.
pub fn track_events<'a>(profile: &'a Profile, track: &'a Track) -> &'a Events {
    match &track.source {
        TrackSource::Line(p, l) => &profile.planes[*p].lines[*l].events,
        TrackSource::Derived(d) => &d.events,
        TrackSource::Counter(_) => &NO_EVENTS,
    }
}

static NO_EVENTS: Events = Events::new();

/// The counter series behind a track, if it is a counter track.
pub fn track_counter(track: &Track) -> Option<&Counter> {
    match &track.source {
        TrackSource::Counter(c) => Some(c),
        _ => None,
    }
}

/// The name shown for event `i` of a track: a step root takes its step's
/// name, else the metadata's display name, else its name.
pub fn event_name<'a>(profile: &'a Profile, grouping: &'a Grouping, track: &'a Track, i: usize) -> &'a str {
    match &track.source {
        TrackSource::Line(p, l) => {
            if grouping.flags(*p, *l, i) & FLAG_STEP_ROOT != 0 {
                if let Some(name) = grouping.group(*p, *l, i).and_then(|g| grouping.names.get(&g)) {
                    return name;
                }
            }
            let plane = &profile.planes[*p];
            let meta = &plane.event_metadata[plane.lines[*l].events.metadata[i] as usize];
            profile.str(meta.display_name.unwrap_or(meta.name))
        }
        TrackSource::Derived(d) => d.names.get(d.events.metadata[i] as usize).map_or("", String::as_str),
        TrackSource::Counter(_) => "",
    }
}

/// Everything about one event, for the details pane.
pub fn event_details(profile: &Profile, grouping: &Grouping, track: &Track, i: usize) -> Option<EventDetails> {
    let events = track_events(profile, track);
    if i >= events.len() {
        return None;
    }
    let name = event_name(profile, grouping, track, i).to_string();
    let (long_name, stats, step) = match &track.source {
        TrackSource::Line(p, l) => {
            let plane = &profile.planes[*p];
            let meta = &plane.event_metadata[events.metadata[i] as usize];
            let raw = profile.str(meta.name);
            let mut stats: Vec<(String, String)> = meta
                .stats
                .iter()
                .map(|s| (profile.str(s.key).to_string(), meta.stats.value(s, &profile.strings).to_string()))
                .collect();
            stats.extend(
                events
                    .stats
                    .of(i)
                    .map(|s| (profile.str(s.key).to_string(), events.stats.value(s, &profile.strings).to_string())),
            );
            let step = grouping.group(*p, *l, i).and_then(|g| grouping.names.get(&g).cloned());
            ((raw != name).then(|| raw.to_string()), stats, step)
        }
        TrackSource::Derived(_) | TrackSource::Counter(_) => (None, Vec::new(), None),
    };
    let children: i64 = (i + 1..events.len())
        .take_while(|&j| events.start_ps.at(j) < events.end_ps(i))
        .filter(|&j| events.depth[j] == events.depth[i].saturating_add(1))
        .map(|j| events.duration_ps.at(j))
        .fold(0i64, i64::saturating_add);
    Some(EventDetails {
        name,
        long_name,
        start_ps: events.start_ps.at(i),
        duration_ps: events.duration_ps.at(i),
        self_ps: events.duration_ps.at(i).saturating_sub(children).max(0),
        step,
        stats,
    })
}
