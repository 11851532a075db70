//! Messages between the page (main thread) and the analysis worker.
//!
//! Both sides are this crate, so the enums are shared; they cross the thread
//! boundary as plain JS objects made by `serde-wasm-bindgen`, tagged by a
//! `kind` field (`{kind: "host_info", ...}`). `File` objects cannot go through
//! serde, so an `Open` request travels in an envelope with the files beside it:
//! `{request: {kind: "open", paths: [...]}, files: [File, ...]}`.

use proflens_analysis::tools::framework_op_stats::FrameworkOpStats;
use proflens_analysis::tools::hlo_stats::HloStats;
use proflens_analysis::tools::info::HostInfo;
use proflens_analysis::passes::input_pipeline::HardwareType;
use proflens_analysis::passes::input_pipeline::InputPipelineAnalysis;
use proflens_analysis::passes::kernels::KernelRow;
use proflens_analysis::tools::memory_profile::MemoryProfile;
use proflens_analysis::tools::memory_viewer::MemoryViewer;
use proflens_analysis::tools::op_profile::OpProfile;
use proflens_analysis::tools::overview::OverviewPage;
use proflens_analysis::tools::pod_viewer::PodViewer;
use proflens_analysis::tools::framework_op_stats::pytorch::OperatorRow;
use proflens_analysis::tools::overview::pytorch::MultiRankOverview;
use proflens_analysis::tools::tf_data::TfDataAnalysis;
use proflens_analysis::passes::trace::search::NameSummary;
use proflens_analysis::passes::trace::EventDetails;
use serde::{Deserialize, Serialize};
use wasm_bindgen::{JsCast, JsValue};

use crate::tools::Tool;

/// Page → worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Request {
    /// Take these files (paths as the folder pick or drop gave them; the
    /// `File`s are in the envelope's `files`, same order) and list their runs.
    Open { paths: Vec<String> },
    /// Use the demo profile bundled in the wasm.
    OpenDemo,
    /// Read the runs of a log directory on the page's own origin from its
    /// `proflens-index.json` (written by `proflens-collect index`); the
    /// profiles are fetched when a host is chosen. `logdir` is an absolute URL.
    OpenLogdirUrl { logdir: String },
    /// Decode one host (cached), analyse it (cached) and answer with one
    /// tool's view model. `module` picks the memory viewer's XLA module.
    Tool {
        run: String,
        host: String,
        tool: Tool,
        #[serde(default)]
        module: Option<String>,
    },
    /// A trace-viewer query on one host's timeline (built once, cached
    /// beside the decoded profile). `seq` comes back with the answer.
    Trace { run: String, host: String, seq: u32, query: TraceQuery },
}

/// Worker → page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Response {
    /// The worker is listening.
    Ready,
    /// The runs and hosts found in the opened files.
    Logdir { runs: Vec<RunEntry>, skipped: Vec<SkippedEntry> },
    /// A decode or an analysis is under way; `fraction` (0..=1) is `None`
    /// when the phase cannot tell how far it is.
    Progress { fraction: Option<f64>, phase_label: String },
    /// The tools that have something to show for a host (sent when the
    /// worker learns it: from the host's file names, or once its file is
    /// decoded); the page disables the others in the tool selector.
    HostTools { run: String, host: String, tools: Vec<Tool> },
    /// The view model of the tool asked for.
    Tool { run: String, host: String, view: ToolView },
    /// The answer to a [`Request::Trace`]. An export's file travels beside
    /// the message as a `Blob` in its `blob` field.
    Trace { run: String, host: String, seq: u32, answer: TraceAnswer },
    /// A sentence for the person who opened the file.
    Error { message: String },
}

/// One tool's view model, tagged by the tool's id (`{tool: "overview_page", page: {...}}`).
/// The large ones are boxed so that messages stay small to move around.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "tool", rename_all = "snake_case")]
pub enum ToolView {
    Info {
        info: HostInfo,
        load: LoadStats,
    },
    OverviewPage {
        page: Box<OverviewPage>,
    },
    InputPipelineAnalyzer {
        analysis: Box<InputPipelineAnalysis>,
    },
    FrameworkOpStats {
        stats: Box<FrameworkOpStats>,
    },
    KernelStats {
        kernels: Vec<KernelRow>,
        hardware: HardwareType,
    },
    MemoryProfile {
        profile: Box<MemoryProfile>,
    },
    PodViewer {
        pod: Box<PodViewer>,
    },
    TfDataBottleneckAnalysis {
        analysis: Box<TfDataAnalysis>,
    },
    TraceViewer {
        layout: Box<TraceLayout>,
    },
    OpProfile {
        profile: Box<OpProfile>,
    },
    HloStats {
        stats: Box<HloStats>,
    },
    /// One module's buffers; `modules` lists every module by name (the
    /// selector), `failed` says why the chosen one has no viewer.
    MemoryViewer {
        modules: Vec<String>,
        module: String,
        viewer: Option<Box<MemoryViewer>>,
        failed: Option<String>,
    },
    /// A PyTorch trace's overview: each rank's steps and the distributed view.
    PytorchOverview {
        overview: Box<MultiRankOverview>,
    },
    /// A PyTorch trace's operators (host and device time per op).
    OperatorStats {
        rows: Vec<OperatorRow>,
    },
}

impl ToolView {
    pub fn tool(&self) -> Tool {
        match self {
            ToolView::Info { .. } => Tool::Info,
            ToolView::OverviewPage { .. } => Tool::OverviewPage,
            ToolView::InputPipelineAnalyzer { .. } => Tool::InputPipelineAnalyzer,
            ToolView::FrameworkOpStats { .. } => Tool::FrameworkOpStats,
            ToolView::KernelStats { .. } => Tool::KernelStats,
            ToolView::MemoryProfile { .. } => Tool::MemoryProfile,
            ToolView::PodViewer { .. } => Tool::PodViewer,
            ToolView::TfDataBottleneckAnalysis { .. } => Tool::TfDataBottleneckAnalysis,
            ToolView::TraceViewer { .. } => Tool::TraceViewer,
            ToolView::OpProfile { .. } => Tool::OpProfile,
            ToolView::HloStats { .. } => Tool::HloStats,
            ToolView::MemoryViewer { .. } => Tool::MemoryViewer,
            ToolView::PytorchOverview { .. } => Tool::OverviewPage,
            ToolView::OperatorStats { .. } => Tool::FrameworkOpStats,
        }
    }
}

/// What decoding a host's file cost, shown beside its info.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadStats {
    pub file_bytes: u64,
    /// Reading and decoding the file, wall-clock ms.
    pub decode_ms: f64,
    /// The worker's wasm memory afterwards (it never shrinks: the peak so far).
    pub wasm_memory_bytes: u64,
}

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
    /// The worker's wasm memory once the timeline is built.
    pub wasm_memory_bytes: u64,
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
}

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
    /// Events of `tracks` overlapping `[start_ps, end_ps]`, per name.
    Summary { tracks: Vec<u32>, start_ps: i64, end_ps: i64 },
    /// The trace as Chrome trace JSON, or only the events overlapping `range`.
    Export { range: Option<(i64, i64)> },
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
    /// `hits` ([`TraceHit`]s packed: see `tools::trace_viewer::boxes`) in time order.
    Search {
        hits: Bytes,
        total: u64,
    },
    Summary {
        start_ps: i64,
        end_ps: i64,
        tracks: u32,
        rows: Vec<NameSummary>,
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

/// Boxes to draw for a time window, packed: see `tools::trace_viewer::boxes`.
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
}

/// One event with its details.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceEvent {
    pub at: TraceHit,
    pub details: EventDetails,
    /// What the op-name parser makes of the name ("TensorFlow op MatMul"…).
    pub category: Option<String>,
    pub track_name: String,
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
    /// "launched", "launched by", "consumer", "producer".
    pub kind: String,
    pub name: String,
}

/// Bytes that cross to the other thread as one `Uint8Array`, not as an
/// array of numbers.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Bytes(pub Vec<u8>);

impl Serialize for Bytes {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(&self.0)
    }
}

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Bytes, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Bytes;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("bytes")
            }
            fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Bytes, E> {
                Ok(Bytes(v.to_vec()))
            }
            fn visit_byte_buf<E: serde::de::Error>(self, v: Vec<u8>) -> Result<Bytes, E> {
                Ok(Bytes(v))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Bytes, A::Error> {
                let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
                while let Some(b) = seq.next_element::<u8>()? {
                    out.push(b);
                }
                Ok(Bytes(out))
            }
        }
        deserializer.deserialize_byte_buf(Visitor)
    }
}

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
pub fn to_js<T: Serialize>(value: &T) -> Result<JsValue, String> {
    let serializer = serde_wasm_bindgen::Serializer::new().serialize_large_number_types_as_bigints(true);
    value.serialize(&serializer).map_err(|e| e.to_string())
}

pub fn from_js<T: serde::de::DeserializeOwned>(value: JsValue) -> Result<T, String> {
    serde_wasm_bindgen::from_value(value).map_err(|e| e.to_string())
}

/// `{request, files}`: the envelope every page → worker message uses.
pub fn envelope(request: &Request, files: Option<&js_sys::Array>) -> Result<JsValue, String> {
    let object = js_sys::Object::new();
    set(&object, "request", &to_js(request)?)?;
    if let Some(files) = files {
        set(&object, "files", files)?;
    }
    Ok(object.into())
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

fn set(object: &js_sys::Object, key: &str, value: &JsValue) -> Result<(), String> {
    js_sys::Reflect::set(object, &JsValue::from_str(key), value).map(|_| ()).map_err(|_| format!("could not set {key}"))
}
