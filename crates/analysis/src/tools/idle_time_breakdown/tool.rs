//! The idle time breakdown as a registry tool: one PyTorch rank, or every
//! rank of a job (HTA's `ranks=[…]`), with HTA's default parameters.

use super::{rank_idle_in, to_csv, to_hta_json, IdleTimeBreakdown, RankIdle, CONSECUTIVE_KERNEL_DELAY_US};
use crate::context::{Format, HostContext, Inputs, Output, Rendered, Request, Tool, ToolError};
use crate::passes::kineto::hta;
use serde::{Deserialize, Serialize};
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

    /// Its own work beside HTA's frame cut to the GPU side (the host's shared pass
    /// `gpu_frame`, counted once by [`crate::context::Held::over_gpu_frame`]): the
    /// frame's events copied with their texts (64 bytes each) and the launches and
    /// streams over them, 34.8 bytes an event measured on the 1.0 GB synthetic
    /// Kineto trace (`examples/hta_heap.rs`), a tenth more for margin.
    fn working_bytes_per_event(&self, held: crate::context::Held) -> u64 {
        held.over_gpu_frame(40)
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
        let part = match host.rank_part::<IdlePart>("idle_time_breakdown", include_last) {
            Some(given) => IdlePart::clone(&given),
            None => of_trace(host, include_last)?,
        };
        let mut idle = part.idle;
        idle.rank = part.rank.unwrap_or(position as i64);
        ranks.push(idle);
    }
    ranks.sort_by_key(|r| r.rank);
    let model = IdleTimeBreakdown {
        consecutive_kernel_delay_us: CONSECUTIVE_KERNEL_DELAY_US,
        include_last_profiler_step: include_last,
        ranks,
    };
    Ok(Output::new("idle_time_breakdown", model))
}

/// A rank's part of the breakdown of all ranks (its rank summary's): its
/// streams, and its `distributedInfo.rank` if it has one (the place in the
/// run is known only when the ranks are combined).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IdlePart {
    pub rank: Option<i64>,
    pub idle: RankIdle,
}

/// The part for the default request (the last profiler step left out).
pub fn rank_part(host: &HostContext) -> Result<IdlePart, ToolError> {
    of_trace(host, false)
}

fn of_trace(host: &HostContext, include_last: bool) -> Result<IdlePart, ToolError> {
    if !host.is_kineto()? {
        return Err(ToolError::Failed(format!("{} is not a PyTorch (Kineto) trace", host.name())));
    }
    let profile = host.profile()?;
    let frame = host.gpu_frame()?;
    let idle = rank_idle_in(&profile, &frame, 0, host.name(), include_last, CONSECUTIVE_KERNEL_DELAY_US);
    Ok(IdlePart { rank: hta::rank(&profile), idle })
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
