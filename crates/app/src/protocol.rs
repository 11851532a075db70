//! Messages between the page (main thread) and the analysis worker.
//!
//! Both sides are this crate, so the enums are shared; they cross the thread
//! boundary as plain JS objects made by `serde-wasm-bindgen`, tagged by a
//! `kind` field (`{kind: "host_info", ...}`). `File` objects cannot go through
//! serde, so an `Open` request travels in an envelope with the files beside it:
//! `{request: {kind: "open", paths: [...]}, files: [File, ...]}`.
//! Likewise a tool's view model travels beside its [`Response::Tool`] in the
//! message's `model` field (a JS object made from the analysis's model, read
//! back by the view that renders it), and a trace export's file in `blob`.
//!
//! Tools are named by their ids in `proflens_analysis::registry` and views
//! by the view names of its outputs: this module knows no tool.

pub mod boxes;
pub mod samples;

use proflens_analysis::passes::trace::flame::FlameGraph;
use proflens_analysis::passes::trace::range_stats::RangeStats;
use proflens_analysis::passes::trace::EventDetails;
use serde::{Deserialize, Serialize};
use wasm_bindgen::{JsCast, JsValue};

/// Page → worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Request {
    /// Take these files (paths as the folder pick or drop gave them; the
    /// `File`s are in the envelope's `files`, same order) and list their runs.
    /// With `append`, they join the open ones (to compare them): a run whose
    /// name is taken gets a number, and the answer lists every run.
    Open {
        paths: Vec<String>,
        #[serde(default)]
        append: bool,
    },
    /// Run the overview once on a small profile of the worker's own, to
    /// have its code optimised before the user's first file; answered with
    /// [`Response::WarmedUp`], or an error that says why it could not be.
    WarmUp,
    /// Open the demo `id` of `crate::demos`, its files fetched on demand
    /// from `base` (the absolute URL of the page's `demos/` folder).
    OpenDemo { id: String, base: String },
    /// Read the runs of a log directory on the page's own origin from its
    /// `proflens-index.json` (written by `proflens-collect index`); the
    /// profiles are fetched when a host is chosen. `logdir` is an absolute URL.
    OpenLogdirUrl { logdir: String },
    /// Run one tool (by its registry id) on one host, or on every host of
    /// the run when `host` is [`ALL_HOSTS`], and answer with its view model.
    /// `module` picks the memory viewer's (and graph viewer's) XLA module,
    /// `graph` the graph viewer's node, hops and fusion drawing.
    Tool {
        run: String,
        host: String,
        tool: String,
        #[serde(default)]
        module: Option<String>,
        #[serde(default)]
        graph: Option<GraphRequest>,
        /// The critical path's step, by its place (`None`: the first): the
        /// page shows one step's path at a time.
        #[serde(default)]
        step: Option<usize>,
        /// How many workers the page may run at once (0 or 1: this worker
        /// alone). With more, a tool of all hosts whose hosts have no
        /// analysis yet is answered with [`Response::Summarize`] first.
        #[serde(default)]
        workers: u32,
    },
    /// To an extra worker (`bridge/pool.rs`): decode one host from its files
    /// (in the envelope's `files`, named by `paths`), answer with its
    /// summary's bytes ([`Response::Summary`]) and drop its events.
    Summarize { host: String, paths: Vec<String> },
    /// The summaries the extra workers computed for hosts of `run`: the
    /// summary of `hosts[i]` is the `Uint8Array` at `i` of the message's
    /// [`SUMMARIES`] field. `failed` hosts are left to this worker, which
    /// meets their errors as it would alone.
    GiveSummaries {
        run: String,
        hosts: Vec<String>,
        #[serde(default)]
        failed: Vec<String>,
    },
    /// Compare `tool` on a baseline (`base_run`, `base_host`) with a
    /// candidate (`run`, `host`); either host may be [`ALL_HOSTS`]. `tool`
    /// is one of `proflens_analysis::compare::TOOLS`. The answer is a
    /// [`Response::Compare`] with the comparison as its [`MODEL`].
    Compare { base_run: String, base_host: String, run: String, host: String, tool: String },
    /// A trace-viewer query on one host's timeline (built once, cached
    /// beside the decoded profile). `seq` comes back with the answer.
    Trace { run: String, host: String, seq: u32, query: TraceQuery },
}

/// What the graph viewer draws: around which instruction (default: the
/// entry's root), how many hops, fusions as one node or expanded.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GraphRequest {
    pub node: Option<String>,
    pub graph_width: Option<u32>,
    pub merge_fusion: bool,
}

/// Worker → page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Response {
    /// The worker is listening.
    Ready,
    /// A [`Request::WarmUp`] is done (the loader then ends the worker that
    /// ran it); the views it computed are the message's [`MODEL`] field
    /// (an array of `[view, model]` pairs).
    WarmedUp,
    /// The runs and hosts found in the opened files.
    Logdir { runs: Vec<RunEntry>, skipped: Vec<SkippedEntry> },
    /// A decode or an analysis is under way; `fraction` (0..=1) is `None`
    /// when the phase cannot tell how far it is.
    Progress { fraction: Option<f64>, phase_label: String },
    /// The tools that have something to show for a host (sent when the
    /// worker learns it: from the host's file names, or once its file is
    /// decoded); the page disables the others in the tool selector.
    HostTools { run: String, host: String, tools: Vec<String> },
    /// The answer of the tool asked for: `view` names the view that renders
    /// it; the model itself is the message's [`MODEL`] field.
    Tool {
        run: String,
        host: String,
        tool: String,
        view: String,
        /// The worker's wasm memory when it answered (it never shrinks: the peak so far).
        wasm_memory_bytes: u64,
    },
    /// The answer to a [`Request::Compare`]: the comparison is the
    /// message's [`MODEL`] field.
    Compare { base_run: String, base_host: String, run: String, host: String, tool: String, wasm_memory_bytes: u64 },
    /// The answer to a [`Request::Trace`]. An export's file travels beside
    /// the message as a `Blob` in its `blob` field.
    Trace { run: String, host: String, seq: u32, answer: TraceAnswer },
    /// A sentence for the person who opened the file.
    Error { message: String },
    /// Before a tool of all hosts: these hosts of `run` have no analysis
    /// yet; their files are in the message's `files` field (an array per
    /// host, named by `paths`). The page summarises them in extra workers,
    /// gives the summaries back ([`Request::GiveSummaries`]) and asks again.
    Summarize { run: String, host: String, tool: String, hosts: Vec<String>, paths: Vec<Vec<String>> },
    /// An extra worker's answer to [`Request::Summarize`]: the summary's
    /// bytes are the message's [`SUMMARY`] field (a transferred `Uint8Array`);
    /// the extra worker's wasm memory after it (its peak so far: for the
    /// pod benchmark, `tests/browser/bench/pods.mjs`).
    Summary { host: String, wasm_memory_bytes: u64 },
    /// An extra worker could not summarise `host`.
    SummaryFailed { host: String, message: String },
}

/// The host-selector entry that stands for every host of a run together.
pub const ALL_HOSTS: &str = "All hosts";

/// The field of a [`Response::Tool`] message that holds the view model.
pub const MODEL: &str = "model";
/// The field of a [`Response::Summary`] message that holds the summary.
pub const SUMMARY: &str = "summary";
/// The field of a [`Request::GiveSummaries`] envelope that holds the summaries.
pub const SUMMARIES: &str = "summaries";
/// The field of an envelope or message that holds files.
pub const FILES: &str = "files";
/// The field of a [`TraceAnswer::Export`] message that holds the file.
pub const BLOB: &str = "blob";

/// Most search hits sent back (the total is counted in full).
pub const MAX_HITS: u32 = 100_000;
/// Search hits listed by name under the search box (the DOM stays small;
/// Previous/Next step through all [`MAX_HITS`]).
pub const SEARCH_LIST: usize = 500;

/// What the trace viewer asks about one host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "query", rename_all = "snake_case")]
pub enum TraceQuery {
    /// Boxes of `tracks` overlapping `[start_ps, end_ps]`, merged below one
    /// pixel of a `width_px`-wide drawing of that range.
    Window { tracks: Vec<u32>, start_ps: i64, end_ps: i64, width_px: u32 },
    /// Everything about one event.
    Event { track: u32, event: u32 },
    /// The events linked to one (flow arrows): a scan of the whole trace,
    /// so asked for apart from the details, which come at once.
    Links { track: u32, event: u32 },
    /// Events whose name matches (substring, or regular expression).
    Search { pattern: String, regex: bool, limit: u32 },
    /// Statistics of the events of `tracks` overlapping `[start_ps, end_ps]`,
    /// per name and per track.
    Summary { tracks: Vec<u32>, start_ps: i64, end_ps: i64 },
    /// The flame graph of `tracks` in `[start_ps, end_ps]`.
    Flame { tracks: Vec<u32>, start_ps: i64, end_ps: i64 },
    /// The trace as Chrome trace JSON, or only the events overlapping `range`.
    Export { range: Option<(i64, i64)> },
    /// The event at a model position (what an analysis names), answered as
    /// [`TraceAnswer::Event`] with where it is drawn.
    Locate { at: EventAt },
    /// The next (`forward`) or previous slice at the same depth on the
    /// event's track, answered as [`TraceAnswer::Event`] (`.` and `,`).
    Neighbour { track: u32, event: u32, forward: bool },
}

/// An event by its place in the profile: plane, line and index in the line
/// (what analyses name, e.g. a critical path's segment or an outlier launch).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventAt {
    pub plane: usize,
    pub line: usize,
    pub index: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "answer", rename_all = "snake_case")]
pub enum TraceAnswer {
    Window {
        window: Box<TraceWindow>,
    },
    Event {
        event: Box<TraceEvent>,
    },
    Links {
        track: u32,
        event: u32,
        links: Vec<TraceLink>,
    },
    /// `hits` ([`TraceHit`]s packed: see [`boxes`]) in time order; `names`
    /// are the names of the first [`SEARCH_LIST`] of them, for the list of matches.
    Search {
        hits: Bytes,
        total: u64,
        #[serde(default)]
        names: Vec<String>,
    },
    /// A range's statistics per name and per track.
    Summary {
        stats: Box<RangeStats>,
    },
    /// A range's flame graph.
    Flame {
        flame: Box<FlameGraph>,
    },
    /// The file is the message's `blob`.
    Export {
        file_name: String,
        events: u64,
        bytes: u64,
    },
    /// A sentence for the user (a bad regular expression, an unknown track…).
    Failed {
        message: String,
    },
}

/// Boxes to draw for a time window, packed: see [`boxes`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceWindow {
    pub start_ps: i64,
    pub end_ps: i64,
    pub width_px: u32,
    pub tracks: Vec<TrackBoxes>,
    /// Names the boxes point to.
    pub names: Vec<String>,
    /// Time the worker spent on it, ms.
    pub compute_ms: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrackBoxes {
    pub track: u32,
    pub boxes: Bytes,
    /// A counter track's samples ([`samples`]); empty for slices.
    #[serde(default)]
    pub samples: Bytes,
}

/// One event with its details.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceEvent {
    pub at: TraceHit,
    pub details: EventDetails,
    /// What the op-name parser makes of the name ("TensorFlow op MatMul"…).
    pub category: Option<String>,
    pub track_name: String,
    /// Its model position (for the URL); `None` on a derived track.
    #[serde(default)]
    pub model_at: Option<EventAt>,
}

/// Where an event is drawn: track, index, time span and nesting depth.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TraceHit {
    pub track: u32,
    pub event: u32,
    pub start_ps: i64,
    pub end_ps: i64,
    pub depth: u16,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceLink {
    pub to: TraceHit,
    /// "launched", "launched by", "consumer", "producer", or "flow to
    /// <category>" / "flow from <category>" (trace-event flows).
    pub kind: String,
    pub name: String,
}

/// Bytes that cross to the other thread as one `Uint8Array`, not as an
/// array of numbers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Bytes(#[serde(with = "proflens_analysis::common::byte_column")] pub Vec<u8>);

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunEntry {
    pub name: String,
    pub hosts: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SkippedEntry {
    pub path: String,
    pub reason: String,
}

/// Serialises a message; 64-bit integers (wall-clock ns) become BigInts so
/// none loses precision.
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, String> {
    let serializer = serde_wasm_bindgen::Serializer::new().serialize_large_number_types_as_bigints(true);
    value.serialize(&serializer).map_err(|e| e.to_string())
}

pub fn from_js<T: serde::de::DeserializeOwned>(value: JsValue) -> Result<T, String> {
    serde_wasm_bindgen::from_value(value).map_err(|e| e.to_string())
}

/// Sets a field of a message made by [`to_js`] (what cannot go through serde).
pub fn attach(message: &JsValue, key: &str, value: &JsValue) -> Result<(), String> {
    js_sys::Reflect::set(message, &JsValue::from_str(key), value)
        .map(|_| ())
        .map_err(|_| format!("could not set {key}"))
}

/// A field set by [`attach`], if the message has it.
pub fn attached(message: &JsValue, key: &str) -> Option<JsValue> {
    js_sys::Reflect::get(message, &JsValue::from_str(key)).ok().filter(|v| !v.is_undefined())
}

/// `{request, files}`: the envelope every page → worker message uses.
pub fn envelope(request: &Request, files: Option<&js_sys::Array>) -> Result<JsValue, String> {
    let object: JsValue = js_sys::Object::new().into();
    attach(&object, "request", &to_js(request)?)?;
    if let Some(files) = files {
        attach(&object, "files", files)?;
    }
    Ok(object)
}

/// Opens an envelope: the request and the files that came with it.
pub fn open_envelope(message: &JsValue) -> Result<(Request, Vec<web_sys::File>), String> {
    let request = js_sys::Reflect::get(message, &JsValue::from_str("request"))
        .map_err(|_| "the message has no request".to_string())?;
    let request: Request = from_js(request)?;
    let files = js_sys::Reflect::get(message, &JsValue::from_str("files"))
        .ok()
        .filter(|f| f.is_object())
        .map(|f| js_sys::Array::from(&f).iter().filter_map(|v| v.dyn_into::<web_sys::File>().ok()).collect())
        .unwrap_or_default();
    Ok((request, files))
}
