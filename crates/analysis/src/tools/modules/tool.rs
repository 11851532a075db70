//! Modules as a registry tool: one PyTorch trace (rank) at a time.

use super::{modules, to_csv, Modules};
use crate::context::{Format, HostContext, Inputs, Output, Rendered, Request, Tool, ToolError};

pub struct ModulesTool;

impl Tool for ModulesTool {
    fn id(&self) -> &'static str {
        "modules"
    }

    fn label(&self) -> &'static str {
        "Modules"
    }

    fn inputs(&self) -> Inputs {
        Inputs { kineto: true, ..Inputs::default() }
    }

    fn formats(&self) -> &'static [Format] {
        &[Format::Json, Format::Csv]
    }

    fn run(&self, host: &HostContext, _request: &Request) -> Result<Output, ToolError> {
        if !host.is_kineto()? {
            return Err(ToolError::Failed(format!(
                "“{}” is not a PyTorch trace; the module view reads PyTorch profiler traces.",
                host.name()
            )));
        }
        Ok(Output::new("modules", modules(&*host.kineto()?)))
    }
}

impl Rendered for Modules {
    /// The tree, one row per module; a trace without module events says so.
    fn csv(&self) -> Result<String, ToolError> {
        match &self.message {
            Some(message) if self.rows.is_empty() => Err(ToolError::Failed(message.clone())),
            _ => Ok(to_csv(self)),
        }
    }
}
