//! The one list of tools, in the order the app's selector shows them, and
//! the one entry point that runs a tool: the CLI and the app's worker both
//! call [`run`], so they answer alike for the same hosts.
//!
//! Adding a tool: a folder in `tools/` with a [`Tool`] implementation, and
//! one line in [`TOOLS`] (ARCHITECTURE.md walks through an example).

pub mod xprof_only;

use crate::context::{HostContext, Output, Request, RunContext, Tool, ToolError};
use crate::tools::{
    advisor, critical_path, framework_op_stats, graph_viewer, hlo_stats, idle_time_breakdown, info, input_pipeline,
    kernel_launch_stats, kernel_sequences, kernel_stats, memory_bandwidth, memory_profile, memory_viewer, modules,
    op_profile, overview, pod_viewer, queue_length, roofline_model, stragglers, tf_data, trace_viewer,
};
use proflens_format::legacy::LegacyTool;
use std::rc::Rc;

/// Every tool; the first is the default.
pub static TOOLS: &[&dyn Tool] = &[
    &advisor::AdvisorTool,
    &overview::OverviewTool,
    &input_pipeline::InputPipelineTool,
    &framework_op_stats::FrameworkOpStatsTool,
    &kernel_stats::KernelStatsTool,
    &kernel_launch_stats::KernelLaunchStatsTool,
    &kernel_sequences::KernelSequencesTool,
    &modules::ModulesTool,
    &idle_time_breakdown::IdleTimeBreakdownTool,
    &queue_length::QueueLengthTool,
    &memory_bandwidth::MemoryBandwidthTool,
    &stragglers::StragglersTool,
    &critical_path::CriticalPathTool,
    &memory_profile::MemoryProfileTool,
    &pod_viewer::PodViewerTool,
    &tf_data::TfDataTool,
    &trace_viewer::TraceViewerTool,
    &op_profile::OpProfileTool,
    &hlo_stats::HloStatsTool,
    &roofline_model::RooflineModelTool,
    &memory_viewer::MemoryViewerTool,
    &graph_viewer::GraphViewerTool,
    &info::InfoTool,
];

/// The tool named `id` (XProf's name; `tensorflow_stats` is XProf's old
/// name of `framework_op_stats`).
pub fn find(id: &str) -> Option<&'static dyn Tool> {
    let id = if id == "tensorflow_stats" { "framework_op_stats" } else { id };
    TOOLS.iter().copied().find(|t| t.id() == id)
}

/// The tool that shows a legacy tool file.
pub fn tool_for_file(kind: LegacyTool) -> Option<&'static dyn Tool> {
    TOOLS.iter().copied().find(|t| t.inputs().tool_files.contains(&kind))
}

/// The tools that have something to show for `host` (decodes its events
/// when it has no tool files).
pub fn available(host: &HostContext) -> Vec<&'static dyn Tool> {
    let kinds = host.tool_file_kinds();
    if !kinds.is_empty() {
        return TOOLS
            .iter()
            .copied()
            .filter(|t| {
                let inputs = t.inputs();
                kinds.iter().any(|k| inputs.reads(k)) || (host.has_events() && inputs.tool_set_trace)
            })
            .collect();
    }
    match host.is_kineto() {
        Ok(kineto) => {
            TOOLS.iter().copied().filter(|t| if kineto { t.inputs().kineto } else { t.inputs().xspace }).collect()
        }
        Err(_) => Vec::new(),
    }
}

/// The tools that combine the hosts (or the ranks, for PyTorch traces) of a run.
pub fn available_combined(hosts: &[Rc<HostContext>]) -> Vec<&'static dyn Tool> {
    let Some(first) = hosts.first() else { return Vec::new() };
    if !first.has_events() {
        return Vec::new();
    }
    let kineto = first.is_kineto().unwrap_or(false);
    TOOLS.iter().copied().filter(|t| if kineto { t.inputs().all_ranks } else { t.inputs().all_hosts }).collect()
}

/// `tool` on one host, or on every host of `hosts` together. Results on one
/// host are kept in its context.
pub fn run(tool: &dyn Tool, hosts: &[Rc<HostContext>], request: &Request) -> Result<Rc<Output>, ToolError> {
    match hosts {
        [] => Err(ToolError::Failed("There are no hosts to show.".into())),
        [host] => {
            if let Some(found) = host.output(tool.id(), request) {
                return Ok(found);
            }
            check(tool, host)?;
            host.ensure_room(tool)?;
            let output = Rc::new(tool.run(host, request)?);
            host.keep_output(tool.id(), request, output.clone());
            Ok(output)
        }
        several => {
            let inputs = tool.inputs();
            let kineto = several[0].has_events() && several[0].is_kineto()?;
            if kineto && !inputs.kineto && !inputs.all_ranks {
                return Err(not_for_pytorch(tool));
            }
            if !(if kineto { inputs.all_ranks } else { inputs.all_hosts }) {
                return Err(ToolError::OneHost);
            }
            several[0].progress("Combining the hosts");
            Ok(Rc::new(tool.combine(several, request)?))
        }
    }
}

/// `tool` over every host of `run` together; results are kept in the run.
pub fn run_combined(tool: &dyn Tool, run: &RunContext, request: &Request) -> Result<Rc<Output>, ToolError> {
    if let Some(found) = run.kept.get(tool.id(), request) {
        return Ok(found);
    }
    let output = self::run(tool, &run.hosts, request)?;
    run.kept.keep(tool.id(), request, output.clone());
    Ok(output)
}

/// Whether `tool` has something to show for `host`, in words when not.
fn check(tool: &dyn Tool, host: &HostContext) -> Result<(), ToolError> {
    let inputs = tool.inputs();
    let kinds = host.tool_file_kinds();
    if kinds.iter().any(|k| inputs.reads(k)) {
        return Ok(());
    }
    if !kinds.is_empty() {
        if host.has_events() && inputs.tool_set_trace {
            return Ok(());
        }
        let labels: Vec<&str> = TOOLS
            .iter()
            .filter(|t| t.inputs().tool_files.iter().any(|k| kinds.contains(k)))
            .map(|t| t.label())
            .collect();
        return Err(ToolError::Failed(format!(
            "Host “{}” has no legacy {} file, and TensorBoard tool files for {} only: the {} needs a profile (*.xplane.pb).",
            host.name(),
            tool.id(),
            labels.join(", "),
            tool.label()
        )));
    }
    match host.is_kineto() {
        // A tool of a job's ranks together (stragglers) has nothing to say of one.
        Ok(true) if !inputs.kineto && inputs.all_ranks => Err(ToolError::Failed(format!(
            "The {} compares the ranks of one PyTorch job: open two or more rank traces of a run and choose all \
             of its hosts.",
            tool.label()
        ))),
        Ok(true) if !inputs.kineto => Err(not_for_pytorch(tool)),
        Ok(false) if !inputs.xspace => Err(ToolError::Failed(format!("The {} needs a PyTorch trace.", tool.label()))),
        Ok(_) => Ok(()),
        // A TensorBoard tool file in JSON, named like a trace: shown in its own tool.
        Err(e) => match host.events_as_tool_file() {
            Some(kind) if inputs.tool_files.contains(&kind) => Ok(()),
            Some(kind) => Err(ToolError::Failed(format!(
                "“{}” is TensorBoard's {} output, not a trace: choose the {} tool.",
                host.name(),
                kind.file_stem(),
                tool_for_file(kind).map_or(kind.file_stem(), |t| t.label())
            ))),
            None => Err(ToolError::Failed(e)),
        },
    }
}

fn not_for_pytorch(tool: &dyn Tool) -> ToolError {
    let labels: Vec<&str> = TOOLS.iter().filter(|t| t.inputs().kineto).map(|t| t.label()).collect();
    ToolError::Failed(format!(
        "The {} is not available for PyTorch traces; their tools are: {}.",
        tool.label(),
        labels.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_found() {
        for tool in TOOLS {
            assert_eq!(find(tool.id()).map(|t| t.label()), Some(tool.label()));
            assert_eq!(TOOLS.iter().filter(|t| t.id() == tool.id()).count(), 1, "{}", tool.id());
        }
        assert_eq!(find("tensorflow_stats").map(|t| t.id()), Some("framework_op_stats"));
        assert!(find("no_such_tool").is_none());
    }

    #[test]
    fn every_legacy_file_has_one_tool() {
        for kind in LegacyTool::ALL {
            let tools: Vec<&str> =
                TOOLS.iter().filter(|t| t.inputs().tool_files.contains(&kind)).map(|t| t.id()).collect();
            assert_eq!(tools.len(), 1, "{kind:?}: {tools:?}");
        }
    }
}
