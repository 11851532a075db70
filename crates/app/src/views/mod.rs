//! The views: one module per view name of the registry's outputs
//! (`proflens_analysis::context::Output::view`), chosen from [`VIEWS`]. Each
//! reads its own model from the worker's message and renders it; what it may
//! ask for (another XLA module, trace queries) comes as [`Actions`]. Views
//! never import each other: what several share is in `crate::widgets`.

pub mod advisor;
pub mod compare;
pub mod critical_path;
pub mod framework_op_stats;
pub mod graph_viewer;
pub mod hlo_stats;
pub mod idle_time_breakdown;
pub mod info;
pub mod input_pipeline_analyzer;
pub mod kernel_launch_stats;
pub mod kernel_sequences;
pub mod kernel_stats;
pub mod memory_bandwidth;
pub mod memory_profile;
pub mod memory_viewer;
pub mod modules;
pub mod op_profile;
pub mod operator_stats;
pub mod overview_page;
pub mod pod_viewer;
pub mod pytorch_overview;
pub mod queue_length;
pub mod roofline_model;
pub mod stragglers;
pub mod tf_data_bottleneck_analysis;
pub mod trace_viewer;

use std::sync::Arc;

use leptos::prelude::*;
use serde::de::DeserializeOwned;
use wasm_bindgen::JsValue;

use crate::protocol::{self, EventAt, GraphRequest, TraceQuery};

/// Renders a view model.
pub type Render = fn(ViewProps) -> AnyView;

/// Every view, by the name the registry's outputs give it.
pub const VIEWS: &[(&str, Render)] = &[
    ("advisor", advisor::view),
    ("overview_page", overview_page::view),
    ("pytorch_overview", pytorch_overview::view),
    ("input_pipeline_analyzer", input_pipeline_analyzer::view),
    ("framework_op_stats", framework_op_stats::view),
    ("operator_stats", operator_stats::view),
    ("kernel_stats", kernel_stats::view),
    ("idle_time_breakdown", idle_time_breakdown::view),
    ("queue_length", queue_length::view),
    ("memory_bandwidth", memory_bandwidth::view),
    ("kernel_sequences", kernel_sequences::view),
    ("kernel_launch_stats", kernel_launch_stats::view),
    ("modules", modules::view),
    ("critical_path", critical_path::view),
    ("memory_profile", memory_profile::view),
    ("pod_viewer", pod_viewer::view),
    ("tf_data_bottleneck_analysis", tf_data_bottleneck_analysis::view),
    ("trace_viewer", trace_viewer::view),
    ("op_profile", op_profile::view),
    ("hlo_stats", hlo_stats::view),
    ("roofline_model", roofline_model::view),
    ("memory_viewer", memory_viewer::view),
    ("graph_viewer", graph_viewer::view),
    ("stragglers", stragglers::view),
    ("info", info::view),
    (compare::VIEW, compare::view),
];

/// What every view gets: the host it shows, its model and what it may ask for.
pub struct ViewProps {
    pub run: String,
    pub host: String,
    /// The view model, as the worker sent it.
    pub model: JsValue,
    /// The worker's wasm memory when it answered.
    pub wasm_memory_bytes: u64,
    pub actions: Actions,
}

/// What a view may ask of the worker, for the host it shows.
#[derive(Clone)]
pub struct Actions {
    /// Show this XLA module in the memory viewer.
    pub choose_module: Arc<dyn Fn(String) + Send + Sync>,
    /// Draw the graph viewer's graph of this module (`None`: the one shown)
    /// around this node, with these hops.
    pub choose_graph: Arc<dyn Fn(Option<String>, GraphRequest) + Send + Sync>,
    /// Show the critical path of the step at this place.
    pub choose_step: Arc<dyn Fn(usize) + Send + Sync>,
    /// A trace-viewer query (with its sequence number); the answer comes to
    /// [`trace_viewer::on_answer`].
    pub trace_query: Arc<dyn Fn(u32, TraceQuery) + Send + Sync>,
    /// Show this event in the trace viewer: of the host on screen (`None`)
    /// or of another host of the run (a rank's).
    pub show_in_trace: ShowInTrace,
    /// The event the trace viewer is asked to show (by a view or the URL),
    /// until the user selects another.
    pub trace_target: RwSignal<Option<TraceTarget>>,
    /// The time range the trace viewer shows, for the URL (and asked for by it).
    pub trace_range: RwSignal<Option<TraceRange>>,
    /// Opens another tool (the advisor's evidence), and says which URL hash
    /// opens it, for a real link that can also be copied or opened anew.
    pub open_link: OpenLink,
}

/// A place in the page another view points at: a tool, on a host of the
/// run on screen, and for the trace viewer a time range or an event.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolLink {
    /// A tool id of `tool_names`.
    pub tool: &'static str,
    /// `None`: the host on screen.
    pub host: Option<String>,
    /// The trace viewer's time range, ps.
    pub range: Option<(i64, i64)>,
    pub event: Option<EventAt>,
}

/// Opens a [`ToolLink`] (`open`), and writes the URL hash that opens it
/// (`href`): the hash is what a copied link or a new tab reads, the click
/// sets the page's state directly, as "Show in trace" does.
#[derive(Clone)]
pub struct OpenLink {
    pub href: Arc<dyn Fn(&ToolLink) -> String + Send + Sync>,
    pub open: Arc<dyn Fn(ToolLink) + Send + Sync>,
}

/// Shows an event in the trace viewer: of the host on screen (`None`) or of
/// another host of the run.
pub type ShowInTrace = Arc<dyn Fn(Option<String>, EventAt) + Send + Sync>;

/// An event the trace viewer of `run`/`host` is to select and zoom to.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceTarget {
    pub run: String,
    pub host: String,
    pub at: EventAt,
}

/// The time range (ps) the trace viewer of `run`/`host` shows, or is to show.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceRange {
    pub run: String,
    pub host: String,
    pub start_ps: i64,
    pub end_ps: i64,
}

/// The view named `view` of the model in `props`.
pub fn render(view: &str, props: ViewProps) -> AnyView {
    match VIEWS.iter().find(|(name, _)| *name == view) {
        Some((_, render)) => render(props),
        None => failed(format!("Proflens has no view for “{view}” results.")),
    }
}

/// Reads the model of `props` as `T` and renders it; says so when it cannot be read.
pub fn with_model<T: DeserializeOwned>(props: ViewProps, render: impl FnOnce(ViewProps, T) -> AnyView) -> AnyView {
    let phase = std::any::type_name::<T>().rsplit("::").next().unwrap_or("model");
    match crate::render_timing::timed(&format!("from_js {phase}"), || protocol::from_js::<T>(props.model.clone())) {
        Ok(model) => crate::render_timing::timed(&format!("view {phase}"), || render(props, model)),
        Err(e) => failed(format!("Proflens could not read this result ({e}).")),
    }
}

fn failed(message: String) -> AnyView {
    view! { <p id="view-error" class="error" role="alert">{message}</p> }.into_any()
}

#[cfg(test)]
mod tests {
    use super::VIEWS;
    use crate::help;

    /// A new view (a tool's PyTorch variant, say) without a guide fails here.
    #[test]
    fn every_view_has_a_guide() {
        for (name, _) in VIEWS {
            assert!(help::find(name).is_some(), "no \"How to read this\" guide for view {name}");
        }
    }
}
