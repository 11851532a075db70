//! What the TPU tools' files show beside the generic views: each step's
//! TensorCore / SparseCore times, the TPU utilisation figures and
//! properties, and a pod step's per-core named times, all-reduce ops and
//! channels. Small plain tables, all drawn by one function (few distinct
//! view types keep the wasm small); every name is text, never HTML.

use leptos::prelude::*;
use proflens_analysis::passes::input_pipeline::tpu::TpuStepAnalysis;
use proflens_analysis::tools::overview::tpu::TpuSummary;
use proflens_analysis::tools::pod_viewer::{PodStep, PodViewer};

use crate::widgets::fmt;
use crate::widgets::table_csv::TableCsv;

/// A cell: its text, and the column id and exact value tests and scripts read.
struct Cell {
    text: String,
    col: &'static str,
    value: Option<f64>,
}

fn num(col: &'static str, v: f64) -> Cell {
    Cell { text: fmt::decimal(v, 3), col, value: Some(v) }
}

fn text(col: &'static str, t: String) -> Cell {
    Cell { text: t, col, value: None }
}

/// A table of rows keyed by their first cell (`data-key`); numbers right-aligned.
fn plain_table(id: &'static str, caption: &str, head: Vec<String>, rows: Vec<Vec<Cell>>) -> AnyView {
    let head = head
        .into_iter()
        .map(|h| {
            let title = format!("{h} — {caption}");
            view! { <th scope="col" title=title>{h}</th> }
        })
        .collect_view();
    let rows = rows
        .into_iter()
        .map(|cells| {
            let key = cells.first().map(|c| c.text.clone()).unwrap_or_default();
            let cells = cells
                .into_iter()
                .map(|c| {
                    view! {
                        <td class=if c.value.is_some() { "num" } else { "" } data-col=c.col data-value=c.value.map(|v| v.to_string())>
                            {c.text}
                        </td>
                    }
                })
                .collect_view();
            view! { <tr data-key=key>{cells}</tr> }
        })
        .collect_view();
    view! {
        <div class="table-scroll">
            <table id=id class="data compact">
                <caption>{caption.to_string()}</caption>
                <thead>
                    <tr>{head}</tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
        <TableCsv table=id/>
    }
    .into_any()
}

/// Each step of a TPU step table, ms, then a row of the file's averages.
pub fn tpu_step_table(tpu: &TpuStepAnalysis) -> AnyView {
    let sc = !tpu.sparse_core.is_empty();
    let mut head = vec!["Step".to_string(), "Step time".into(), "TensorCore compute".into()];
    if sc {
        head.push(format!("{} compute", tpu.sparse_core));
        head.push(format!("{} input", tpu.sparse_core));
    }
    for h in ["TensorCore input", "TensorCore output", "TensorCore idle", "Host transfer", "Waiting for input (%)"] {
        head.push(h.into());
    }
    let row = |name: String, step: Option<f64>, v: [f64; 7], waiting: Option<f64>| {
        let mut cells =
            vec![text("step", name), step.map_or_else(|| text("step-time", String::new()), |s| num("step-time", s))];
        let ids = ["tc-compute", "sc-compute", "sc-infeed", "tc-infeed", "tc-outfeed", "tc-idle", "host-transfer"];
        for (i, (id, value)) in ids.into_iter().zip(v).enumerate() {
            if sc || !(1..=2).contains(&i) {
                cells.push(num(id, value));
            }
        }
        cells.push(waiting.map_or_else(|| text("infeed-percent", String::new()), |w| num("infeed-percent", w)));
        cells
    };
    let mut rows: Vec<Vec<Cell>> = tpu
        .steps
        .iter()
        .map(|s| {
            let v = [
                s.tc_compute_ms,
                s.sc_compute_ms,
                s.sc_infeed_ms,
                s.tc_infeed_ms,
                s.tc_outfeed_ms,
                s.tc_idle_ms,
                s.host_transfer_ms,
            ];
            row(s.name.clone(), Some(s.step_time_ms), v, Some(s.infeed_percent_average))
        })
        .collect();
    let a = [
        tpu.tc_compute_ms.average,
        tpu.sc_compute_ms.average,
        tpu.sc_infeed_ms.average,
        tpu.tc_infeed_ms.average,
        tpu.tc_outfeed_ms.average,
        tpu.tc_idle_ms.average,
        tpu.host_transfer_ms.average,
    ];
    rows.push(row("Average".into(), None, a, None));
    plain_table("tpu-steps", "Each step on the TPU (ms), as the file states it", head, rows)
}

/// The TPU utilisation figures and run-environment properties of an overview.
pub fn tpu_summary_list(summary: &TpuSummary) -> AnyView {
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
        .filter_map(|(id, label, value)| Some((id, label.to_string(), fmt::percent(value?), value?.to_string())))
        .chain(summary.properties.iter().map(|(k, v)| ("property", k.replace('_', " "), v.clone(), String::new())))
        .chain(
            (!summary.remark_text.is_empty())
                .then(|| ("remark", "Remark".into(), summary.remark_text.clone(), String::new())),
        )
        .map(|(id, label, shown, value)| {
            view! {
                <div data-figure=id>
                    <dt>{label}</dt>
                    <dd data-value=value>{shown}</dd>
                </div>
            }
        })
        .collect_view();
    view! { <dl class="summary" id="tpu-summary">{items}</dl> }.into_any()
}

/// A pod step's per-core TPU times and its all-reduce and channel tables,
/// when the file has them (nothing otherwise).
pub fn tpu_pod_tables(pod: &PodViewer, step: &PodStep) -> AnyView {
    let strings = |names: &[&str]| names.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let mut tables = Vec::new();
    let cores: Vec<Vec<Cell>> = pod
        .core_steps(step)
        .filter_map(|c| {
            let t = c.tpu?;
            Some(vec![
                text("core", c.core.to_string()),
                text("host", c.host_name.to_string()),
                text("chip", t.chip_id.to_string()),
                num("compute", t.high_flops_compute_us + t.low_flops_compute_us),
                num("all-reduce", t.all_reduce_us),
                num("send", t.send_us),
                num("recv", t.recv_us),
                num("infeed", t.host_infeed_us),
                num("outfeed", t.host_outfeed_us),
            ])
        })
        .collect();
    if !cores.is_empty() {
        let head = strings(&["Core", "Host", "Chip", "Compute", "All-reduce", "Send", "Recv", "Infeed", "Outfeed"]);
        tables.push(plain_table("tpu-core-stats", "Per core (µs), as the file names its times", head, cores));
    }
    if !step.all_reduce.is_empty() {
        let rows = step
            .all_reduce
            .iter()
            .map(|op| {
                let groups: Vec<String> = op
                    .replica_groups
                    .iter()
                    .map(|g| format!("{{{}}}", g.iter().map(u64::to_string).collect::<Vec<_>>().join(",")))
                    .collect();
                vec![
                    text("name", op.name.clone()),
                    text("occurrences", fmt::count(op.occurrences)),
                    num("duration", op.duration_us),
                    text("data", fmt::count(op.data_size_bytes)),
                    text("replica-groups", groups.join(" ")),
                ]
            })
            .collect();
        let head = strings(&["Op", "Occurrences", "Average (µs)", "Data (bytes)", "Replica groups"]);
        tables.push(plain_table("tpu-all-reduce", "All-reduce ops of this step", head, rows));
    }
    if !step.channels.is_empty() {
        let rows = step
            .channels
            .iter()
            .map(|c| {
                vec![
                    text("channel", c.channel_id.clone()),
                    text("from", c.src_core.to_string()),
                    text("to", c.dst_core.to_string()),
                    text("data", fmt::count(c.data_size_bytes)),
                    num("duration", c.duration_us),
                    num("send-delay", c.send_delay_us),
                    text("hlo", c.hlo_names.join(", ")),
                ]
            })
            .collect();
        let head = strings(&[
            "Channel",
            "From core",
            "To core",
            "Data (bytes)",
            "Duration (µs)",
            "Send delay (µs)",
            "HLO ops",
        ]);
        tables.push(plain_table("tpu-channels", "Send/recv channels of this step", head, rows));
    }
    tables.into_iter().collect_view().into_any()
}
