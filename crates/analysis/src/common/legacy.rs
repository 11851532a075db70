//! What the converters of legacy tool files share: each tool turns its own
//! legacy file (`proflens_format::legacy` decodes it) into the view model it
//! renders for an XSpace; these are the helpers they have in common.

use proflens_format::legacy::{LegacyError, LegacyTool};
use serde_json::Value;

/// A shape error of a legacy JSON file, naming its tool.
pub fn shape(tool: LegacyTool, detail: impl Into<String>) -> LegacyError {
    LegacyError::Shape { tool, detail: detail.into() }
}

/// proto3 JSON numbers: int64 as strings, doubles as numbers.
pub fn number(v: Option<&Value>) -> Option<f64> {
    match v? {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.parse().ok(),
        _ => None,
    }
}
