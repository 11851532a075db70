//! The idle time breakdown as a registry tool: one PyTorch rank, or every
//! rank of a job (HTA's `ranks=[…]`), with HTA's default parameters.

use super::{rank_idle, to_csv, to_hta_json, IdleTimeBreakdown, CONSECUTIVE_KERNEL_DELAY_US};
use crate::context::{Format, HostContext, Inputs, Output, Rendered, Request, Tool, ToolError};
use crate::passes::kineto::hta;
use serde_json::Value;
use std::rc::Rc;

pub struct IdleTimeBreakdownTool;

impl Tool for IdleTimeBreakdownTool {
    fn id(&self) -> &'static str {
        "idle_time_breakdown"
    }

    fn label(&self) -> &'static str {
        "Idle time breakdown"
    }

    /// HTA's frame cut to the GPU side (`passes::kineto::gpu_frame`) and
    /// what the tool builds over it: 35.8 bytes an event measured on the
    /// 1.0 GB synthetic Kineto trace (`examples/hta_heap.rs`), a tenth more
    /// for margin.
    fn working_bytes_per_event(&self, _: crate::context::Held) -> u64 {
        40
    }

    fn inputs(&self) -> Inputs {
        Inputs { kineto: true, all_ranks: true, ..Inputs::default() }
    }

    fn formats(&self) -> &'static [Format] {
        &[Format::Json, Format::Csv, Format::Hta]
    }

    fn run(&self, host: &HostContext, request: &Request) -> Result<Output, ToolError> {
        breakdown(std::slice::from_ref(&host), request.include_last_step)
    }

    fn combine(&self, hosts: &[Rc<HostContext>], request: &Request) -> Result<Output, ToolError> {
        breakdown(&hosts.iter().map(|h| h.as_ref()).collect::<Vec<_>>(), request.include_last_step)
    }
}

/// Every rank in HTA's order (by rank); a rank without `distributedInfo`
/// is its position among the hosts.
fn breakdown(hosts: &[&HostContext], include_last: bool) -> Result<Output, ToolError> {
    if hosts.is_empty() {
        return Err(ToolError::OneHost);
    }
    let mut ranks = Vec::with_capacity(hosts.len());
    for (position, host) in hosts.iter().enumerate() {
        if !host.is_kineto()? {
            return Err(ToolError::Failed(format!("{} is not a PyTorch (Kineto) trace", host.name())));
        }
        let profile = host.profile()?;
        let rank = hta::rank(&profile).unwrap_or(position as i64);
        ranks.push(rank_idle(&profile, rank, host.name(), include_last, CONSECUTIVE_KERNEL_DELAY_US));
    }
    ranks.sort_by_key(|r| r.rank);
    let model = IdleTimeBreakdown {
        consecutive_kernel_delay_us: CONSECUTIVE_KERNEL_DELAY_US,
        include_last_profiler_step: include_last,
        ranks,
    };
    Ok(Output::new("idle_time_breakdown", model))
}

impl Rendered for IdleTimeBreakdown {
    fn csv(&self) -> Result<String, ToolError> {
        Ok(to_csv(self))
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn hta(&self) -> Result<Value, ToolError> {
        Ok(to_hta_json(self))
    }
}
