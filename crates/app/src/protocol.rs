//! Messages between the page (main thread) and the analysis worker.
//!
//! Both sides are this crate, so the enums are shared; they cross the thread
//! boundary as plain JS objects made by `serde-wasm-bindgen`, tagged by a
//! `kind` field (`{kind: "host_info", ...}`). `File` objects cannot go through
//! serde, so an `Open` request travels in an envelope with the files beside it:
//! `{request: {kind: "open", paths: [...]}, files: [File, ...]}`.

use proflens_analysis::framework_op_stats::FrameworkOpStats;
use proflens_analysis::info::HostInfo;
use proflens_analysis::input_pipeline::InputPipelineAnalysis;
use proflens_analysis::overview::OverviewPage;
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
    /// Decode one host (cached), analyse it (cached) and answer with one
    /// tool's view model.
    Tool { run: String, host: String, tool: Tool },
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
    /// The view model of the tool asked for.
    Tool { run: String, host: String, view: ToolView },
    /// A sentence for the person who opened the file.
    Error { message: String },
}

/// One tool's view model, tagged by the tool's id (`{tool: "overview_page", page: {...}}`).
/// The large ones are boxed so that messages stay small to move around.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "tool", rename_all = "snake_case")]
pub enum ToolView {
    Info { info: HostInfo, load: LoadStats },
    OverviewPage { page: Box<OverviewPage> },
    InputPipelineAnalyzer { analysis: Box<InputPipelineAnalysis> },
    FrameworkOpStats { stats: Box<FrameworkOpStats> },
}

impl ToolView {
    pub fn tool(&self) -> Tool {
        match self {
            ToolView::Info { .. } => Tool::Info,
            ToolView::OverviewPage { .. } => Tool::OverviewPage,
            ToolView::InputPipelineAnalyzer { .. } => Tool::InputPipelineAnalyzer,
            ToolView::FrameworkOpStats { .. } => Tool::FrameworkOpStats,
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
