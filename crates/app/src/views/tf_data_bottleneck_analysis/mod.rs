//! "tf.data bottleneck analysis": whether the input pipelines are slow, the
//! concrete advice for the slowest one, every pipeline with its latency and
//! bottleneck iterator, and the iterators of a pipeline's slowest call drawn
//! as a graph (inline SVG) with the critical path in bold and the bottleneck
//! outlined in red.
//!
//! - this module: the verdict, the advice and how to read iterator names;
//! - [`pipelines`]: the pipelines panel and the graph's pickers;
//! - [`table`]: the pipelines table's rows and columns;
//! - [`graph`]: one call's iterators drawn as SVG;
//! - [`layout`]: where the graph's nodes go (no web types).

mod graph;
mod layout;
mod pipelines;
mod table;

use std::sync::Arc;

use leptos::prelude::*;
use proflens_analysis::tools::tf_data::TfDataAnalysis;

use super::ViewProps;
use crate::widgets::title::ToolTitle;
use pipelines::Pipelines;

/// The view of a model of type `TfDataAnalysis`.
pub fn view(props: ViewProps) -> AnyView {
    super::with_model(props, |p, model: TfDataAnalysis| {
        view! { <TfDataView run=p.run host=p.host analysis=model/> }.into_any()
    })
}

#[component]
fn TfDataView(run: String, host: String, analysis: TfDataAnalysis) -> impl IntoView {
    let analysis = Arc::new(analysis);
    let verdict_class = if analysis.is_input_bound { "verdict input-bound" } else { "verdict" };
    let suggestion = analysis.suggestion.clone().map(|s| {
        view! {
            <p id="tfdata-suggestion" class="suggestion">
                <strong>"What to try: "</strong>
                {s}
            </p>
        }
    });
    let summary = view! {
        <section id="tfdata-summary" class="panel" aria-labelledby="tfdata-summary-title">
            <h3 id="tfdata-summary-title">"Summary"</h3>
            <p id="tfdata-verdict" class=verdict_class data-input-bound=analysis.is_input_bound.to_string()>
                {analysis.summary.clone()}
            </p>
            {suggestion}
        </section>
    };
    let body = if analysis.pipelines.is_empty() {
        view! {
            <p id="no-pipelines" class="empty">
                "No tf.data iterator events (Iterator::…) were recorded on the host, so there is no pipeline to show."
            </p>
        }
        .into_any()
    } else {
        view! { <Pipelines analysis=analysis.clone()/> }.into_any()
    };
    view! {
        <section
            id="tool-tf_data_bottleneck_analysis"
            class="tool"
            aria-labelledby="tool-tf_data_bottleneck_analysis-title"
        >
            <ToolTitle tool="tf_data_bottleneck_analysis" run=run host=host/>
            {summary}
            {body}
            <NameHelp/>
        </section>
    }
}

/// How to read iterator names.
#[component]
fn NameHelp() -> impl IntoView {
    view! {
        <details id="tfdata-names" class="panel name-help">
            <summary>"How to read iterator names"</summary>
            <p>
                "An iterator's long name, such as "
                <code>"Iterator::Root::Prefetch::MapAndBatch::ParallelMapV2"</code>
                ", is the chain of transformations from the one your program calls (the root) to this one. "
                "Read it right to left to follow the data: ParallelMapV2 feeds MapAndBatch, which feeds Prefetch, "
                "which feeds the root that the training loop takes elements from. The graph draws the same chain "
                "top to bottom, with the inputs of each iterator below it."
            </p>
            <p>
                "A number in brackets marks one input of an interleave: in "
                <code>"ParallelInterleaveV4[3]::Range"</code>
                " the Range iterator is the fourth input dataset (counting from 0) that the interleave reads from."
            </p>
            <p>
                "Start is when an iterator's first call began, from the start of the pipeline's slowest call "
                "(negative: it began earlier, running ahead); total is the time of its calls, self the part not "
                "spent waiting for its inputs. Iterators such as Prefetch, ParallelMap, ParallelInterleave and "
                "MapAndBatch run their inputs ahead on other threads, so their inputs block the caller only when "
                "the work is not ready in time."
            </p>
        </details>
    }
}
