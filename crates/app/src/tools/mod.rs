//! The tools a host can be viewed with. Each tool is one module with one view;
//! the header's tool selector lists [`Tool::ALL`]. Tool ids are XProf's.

pub mod framework_op_stats;
pub mod hlo_stats;
pub mod info;
pub mod input_pipeline;
pub mod kernel_stats;
pub mod measure;
pub mod memory_profile;
pub mod memory_viewer;
pub mod op_profile;
pub mod overview;
pub mod pod_viewer;
pub mod pytorch;
pub mod step_time;
pub mod tf_data;
pub mod trace_viewer;

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::protocol::ToolView;
use crate::state::Shown;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tool {
    OverviewPage,
    InputPipelineAnalyzer,
    FrameworkOpStats,
    KernelStats,
    MemoryProfile,
    PodViewer,
    TfDataBottleneckAnalysis,
    TraceViewer,
    OpProfile,
    HloStats,
    MemoryViewer,
    Info,
}

impl Tool {
    /// In the order the selector shows them; the first is the default.
    pub const ALL: &'static [Tool] = &[
        Tool::OverviewPage,
        Tool::InputPipelineAnalyzer,
        Tool::FrameworkOpStats,
        Tool::KernelStats,
        Tool::MemoryProfile,
        Tool::PodViewer,
        Tool::TfDataBottleneckAnalysis,
        Tool::TraceViewer,
        Tool::OpProfile,
        Tool::HloStats,
        Tool::MemoryViewer,
        Tool::Info,
    ];

    /// The value in the selector, the URL hash and the worker protocol.
    pub fn id(self) -> &'static str {
        match self {
            Tool::OverviewPage => "overview_page",
            Tool::InputPipelineAnalyzer => "input_pipeline_analyzer",
            Tool::FrameworkOpStats => "framework_op_stats",
            Tool::KernelStats => "kernel_stats",
            Tool::MemoryProfile => "memory_profile",
            Tool::PodViewer => "pod_viewer",
            Tool::TfDataBottleneckAnalysis => "tf_data_bottleneck_analysis",
            Tool::TraceViewer => "trace_viewer",
            Tool::OpProfile => "op_profile",
            Tool::HloStats => "hlo_stats",
            Tool::MemoryViewer => "memory_viewer",
            Tool::Info => "info",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Tool::OverviewPage => "Overview",
            Tool::InputPipelineAnalyzer => "Input pipeline analyzer",
            Tool::FrameworkOpStats => "Framework op stats",
            Tool::KernelStats => "GPU kernel stats",
            Tool::MemoryProfile => "Memory profile",
            Tool::PodViewer => "Pod viewer",
            Tool::TfDataBottleneckAnalysis => "tf.data bottleneck analysis",
            Tool::TraceViewer => "Trace viewer",
            Tool::OpProfile => "Op profile",
            Tool::HloStats => "HLO op stats",
            Tool::MemoryViewer => "Memory viewer",
            Tool::Info => "Profile info",
        }
    }

    pub fn from_id(id: &str) -> Option<Tool> {
        Tool::ALL.iter().copied().find(|t| t.id() == id)
    }
}

impl Default for Tool {
    fn default() -> Self {
        Tool::ALL[0]
    }
}

/// The view of the host on screen, for the tool its view model belongs to.
pub fn tool_view(shown: Shown) -> AnyView {
    let (run, host) = (shown.run.clone(), shown.host.clone());
    match &*shown.view {
        ToolView::Info { info, load } => {
            view! { <info::InfoView run=run host=host info=info.clone() load=load.clone()/> }.into_any()
        }
        ToolView::OverviewPage { page } => {
            view! { <overview::OverviewView run=run host=host page=(**page).clone()/> }.into_any()
        }
        ToolView::InputPipelineAnalyzer { analysis } => view! {
            <input_pipeline::InputPipelineView run=run host=host analysis=(**analysis).clone()/>
        }
        .into_any(),
        ToolView::FrameworkOpStats { stats } => view! {
            <framework_op_stats::FrameworkOpStatsView run=run host=host stats=(**stats).clone()/>
        }
        .into_any(),
        ToolView::KernelStats { kernels, hardware } => view! {
            <kernel_stats::KernelStatsView run=run host=host kernels=kernels.clone() hardware=*hardware/>
        }
        .into_any(),
        ToolView::MemoryProfile { profile } => view! {
            <memory_profile::MemoryProfileView run=run host=host profile=(**profile).clone()/>
        }
        .into_any(),
        ToolView::PodViewer { pod } => {
            view! { <pod_viewer::PodViewerView run=run host=host pod=(**pod).clone()/> }.into_any()
        }
        ToolView::TfDataBottleneckAnalysis { analysis } => {
            view! { <tf_data::TfDataView run=run host=host analysis=(**analysis).clone()/> }.into_any()
        }
        ToolView::TraceViewer { layout } => view! {
            <trace_viewer::TraceViewerView run=run host=host layout=(**layout).clone()/>
        }
        .into_any(),
        ToolView::PytorchOverview { overview } => view! {
            <pytorch::PytorchOverviewView run=run host=host overview=(**overview).clone()/>
        }
        .into_any(),
        ToolView::OperatorStats { rows } => {
            view! { <pytorch::OperatorStatsView run=run host=host rows=rows.clone()/> }.into_any()
        }
        ToolView::OpProfile { profile } => {
            view! { <op_profile::OpProfileView run=run host=host profile=(**profile).clone()/> }.into_any()
        }
        ToolView::HloStats { stats } => {
            view! { <hlo_stats::HloStatsView run=run host=host stats=(**stats).clone()/> }.into_any()
        }
        ToolView::MemoryViewer { modules, module, viewer, failed } => view! {
            <memory_viewer::MemoryViewerView
                run=run
                host=host
                modules=modules.clone()
                module=module.clone()
                viewer=viewer.as_deref().cloned()
                failed=failed.clone()
            />
        }
        .into_any(),
    }
}

/// The heading every tool starts with: its name and which run and host it shows.
#[component]
pub fn ToolTitle(tool: Tool, run: String, host: String) -> impl IntoView {
    view! {
        <h2 id=format!("tool-{}-title", tool.id())>
            {tool.label()}
            " "
            <span class="subtitle">{format!("{run} · {host}")}</span>
        </h2>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_match_serde() {
        for &tool in Tool::ALL {
            assert_eq!(Tool::from_id(tool.id()), Some(tool));
            assert_eq!(serde_json::to_value(tool).ok(), Some(serde_json::Value::from(tool.id())));
        }
        assert_eq!(Tool::default(), Tool::OverviewPage);
    }
}
