//! "Framework op stats": where self time goes by op and by op type (pies,
//! host and device), and every framework op in a sortable, filterable table
//! that exports as CSV. The IDLE op is included by default, as in XProf.

use std::collections::HashMap;
use std::sync::Arc;

use leptos::html::Canvas;
use leptos::prelude::*;
use proflens_analysis::tools::framework_op_stats::{self, FrameworkOpStats, OpRow, Side};

use super::ViewProps;
use crate::widgets::chart;
use crate::widgets::chart_frame::{ChartData, ChartFrame, ChartText};
use crate::widgets::fmt;
use crate::widgets::table::{Column, Direction, Filter, FilterExportBar, SortValue, SortableTable, ToolbarText};
use crate::widgets::title::ToolTitle;

/// Slices a pie shows before the rest is summed as "Other".
const PIE_SLICES: usize = 10;

/// The view of a model of type `FrameworkOpStats`.
pub fn view(props: ViewProps) -> AnyView {
    super::with_model(props, |p, model: FrameworkOpStats| {
        view! { <FrameworkOpStatsView run=p.run host=p.host stats=model/> }.into_any()
    })
}

#[component]
fn FrameworkOpStatsView(run: String, host: String, stats: FrameworkOpStats) -> impl IntoView {
    let include_idle = RwSignal::new(true);
    let filter_text = RwSignal::new(String::new());
    let gpu = stats.gpu;
    let with_idle = Arc::new(stats.with_idle.rows.clone());
    let without_idle = Arc::new(stats.without_idle.rows.clone());
    let task_type = stats.with_idle.task_type.clone();
    let stats = StoredValue::new(stats);
    let rows = Signal::derive(move || if include_idle.get() { with_idle.clone() } else { without_idle.clone() });

    let csv = move || stats.with_value(|s| framework_op_stats::to_csv(s, include_idle.get_untracked()));
    let toolbar = ToolbarText {
        filter_id: "op-filter",
        filter_label: "Filter by operation or type",
        placeholder: "e.g. MatMul or Iterator",
        export_id: "export-op-stats",
        export_label: "Export table (CSV)",
        file_name: "framework_op_stats.csv",
    };
    let pies = move || {
        rows.with(|rows| {
            let pies: Vec<_> = [
                (Side::Host, "pie-host-op", "Host self time by operation", false),
                (Side::Host, "pie-host-type", "Host self time by operation type", true),
                (Side::Device, "pie-device-op", "Device self time by operation", false),
                (Side::Device, "pie-device-type", "Device self time by operation type", true),
            ]
            .into_iter()
            .filter_map(|(side, id, title, by_type)| {
                let slices = pie_slices(rows, side, by_type, PIE_SLICES);
                (!slices.is_empty()).then(|| view! { <Pie id=id title=title slices=slices/> })
            })
            .collect();
            if pies.is_empty() {
                view! { <p class="empty">"No op spent any self time."</p> }.into_any()
            } else {
                pies.collect_view().into_any()
            }
        })
    };

    view! {
        <section id="tool-framework_op_stats" class="tool" aria-labelledby="tool-framework_op_stats-title">
            <ToolTitle tool="framework_op_stats" run=run host=host/>
            <div class="toolbar">
                <label class="check">
                    <input
                        type="checkbox"
                        id="include-idle"
                        prop:checked=move || include_idle.get()
                        on:change=move |ev| include_idle.set(event_target_checked(&ev))
                    />
                    " Include IDLE (time no op was running)"
                </label>
                <span class="note" id="task-type">{format!("The ops look like {}.", task_type.to_lowercase())}</span>
            </div>
            <div class="pies">{pies}</div>
            <FilterExportBar text=toolbar filter=filter_text csv=csv/>
            <div class="table-scroll">
                <SortableTable
                    id="op-stats"
                    caption="Framework ops, device first, by self time — select a heading to sort"
                    columns=op_columns(gpu)
                    rows=rows
                    filter=Filter { text: filter_text.into(), matches: op_matches }
                    sort=(0, Direction::Ascending)
                    empty="No operation matches the filter."
                />
            </div>
        </section>
    }
}

/// Substring match on the op's name or type (`needle` is lower-case).
fn op_matches(row: &OpRow, needle: &str) -> bool {
    row.operation.to_lowercase().contains(needle) || row.op_type.to_lowercase().contains(needle)
}

/// One slice of a pie.
#[derive(Debug, Clone, PartialEq)]
pub struct Slice {
    pub label: String,
    pub value: f64,
    /// The sum of the slices left out.
    pub other: bool,
}

/// Self time of one side's rows by operation (or by type), the `top`
/// largest first and the rest as "Other"; empty when there is no self time.
pub fn pie_slices(rows: &[OpRow], side: Side, by_type: bool, top: usize) -> Vec<Slice> {
    let mut sums: Vec<Slice> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    for row in rows.iter().filter(|r| r.side == side) {
        let value = row.total_self_time_us;
        if !(value.is_finite() && value > 0.0) {
            continue;
        }
        let key = if by_type { row.op_type.as_str() } else { row.operation.as_str() };
        match index.get(key) {
            Some(&i) => sums[i].value += value,
            None => {
                index.insert(key, sums.len());
                sums.push(Slice { label: key.to_string(), value, other: false });
            }
        }
    }
    sums.sort_by(|a, b| b.value.total_cmp(&a.value).then_with(|| a.label.cmp(&b.label)));
    if sums.len() > top + 1 {
        let rest: f64 = sums[top..].iter().map(|s| s.value).sum();
        sums.truncate(top);
        sums.push(Slice { label: "Other".to_string(), value: rest, other: true });
    }
    sums
}

/// A pie on a canvas with its legend (name and share as text).
#[component]
fn Pie(id: &'static str, title: &'static str, slices: Vec<Slice>) -> impl IntoView {
    let canvas = NodeRef::<Canvas>::new();
    let total: f64 = slices.iter().map(|s| s.value).sum();
    let color = |i: usize, s: &Slice| if s.other { chart::OTHER } else { chart::PALETTE[i % chart::PALETTE.len()] };
    let drawn: Vec<_> = slices.iter().enumerate().map(|(i, s)| (s.value, color(i, s))).collect();
    let problem = RwSignal::new(None::<String>);
    Effect::new(move |_| {
        if let Some(canvas) = canvas.get() {
            problem.set(chart::pie(&canvas, &drawn).err().map(|e| format!("The chart could not be drawn ({e}).")));
        }
    });
    let legend = slices
        .iter()
        .enumerate()
        .map(|(i, s)| {
            view! {
                <li>
                    <span class="swatch" style:background-color=chart::css_color(color(i, s))></span>
                    <span class="slice-label" title=s.label.clone()>
                        {s.label.clone()}
                    </span>
                    " "
                    <span class="slice-share">{fmt::share(s.value, total)}</span>
                </li>
            }
        })
        .collect_view();
    let label = format!("{title}; the shares are listed beside the chart.");
    let rows = slices.iter().map(|s| vec![s.label.clone(), us(s.value), fmt::share(s.value, total)]).collect();
    let data = ChartData { headers: vec!["Slice".into(), "Time (µs)".into(), "Share".into()], rows };
    view! {
        <figure class="pie">
            <figcaption>{title}</figcaption>
            <ChartFrame name=id caption="" text=ChartText::Data(data)>
                <div class="pie-body">
                    <canvas id=id class="pie-chart" node_ref=canvas role="img" aria-label=label></canvas>
                    <ul class="legend vertical">{legend}</ul>
                </div>
            </ChartFrame>
            {move || problem.get().map(|p| view! { <p class="error" role="alert">{p}</p> })}
        </figure>
    }
}

fn us(v: f64) -> String {
    fmt::decimal(v, 1)
}

/// A share of one side, blank on the other side's rows.
fn side_share(row: &OpRow, side: Side, fraction: f64) -> String {
    if row.side == side {
        fmt::fraction_percent(fraction)
    } else {
        "—".to_string()
    }
}

/// XProf's columns; the TensorCore one only for GPUs.
fn op_columns(gpu: bool) -> Vec<Column<OpRow>> {
    let mut columns: Vec<Column<OpRow>> = vec![
        Column {
            id: "rank",
            label: "Rank",
            title: "Position by self time within its side (host or device), 1 = most",
            numeric: true,
            value: |r| SortValue::Number(f64::from(r.rank)),
            cell: |r| r.rank.to_string(),
        },
        Column {
            id: "side",
            label: "Host/device",
            title: "Where the op ran: on the host (CPU) or on the device (GPU/TPU)",
            numeric: false,
            value: |r| SortValue::Text(r.side.label()),
            cell: |r| r.side.label().to_string(),
        },
        Column {
            id: "type",
            label: "Type",
            title: "Operation type",
            numeric: false,
            value: |r| SortValue::Text(&r.op_type),
            cell: |r| r.op_type.clone(),
        },
        Column {
            id: "operation",
            label: "Operation",
            title: "Operation name",
            numeric: false,
            value: |r| SortValue::Text(&r.operation),
            cell: |r| r.operation.clone(),
        },
        Column {
            id: "occurrences",
            label: "Occurrences",
            title: "How many times the op ran",
            numeric: true,
            value: |r| SortValue::Number(r.occurrences as f64),
            cell: |r| fmt::count(r.occurrences),
        },
        Column {
            id: "total-time",
            label: "Total time (µs)",
            title: "Time of all its runs including the ops it called, µs",
            numeric: true,
            value: |r| SortValue::Number(r.total_time_us),
            cell: |r| us(r.total_time_us),
        },
        Column {
            id: "avg-time",
            label: "Avg. time (µs)",
            title: "Total time ÷ occurrences, µs",
            numeric: true,
            value: |r| SortValue::Number(r.avg_time_us),
            cell: |r| us(r.avg_time_us),
        },
        Column {
            id: "self-time",
            label: "Total self time (µs)",
            title: "Time in the op itself, not in the ops it called",
            numeric: true,
            value: |r| SortValue::Number(r.total_self_time_us),
            cell: |r| us(r.total_self_time_us),
        },
        Column {
            id: "avg-self-time",
            label: "Avg. self time (µs)",
            title: "Self time ÷ occurrences, µs",
            numeric: true,
            value: |r| SortValue::Number(r.avg_self_time_us),
            cell: |r| us(r.avg_self_time_us),
        },
        Column {
            id: "device-self-percent",
            label: "Device self time (%)",
            title: "Share of the device's total self time",
            numeric: true,
            value: |r| SortValue::Number(r.device_self_time_fraction),
            cell: |r| side_share(r, Side::Device, r.device_self_time_fraction),
        },
        Column {
            id: "device-cumulative-percent",
            label: "Device cumulative (%)",
            title: "Cumulative share of the device's total self time",
            numeric: true,
            value: |r| SortValue::Number(r.device_cumulative_self_time_fraction),
            cell: |r| side_share(r, Side::Device, r.device_cumulative_self_time_fraction),
        },
        Column {
            id: "host-self-percent",
            label: "Host self time (%)",
            title: "Share of the host's total self time",
            numeric: true,
            value: |r| SortValue::Number(r.host_self_time_fraction),
            cell: |r| side_share(r, Side::Host, r.host_self_time_fraction),
        },
        Column {
            id: "host-cumulative-percent",
            label: "Host cumulative (%)",
            title: "Cumulative share of the host's total self time",
            numeric: true,
            value: |r| SortValue::Number(r.host_cumulative_self_time_fraction),
            cell: |r| side_share(r, Side::Host, r.host_cumulative_self_time_fraction),
        },
        Column {
            id: "flop-rate",
            label: "FLOP rate (GFLOP/s)",
            title: "Normalized FLOP rate",
            numeric: true,
            value: |r| SortValue::Number(r.measured_flop_rate),
            cell: |r| fmt::decimal(r.measured_flop_rate, 2),
        },
        Column {
            id: "memory-bw",
            label: "Memory BW (GiB/s)",
            title: "Measured memory bandwidth",
            numeric: true,
            value: |r| SortValue::Number(r.measured_memory_bw),
            cell: |r| fmt::decimal(r.measured_memory_bw, 2),
        },
        Column {
            id: "intensity",
            label: "Operational intensity (FLOP/byte)",
            title: "FLOPs per byte of memory accessed; low means memory-bound",
            numeric: true,
            value: |r| SortValue::Number(r.operational_intensity),
            cell: |r| fmt::decimal(r.operational_intensity, 2),
        },
    ];
    if gpu {
        columns.push(Column {
            id: "tensorcore",
            label: "TensorCore utilization (%)",
            title: "Share of the op's kernel time on TensorCores",
            numeric: true,
            value: |r| SortValue::Number(r.gpu_tensorcore_utilization),
            cell: |r| {
                if r.side == Side::Device {
                    fmt::fraction_percent(r.gpu_tensorcore_utilization)
                } else {
                    "—".into()
                }
            },
        });
    }
    columns.push(Column {
        id: "bound-by",
        label: "Bound by",
        title: "The resource closest to its peak (roofline)",
        numeric: false,
        value: |r| SortValue::Text(&r.bound_by),
        cell: |r| r.bound_by.clone(),
    });
    columns.push(Column {
        id: "mode",
        label: "Eager / function",
        title: "Execution mode",
        numeric: false,
        value: |r| SortValue::Text(if r.is_eager { "Eager" } else { "Function" }),
        cell: |r| if r.is_eager { "Eager" } else { "Function" }.to_string(),
    });
    columns
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(side: Side, op_type: &str, operation: &str, self_us: f64) -> OpRow {
        OpRow {
            rank: 1,
            side,
            op_type: op_type.into(),
            operation: operation.into(),
            occurrences: 1,
            total_time_us: self_us,
            avg_time_us: self_us,
            total_self_time_us: self_us,
            avg_self_time_us: self_us,
            device_self_time_fraction: 0.0,
            device_cumulative_self_time_fraction: 0.0,
            host_self_time_fraction: 0.0,
            host_cumulative_self_time_fraction: 0.0,
            measured_flop_rate: 0.0,
            model_flop_rate: 0.0,
            measured_memory_bw: 0.0,
            operational_intensity: 0.0,
            gpu_tensorcore_utilization: 0.0,
            bound_by: "Unknown".into(),
            is_eager: false,
        }
    }

    #[test]
    fn pies_keep_the_largest_slices_and_sum_the_rest() {
        let rows = vec![
            row(Side::Host, "Dataset", "a", 5.0),
            row(Side::Host, "Dataset", "b", 3.0),
            row(Side::Host, "MatMul", "c", 1.0),
            row(Side::Host, "Add", "d", 0.5),
            row(Side::Host, "Idle", "e", 0.0),
            row(Side::Device, "MatMul", "f", 9.0),
        ];
        let labels = |s: Vec<Slice>| s.into_iter().map(|s| (s.label, s.value)).collect::<Vec<_>>();
        assert_eq!(
            labels(pie_slices(&rows, Side::Host, true, 10)),
            [("Dataset".to_string(), 8.0), ("MatMul".to_string(), 1.0), ("Add".to_string(), 0.5)]
        );
        assert_eq!(
            labels(pie_slices(&rows, Side::Host, false, 2)),
            [("a".to_string(), 5.0), ("b".to_string(), 3.0), ("Other".to_string(), 1.5)]
        );
        // One slice over the limit is shown as itself, not as "Other".
        assert_eq!(pie_slices(&rows, Side::Host, false, 3).len(), 4);
        assert!(pie_slices(&[], Side::Device, true, 10).is_empty());
    }

    #[test]
    fn filter_matches_name_or_type_ignoring_case() {
        let r = row(Side::Host, "Dataset", "Iterator::Root::Prefetch", 1.0);
        assert!(op_matches(&r, "iterator"));
        assert!(op_matches(&r, "dataset"));
        assert!(!op_matches(&r, "matmul"));
    }
}
