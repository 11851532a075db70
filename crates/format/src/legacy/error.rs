//! Why a legacy tool file could not be read, in words that name the tool.

use super::LegacyTool;
use std::fmt;

#[derive(Debug, Clone, PartialEq)]
pub enum LegacyError {
    /// Zero bytes (or a gzip file holding nothing).
    Empty { tool: Option<LegacyTool> },
    /// The gzip wrapper or a size limit failed.
    Container { tool: Option<LegacyTool>, source: crate::Error },
    /// The protobuf framing is broken (truncated, wrong wire types).
    Protobuf { tool: LegacyTool, detail: String },
    /// The JSON does not parse.
    Json { tool: Option<LegacyTool>, detail: String },
    /// Well-formed, but not what this tool's file holds.
    Shape { tool: LegacyTool, detail: String },
    /// Neither the name nor the content is a legacy tool file.
    NotLegacy,
}

impl LegacyError {
    pub fn tool(&self) -> Option<LegacyTool> {
        match self {
            LegacyError::Empty { tool } | LegacyError::Container { tool, .. } | LegacyError::Json { tool, .. } => *tool,
            LegacyError::Protobuf { tool, .. } | LegacyError::Shape { tool, .. } => Some(*tool),
            LegacyError::NotLegacy => None,
        }
    }
}

fn what(tool: Option<LegacyTool>) -> String {
    match tool {
        Some(t) => format!("legacy {} file", t.file_stem()),
        None => "legacy tool file".to_string(),
    }
}

impl fmt::Display for LegacyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LegacyError::Empty { tool } => write!(f, "The {} is empty.", what(*tool)),
            LegacyError::Container { tool, source } => write!(f, "The {} could not be opened: {source}", what(*tool)),
            LegacyError::Protobuf { tool, detail } => write!(
                f,
                "The {} is damaged or truncated ({detail}); copy it again from the profiler's log directory.",
                what(Some(*tool))
            ),
            LegacyError::Json { tool, detail } => {
                write!(f, "The {} is not valid JSON ({detail}).", what(*tool))
            }
            LegacyError::Shape { tool, detail } => {
                write!(f, "The {} does not hold {} data: {detail}.", what(Some(*tool)), tool.file_stem())
            }
            LegacyError::NotLegacy => write!(
                f,
                "This is not a legacy TensorFlow profiler tool file (<host>.overview_page.pb, .input_pipeline.pb, .tensorflow_stats.pb, .kernel_stats.pb, or an XProf tool's JSON)."
            ),
        }
    }
}

impl std::error::Error for LegacyError {}
