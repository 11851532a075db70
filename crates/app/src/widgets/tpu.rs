//! What the TPU tools' files show beside the generic views: each step's
//! TensorCore / SparseCore times, the TPU utilisation figures and
//! properties, and a pod step's per-core named times, all-reduce ops and
//! channels. Small plain tables; every name is text, never HTML.

use leptos::prelude::*;
use proflens_analysis::common::stats::Summary;
use proflens_analysis::passes::input_pipeline::tpu::{TpuStep, TpuStepAnalysis};
use proflens_analysis::tools::overview::tpu::TpuSummary;
use proflens_analysis::tools::pod_viewer::PodStep;

use crate::widgets::fmt;

type StepColumn = (&'static str, String, fn(&TpuStep) -> f64, fn(&TpuStepAnalysis) -> Summary);

/// The columns of the TPU step table (the SparseCore columns named after the file's second core).
fn step_columns(sparse_core: &str) -> Vec<StepColumn> {
    let mut columns: Vec<StepColumn> =
        vec![("tc-compute", "TensorCore compute".into(), |s| s.tc_compute_ms, |a| a.tc_compute_ms)];
    if !sparse_core.is_empty() {
        columns.push(("sc-compute", format!("{sparse_core} compute"), |s| s.sc_compute_ms, |a| a.sc_compute_ms));
        columns.push(("sc-infeed", format!("{sparse_core} input"), |s| s.sc_infeed_ms, |a| a.sc_infeed_ms));
    }
    columns.extend::<[StepColumn; 4]>([
        ("tc-infeed", "TensorCore input".into(), |s| s.tc_infeed_ms, |a| a.tc_infeed_ms),
        ("tc-outfeed", "TensorCore output".into(), |s| s.tc_outfeed_ms, |a| a.tc_outfeed_ms),
        ("tc-idle", "TensorCore idle".into(), |s| s.tc_idle_ms, |a| a.tc_idle_ms),
        ("host-transfer", "Host transfer".into(), |s| s.host_transfer_ms, |a| a.host_transfer_ms),
    ]);
    columns
}

/// Each step of a TPU step table, ms, with the file's averages below.
#[component]
pub fn TpuStepTable(tpu: TpuStepAnalysis) -> impl IntoView {
    let columns = step_columns(&tpu.sparse_core);
    let head = columns
        .iter()
        .map(|(_, label, _, _)| view! { <th scope="col" class="num">{label.clone()}</th> })
        .collect_view();
    let rows = tpu
        .steps
        .iter()
        .map(|s| {
            let cells = columns
                .iter()
                .map(|(id, _, value, _)| {
                    let v = value(s);
                    view! { <td class="num" data-col=*id data-value=v.to_string()>{fmt::decimal(v, 3)}</td> }
                })
                .collect_view();
            view! {
                <tr data-step=s.name.clone()>
                    <th scope="row" style:white-space="nowrap">{s.name.clone()}</th>
                    <td class="num" data-col="step-time" data-value=s.step_time_ms.to_string()>
                        {fmt::decimal(s.step_time_ms, 3)}
                    </td>
                    {cells}
                    <td class="num" data-col="infeed-percent">{fmt::percent(s.infeed_percent_average)}</td>
                </tr>
            }
        })
        .collect_view();
    let averages = columns
        .iter()
        .map(|(id, _, _, summary)| {
            let v = summary(&tpu).average;
            view! { <td class="num" data-col=*id data-value=v.to_string()>{fmt::decimal(v, 3)}</td> }
        })
        .collect_view();
    view! {
        <table id="tpu-steps" class="data compact">
            <caption>"Each step on the TPU (ms), as the file states it"</caption>
            <thead>
                <tr>
                    <th scope="col">"Step"</th>
                    <th scope="col" class="num">"Step time"</th>
                    {head}
                    <th scope="col" class="num">"Waiting for input"</th>
                </tr>
            </thead>
            <tbody>{rows}</tbody>
            <tfoot>
                <tr class="averages">
                    <th scope="row">"Average"</th>
                    <td></td>
                    {averages}
                    <td></td>
                </tr>
            </tfoot>
        </table>
    }
}

/// The TPU utilisation figures and run-environment properties of an overview.
#[component]
pub fn TpuSummaryList(summary: TpuSummary) -> impl IntoView {
    let figures = [
        ("mxu", "Utilisation of the TPU matrix units", summary.mxu_utilization_percent),
        ("flops", "FLOPS compared to the program's optimal", summary.flop_rate_utilization_percent),
        ("memory-bw", "Memory bandwidth of the hardware limit", summary.memory_bw_utilization_percent),
        ("hbm", "HBM utilisation", summary.hbm_utilization_percent),
        ("duty-cycle", "TPU duty cycle", summary.device_duty_cycle_percent),
        ("device-idle", "TPU idle time", summary.device_idle_time_percent),
        ("host-idle", "Host idle time", summary.host_idle_time_percent),
    ];
    let items = figures
        .into_iter()
        .filter_map(|(id, label, value)| {
            let value = value?;
            Some(view! {
                <div data-figure=id>
                    <dt>{label}</dt>
                    <dd data-value=value.to_string()>{fmt::percent(value)}</dd>
                </div>
            })
        })
        .collect_view();
    let properties = summary
        .properties
        .into_iter()
        .map(|(k, v)| {
            view! {
                <div>
                    <dt>{k.replace('_', " ")}</dt>
                    <dd>{v}</dd>
                </div>
            }
        })
        .collect_view();
    let remark = (!summary.remark_text.is_empty()).then(|| view! { <p class="note">{summary.remark_text}</p> });
    view! {
        <dl class="summary" id="tpu-summary">{items}</dl>
        {remark}
        <dl class="summary" id="tpu-properties">{properties}</dl>
    }
}

/// A pod step's per-core TPU times and its all-reduce and channel tables,
/// when the file has them (nothing otherwise).
#[component]
pub fn TpuPodTables(step: PodStep) -> impl IntoView {
    let cores: Vec<_> = step.cores.iter().filter_map(|c| Some((c.core, c.host_name.clone(), c.tpu.clone()?))).collect();
    let core_table = (!cores.is_empty()).then(|| {
        let rows = cores
            .into_iter()
            .map(|(core, host, t)| {
                let us = |v: f64| view! { <td class="num">{fmt::decimal(v, 3)}</td> };
                view! {
                    <tr data-core=core.to_string()>
                        <th scope="row">{core.to_string()}</th>
                        <td>{host}</td>
                        <td class="num">{t.chip_id.to_string()}</td>
                        {us(t.high_flops_compute_us + t.low_flops_compute_us)}
                        {us(t.all_reduce_us)}
                        {us(t.send_us)}
                        {us(t.recv_us)}
                        {us(t.host_infeed_us)}
                        {us(t.host_outfeed_us)}
                    </tr>
                }
            })
            .collect_view();
        view! {
            <table id="tpu-core-stats" class="data compact">
                <caption>"Per core (µs), as the file names its times"</caption>
                <thead>
                    <tr>
                        <th scope="col">"Core"</th>
                        <th scope="col">"Host"</th>
                        <th scope="col" class="num">"Chip"</th>
                        <th scope="col" class="num">"Compute"</th>
                        <th scope="col" class="num">"All-reduce"</th>
                        <th scope="col" class="num">"Send"</th>
                        <th scope="col" class="num">"Recv"</th>
                        <th scope="col" class="num">"Infeed"</th>
                        <th scope="col" class="num">"Outfeed"</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        }
    });
    let all_reduce = (!step.all_reduce.is_empty()).then(|| {
        let rows = step
            .all_reduce
            .into_iter()
            .map(|op| {
                let groups: Vec<String> = op
                    .replica_groups
                    .iter()
                    .map(|g| format!("{{{}}}", g.iter().map(u64::to_string).collect::<Vec<_>>().join(",")))
                    .collect();
                view! {
                    <tr>
                        <th scope="row">{op.name}</th>
                        <td class="num">{op.occurrences.to_string()}</td>
                        <td class="num" data-value=op.duration_us.to_string()>{fmt::decimal(op.duration_us, 3)}</td>
                        <td class="num">{fmt::count(op.data_size_bytes)}</td>
                        <td>{groups.join(" ")}</td>
                    </tr>
                }
            })
            .collect_view();
        view! {
            <table id="tpu-all-reduce" class="data compact">
                <caption>"All-reduce ops of this step"</caption>
                <thead>
                    <tr>
                        <th scope="col">"Op"</th>
                        <th scope="col" class="num">"Occurrences"</th>
                        <th scope="col" class="num">"Average (µs)"</th>
                        <th scope="col" class="num">"Data (bytes)"</th>
                        <th scope="col">"Replica groups"</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        }
    });
    let channels = (!step.channels.is_empty()).then(|| {
        let rows = step
            .channels
            .into_iter()
            .map(|c| {
                view! {
                    <tr>
                        <th scope="row">{c.channel_id}</th>
                        <td class="num">{c.src_core.to_string()}</td>
                        <td class="num">{c.dst_core.to_string()}</td>
                        <td class="num">{fmt::count(c.data_size_bytes)}</td>
                        <td class="num">{fmt::decimal(c.duration_us, 3)}</td>
                        <td class="num">{fmt::decimal(c.send_delay_us, 3)}</td>
                        <td>{c.hlo_names.join(", ")}</td>
                    </tr>
                }
            })
            .collect_view();
        view! {
            <table id="tpu-channels" class="data compact">
                <caption>"Send/recv channels of this step"</caption>
                <thead>
                    <tr>
                        <th scope="col">"Channel"</th>
                        <th scope="col" class="num">"From core"</th>
                        <th scope="col" class="num">"To core"</th>
                        <th scope="col" class="num">"Data (bytes)"</th>
                        <th scope="col" class="num">"Duration (µs)"</th>
                        <th scope="col" class="num">"Send delay (µs)"</th>
                        <th scope="col">"HLO ops"</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        }
    });
    view! {
        <div class="table-scroll">{core_table}</div>
        <div class="table-scroll">{all_reduce}</div>
        <div class="table-scroll">{channels}</div>
    }
}
