//! Framework op stats as a registry tool: XSpace hosts, PyTorch operators,
//! and TensorBoard's `tensorflow_stats.pb` / op stats JSON.

use super::pytorch::{combine, operator_stats, operator_stats_of_ranks, to_csv as operators_csv, OperatorRow};
use super::{from_op_metrics, legacy, to_csv, to_xprof_json, FrameworkOpStats};
use crate::context::{combined_analysis, HostContext, Inputs, Output, Rendered, Request, Tool, ToolError};
use crate::passes::host_analysis::HostAnalysis;
use proflens_format::legacy::{LegacyFile, LegacyTool};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::rc::Rc;

pub struct FrameworkOpStatsTool;

/// A PyTorch trace's operators (host and device time per op).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct OperatorStats(pub Vec<OperatorRow>);

impl Tool for FrameworkOpStatsTool {
    fn id(&self) -> &'static str {
        "framework_op_stats"
    }

    fn label(&self) -> &'static str {
        "Framework op stats"
    }

    fn inputs(&self) -> Inputs {
        Inputs {
            xspace: true,
            kineto: true,
            tool_files: &[LegacyTool::TensorflowStats],
            all_hosts: true,
            all_ranks: true,
            ..Inputs::default()
        }
    }

    fn run(&self, host: &HostContext, _: &Request) -> Result<Output, ToolError> {
        if let Some(file) = host.tool_file(LegacyTool::TensorflowStats) {
            let stats = match &*file? {
                LegacyFile::TensorflowStats(db) => legacy::framework_op_stats_from_proto(db),
                LegacyFile::TensorflowStatsTables(tables) => {
                    legacy::framework_op_stats_from_tables(tables).map_err(|e| e.to_string())?
                }
                _ => return Err(ToolError::Failed("not an op stats file".into())),
            };
            return Ok(Output::new("framework_op_stats", stats));
        }
        if host.is_kineto()? {
            return Ok(Output::new("operator_stats", OperatorStats(operator_stats_of_ranks(&[&*host.kineto()?]))));
        }
        Ok(stats(&*host.analysis()?))
    }

    fn combine(&self, hosts: &[Rc<HostContext>], _: &Request) -> Result<Output, ToolError> {
        let Some(first) = hosts.first() else { return Err(ToolError::OneHost) };
        if first.is_kineto()? {
            let tables = hosts.iter().map(|h| rank_part(h)).collect::<Result<Vec<_>, _>>()?;
            let rows = combine(&tables.iter().map(Vec::as_slice).collect::<Vec<_>>());
            return Ok(Output::new("operator_stats", OperatorStats(rows)));
        }
        Ok(stats(&combined_analysis(hosts)?))
    }
}

/// A rank's part of the operators of all ranks (its own table): its rank
/// summary's, else of its trace.
pub fn rank_part(host: &HostContext) -> Result<Vec<OperatorRow>, ToolError> {
    if let Some(given) = host.rank_part::<Vec<OperatorRow>>("framework_op_stats", false) {
        return Ok(Vec::clone(&given));
    }
    Ok(operator_stats(&*host.kineto()?))
}

fn stats(a: &HostAnalysis) -> Output {
    Output::new("framework_op_stats", stats_of(a))
}

/// The op stats of a host's (or a run's combined) analysis.
pub fn stats_of(a: &HostAnalysis) -> FrameworkOpStats {
    from_op_metrics(&a.host_ops, &a.device_ops, &a.device_env)
}

impl Rendered for FrameworkOpStats {
    fn csv(&self) -> Result<String, ToolError> {
        Ok(to_csv(self, false))
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn xprof(&self) -> Result<Value, ToolError> {
        Ok(to_xprof_json(self))
    }
}

impl Rendered for OperatorStats {
    fn csv(&self) -> Result<String, ToolError> {
        Ok(operators_csv(&self.0))
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn xprof(&self) -> Result<Value, ToolError> {
        Err(ToolError::NoFormat("XProf has no framework_op_stats for PyTorch traces; use --format json or csv".into()))
    }
}
