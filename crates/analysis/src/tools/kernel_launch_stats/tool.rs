//! Kernel launch stats as a registry tool: one PyTorch trace, or every rank
//! of a job side by side.

use super::{rank_launches_in, to_csv, to_hta_json, KernelLaunchStats, Params};
use crate::context::{Format, HostContext, Inputs, Output, Rendered, Request, Tool, ToolError};
use crate::passes::kineto::gpu_frame;
use serde_json::Value;
use std::rc::Rc;

pub struct KernelLaunchStatsTool;

/// The view that renders the model.
pub const VIEW: &str = "kernel_launch_stats";

impl Tool for KernelLaunchStatsTool {
    fn id(&self) -> &'static str {
        "kernel_launch_stats"
    }

    fn label(&self) -> &'static str {
        "Kernel launch stats"
    }

    /// Its own work ([`gpu_frame::LAUNCH_STATS_BYTES_PER_EVENT`]), and the
    /// frame's while the host does not hold it yet.
    fn working_bytes_per_event(&self, held: crate::context::Held) -> u64 {
        held.over_gpu_frame(gpu_frame::LAUNCH_STATS_BYTES_PER_EVENT)
    }

    fn inputs(&self) -> Inputs {
        Inputs { kineto: true, all_ranks: true, ..Inputs::default() }
    }

    fn formats(&self) -> &'static [Format] {
        &[Format::Json, Format::Csv, Format::Hta]
    }

    fn run(&self, host: &HostContext, request: &Request) -> Result<Output, ToolError> {
        let params = params(request);
        let rank = one_rank(host, &params)?;
        Ok(Output::new(VIEW, KernelLaunchStats { params, ranks: vec![rank] }))
    }

    fn combine(&self, hosts: &[Rc<HostContext>], request: &Request) -> Result<Output, ToolError> {
        let params = params(request);
        let mut ranks = Vec::with_capacity(hosts.len());
        for host in hosts {
            // A rank shown on its own already has its numbers.
            let kept = host.output(self.id(), request);
            match kept.as_ref().and_then(|o| o.model_as::<KernelLaunchStats>()) {
                Some(found) if found.params == params => ranks.extend(found.ranks.iter().cloned()),
                _ => ranks.push(one_rank(host, &params)?),
            }
        }
        Ok(Output::new(VIEW, KernelLaunchStats { params, ranks }))
    }
}

/// HTA's defaults, with the last step when asked for.
fn params(request: &Request) -> Params {
    Params { include_last_profiler_step: request.include_last_step, ..Params::default() }
}

/// A rank's part of the launches of all ranks (its rank summary's): the
/// rank alone, with HTA's defaults.
pub fn rank_part(host: &HostContext) -> Result<super::RankLaunches, ToolError> {
    one_rank(host, &Params::default())
}

fn one_rank(host: &HostContext, params: &Params) -> Result<super::RankLaunches, ToolError> {
    let given = host.rank_part::<super::RankLaunches>("kernel_launch_stats", *params != Params::default());
    if let Some(given) = given {
        return Ok(super::RankLaunches::clone(&given));
    }
    let profile = host.profile()?;
    if !host.is_kineto()? {
        return Err(ToolError::Failed("Kernel launch stats need a PyTorch (Kineto) trace.".into()));
    }
    host.progress("Matching launches to GPU work");
    let frame = host.gpu_frame()?;
    Ok(rank_launches_in(&profile, &frame, host.name(), params))
}

impl Rendered for KernelLaunchStats {
    /// Every launch of every rank.
    fn csv(&self) -> Result<String, ToolError> {
        Ok(to_csv(self))
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn xprof(&self) -> Result<Value, ToolError> {
        Err(ToolError::NoFormat("XProf has no such analysis; HTA has: use --format hta, json or csv".into()))
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn hta(&self) -> Result<Value, ToolError> {
        Ok(to_hta_json(self))
    }
}
