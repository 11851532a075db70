//! The pod viewer as a registry tool: every host's steps side by side.

use super::{legacy, pod_viewer, to_csv, to_json, to_xprof_json, PodViewer};
use crate::context::{HostContext, Inputs, Output, Rendered, Request, Tool, ToolError};
use crate::passes::host_analysis::HostAnalysis;
use proflens_format::legacy::{LegacyFile, LegacyTool};
use serde_json::Value;
use std::rc::Rc;

pub struct PodViewerTool;

impl Tool for PodViewerTool {
    fn id(&self) -> &'static str {
        "pod_viewer"
    }

    fn label(&self) -> &'static str {
        "Pod viewer"
    }

    fn inputs(&self) -> Inputs {
        Inputs { xspace: true, tool_files: &[LegacyTool::PodViewer], all_hosts: true, ..Inputs::default() }
    }

    fn run(&self, host: &HostContext, request: &Request) -> Result<Output, ToolError> {
        if let Some(file) = host.tool_file(LegacyTool::PodViewer) {
            let LegacyFile::PodViewer(value) = &*file? else {
                return Err(ToolError::Failed("not a pod viewer file".into()));
            };
            let view = legacy::pod_viewer_from_json(value).map_err(|e| e.to_string())?;
            return Ok(Output::new("pod_viewer", view));
        }
        pod(&[host.analysis()?], &[host.name()], request)
    }

    fn combine(&self, hosts: &[Rc<HostContext>], request: &Request) -> Result<Output, ToolError> {
        let analyses = hosts.iter().map(|h| h.analysis()).collect::<Result<Vec<_>, _>>()?;
        host_progress(hosts);
        pod(&analyses, &hosts.iter().map(|h| h.name()).collect::<Vec<_>>(), request)
    }
}

fn host_progress(hosts: &[Rc<HostContext>]) {
    if let Some(first) = hosts.first() {
        first.progress("Comparing the hosts step by step");
    }
}

/// Hosts are named as their profiles record them, as XProf does, unless two
/// record the same name (two workers of one job on one machine): then by
/// their names in the run, which are unique.
fn pod(analyses: &[Rc<HostAnalysis>], names: &[&str], _: &Request) -> Result<Output, ToolError> {
    let recorded: Vec<String> = analyses
        .iter()
        .zip(names)
        .map(|(a, name)| a.environment.hostnames.first().cloned().unwrap_or_else(|| name.to_string()))
        .collect();
    let mut unique = recorded.clone();
    unique.sort();
    unique.dedup();
    let shown = if unique.len() == recorded.len() { recorded } else { names.iter().map(|n| n.to_string()).collect() };
    let named: Vec<(&HostAnalysis, String)> = analyses.iter().map(|a| a.as_ref()).zip(shown).collect();
    Ok(Output::new("pod_viewer", pod_viewer(&named)))
}

impl Rendered for PodViewer {
    fn json(&self) -> Result<Value, ToolError> {
        to_json(self).map_err(|e| ToolError::Failed(e.to_string()))
    }

    fn csv(&self) -> Result<String, ToolError> {
        Ok(to_csv(self))
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn xprof(&self) -> Result<Value, ToolError> {
        Ok(to_xprof_json(self))
    }
}
