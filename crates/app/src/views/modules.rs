//! "Modules": time per PyTorch `nn.Module` as an indented tree (module →
//! submodules, depth first), with host, self and kernel time, a depth
//! limit to fold the tree, sorting and CSV; a trace without module events
//! gets the message that says how to record them.

use std::sync::Arc;

use leptos::prelude::*;
use proflens_analysis::tools::modules::{to_csv, ModuleRow, Modules};

use super::ViewProps;
use crate::widgets::fmt;
use crate::widgets::measure;
use crate::widgets::table::{Column, Filter, FilterExportBar, SortValue, SortableTable, ToolbarText};
use crate::widgets::title::ToolTitle;

/// The view of a model of type `Modules`.
pub fn view(props: ViewProps) -> AnyView {
    super::with_model(props, |p, model: Modules| view! { <ModulesView run=p.run host=p.host model=model/> }.into_any())
}

#[component]
fn ModulesView(run: String, host: String, model: Modules) -> impl IntoView {
    let body = match &model.message {
        Some(message) if model.rows.is_empty() => {
            view! { <p id="modules-message" class="empty">{message.clone()}</p> }.into_any()
        }
        _ => view! { <ModuleTree model=model.clone()/> }.into_any(),
    };
    view! {
        <section id="tool-modules" class="tool pytorch" aria-labelledby="tool-modules-title">
            <ToolTitle tool="modules" run=run host=host/>
            {body}
        </section>
    }
}

#[component]
fn ModuleTree(model: Modules) -> impl IntoView {
    let max_depth = model.rows.iter().map(|r| r.depth).max().unwrap_or(0);
    let count = model.rows.len();
    let calls = model.calls;
    let all: Arc<Vec<ModuleRow>> = Arc::new(model.rows.clone());
    // Deepest level shown (0 = roots only); all levels at first.
    let depth = RwSignal::new(max_depth);
    let table_rows = Signal::derive(move || {
        let d = depth.get();
        Arc::new(all.iter().filter(|r| r.depth <= d).cloned().collect::<Vec<_>>())
    });
    let csv = to_csv(&model);
    let filter_text = RwSignal::new(String::new());
    let toolbar = ToolbarText {
        filter_id: "modules-filter",
        filter_label: "Filter by module",
        placeholder: "e.g. BertLayer",
        export_id: "export-modules",
        export_label: "Export table (CSV)",
        file_name: "modules.csv",
    };
    let options = (0..=max_depth)
        .map(|d| {
            let label = if d == max_depth { "All levels".to_string() } else { format!("{} deep", d + 1) };
            view! { <option value=d.to_string() selected=d == max_depth>{label}</option> }
        })
        .collect_view();
    view! {
        <p class="caption" id="modules-caption">
            {format!(
                "{} from {}: each module's forward, under the module that called it (same thread). Kernel time is \
                 the GPU time of the kernels launched inside it (CUDA graph replays included).",
                fmt::plural(count, "module", "modules"),
                fmt::plural(calls as usize, "call", "calls"),
            )}
        </p>
        <div class="toolbar">
            <label>
                "Show "
                <select
                    id="modules-depth"
                    on:change=move |ev| depth.set(event_target_value(&ev).parse().unwrap_or(max_depth))
                >
                    {options}
                </select>
            </label>
        </div>
        <FilterExportBar text=toolbar filter=filter_text csv=move || csv.clone()/>
        <div class="table-scroll">
            <SortableTable
                id="modules-table"
                caption="Modules depth first — select a heading to sort".to_string()
                columns=columns()
                rows=table_rows
                filter=Filter { text: filter_text.into(), matches: |r: &ModuleRow, n: &str| r.path.to_lowercase().contains(n) }
                empty="No module matches the filter."
            />
        </div>
    }
}

fn us(ps: i64) -> String {
    measure::us(ps as f64 / 1e6)
}

fn columns() -> Vec<Column<ModuleRow>> {
    vec![
        Column {
            id: "module",
            label: "Module",
            title: "Instance name (Class_k), indented under its caller",
            numeric: false,
            value: |r| SortValue::Text(&r.path),
            cell: |r| format!("{}{}", "\u{a0}\u{a0}\u{a0}".repeat(r.depth), r.name),
        },
        Column {
            id: "occurrences",
            label: "Calls",
            title: "How many times the module's forward ran",
            numeric: true,
            value: |r| SortValue::Number(r.occurrences as f64),
            cell: |r| fmt::count(r.occurrences),
        },
        Column {
            id: "host-total",
            label: "Host total (µs)",
            title: "Time on the CPU in its forward calls",
            numeric: true,
            value: |r| SortValue::Number(r.host_total_ps as f64),
            cell: |r| us(r.host_total_ps),
        },
        Column {
            id: "host-self",
            label: "Host self (µs)",
            title: "Host time outside its submodules",
            numeric: true,
            value: |r| SortValue::Number(r.host_self_ps as f64),
            cell: |r| us(r.host_self_ps),
        },
        Column {
            id: "kernels",
            label: "Kernels",
            title: "Kernels launched in it and its submodules",
            numeric: true,
            value: |r| SortValue::Number(r.kernels_total as f64),
            cell: |r| fmt::count(r.kernels_total),
        },
        Column {
            id: "kernel-total",
            label: "Kernel total (µs)",
            title: "GPU time of the kernels launched in it and its submodules",
            numeric: true,
            value: |r| SortValue::Number(r.kernel_total_ps as f64),
            cell: |r| us(r.kernel_total_ps),
        },
        Column {
            id: "kernel-self",
            label: "Kernel self (µs)",
            title: "GPU time of the kernels launched in it outside its submodules",
            numeric: true,
            value: |r| SortValue::Number(r.kernel_self_ps as f64),
            cell: |r| us(r.kernel_self_ps),
        },
    ]
}
