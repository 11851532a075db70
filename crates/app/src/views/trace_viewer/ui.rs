//! What the DOM around the canvas shows: the panes' states and the signals
//! behind them ([`Ui`]). The viewer writes them; the components read them.

use std::sync::Arc;

use leptos::prelude::*;
use proflens_analysis::passes::trace::search::NameSummary;

use super::track_prefs::TrackPrefs;
use crate::protocol::{TraceEvent, TraceLink};

/// The details pane.
#[derive(Debug, Clone, PartialEq)]
pub enum Details {
    Empty,
    Loading,
    Shown(Arc<TraceEvent>),
    Failed(String),
}

/// The range summary pane.
#[derive(Debug, Clone, PartialEq)]
pub enum Summary {
    Empty,
    Loading,
    Shown(Arc<SummaryView>),
    Failed(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct SummaryView {
    pub start_ps: i64,
    pub end_ps: i64,
    pub tracks: u32,
    pub rows: Arc<Vec<NameSummary>>,
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
    pub search: RwSignal<SearchState>,
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
            search: RwSignal::new(SearchState::default()),
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
