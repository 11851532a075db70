//! Profile info as a registry tool: the planes, lines and stats of a file.

use super::{host_info, HostInfo};
use crate::context::{Format, HostContext, Inputs, LoadStats, Output, Rendered, Request, Tool, ToolError};
use serde::{Deserialize, Serialize};

pub struct InfoTool;

/// What the file holds, and what loading it cost.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InfoPage {
    pub info: HostInfo,
    pub load: LoadStats,
}

impl Tool for InfoTool {
    fn id(&self) -> &'static str {
        "info"
    }

    fn label(&self) -> &'static str {
        "Profile info"
    }

    fn formats(&self) -> &'static [Format] {
        &[Format::Json]
    }

    /// Counts over the events, nothing per event.
    fn working_bytes_per_event(&self, _: crate::context::Held) -> u64 {
        0
    }

    fn inputs(&self) -> Inputs {
        Inputs { xspace: true, kineto: true, tool_set_trace: true, ..Inputs::default() }
    }

    fn run(&self, host: &HostContext, _: &Request) -> Result<Output, ToolError> {
        let profile = host.profile()?;
        host.progress("Summarising");
        let load = host.load_stats().unwrap_or_default();
        Ok(Output::new("info", InfoPage { info: host_info(&profile), load }))
    }
}

impl Rendered for InfoPage {}
