//! "Input pipeline analyzer": how much of each step waits for input (device
//! side) and which host input operations cost what (host side).

use std::sync::Arc;

use leptos::prelude::*;
use proflens_analysis::passes::input_pipeline::{
    self, HardwareType, InputOpRow, InputPipelineAnalysis, InputTimeBreakdown, NextStep,
};

use super::ViewProps;
use crate::widgets::diagnostics::Diagnostics;
use crate::widgets::download;
use crate::widgets::fmt;
use crate::widgets::step_time::{InputShareGraph, NoSteps, StepTimeGraph, SummaryStats};
use crate::widgets::table::{Column, Direction, SortValue, SortableTable};
use crate::widgets::table_csv::TableCsv;
use crate::widgets::title::ToolTitle;
use crate::widgets::tpu::tpu_step_table;

/// The view of a model of type `InputPipelineAnalysis`.
pub fn view(props: ViewProps) -> AnyView {
    super::with_model(props, |p, model: InputPipelineAnalysis| {
        view! { <InputPipelineView run=p.run host=p.host analysis=model/> }.into_any()
    })
}

#[component]
fn InputPipelineView(run: String, host: String, analysis: InputPipelineAnalysis) -> impl IntoView {
    let analysis = Arc::new(analysis);
    let b = &analysis.bottleneck;
    let statements: Vec<String> = [&b.kernel_launch_statement, &b.all_other_statement, &b.device_collectives_statement]
        .into_iter()
        .filter(|s| !s.trim().is_empty())
        .cloned()
        .collect();
    // TPUs wait for input in their infeed: XProf's TPU terms.
    let device_title = if analysis.hardware_type == HardwareType::Tpu {
        "TPU side: TensorCore step time and time waiting for infeed"
    } else {
        "Device side: step time and time waiting for input"
    };
    let device_side = if analysis.steps.is_empty() {
        view! { <NoSteps/> }.into_any()
    } else {
        view! {
            <StepTimeGraph analysis=analysis.clone()/>
            <h4>"Step time"</h4>
            <SummaryStats id="step-time-stats" summary=analysis.step_time format=fmt::ms/>
            <h4>"Share of each step waiting for input"</h4>
            <InputShareGraph analysis=analysis.clone()/>
            <SummaryStats id="input-percent-stats" summary=analysis.input_percent format=fmt::percent/>
            {analysis.tpu.as_ref().map(|t| view! { <h4>"On the TPU"</h4> {tpu_step_table(t)} })}
        }
        .into_any()
    };
    view! {
        <section
            id="tool-input_pipeline_analyzer"
            class="tool"
            aria-labelledby="tool-input_pipeline_analyzer-title"
        >
            <ToolTitle tool="input_pipeline_analyzer" run=run host=host/>
            <Diagnostics items=analysis.diagnostics.clone()/>
            <section class="panel" id="input-summary" aria-labelledby="input-summary-title">
                <h3 id="input-summary-title">"Summary"</h3>
                <p id="verdict" class="verdict" data-bottleneck=b.input_classification.clone()>
                    {b.input_statement.clone()}
                </p>
                {(!statements.is_empty())
                    .then(|| {
                        view! {
                            <ul class="statements">
                                {statements.into_iter().map(|s| view! { <li>{s}</li> }).collect_view()}
                            </ul>
                        }
                    })}
                <p id="next-step" class="next-step">{next_step_text(analysis.next_step)}</p>
            </section>
            <section class="panel" id="device-side" aria-labelledby="device-side-title">
                <h3 id="device-side-title">{device_title}</h3>
                {device_side}
            </section>
            <section class="panel" id="host-side" aria-labelledby="host-side-title">
                <h3 id="host-side-title">"Host side: what the input time is spent on"</h3>
                <InputTime time=analysis.input_time.clone()/>
                <InputOps analysis=analysis.clone()/>
            </section>
        </section>
    }
}

fn next_step_text(next: NextStep) -> &'static str {
    match next {
        NextStep::UseTfData => {
            "Consider the tf.data API for the input pipeline: the profiler analyses tf.data pipelines only, so the host-side section below cannot explain custom input code."
        }
        NextStep::LookAtHostAnalysis => "The host-side section below breaks the input time down.",
        NextStep::Skip => "Input is not the bottleneck: you may skip the rest of this page.",
    }
}

/// The kinds of host input time, µs in the analysis, shown in ms.
#[component]
fn InputTime(time: InputTimeBreakdown) -> impl IntoView {
    let kinds = [
        ("enqueue", "Enqueuing data to the device", time.enqueue_us),
        ("demanded-file-read", "Reading data from files on demand", time.demanded_file_read_us),
        ("advanced-file-read", "Reading data from files in advance", time.advanced_file_read_us),
        ("preprocessing", "Data preprocessing", time.preprocessing_us),
        ("unclassified", "Other data reading or processing", time.unclassified_non_enqueue_us),
    ];
    let total: f64 = kinds.iter().map(|k| k.2).filter(|v| v.is_finite()).sum();
    let rows = kinds
        .into_iter()
        .map(|(id, label, us)| {
            let share = if total > 0.0 { fmt::percent(100.0 * us / total) } else { "—".into() };
            view! {
                <tr data-kind=id>
                    <th scope="row">{label}</th>
                    <td class="num" data-value=(us / 1e3).to_string()>{fmt::ms(us / 1e3)}</td>
                    <td class="num">{share}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <table id="input-time" class="data compact">
            <caption>"Host input time by kind"</caption>
            <thead>
                <tr>
                    <th scope="col" title="Enqueue, demanded file read, advanced file read, preprocessing or unclassified">"Kind"</th>
                    <th scope="col" class="num" title="Host time of this kind per step, on average">"Time"</th>
                    <th scope="col" class="num" title="Share of all host input time">"Share"</th>
                </tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
        <TableCsv table="input-time"/>
    }
}

fn input_op_columns() -> Vec<Column<InputOpRow>> {
    vec![
        Column {
            id: "name",
            label: "Input op",
            title: "The input operation (tf.data iterator, enqueue or copy to the device)",
            numeric: false,
            value: |r| SortValue::Text(&r.name),
            cell: |r| r.name.clone(),
        },
        Column {
            id: "count",
            label: "Count",
            title: "How many times the op ran",
            numeric: true,
            value: |r| SortValue::Number(r.count as f64),
            cell: |r| fmt::count(r.count),
        },
        Column {
            id: "total-ms",
            label: "Total time (ms)",
            title: "Time of all its runs including the ops it called, ms",
            numeric: true,
            value: |r| SortValue::Number(r.time_ms),
            cell: |r| fmt::decimal(r.time_ms, 3),
        },
        Column {
            id: "total-percent",
            label: "Total time (%)",
            title: "Of the total input-processing time",
            numeric: true,
            value: |r| SortValue::Number(r.time_fraction),
            cell: |r| fmt::fraction_percent(r.time_fraction),
        },
        Column {
            id: "self-ms",
            label: "Self time (ms)",
            title: "Time of all its runs excluding the ops it called, ms",
            numeric: true,
            value: |r| SortValue::Number(r.self_time_ms),
            cell: |r| fmt::decimal(r.self_time_ms, 3),
        },
        Column {
            id: "self-percent",
            label: "Self time (%)",
            title: "Of the total input-processing time",
            numeric: true,
            value: |r| SortValue::Number(r.self_time_fraction),
            cell: |r| fmt::fraction_percent(r.self_time_fraction),
        },
        Column {
            id: "category",
            label: "Category",
            title: "Enqueue, demanded file read, advanced file read, preprocessing or unknown",
            numeric: false,
            value: |r| SortValue::Text(&r.category),
            cell: |r| r.category.clone(),
        },
    ]
}

/// "Input Op Statistics": sortable, exportable as CSV.
#[component]
fn InputOps(analysis: Arc<InputPipelineAnalysis>) -> impl IntoView {
    if analysis.input_ops.is_empty() {
        return view! {
            <p id="input-ops" class="empty">
                "No host input operations (tf.data iterators, enqueue or host-to-device copies) were recorded."
            </p>
        }
        .into_any();
    }
    let rows = Arc::new(analysis.input_ops.clone());
    let problem = RwSignal::new(None::<String>);
    let export = move |_| {
        let csv = input_pipeline::input_ops_csv(&analysis);
        problem.set(download::save_text("input_ops.csv", "text/csv;charset=utf-8", &csv).err());
    };
    view! {
        <SortableTable
            id="input-ops"
            caption="Input op statistics — select a heading to sort"
            columns=input_op_columns()
            rows=rows
            sort=(4, Direction::Descending)
        />
        <p class="actions">
            <button id="export-input-ops" type="button" class="button small" on:click=export>
                "Export input ops (CSV)"
            </button>
        </p>
        {move || problem.get().map(|p| view! { <p class="error" role="alert">{p}</p> })}
    }
    .into_any()
}
