//! What the page shows, as signals. Only view models live here; the worker
//! holds files and profiles.

use crate::tool_names;
use leptos::prelude::*;
use wasm_bindgen::JsValue;

use crate::protocol::{RunEntry, SkippedEntry};
use crate::views::{TraceRange, TraceTarget};

#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    /// Nothing under way.
    Idle,
    /// The worker is listing files, decoding a host or analysing it.
    Loading { fraction: Option<f64>, label: String },
    /// A host is on screen.
    Ready,
    /// The user stopped a decode; the files are still open.
    Cancelled,
}

/// The runs and hosts of the opened files.
#[derive(Debug, Clone, PartialEq)]
pub struct Opened {
    /// The demo these files are (`crate::demos` id), if they are one.
    pub demo: Option<String>,
    pub runs: Vec<RunEntry>,
    pub skipped: Vec<SkippedEntry>,
}

impl Opened {
    pub fn hosts_of(&self, run: &str) -> Vec<String> {
        self.runs.iter().find(|r| r.name == run).map(|r| r.hosts.clone()).unwrap_or_default()
    }

    pub fn has(&self, run: &str, host: &str) -> bool {
        self.runs.iter().any(|r| r.name == run && r.hosts.iter().any(|h| h == host))
    }
}

/// The host and tool whose view model is on screen.
#[derive(Debug, Clone)]
pub struct Shown {
    pub run: String,
    pub host: String,
    /// The view that renders the model (a view name of the registry's outputs).
    pub view: String,
    /// The view model as the worker sent it; the view reads it.
    pub model: JsValue,
    /// The worker's wasm memory when it answered.
    pub wasm_memory_bytes: u64,
}

/// One side of a comparison: a host of a run, or `ALL_HOSTS` of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pick {
    pub run: String,
    pub host: String,
}

/// The tools that have something to show for one host, as the worker found.
#[derive(Debug, Clone, PartialEq)]
pub struct HostTools {
    pub run: String,
    pub host: String,
    /// Tool ids.
    pub tools: Vec<String>,
}

#[derive(Clone, Copy)]
pub struct AppState {
    pub opened: RwSignal<Option<Opened>>,
    pub run: RwSignal<String>,
    pub host: RwSignal<String>,
    /// The chosen tool's id (`proflens_analysis::registry`).
    pub tool: RwSignal<&'static str>,
    /// The tools the worker found for a host; the others are disabled in
    /// the selector while that host is chosen.
    pub host_tools: RwSignal<Option<HostTools>>,
    /// The baseline a comparison compares the chosen run and host (the
    /// candidate) with; `None` outside compare mode.
    pub base: RwSignal<Option<Pick>>,
    /// Whether both sides last compared are PyTorch traces (the trace diff
    /// is offered then).
    pub both_pytorch: RwSignal<bool>,
    /// The XLA module the memory viewer shows (`None`: the largest).
    pub module: RwSignal<Option<String>>,
    /// What the graph viewer draws (`None`: around the entry's root).
    pub graph: RwSignal<Option<crate::protocol::GraphRequest>>,
    /// The step the critical path shows (`None`: the first).
    pub step: RwSignal<Option<usize>>,
    /// The event the trace viewer is to show (`event=` in the URL).
    pub trace_target: RwSignal<Option<TraceTarget>>,
    /// The trace viewer's visible time range (`t=` in the URL).
    pub trace_range: RwSignal<Option<TraceRange>>,
    pub status: RwSignal<Status>,
    /// Kept on this thread: the model is a JS object.
    pub shown: RwSignal<Option<Shown>, LocalStorage>,
    /// A plain-words message for `#error`.
    pub error: RwSignal<Option<String>>,
    /// A short note such as "Cancelled.".
    pub notice: RwSignal<Option<String>>,
    /// Seconds the busy worker has said nothing, once that is unusually long
    /// (the watchdog in `bridge`).
    pub stalled_s: RwSignal<Option<u32>>,
}

impl AppState {
    pub fn new() -> AppState {
        AppState {
            opened: RwSignal::new(None),
            run: RwSignal::new(String::new()),
            host: RwSignal::new(String::new()),
            tool: RwSignal::new(tool_names::TOOLS[0].id),
            host_tools: RwSignal::new(None),
            base: RwSignal::new(None),
            both_pytorch: RwSignal::new(false),
            module: RwSignal::new(None),
            graph: RwSignal::new(None),
            step: RwSignal::new(None),
            trace_target: RwSignal::new(None),
            trace_range: RwSignal::new(None),
            status: RwSignal::new(Status::Idle),
            shown: RwSignal::new_local(None),
            error: RwSignal::new(None),
            notice: RwSignal::new(None),
            stalled_s: RwSignal::new(None),
        }
    }

    /// Whether the chosen host has something to show in `tool` (true until
    /// the worker has said otherwise).
    pub fn offers(&self, tool: &str) -> bool {
        self.host_tools.with(|known| match known {
            Some(k) if k.run == self.run.get() && k.host == self.host.get() => k.tools.iter().any(|t| t == tool),
            _ => true,
        })
    }

    /// The candidate: the run and host chosen in the selectors.
    pub fn candidate_untracked(&self) -> Pick {
        Pick { run: self.run.get_untracked(), host: self.host.get_untracked() }
    }

    pub fn is_loading(&self) -> bool {
        matches!(self.status.get_untracked(), Status::Loading { .. })
    }
}
