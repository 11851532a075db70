//! Memory bandwidth as a registry tool: one PyTorch rank, or all of a job's.

use super::{combine, rank_memory_bandwidth_in, to_csv, MemoryBandwidth};
use crate::context::{Format, HostContext, Inputs, Output, Rendered, Request, Tool, ToolError};
use crate::passes::kineto::describe::Ties;
use crate::passes::kineto::describe::{hta_row, hta_summary};
use serde_json::{json, Value};
use std::rc::Rc;

pub struct MemoryBandwidthTool;

impl Tool for MemoryBandwidthTool {
    fn id(&self) -> &'static str {
        "memory_bandwidth"
    }

    fn label(&self) -> &'static str {
        "Memory bandwidth"
    }

    /// Its own work beside HTA's frame cut to the GPU side (the host's shared pass
    /// `gpu_frame`, counted once by [`crate::context::Held::over_gpu_frame`]): the
    /// copy of the frame's events it analyses (64 bytes each) and the memory ops'
    /// points, 17.9 bytes an event measured on the 1.0 GB synthetic Kineto trace
    /// (`examples/hta_heap.rs`), a tenth more for margin.
    fn working_bytes_per_event(&self, held: crate::context::Held) -> u64 {
        held.over_gpu_frame(22)
    }

    fn inputs(&self) -> Inputs {
        Inputs { kineto: true, all_ranks: true, ..Inputs::default() }
    }

    fn formats(&self) -> &'static [Format] {
        &[Format::Json, Format::Csv, Format::Hta]
    }

    fn run(&self, host: &HostContext, request: &Request) -> Result<Output, ToolError> {
        Ok(Output::new("memory_bandwidth", of_host(host, request)?))
    }

    fn combine(&self, hosts: &[Rc<HostContext>], request: &Request) -> Result<Output, ToolError> {
        let parts = hosts.iter().map(|h| of_host(h, request)).collect::<Result<Vec<_>, _>>()?;
        Ok(Output::new("memory_bandwidth", combine(parts)))
    }
}

/// A rank's part of the tool over all ranks (its rank summary's): the
/// rank alone, for the default request (the last profiler step left out).
pub fn rank_part(host: &HostContext) -> Result<MemoryBandwidth, ToolError> {
    of_host(host, &Request::default())
}

/// A host's memory bandwidth with HTA's load (the last step left out unless asked for).
fn of_host(host: &HostContext, request: &Request) -> Result<MemoryBandwidth, ToolError> {
    if let Some(given) = host.rank_part::<MemoryBandwidth>("memory_bandwidth", request.include_last_step) {
        return Ok(MemoryBandwidth::clone(&given));
    }
    if !host.is_kineto()? {
        return Err(ToolError::Failed(format!("{}: memory bandwidth needs a PyTorch (Kineto) trace", host.name())));
    }
    host.progress("Summing the memory bandwidth");
    let (profile, frame) = (host.profile()?, host.gpu_frame()?);
    Ok(rank_memory_bandwidth_in(&profile, &frame, host.name(), request.include_last_step, Ties::default()))
}

impl Rendered for MemoryBandwidth {
    fn csv(&self) -> Result<String, ToolError> {
        Ok(to_csv(self))
    }

    /// `TraceAnalysis.get_memory_bw_summary(ranks)`, as HTA's goldens print it.
    #[cfg(not(target_arch = "wasm32"))]
    fn hta(&self) -> Result<Value, ToolError> {
        let rows = self.rows.iter().map(|r| hta_row(&[("rank", json!(r.rank)), ("name", json!(r.name))], &r.summary));
        Ok(hta_summary(
            "TraceAnalysis.get_memory_bw_summary",
            &self.ranks,
            self.include_last_step,
            "memory_bw_gbps",
            rows.collect(),
        ))
    }
}
