//! GPU kernel stats as a registry tool: XSpace hosts, PyTorch ranks, and
//! TensorBoard's `kernel_stats.pb` / kernel stats JSON.

use super::pytorch::{kernel_stats, kernel_stats_of_ranks};
use super::{legacy, to_csv, to_xprof_json};
use crate::common::hardware::HardwareType;
use crate::context::{HostContext, Inputs, Output, Rendered, Request, Tool, ToolError};
use crate::passes::kernels::{combine, side_by_side, KernelRow};
use proflens_format::legacy::{LegacyFile, LegacyTool};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::rc::Rc;

pub struct KernelStatsTool;

/// The kernels, and what the host ran on (to say why there are none).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KernelStats {
    /// One row per kernel, launch shape and op; over several hosts, the
    /// hosts' rows of a kernel added up.
    pub kernels: Vec<KernelRow>,
    pub hardware: HardwareType,
    /// Over several XSpace hosts: XProf's all-hosts rows, each host's
    /// kernels apart (empty on one host, where they are `kernels`).
    #[serde(default)]
    pub host_rows: Vec<HostKernelRow>,
}

/// A kernel row of one host, in a table of several hosts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HostKernelRow {
    pub host: String,
    pub kernel: KernelRow,
}

impl Tool for KernelStatsTool {
    fn id(&self) -> &'static str {
        "kernel_stats"
    }

    fn label(&self) -> &'static str {
        "GPU kernel stats"
    }

    fn inputs(&self) -> Inputs {
        Inputs {
            xspace: true,
            kineto: true,
            tool_files: &[LegacyTool::KernelStats],
            all_hosts: true,
            all_ranks: true,
            ..Inputs::default()
        }
    }

    fn run(&self, host: &HostContext, _: &Request) -> Result<Output, ToolError> {
        if let Some(file) = host.tool_file(LegacyTool::KernelStats) {
            let kernels = match &*file? {
                LegacyFile::KernelStats(db) => legacy::kernel_stats_from_proto(db),
                LegacyFile::KernelStatsTables(tables) => {
                    legacy::kernel_stats_from_tables(tables).map_err(|e| e.to_string())?
                }
                _ => return Err(ToolError::Failed("not a kernel stats file".into())),
            };
            return Ok(output(kernels, HardwareType::Gpu));
        }
        if host.is_kineto()? {
            return Ok(output(kernel_stats_of_ranks(&[&*host.kineto()?]), HardwareType::Gpu));
        }
        let a = host.analysis()?;
        Ok(output(a.kernels.clone(), a.environment.hardware_type))
    }

    fn combine(&self, hosts: &[Rc<HostContext>], _: &Request) -> Result<Output, ToolError> {
        let Some(first) = hosts.first() else { return Err(ToolError::OneHost) };
        if first.is_kineto()? {
            let tables = hosts.iter().map(|h| rank_part(h)).collect::<Result<Vec<_>, _>>()?;
            let rows = combine(&tables.iter().map(Vec::as_slice).collect::<Vec<_>>());
            return Ok(output(rows, HardwareType::Gpu));
        }
        let analyses = hosts.iter().map(|h| h.analysis()).collect::<Result<Vec<_>, _>>()?;
        let tables: Vec<&[KernelRow]> = analyses.iter().map(|a| a.kernels.as_slice()).collect();
        let host_rows = side_by_side(&tables)
            .into_iter()
            .map(|(i, kernel)| HostKernelRow { host: hosts[i].name().to_string(), kernel })
            .collect();
        let stats =
            KernelStats { kernels: combine(&tables), hardware: analyses[0].environment.hardware_type, host_rows };
        Ok(Output::new("kernel_stats", stats))
    }
}

/// A rank's part of the kernels of all ranks (its own table): its rank
/// summary's, else of its trace.
pub fn rank_part(host: &HostContext) -> Result<Vec<KernelRow>, ToolError> {
    if let Some(given) = host.rank_part::<Vec<KernelRow>>("kernel_stats", false) {
        return Ok(Vec::clone(&given));
    }
    Ok(kernel_stats(&*host.kineto()?))
}

fn output(kernels: Vec<KernelRow>, hardware: HardwareType) -> Output {
    Output::new("kernel_stats", KernelStats { kernels, hardware, host_rows: Vec::new() })
}

impl Rendered for KernelStats {
    /// The rows alone (over several hosts merged), as `proflens tool` has
    /// always printed them.
    fn json(&self) -> Result<Value, ToolError> {
        serde_json::to_value(&self.kernels).map_err(|e| ToolError::Failed(e.to_string()))
    }

    fn csv(&self) -> Result<String, ToolError> {
        Ok(to_csv(&self.kernels))
    }

    /// XProf's rows: over several hosts each host's kernels apart, as
    /// XProf's all-hosts table lists them.
    #[cfg(not(target_arch = "wasm32"))]
    fn xprof(&self) -> Result<Value, ToolError> {
        if self.host_rows.is_empty() {
            return Ok(to_xprof_json(&self.kernels));
        }
        let rows: Vec<KernelRow> = self.host_rows.iter().map(|r| r.kernel.clone()).collect();
        Ok(to_xprof_json(&rows))
    }
}
