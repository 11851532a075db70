//! The trace viewer's entry: the timeline's layout (sections of tracks, the
//! time span). The events themselves are asked for window by window through
//! the queries over [`crate::passes::trace`].

pub mod run_layout;
mod tool;

pub use run_layout::{run_layout, HostPart};
pub use tool::TraceViewerTool;

use crate::passes::trace::index::TraceIndex;
use crate::passes::trace::run::HostSpan;
use crate::passes::trace::stragglers::StepStraggler;
use crate::passes::trace::{track_counter, track_events};
use proflens_model::Profile;
use serde::{Deserialize, Serialize};

/// The timeline's shape: sections (planes, devices first) of tracks, with
/// what the page needs to lay them out before any event is drawn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceLayout {
    pub sections: Vec<SectionLayout>,
    /// Earliest start and latest end over every track (ps from the profile origin).
    pub start_ps: i64,
    pub end_ps: i64,
    pub events: u64,
    /// Building the timeline (grouping, derived tracks), wall-clock ms.
    pub build_ms: f64,
    /// A run's hosts on one timeline ("All hosts"): each host's sections and
    /// tracks, in order; empty for one host.
    #[serde(default)]
    pub hosts: Vec<HostSpan>,
    /// Per step, the host that finished it last (several hosts only).
    #[serde(default)]
    pub stragglers: Vec<StepStraggler>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SectionLayout {
    pub name: String,
    pub tracks: Vec<TrackLayout>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrackLayout {
    /// The track's number across all sections, as queries name it.
    pub id: u32,
    pub name: String,
    /// Rows the track needs: its deepest nesting level plus one.
    pub rows: u16,
    pub events: u64,
    /// Slices, or a counter drawn as an area chart.
    #[serde(default, skip_serializing_if = "TrackKind::is_slices")]
    pub kind: TrackKind,
    /// A counter's unit, largest value and number of samples.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counter: Option<CounterLayout>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TrackKind {
    #[default]
    Slices,
    Counter,
}

impl TrackKind {
    fn is_slices(&self) -> bool {
        *self == TrackKind::Slices
    }
}

/// What the page needs to draw a counter's axis before its samples come.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CounterLayout {
    pub unit: String,
    /// The axis top (the largest value, at least 0).
    pub max: f64,
    pub samples: u64,
}

/// The layout of a host's timeline.
pub fn layout(profile: &Profile, index: &TraceIndex) -> TraceLayout {
    let mut id = 0u32;
    let sections = index
        .trace
        .sections
        .iter()
        .map(|section| SectionLayout {
            name: section.name.clone(),
            tracks: section
                .tracks
                .iter()
                .map(|track| {
                    let rows = index.tracks.get(id as usize).map_or(1, |m| m.rows);
                    let counter = track_counter(track).map(|c| CounterLayout {
                        unit: c.unit.clone(),
                        max: c.max_value(),
                        samples: c.len() as u64,
                    });
                    let t = TrackLayout {
                        id,
                        name: track.name.clone(),
                        rows,
                        events: track_events(profile, track).len() as u64,
                        kind: if counter.is_some() { TrackKind::Counter } else { TrackKind::Slices },
                        counter,
                    };
                    id += 1;
                    t
                })
                .collect(),
        })
        .collect();
    TraceLayout {
        sections,
        start_ps: index.span.0,
        end_ps: index.span.1,
        events: index.events,
        build_ms: index.build_ms,
        hosts: Vec::new(),
        stragglers: Vec::new(),
    }
}
