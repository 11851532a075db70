//! Legacy TensorFlow profiler tool files: the per-tool results that older
//! profilers wrote beside (or instead of) `<host>.xplane.pb`, and the JSON
//! that XProf's web server returned for a tool.
//!
//! A file is recognised by its name (`<host>.overview_page.pb`, …, see
//! [`tool_file`]) and checked by its content; a JSON file with an unhelpful
//! name is recognised by its content alone ([`sniff_json`]). [`decode`] gives
//! a plain [`LegacyFile`]; `proflens_analysis::common::legacy` turns it into the view
//! models the tools already render.

mod error;
mod json;

pub use error::LegacyError;
pub use json::{sniff_json, GvizColumn, GvizTable};

use crate::proto;
use crate::Limits;
use prost::Message;

/// The tool a legacy file belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LegacyTool {
    OverviewPage,
    InputPipeline,
    /// `tensorflow_stats`: XProf's `framework_op_stats` today.
    TensorflowStats,
    KernelStats,
    OpProfile,
    PodViewer,
    MemoryViewer,
    MemoryProfile,
}

impl LegacyTool {
    pub const ALL: [LegacyTool; 8] = [
        LegacyTool::OverviewPage,
        LegacyTool::InputPipeline,
        LegacyTool::TensorflowStats,
        LegacyTool::KernelStats,
        LegacyTool::OpProfile,
        LegacyTool::PodViewer,
        LegacyTool::MemoryViewer,
        LegacyTool::MemoryProfile,
    ];

    /// The middle part of the file name: `<host>.<stem>.<ext>`.
    pub fn file_stem(self) -> &'static str {
        match self {
            LegacyTool::OverviewPage => "overview_page",
            LegacyTool::InputPipeline => "input_pipeline",
            LegacyTool::TensorflowStats => "tensorflow_stats",
            LegacyTool::KernelStats => "kernel_stats",
            LegacyTool::OpProfile => "op_profile",
            LegacyTool::PodViewer => "pod_viewer",
            LegacyTool::MemoryViewer => "memory_viewer",
            LegacyTool::MemoryProfile => "memory_profile",
        }
    }

    /// The extensions the profiler wrote for this tool (gzip variants aside).
    pub fn extensions(self) -> &'static [&'static str] {
        match self {
            LegacyTool::OverviewPage | LegacyTool::InputPipeline => &["pb", "json"],
            LegacyTool::TensorflowStats | LegacyTool::KernelStats => &["pb"],
            _ => &["json"],
        }
    }
}

/// Recognises a legacy tool file by its name: `(host, tool)`. The host is
/// empty for the bare names TF 2.2's remote capture returned
/// (`overview_page.pb`); the caller chooses a host name for those.
/// A `.gz` suffix is accepted on the JSON files.
pub fn tool_file(file_name: &str) -> Option<(String, LegacyTool)> {
    let name = file_name.rsplit(['/', '\\']).next().unwrap_or(file_name);
    let (name, _) = strip_gz(name);
    for tool in LegacyTool::ALL {
        for ext in tool.extensions() {
            let suffix = format!("{}.{ext}", tool.file_stem());
            if name == suffix {
                return Some((String::new(), tool));
            }
            if let Some(host) = name.strip_suffix(&suffix).and_then(|h| h.strip_suffix('.')) {
                if !host.is_empty() {
                    return Some((host.to_string(), tool));
                }
            }
        }
    }
    None
}

fn strip_gz(name: &str) -> (&str, bool) {
    match name.strip_suffix(".gz") {
        Some(inner) if inner.ends_with(".json") => (inner, true),
        _ => (name, false),
    }
}

/// A decoded legacy tool file. Protobuf files keep their generated types
/// (for `proflens_analysis::common::legacy` only; the UI sees view models); JSON
/// files keep XProf's JSON, checked for the tool's shape.
#[derive(Debug, Clone, PartialEq)]
pub enum LegacyFile {
    OverviewPage(Box<proto::OverviewPage>),
    InputPipeline(Box<proto::InputPipelineAnalysisResult>),
    TensorflowStats(proto::TfStatsDatabase),
    KernelStats(proto::KernelStatsDb),
    /// XProf's overview JSON: an array of DataTables.
    OverviewTables(Vec<GvizTable>),
    /// XProf's input pipeline JSON: an array of DataTables.
    InputPipelineTables(Vec<GvizTable>),
    /// XProf's framework_op_stats JSON: `[with IDLE, without IDLE]`.
    TensorflowStatsTables(Vec<GvizTable>),
    /// XProf's kernel_stats JSON: one DataTable.
    KernelStatsTables(Vec<GvizTable>),
    /// proto3 JSON of `op_profile.Profile`.
    OpProfile(serde_json::Value),
    /// proto3 JSON of `PodViewerDatabase`.
    PodViewer(serde_json::Value),
    /// XProf's memory viewer JSON (`PreprocessResult`).
    MemoryViewer(serde_json::Value),
    /// proto3 JSON of `MemoryProfile`.
    MemoryProfile(serde_json::Value),
}

impl LegacyFile {
    pub fn tool(&self) -> LegacyTool {
        match self {
            LegacyFile::OverviewPage(_) | LegacyFile::OverviewTables(_) => LegacyTool::OverviewPage,
            LegacyFile::InputPipeline(_) | LegacyFile::InputPipelineTables(_) => LegacyTool::InputPipeline,
            LegacyFile::TensorflowStats(_) | LegacyFile::TensorflowStatsTables(_) => LegacyTool::TensorflowStats,
            LegacyFile::KernelStats(_) | LegacyFile::KernelStatsTables(_) => LegacyTool::KernelStats,
            LegacyFile::OpProfile(_) => LegacyTool::OpProfile,
            LegacyFile::PodViewer(_) => LegacyTool::PodViewer,
            LegacyFile::MemoryViewer(_) => LegacyTool::MemoryViewer,
            LegacyFile::MemoryProfile(_) => LegacyTool::MemoryProfile,
        }
    }
}

/// Whether the start of a JSON text mentions a key of an XProf tool JSON.
pub fn is_tool_json_head(head: &[u8]) -> bool {
    looks_like_json(head) && json::has_marker(head)
}

/// Whether `bytes` (raw or gzip) are a legacy tool file, without decoding it
/// all: the tool named by `file_name`, else the tool a JSON body's shape
/// shows. `None` for XSpace and anything else.
pub fn recognise(file_name: &str, bytes: &[u8], limits: &Limits) -> Option<LegacyTool> {
    if let Some((_, tool)) = tool_file(file_name) {
        return Some(tool);
    }
    // The markers sit near the start: a trace is told apart without
    // decompressing it all (the page does this before decoding the trace).
    let head = crate::text_head(bytes, json::MARKER_WINDOW);
    if !looks_like_json(&head) || !json::has_marker(&head) {
        return None;
    }
    let raw = unpack(None, bytes, limits).ok()?;
    let value: serde_json::Value = serde_json::from_slice(&raw).ok()?;
    sniff_json(&value)
}

/// Decodes a legacy tool file (raw or gzip). The name decides the tool when it
/// is a legacy name; otherwise a JSON body's shape does. Content that does
/// not fit the tool is a [`LegacyError`] naming the tool.
pub fn decode(file_name: &str, bytes: &[u8], limits: &Limits) -> Result<LegacyFile, LegacyError> {
    let by_name = tool_file(file_name).map(|(_, tool)| tool);
    if bytes.len() as u64 > limits.max_input_bytes {
        let source = crate::Error::TooLarge { what: "file", limit: limits.max_input_bytes };
        return Err(LegacyError::Container { tool: by_name, source });
    }
    let raw = unpack(by_name, bytes, limits)?;
    match by_name {
        Some(tool) if !looks_like_json(&raw) => decode_protobuf(tool, &raw),
        Some(tool) => {
            let value = parse_json(Some(tool), &raw)?;
            match sniff_json(&value) {
                Some(found) if found == tool => json::into_file(tool, value),
                Some(found) => {
                    Err(LegacyError::Shape { tool, detail: format!("it holds {} data instead", found.file_stem()) })
                }
                None => Err(LegacyError::Shape { tool, detail: "the JSON has none of the tool's fields".into() }),
            }
        }
        None if looks_like_json(&raw) => {
            let value = parse_json(None, &raw)?;
            let tool = sniff_json(&value).ok_or(LegacyError::NotLegacy)?;
            json::into_file(tool, value)
        }
        None => Err(LegacyError::NotLegacy),
    }
}

fn unpack(tool: Option<LegacyTool>, bytes: &[u8], limits: &Limits) -> Result<Vec<u8>, LegacyError> {
    if bytes.is_empty() {
        return Err(LegacyError::Empty { tool });
    }
    let raw = if bytes.starts_with(&[0x1f, 0x8b]) {
        crate::inflate::gunzip(bytes, limits.max_decompressed_bytes, &mut |_| {})
            .map_err(|source| LegacyError::Container { tool, source })?
    } else {
        bytes.to_vec()
    };
    if raw.is_empty() {
        return Err(LegacyError::Empty { tool });
    }
    Ok(match crate::json_text(&raw) {
        std::borrow::Cow::Owned(text) => text,
        std::borrow::Cow::Borrowed(text) if text.len() < raw.len() => text.to_vec(),
        std::borrow::Cow::Borrowed(_) => raw,
    })
}

fn looks_like_json(raw: &[u8]) -> bool {
    matches!(raw.iter().find(|b| !b.is_ascii_whitespace()), Some(b'{') | Some(b'['))
}

fn parse_json(tool: Option<LegacyTool>, raw: &[u8]) -> Result<serde_json::Value, LegacyError> {
    serde_json::from_slice(raw).map_err(|e| LegacyError::Json { tool, detail: e.to_string() })
}

fn decode_protobuf(tool: LegacyTool, raw: &[u8]) -> Result<LegacyFile, LegacyError> {
    let bad = |e: prost::DecodeError| LegacyError::Protobuf { tool, detail: e.to_string() };
    let missing = |what: &str| LegacyError::Shape { tool, detail: format!("it has no {what}") };
    // A message that decodes but has none of the tool's content is another
    // kind of protobuf (protobuf decoding alone accepts many byte strings).
    match tool {
        LegacyTool::OverviewPage => {
            let page = proto::OverviewPage::decode(raw).map_err(bad)?;
            if page.input_analysis.is_none() && page.analysis.is_none() && page.run_environment.is_none() {
                return Err(missing("step analysis, op analysis or run environment"));
            }
            Ok(LegacyFile::OverviewPage(Box::new(page)))
        }
        LegacyTool::InputPipeline => {
            let result = proto::InputPipelineAnalysisResult::decode(raw).map_err(bad)?;
            if result.hardware_type.is_empty() && result.step_time_summary.is_none() && result.step_details.is_empty() {
                return Err(missing("hardware type, step summary or steps"));
            }
            Ok(LegacyFile::InputPipeline(Box::new(result)))
        }
        LegacyTool::TensorflowStats => {
            let db = proto::TfStatsDatabase::decode(raw).map_err(bad)?;
            if db.with_idle.is_none() && db.without_idle.is_none() {
                return Err(missing("op table"));
            }
            Ok(LegacyFile::TensorflowStats(db))
        }
        LegacyTool::KernelStats => {
            let db = proto::KernelStatsDb::decode(raw).map_err(bad)?;
            if db.reports.iter().all(|r| r.name.is_empty()) {
                return Err(missing("named kernel"));
            }
            Ok(LegacyFile::KernelStats(db))
        }
        _ => Err(LegacyError::Shape { tool, detail: "this tool's files are JSON, but the content is not JSON".into() }),
    }
}

/// Decodes the `value` bytes of an `Any` as `M` (the step records of the
/// input pipeline, its breakdown and recommendations).
pub fn unpack_any<M: Message + Default>(any: &proto::LegacyAny) -> Result<M, prost::DecodeError> {
    M::decode(any.value.as_slice())
}

#[cfg(test)]
mod tests;
