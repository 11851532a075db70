//! The roofline model as a registry tool.

use super::{roofline_model, to_csv, to_xprof_json, Inputs as ModelInputs, Peaks, RooflineModel};
use crate::context::{HostContext, Inputs, Output, Rendered, Request, Tool, ToolError};
use serde_json::Value;

pub struct RooflineModelTool;

impl Tool for RooflineModelTool {
    fn id(&self) -> &'static str {
        "roofline_model"
    }

    fn label(&self) -> &'static str {
        "Roofline model"
    }

    fn inputs(&self) -> Inputs {
        Inputs { xspace: true, ..Inputs::default() }
    }

    fn run(&self, host: &HostContext, _: &Request) -> Result<Output, ToolError> {
        // A profile without XLA programs still has XProf's program records;
        // programs that could not be read are an error.
        if !host.hlo()?.errors.is_empty() {
            host.xla_programs()?;
        }
        let (profile, ops, analysis) = (host.profile()?, host.xla_ops()?, host.analysis()?);
        let env = &analysis.environment;
        let input = ModelInputs {
            ops: &ops,
            peaks: Peaks::of(&profile, &ops, env, &analysis.device_env),
            device_core_count: env.device_core_count,
            steps: analysis.steps.steps.iter().map(|s| s.group).collect(),
        };
        Ok(Output::new("roofline_model", roofline_model(&input)))
    }
}

impl Rendered for RooflineModel {
    fn csv(&self) -> Result<String, ToolError> {
        Ok(to_csv(self))
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn xprof(&self) -> Result<Value, ToolError> {
        Ok(to_xprof_json(self))
    }
}
