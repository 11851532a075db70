//! The operators of a PyTorch profiler (Kineto) trace: host and device
//! time per operator, filterable and exported as CSV; "Group by input
//! shape" splits each operator by the `Input Dims` of its calls (as
//! TensorBoard's PyTorch plugin did).

use std::sync::Arc;

use leptos::prelude::*;
use proflens_analysis::tools::framework_op_stats::pytorch::{self, InputShapeRow, OperatorRow};

use super::ViewProps;
use crate::widgets::fmt;
use crate::widgets::measure;
use crate::widgets::table::{Column, Direction, Filter, FilterExportBar, SortValue, SortableTable, ToolbarText};
use crate::widgets::title::ToolTitle;

/// The view of an `operator_stats` model (the operators' rows).
pub fn view(props: ViewProps) -> AnyView {
    super::with_model(props, |p, rows: Vec<OperatorRow>| {
        view! { <OperatorStatsView run=p.run host=p.host rows=rows/> }.into_any()
    })
}

#[component]
fn OperatorStatsView(run: String, host: String, rows: Vec<OperatorRow>) -> impl IntoView {
    let count = rows.len();
    let shape_lines: Vec<ShapeLine> = rows
        .iter()
        .flat_map(|r| r.by_input_shape.iter().map(|s| ShapeLine { name: r.name.clone(), shape: s.clone() }))
        .collect();
    let has_shapes = !shape_lines.is_empty();
    let shape_count = shape_lines.len();
    let shape_rows: Arc<Vec<ShapeLine>> = Arc::new(shape_lines);
    let shape_table_rows = Signal::derive(move || shape_rows.clone());
    let by_shape = RwSignal::new(false);
    let stored = StoredValue::new(rows.clone());
    let rows: Arc<Vec<OperatorRow>> = Arc::new(rows);
    let table_rows = Signal::derive(move || rows.clone());
    let filter_text = RwSignal::new(String::new());
    let toolbar = ToolbarText {
        filter_id: "operator-filter",
        filter_label: "Filter by operator",
        placeholder: "e.g. aten::mm",
        export_id: "export-operators",
        export_label: "Export table (CSV)",
        file_name: "operators.csv",
    };
    view! {
        <section id="tool-framework_op_stats" class="tool pytorch" aria-labelledby="tool-framework_op_stats-title">
            <ToolTitle tool="framework_op_stats" run=run host=host/>
            <div class="toolbar">
                <label class="check">
                    <input
                        type="checkbox"
                        id="group-by-input-shape"
                        disabled=!has_shapes
                        prop:checked=move || by_shape.get()
                        on:change=move |ev| by_shape.set(event_target_checked(&ev))
                    />
                    " Group by input shape"
                </label>
                <span class="note" id="input-shape-note">
                    {if has_shapes {
                        "Splits each operator by the Input Dims of its calls."
                    } else {
                        "This trace records no input shapes: profile with record_shapes=True to group by them."
                    }}
                </span>
            </div>
            <FilterExportBar
                text=toolbar
                filter=filter_text
                csv=move || {
                    if by_shape.get_untracked() {
                        stored.with_value(|r| pytorch::to_csv_by_input_shape(r))
                    } else {
                        stored.with_value(|r| pytorch::to_csv(r))
                    }
                }
            />
            <Show when=move || by_shape.get()>
                <div class="table-scroll">
                    <SortableTable
                        id="operators-by-shape"
                        caption=format!(
                            "{} by device self time — select a heading to sort",
                            fmt::plural(shape_count, "operator and input shape", "operators and input shapes"),
                        )
                        columns=shape_columns()
                        rows=shape_table_rows
                        filter=Filter { text: filter_text.into(), matches: |r: &ShapeLine, n: &str| r.name.to_lowercase().contains(n) }
                        sort=(6, Direction::Descending)
                        empty="No operator matches the filter."
                    />
                </div>
            </Show>
            <div class="table-scroll" hidden=move || by_shape.get()>
                <SortableTable
                    id="operators"
                    caption=format!(
                        "{} by device self time — select a heading to sort",
                        fmt::plural(count, "operator", "operators"),
                    )
                    columns=operator_columns()
                    rows=table_rows
                    filter=Filter { text: filter_text.into(), matches: |r: &OperatorRow, n: &str| r.name.to_lowercase().contains(n) }
                    sort=(5, Direction::Descending)
                    empty="No operator matches the filter."
                />
            </div>
        </section>
    }
}

fn operator_columns() -> Vec<Column<OperatorRow>> {
    vec![
        Column {
            id: "name",
            label: "Operator",
            title: "The PyTorch operator (aten::…)",
            numeric: false,
            value: |r| SortValue::Text(&r.name),
            cell: |r| r.name.clone(),
        },
        Column {
            id: "calls",
            label: "Calls",
            title: "How many times the operator ran",
            numeric: true,
            value: |r| SortValue::Number(r.calls as f64),
            cell: |r| fmt::count(r.calls),
        },
        Column {
            id: "host-total",
            label: "Host total (µs)",
            title: "Time on the CPU from call to return",
            numeric: true,
            value: |r| SortValue::Number(r.host_total_ps as f64),
            cell: |r| measure::us(r.host_total_ps as f64 / 1e6),
        },
        Column {
            id: "host-self",
            label: "Host self (µs)",
            title: "Host time not spent in operators it called",
            numeric: true,
            value: |r| SortValue::Number(r.host_self_ps as f64),
            cell: |r| measure::us(r.host_self_ps as f64 / 1e6),
        },
        Column {
            id: "device-total",
            label: "Device total (µs)",
            title: "GPU time of the kernels it and the operators it called launched",
            numeric: true,
            value: |r| SortValue::Number(r.device_total_ps as f64),
            cell: |r| measure::us(r.device_total_ps as f64 / 1e6),
        },
        Column {
            id: "device-self",
            label: "Device self (µs)",
            title: "GPU time of the kernels it launched itself",
            numeric: true,
            value: |r| SortValue::Number(r.device_self_ps as f64),
            cell: |r| measure::us(r.device_self_ps as f64 / 1e6),
        },
    ]
}

/// One (operator, input shapes) row of the grouped table.
struct ShapeLine {
    name: String,
    shape: InputShapeRow,
}

fn shape_columns() -> Vec<Column<ShapeLine>> {
    vec![
        Column {
            id: "name",
            label: "Operator",
            title: "The PyTorch operator (aten::…)",
            numeric: false,
            value: |r| SortValue::Text(&r.name),
            cell: |r| r.name.clone(),
        },
        Column {
            id: "input-dims",
            label: "Input shape",
            title: "The calls' Input Dims (empty: calls without recorded shapes)",
            numeric: false,
            value: |r| SortValue::Text(&r.shape.input_dims),
            cell: |r| r.shape.input_dims.clone(),
        },
        Column {
            id: "calls",
            label: "Calls",
            title: "How many times the operator ran",
            numeric: true,
            value: |r| SortValue::Number(r.shape.calls as f64),
            cell: |r| fmt::count(r.shape.calls),
        },
        Column {
            id: "host-total",
            label: "Host total (µs)",
            title: "Time on the CPU from call to return",
            numeric: true,
            value: |r| SortValue::Number(r.shape.host_total_ps as f64),
            cell: |r| measure::us(r.shape.host_total_ps as f64 / 1e6),
        },
        Column {
            id: "host-self",
            label: "Host self (µs)",
            title: "Host time not spent in operators it called",
            numeric: true,
            value: |r| SortValue::Number(r.shape.host_self_ps as f64),
            cell: |r| measure::us(r.shape.host_self_ps as f64 / 1e6),
        },
        Column {
            id: "device-total",
            label: "Device total (µs)",
            title: "GPU time of the kernels it and the operators it called launched",
            numeric: true,
            value: |r| SortValue::Number(r.shape.device_total_ps as f64),
            cell: |r| measure::us(r.shape.device_total_ps as f64 / 1e6),
        },
        Column {
            id: "device-self",
            label: "Device self (µs)",
            title: "GPU time of the kernels it launched itself",
            numeric: true,
            value: |r| SortValue::Number(r.shape.device_self_ps as f64),
            cell: |r| measure::us(r.shape.device_self_ps as f64 / 1e6),
        },
    ]
}
