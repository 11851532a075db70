//! The memory viewer as a registry tool: one XLA module's buffers.

use super::{legacy, max_heap_csv, memory_viewer, select_module, to_xprof_json, MemoryViewer};
use crate::context::{HostContext, Inputs, Output, Rendered, Request, Tool, ToolError};
use proflens_format::legacy::{LegacyFile, LegacyTool};
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub struct MemoryViewerTool;

/// One module's buffers; `modules` lists every module by name (the
/// selector), `failed` says why the chosen one has no viewer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemoryViewerPage {
    pub modules: Vec<String>,
    pub module: String,
    pub viewer: Option<Box<MemoryViewer>>,
    pub failed: Option<String>,
    /// The profile records no XLA program: XProf's answer (for its
    /// placeholder module `NO_MODULE`) is an empty document.
    #[serde(default)]
    pub no_programs: bool,
}

/// XProf's name for the one module it offers when a profile has none.
pub const NO_MODULE: &str = "NO_MODULE";

impl Tool for MemoryViewerTool {
    fn id(&self) -> &'static str {
        "memory_viewer"
    }

    fn label(&self) -> &'static str {
        "Memory viewer"
    }

    fn inputs(&self) -> Inputs {
        Inputs { xspace: true, tool_files: &[LegacyTool::MemoryViewer], ..Inputs::default() }
    }

    fn run(&self, host: &HostContext, request: &Request) -> Result<Output, ToolError> {
        if let Some(file) = host.tool_file(LegacyTool::MemoryViewer) {
            let LegacyFile::MemoryViewer(value) = &*file? else {
                return Err(ToolError::Failed("not a memory viewer file".into()));
            };
            let viewer = legacy::memory_viewer_from_json(value).map_err(|e| e.to_string())?;
            let name = viewer.module_name.clone();
            let page = MemoryViewerPage {
                modules: vec![name.clone()],
                module: name,
                viewer: Some(Box::new(viewer)),
                failed: None,
                no_programs: false,
            };
            return Ok(Output::new("memory_viewer", page));
        }
        let hlo = host.hlo()?;
        let modules: Vec<String> = hlo.modules.iter().map(|m| m.display_name()).collect();
        let no_programs = hlo.modules.is_empty() && hlo.errors.is_empty();
        let Some(chosen) = select_module(&hlo.modules, request.module.as_deref()) else {
            let placeholder = request.module.as_deref().is_none_or(|m| m == NO_MODULE);
            if let Some(name) = request.module.as_ref().filter(|_| !(no_programs && placeholder)) {
                return Err(ToolError::Failed(format!(
                    "no module {}; the modules are: {}",
                    proflens_format::quoted(name),
                    modules.join(", ")
                )));
            }
            let failed = match hlo.errors.first() {
                Some(e) => format!("The profile's XLA programs could not be read: {e}"),
                None => "This profile records no XLA program (no HLO in its /host:metadata plane), so there is no buffer assignment to show.".to_string(),
            };
            return Ok(Output::new(
                "memory_viewer",
                MemoryViewerPage { modules, module: String::new(), viewer: None, failed: Some(failed), no_programs },
            ));
        };
        host.progress("Laying out the buffers");
        let name = chosen.display_name();
        let page = match memory_viewer(chosen, 0) {
            Ok(viewer) => {
                MemoryViewerPage { modules, module: name, viewer: Some(Box::new(viewer)), failed: None, no_programs }
            }
            Err(e) => MemoryViewerPage {
                modules,
                module: name.clone(),
                viewer: None,
                failed: Some(format!("The buffers of {name} cannot be shown: {e}")),
                no_programs,
            },
        };
        Ok(Output::new("memory_viewer", page))
    }
}

impl MemoryViewerPage {
    fn viewer(&self) -> Result<&MemoryViewer, ToolError> {
        self.viewer.as_deref().ok_or_else(|| ToolError::Failed(self.failed.clone().unwrap_or_default()))
    }
}

impl Rendered for MemoryViewerPage {
    /// The chosen module's viewer (an error when it has none; `{}` when the
    /// profile has no XLA program, as XProf answers).
    fn json(&self) -> Result<Value, ToolError> {
        if self.no_programs {
            return Ok(Value::Object(Default::default()));
        }
        serde_json::to_value(self.viewer()?).map_err(|e| ToolError::Failed(e.to_string()))
    }

    /// The largest buffers; without XLA programs, the header alone.
    fn csv(&self) -> Result<String, ToolError> {
        if self.no_programs {
            return Ok(max_heap_csv(&MemoryViewer::default()));
        }
        Ok(max_heap_csv(self.viewer()?))
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn xprof(&self) -> Result<Value, ToolError> {
        if self.no_programs {
            return Ok(Value::Object(Default::default()));
        }
        Ok(to_xprof_json(self.viewer()?))
    }
}
