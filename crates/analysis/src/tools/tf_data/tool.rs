//! The tf.data bottleneck analysis as a registry tool.

use super::{analyze, combine, pipelines_csv, TfDataAnalysis};
use crate::context::{Format, HostContext, Inputs, Output, Rendered, Request, Tool, ToolError};
use serde_json::Value;
use std::rc::Rc;

pub struct TfDataTool;

impl Tool for TfDataTool {
    fn id(&self) -> &'static str {
        "tf_data_bottleneck_analysis"
    }

    fn label(&self) -> &'static str {
        "tf.data bottleneck analysis"
    }

    fn formats(&self) -> &'static [Format] {
        &[Format::Json, Format::Csv]
    }

    fn inputs(&self) -> Inputs {
        Inputs { xspace: true, all_hosts: true, ..Inputs::default() }
    }

    fn run(&self, host: &HostContext, _: &Request) -> Result<Output, ToolError> {
        let profile = host.profile()?;
        host.progress("Analysing the tf.data pipelines");
        Ok(Output::new("tf_data_bottleneck_analysis", analyze(&profile, host.name())))
    }

    /// Every host's pipelines, the most input-bound host first (XProf's cross-host step).
    fn combine(&self, hosts: &[Rc<HostContext>], _: &Request) -> Result<Output, ToolError> {
        let mut analyses = Vec::with_capacity(hosts.len());
        for host in hosts {
            let profile = host.profile()?;
            host.progress("Analysing the tf.data pipelines");
            analyses.push(analyze(&profile, host.name()));
        }
        Ok(Output::new("tf_data_bottleneck_analysis", combine(analyses)))
    }
}

impl Rendered for TfDataAnalysis {
    fn csv(&self) -> Result<String, ToolError> {
        Ok(pipelines_csv(self))
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn xprof(&self) -> Result<Value, ToolError> {
        Err(ToolError::NoFormat(
            "XProf 2.24 no longer has tf_data_bottleneck_analysis; use --format json or csv".into(),
        ))
    }
}
