//! HLO op stats as a registry tool: one row per HLO instruction.

use super::{hlo_stats, to_csv, to_xprof_json, HloStats};
use crate::context::{HostContext, Inputs, Output, Rendered, Request, Tool, ToolError};
use serde_json::Value;

pub struct HloStatsTool;

impl Tool for HloStatsTool {
    fn id(&self) -> &'static str {
        "hlo_stats"
    }

    fn label(&self) -> &'static str {
        "HLO op stats"
    }

    fn inputs(&self) -> Inputs {
        Inputs { xspace: true, ..Inputs::default() }
    }

    fn run(&self, host: &HostContext, _: &Request) -> Result<Output, ToolError> {
        // Without XLA programs XProf answers a table of no rows.
        if host.xla_programs_if_any()?.modules.is_empty() {
            return Ok(Output::new("hlo_stats", HloStats::default()));
        }
        Ok(Output::new("hlo_stats", hlo_stats(&*host.xla_ops()?)))
    }
}

impl Rendered for HloStats {
    fn csv(&self) -> Result<String, ToolError> {
        Ok(to_csv(self))
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn xprof(&self) -> Result<Value, ToolError> {
        Ok(to_xprof_json(self))
    }
}
