//! The memory profile as a registry tool. It describes one host: allocators
//! belong to one process.

use super::{breakdown_csv, legacy, memory_profile, to_xprof_json, MemoryProfile};
use crate::context::{HostContext, Inputs, Output, Rendered, Request, Tool, ToolError};
use proflens_format::legacy::{LegacyFile, LegacyTool};
use serde_json::Value;

pub struct MemoryProfileTool;

impl Tool for MemoryProfileTool {
    fn id(&self) -> &'static str {
        "memory_profile"
    }

    fn label(&self) -> &'static str {
        "Memory profile"
    }

    fn inputs(&self) -> Inputs {
        // PyTorch traces too: the importer maps `[memory]` events to allocator events.
        Inputs { xspace: true, kineto: true, tool_files: &[LegacyTool::MemoryProfile], ..Inputs::default() }
    }

    fn run(&self, host: &HostContext, _: &Request) -> Result<Output, ToolError> {
        if let Some(file) = host.tool_file(LegacyTool::MemoryProfile) {
            let LegacyFile::MemoryProfile(value) = &*file? else {
                return Err(ToolError::Failed("not a memory profile file".into()));
            };
            let view = legacy::memory_profile_from_json(value).map_err(|e| e.to_string())?;
            return Ok(Output::new("memory_profile", view));
        }
        let (profile, grouping) = (host.profile()?, host.grouping()?);
        host.progress("Following the allocators");
        Ok(Output::new("memory_profile", memory_profile(&profile, &grouping)))
    }
}

impl Rendered for MemoryProfile {
    fn csv(&self) -> Result<String, ToolError> {
        Ok(breakdown_csv(self))
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn xprof(&self) -> Result<Value, ToolError> {
        Ok(to_xprof_json(self))
    }
}
