//! "Kernel sequences": the runs of kernels one PyTorch operator launches
//! again and again — fusion candidates — with their counts and GPU time
//! (after HTA's frequent CUDA kernel sequences), as a table with CSV.

use std::sync::Arc;

use leptos::prelude::*;
use proflens_analysis::context::Rendered;
use proflens_analysis::tools::kernel_sequences::{KernelSequences, SequenceRow, TOP_K};

use super::ViewProps;
use crate::widgets::fmt;
use crate::widgets::measure;
use crate::widgets::table::{Column, Direction, Filter, FilterExportBar, SortValue, SortableTable, ToolbarText};
use crate::widgets::title::ToolTitle;

/// The view of a model of type `KernelSequences`.
pub fn view(props: ViewProps) -> AnyView {
    super::with_model(props, |p, model: KernelSequences| {
        view! { <KernelSequencesView run=p.run host=p.host model=model/> }.into_any()
    })
}

#[component]
fn KernelSequencesView(run: String, host: String, model: KernelSequences) -> impl IntoView {
    let summary = summary(&model);
    let csv = model.csv().unwrap_or_default();
    let operator = model.operator_name.clone();
    let rows: Arc<Vec<SequenceRow>> = Arc::new(model.rows);
    let table_rows = Signal::derive(move || rows.clone());
    let filter_text = RwSignal::new(String::new());
    let toolbar = ToolbarText {
        filter_id: "kernel-sequences-filter",
        filter_label: "Filter by operator or kernel",
        placeholder: "e.g. conv",
        export_id: "export-kernel-sequences",
        export_label: "Export table (CSV)",
        file_name: "kernel_sequences.csv",
    };
    view! {
        <section id="tool-kernel-sequences" class="tool" aria-labelledby="tool-kernel_sequences-title">
            <ToolTitle tool="kernel_sequences" run=run host=host/>
            <p id="kernel-sequences-summary" class="verdict">{summary}</p>
            <p class="caption">
                "Each call of an outermost " <code>{operator}</code> " operator launches a run of kernels; a run that \
                 comes back again and again is a fusion candidate: every kernel launch costs CPU time and a gap on \
                 the GPU, and every kernel reads and writes its tensors in GPU memory, so one fused kernel doing the \
                 whole run (torch.compile, a custom or library fused kernel) saves launches and memory traffic. \
                 Sequences are the whole run of one call, of at least "
                {model.min_pattern_len}
                " kernels; ordered by count, then GPU time, the first "
                {TOP_K}
                " marked. The last profiler step is left out, as HTA does."
            </p>
            <FilterExportBar text=toolbar filter=filter_text csv=move || csv.clone()/>
            <div class="table-scroll">
                <SortableTable
                    id="kernel-sequences-table"
                    caption="Kernel sequences — select a heading to sort".to_string()
                    columns=columns()
                    rows=table_rows
                    filter=Filter { text: filter_text.into(), matches: row_matches }
                    sort=(0, Direction::Ascending)
                    empty="No sequence matches the filter."
                    row_class=|r: &SequenceRow| if r.rank <= TOP_K { "top-sequence" } else { "" }
                />
            </div>
        </section>
    }
}

/// "26 sequences of 3 or more kernels from 2,456 outermost aten:: calls …"
fn summary(model: &KernelSequences) -> String {
    let calls = fmt::count(model.operator_calls);
    let Some(first) = model.rows.first() else {
        return format!(
            "No call of the {calls} outermost {} operators launched {} or more kernels.",
            model.operator_name, model.min_pattern_len
        );
    };
    let occurrences: u64 = model.rows.iter().map(|r| r.count).sum();
    let gpu: i64 = model.rows.iter().map(|r| r.gpu_total_us).sum();
    format!(
        "{} of {} or more kernels, from {} of the {calls} outermost {} calls, take {} of the GPU time ({} of {} µs). \
         The most frequent: {} ×{}.",
        fmt::plural(model.rows.len(), "sequence", "sequences"),
        model.min_pattern_len,
        fmt::plural(occurrences as usize, "call", "calls"),
        model.operator_name,
        fmt::share(gpu as f64, model.gpu_time_us as f64),
        fmt::count(u64::try_from(gpu).unwrap_or(0)),
        fmt::count(u64::try_from(model.gpu_time_us).unwrap_or(0)),
        first.operator,
        fmt::count(first.count),
    )
}

fn row_matches(row: &SequenceRow, needle: &str) -> bool {
    row.operator.to_lowercase().contains(needle) || row.kernels.iter().any(|k| k.to_lowercase().contains(needle))
}

fn columns() -> Vec<Column<SequenceRow>> {
    vec![
        Column {
            id: "rank",
            label: "#",
            title: "By count, then GPU time",
            numeric: true,
            value: |r| SortValue::Number(r.rank as f64),
            cell: |r| r.rank.to_string(),
        },
        Column {
            id: "operator",
            label: "Operator",
            title: "The outermost operator whose calls launched the sequence",
            numeric: false,
            value: |r| SortValue::Text(&r.operator),
            cell: |r| r.operator.clone(),
        },
        Column {
            id: "sequence",
            label: "Kernel sequence",
            title: "The kernels one call launched, in the order they started",
            numeric: false,
            value: |r| SortValue::Text(r.kernels.first().map_or("", String::as_str)),
            cell: |r| {
                r.kernels.iter().enumerate().map(|(i, k)| format!("{}. {k}", i + 1)).collect::<Vec<_>>().join("\n")
            },
        },
        Column {
            id: "kernels",
            label: "Kernels",
            title: "Kernels in the sequence",
            numeric: true,
            value: |r| SortValue::Number(r.kernels.len() as f64),
            cell: |r| r.kernels.len().to_string(),
        },
        Column {
            id: "count",
            label: "Count",
            title: "Calls that launched exactly this sequence",
            numeric: true,
            value: |r| SortValue::Number(r.count as f64),
            cell: |r| fmt::count(r.count),
        },
        Column {
            id: "gpu-total",
            label: "GPU total (µs)",
            title: "The sequence's kernels' time over all its calls",
            numeric: true,
            value: |r| SortValue::Number(r.gpu_total_us as f64),
            cell: |r| fmt::count(u64::try_from(r.gpu_total_us).unwrap_or(0)),
        },
        Column {
            id: "gpu-mean",
            label: "GPU mean (µs)",
            title: "Per call",
            numeric: true,
            value: |r| SortValue::Number(r.gpu_mean_us),
            cell: |r| measure::us(r.gpu_mean_us),
        },
        Column {
            id: "share",
            label: "Share of GPU time",
            title: "Of all kernels', memcpys' and memsets' time",
            numeric: true,
            value: |r| SortValue::Number(r.gpu_share),
            cell: |r| fmt::share(r.gpu_share, 1.0),
        },
        Column {
            id: "cpu-total",
            label: "CPU total (µs)",
            title: "The calls' time on the CPU",
            numeric: true,
            value: |r| SortValue::Number(r.cpu_total_us as f64),
            cell: |r| fmt::count(u64::try_from(r.cpu_total_us).unwrap_or(0)),
        },
    ]
}
