//! The pipelines panel: the table with its CSV export, and the pickers
//! (host, pipeline, call) for the call whose iterators the graph draws.

use std::sync::Arc;

use leptos::prelude::*;
use proflens_analysis::tools::tf_data::{self, TfDataAnalysis};

use super::graph::PipelineGraph;
use super::table::{pipeline_columns, pipeline_title, PipelineRow};
use crate::widgets::download;
use crate::widgets::fmt;
use crate::widgets::measure::ps_as_us;
use crate::widgets::table::{Direction, SortableTable};

#[component]
pub(super) fn Pipelines(analysis: Arc<TfDataAnalysis>) -> impl IntoView {
    let rows: Arc<Vec<PipelineRow>> = Arc::new(analysis.pipelines.iter().map(PipelineRow::of).collect());
    let table_rows = Signal::derive(move || rows.clone());
    let stored = StoredValue::new(analysis.clone());
    // The graph's selectors: host → pipeline (index into `pipelines`) → rank
    // (index into its ranked calls). Choosing a host or a pipeline starts
    // again from that choice's slowest call.
    let mut hosts: Vec<String> = Vec::new();
    for p in &analysis.pipelines {
        if !hosts.contains(&p.host) {
            hosts.push(p.host.clone());
        }
    }
    let host = RwSignal::new(hosts.first().cloned().unwrap_or_default());
    let selected = RwSignal::new(0usize);
    let rank = RwSignal::new(0usize);
    let choose_host = move |h: String| {
        let first = stored.with_value(|a| a.pipelines.iter().position(|p| p.host == h)).unwrap_or(0);
        host.set(h);
        selected.set(first);
        rank.set(0);
    };
    let host_picker = (hosts.len() > 1).then(|| {
        let options = hosts
            .iter()
            .map(|h| {
                let value = h.clone();
                let is = h.clone();
                view! { <option value=value prop:selected=move || host.with(|c| *c == is)>{h.clone()}</option> }
            })
            .collect_view();
        view! {
            <label for="tfdata-host">"Host"</label>
            <select id="tfdata-host" on:change=move |ev| choose_host(event_target_value(&ev))>
                {options}
            </select>
        }
    });
    let pipeline_options = move || {
        let h = host.get();
        stored.with_value(|a| {
            a.pipelines
                .iter()
                .enumerate()
                .filter(|(_, p)| p.host == h)
                .map(|(i, p)| {
                    view! {
                        <option value=i.to_string() prop:selected=move || selected.get() == i>
                            {format!("{} — slowest call {}", p.name, ps_as_us(p.max_ps as f64))}
                        </option>
                    }
                })
                .collect_view()
        })
    };
    let rank_options = move || {
        let index = selected.get();
        stored.with_value(|a| {
            a.pipelines.get(index).map(|p| {
                p.ranked_calls
                    .iter()
                    .enumerate()
                    .map(|(i, c)| {
                        view! {
                            <option value=i.to_string() prop:selected=move || rank.get() == i>
                                {format!("#{} — {}", c.rank, ps_as_us(c.duration_ps as f64))}
                            </option>
                        }
                    })
                    .collect_view()
            })
        })
    };
    let problem = RwSignal::new(None::<String>);
    let export = move |_| {
        let csv = stored.with_value(|a| tf_data::pipelines_csv(a));
        problem.set(download::save_text("tf_data_pipelines.csv", "text/csv;charset=utf-8", &csv).err());
    };
    let graph = move || {
        let (index, r) = (selected.get(), rank.get());
        let (pipeline, call) = stored.with_value(|a| {
            let p = a.pipelines.get(index)?;
            Some((format!("{} on {}", p.name, p.host), p.ranked_calls.get(r)?.clone()))
        })?;
        Some(view! { <PipelineGraph pipeline=pipeline call=call/> })
    };
    let count = analysis.pipelines.len();
    view! {
        <section class="panel" aria-labelledby="tfdata-pipelines-title">
            <h3 id="tfdata-pipelines-title">"Input pipelines"</h3>
            <div class="table-scroll">
                <SortableTable
                    id="tfdata-pipelines"
                    caption=format!(
                        "{}, slowest first; a call is slow above 50 µs — select a heading to sort",
                        fmt::plural(count, "pipeline", "pipelines"),
                    )
                    columns=pipeline_columns()
                    rows=table_rows
                    sort=(6, Direction::Descending)
                    cell_title=pipeline_title
                />
            </div>
            <p class="actions">
                <button id="export-tfdata" type="button" class="button small" on:click=export>
                    "Export pipelines (CSV)"
                </button>
            </p>
            {move || problem.get().map(|p| view! { <p class="error" role="alert">{p}</p> })}
        </section>
        <section class="panel" aria-labelledby="tfdata-graph-title">
            <h3 id="tfdata-graph-title">"Iterators of one call"</h3>
            <div class="toolbar">
                {host_picker}
                <label for="tfdata-pipeline">"Pipeline"</label>
                <select
                    id="tfdata-pipeline"
                    on:change=move |ev| {
                        selected.set(event_target_value(&ev).parse().unwrap_or(0));
                        rank.set(0);
                    }
                >
                    {pipeline_options}
                </select>
                <label for="tfdata-rank" title="The pipeline's calls, slowest first">
                    "Call (slowest first)"
                </label>
                <select id="tfdata-rank" on:change=move |ev| rank.set(event_target_value(&ev).parse().unwrap_or(0))>
                    {rank_options}
                </select>
            </div>
            {graph}
        </section>
    }
}
