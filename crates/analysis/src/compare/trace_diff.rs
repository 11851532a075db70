//! HTA's trace diff (`TraceDiff.compare_traces`). Placeholder until the
//! implementation lands.

use super::model::TraceDiff;
use crate::context::ToolError;
use proflens_model::Profile;

/// Per event name, counts and summed durations over `control_iterations`
/// and `test_iterations` (`ProfilerStep#N` numbers; `None`: every step of
/// the trace), as HTA's `TraceDiff.compare_traces` with `device_type=ALL`.
pub fn trace_diff(
    _control: &Profile,
    _test: &Profile,
    _control_iterations: Option<&[i64]>,
    _test_iterations: Option<&[i64]>,
) -> Result<TraceDiff, ToolError> {
    Err(ToolError::Failed("the trace diff is not implemented yet".into()))
}
