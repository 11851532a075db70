//! "Stragglers": which rank of a PyTorch job the others waited for, per
//! step, from HTA's late-starting communication kernel — the verdict, how
//! late each rank started the kernel, and the table behind it (CSV).

use std::sync::Arc;

use leptos::prelude::*;
use proflens_analysis::context::Rendered;
use proflens_analysis::tools::stragglers::{CandidateRow, Stragglers};

use super::ViewProps;
use crate::widgets::fmt;
use crate::widgets::measure;
use crate::widgets::table::{Column, Direction, Filter, FilterExportBar, SortValue, SortableTable, ToolbarText};
use crate::widgets::title::ToolTitle;

/// The view of a model of type `Stragglers`.
pub fn view(props: ViewProps) -> AnyView {
    super::with_model(props, |p, model: Stragglers| {
        view! { <StragglersView run=p.run host=p.host model=model/> }.into_any()
    })
}

#[component]
fn StragglersView(run: String, host: String, model: Stragglers) -> impl IntoView {
    let verdict = verdict(&model);
    let kernel = model.rows.first().map(|r| format!("{} (stream {})", r.name, r.stream)).unwrap_or_default();
    let csv = model.csv().unwrap_or_default();
    let rows: Arc<Vec<CandidateRow>> = Arc::new(model.rows);
    let table_rows = Signal::derive(move || rows.clone());
    let filter_text = RwSignal::new(String::new());
    let toolbar = ToolbarText {
        filter_id: "stragglers-filter",
        filter_label: "Filter by rank or step",
        placeholder: "e.g. 3",
        export_id: "export-stragglers",
        export_label: "Export table (CSV)",
        file_name: "stragglers.csv",
    };
    view! {
        <section id="tool-stragglers" class="tool" aria-labelledby="tool-stragglers-title">
            <ToolTitle tool="stragglers" run=run host=host/>
            <p id="stragglers-verdict" class="verdict">{verdict}</p>
            <p class="caption">
                "The metric kernel — the communication kernel whose duration differs most between ranks: "
                <code id="stragglers-kernel">{kernel}</code>
                ". A collective ends at about the same time everywhere, so the rank that starts it last is the one the \
                 others waited for (HTA's rule). Steps: "
                {model.iterations.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(", ")}
                "; mean step "
                {measure::us(model.mean_iteration_us)}
                " µs."
            </p>
            <FilterExportBar text=toolbar filter=filter_text csv=move || csv.clone()/>
            <div class="table-scroll">
                <SortableTable
                    id="stragglers-table"
                    caption="The metric kernel per step and rank — select a heading to sort".to_string()
                    columns=columns()
                    rows=table_rows
                    filter=Filter { text: filter_text.into(), matches: row_matches }
                    sort=(0, Direction::Ascending)
                    empty="No row matches the filter."
                />
            </div>
        </section>
    }
}

/// "Rank 3 held the job back in 5 of 6 steps (up to 1,234 µs late)."
fn verdict(model: &Stragglers) -> String {
    let steps = model.iterations.len();
    let parts: Vec<String> = model
        .potential_stragglers
        .iter()
        .map(|rank| {
            let count = model.straggler_counts.iter().find(|(r, _)| r == rank).map_or(0, |(_, n)| *n);
            let worst = model.rows.iter().filter(|r| r.rank == *rank).map(|r| r.late_by_us).max().unwrap_or(0);
            format!(
                "rank {rank} started the metric kernel last in {count} of {} (up to {} µs after the earliest rank)",
                fmt::plural(steps, "step", "steps"),
                fmt::count(u64::try_from(worst).unwrap_or(0)),
            )
        })
        .collect();
    match parts.as_slice() {
        [] => "No rank stands out.".to_string(),
        _ => format!("Potential straggler: {}.", parts.join("; ")),
    }
}

fn row_matches(row: &CandidateRow, needle: &str) -> bool {
    row.rank.to_string() == needle || row.iteration.to_string().contains(needle)
}

fn columns() -> Vec<Column<CandidateRow>> {
    vec![
        Column {
            id: "step",
            label: "Step",
            title: "ProfilerStep#N",
            numeric: true,
            value: |r| SortValue::Number(r.iteration as f64),
            cell: |r| r.iteration.to_string(),
        },
        Column {
            id: "rank",
            label: "Rank",
            title: "The process (rank) of the distributed job",
            numeric: true,
            value: |r| SortValue::Number(r.rank as f64),
            cell: |r| r.rank.to_string(),
        },
        Column {
            id: "start",
            label: "Start (µs)",
            title: "Since the earliest event of any rank",
            numeric: true,
            value: |r| SortValue::Number(r.ts as f64),
            cell: |r| fmt::count(u64::try_from(r.ts).unwrap_or(0)),
        },
        Column {
            id: "late-by",
            label: "Late by (µs)",
            title: "After the earliest rank's start of the kernel in this step",
            numeric: true,
            value: |r| SortValue::Number(r.late_by_us as f64),
            cell: |r| fmt::count(u64::try_from(r.late_by_us).unwrap_or(0)),
        },
        Column {
            id: "normalized-start",
            label: "Normalized start",
            title: "Start over the mean step time, from the first step's start (HTA's metric)",
            numeric: true,
            value: |r| SortValue::Number(r.normalized_start_time),
            cell: |r| fmt::decimal(r.normalized_start_time, 3),
        },
        Column {
            id: "duration",
            label: "Duration (µs)",
            title: "How long the rank's communication kernel ran, µs; early ranks wait inside it",
            numeric: true,
            value: |r| SortValue::Number(r.dur),
            cell: |r| measure::us(r.dur),
        },
        Column {
            id: "straggler",
            label: "Straggler",
            title: "Among the latest starters of this step",
            numeric: false,
            value: |r| SortValue::Text(if r.is_straggler { "yes" } else { "no" }),
            cell: |r| if r.is_straggler { "yes".to_string() } else { "no".to_string() },
        },
    ]
}
