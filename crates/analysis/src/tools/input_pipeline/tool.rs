//! The input pipeline analyzer as a registry tool.

use crate::context::{
    combined_analysis, AsSerialize, Format, HostContext, Inputs, Output, Rendered, Request, Tool, ToolError,
};
use crate::passes::host_analysis::HostAnalysis;
use crate::passes::input_pipeline::legacy::{input_pipeline_from_proto, input_pipeline_from_tables};
use crate::passes::input_pipeline::{input_ops_csv, step_columns, to_xprof_json, warnings_of, InputPipelineAnalysis};
use proflens_format::legacy::{LegacyFile, LegacyTool};
use serde_json::Value;
use std::rc::Rc;

pub struct InputPipelineTool;

impl Tool for InputPipelineTool {
    fn id(&self) -> &'static str {
        "input_pipeline_analyzer"
    }

    fn label(&self) -> &'static str {
        "Input pipeline analyzer"
    }

    fn inputs(&self) -> Inputs {
        Inputs { xspace: true, tool_files: &[LegacyTool::InputPipeline], all_hosts: true, ..Inputs::default() }
    }

    fn run(&self, host: &HostContext, request: &Request) -> Result<Output, ToolError> {
        if let Some(file) = host.tool_file(LegacyTool::InputPipeline) {
            let analysis = match &*file? {
                LegacyFile::InputPipeline(result) => input_pipeline_from_proto(result),
                LegacyFile::InputPipelineTables(tables) => {
                    input_pipeline_from_tables(tables).map_err(|e| e.to_string())?
                }
                _ => return Err(ToolError::Failed("not an input pipeline file".into())),
            };
            return Ok(Output::new("input_pipeline_analyzer", analysis));
        }
        Ok(analysis(&*host.analysis()?, request))
    }

    fn combine(&self, hosts: &[Rc<HostContext>], request: &Request) -> Result<Output, ToolError> {
        let combined = combined_analysis(hosts)?;
        Ok(analysis(&combined, request))
    }
}

fn analysis(a: &HostAnalysis, request: &Request) -> Output {
    let analysis = if request.format == Format::Xprof { a.input_pipeline_xprof() } else { a.input_pipeline() };
    Output::new("input_pipeline_analyzer", analysis)
}

impl Rendered for InputPipelineAnalysis {
    /// The model, its step table as rows (the page gets it as columns).
    fn json(&self) -> Result<Value, ToolError> {
        step_columns::json_with_rows(self.as_serialize(), "/steps", &self.steps)
            .map_err(|e| ToolError::Failed(e.to_string()))
    }

    fn csv(&self) -> Result<String, ToolError> {
        Ok(input_ops_csv(self))
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn xprof(&self) -> Result<Value, ToolError> {
        Ok(to_xprof_json(self))
    }

    fn warnings(&self) -> Vec<String> {
        warnings_of(&self.diagnostics)
    }
}
