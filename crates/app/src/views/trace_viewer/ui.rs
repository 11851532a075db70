//! What the DOM around the canvas shows: the panes' states and the signals
//! behind them ([`Ui`]). The viewer writes them; the components read them.

use std::sync::Arc;

use leptos::prelude::*;
use proflens_analysis::passes::trace::flame::FlameGraph;
use proflens_analysis::passes::trace::range_stats::RangeStats;

use super::track_prefs::TrackPrefs;
use crate::protocol::{TraceEvent, TraceHit, TraceLink};

/// The details pane.
#[derive(Debug, Clone, PartialEq)]
pub enum Details {
    Empty,
    Loading,
    Shown(Arc<TraceEvent>),
    Failed(String),
}

/// The range pane's statistics.
#[derive(Debug, Clone, PartialEq)]
pub enum Summary {
    Empty,
    Loading,
    Shown(Arc<RangeStats>),
    Failed(String),
}

/// The range pane's flame graph.
#[derive(Debug, Clone, PartialEq)]
pub enum Flame {
    Empty,
    Loading,
    Shown(Arc<FlameGraph>),
    Failed(String),
}

/// A match in the list under the search box.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchItem {
    pub hit: TraceHit,
    pub name: String,
    pub track: String,
}

/// What the search line says.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SearchState {
    pub busy: bool,
    /// Matches in the trace, once counted.
    pub total: Option<u64>,
    /// Matches on hand to step through (at most [`MAX_HITS`](crate::protocol::MAX_HITS)).
    pub on_hand: usize,
    pub current: Option<usize>,
    pub error: Option<String>,
}

/// The hover card: CSS pixels within the canvas box.
#[derive(Debug, Clone, PartialEq)]
pub struct Tooltip {
    pub x: f64,
    pub y: f64,
    /// Near the right edge the card goes left of the pointer.
    pub flip: bool,
    pub name: String,
    pub detail: String,
}

/// The signals behind the DOM around the canvas.
#[derive(Clone, Copy)]
pub struct Ui {
    pub details: RwSignal<Details>,
    /// The selected event's linked events; `None` while they are looked for.
    pub links: RwSignal<Option<Arc<Vec<TraceLink>>>>,
    pub summary: RwSignal<Summary>,
    pub flame: RwSignal<Flame>,
    pub search: RwSignal<SearchState>,
    /// The first matches, listed (at most [`SEARCH_LIST`](crate::protocol::SEARCH_LIST)).
    pub search_list: RwSignal<Arc<Vec<SearchItem>>>,
    pub tooltip: RwSignal<Option<Tooltip>>,
    /// The time range on screen, ps.
    pub range: RwSignal<(f64, f64)>,
    /// What "Export selection" would export, ps.
    pub selection: RwSignal<Option<(f64, f64)>>,
    pub export: RwSignal<Option<Result<String, String>>>,
    pub exporting: RwSignal<bool>,
    /// The user's layout of the tracks (order, pins, hidden, filter).
    pub tracks: RwSignal<TrackPrefs>,
    /// The track finder's search while it is open.
    pub finder: RwSignal<Option<String>>,
}

impl Ui {
    pub fn new() -> Ui {
        Ui {
            details: RwSignal::new(Details::Empty),
            links: RwSignal::new(Some(Arc::new(Vec::new()))),
            summary: RwSignal::new(Summary::Empty),
            flame: RwSignal::new(Flame::Empty),
            search: RwSignal::new(SearchState::default()),
            search_list: RwSignal::new(Arc::new(Vec::new())),
            tooltip: RwSignal::new(None),
            range: RwSignal::new((0.0, 0.0)),
            selection: RwSignal::new(None),
            export: RwSignal::new(None),
            exporting: RwSignal::new(false),
            tracks: RwSignal::new(TrackPrefs::default()),
            finder: RwSignal::new(None),
        }
    }
}
