//! "Roofline model": each XLA op's FLOP rate against its operational
//! intensity under the device's roofs (peak FLOP rate; HBM and on-chip
//! bandwidths), for the whole profile or one step, with or without
//! infeed/outfeed ops; points coloured by category, hover for the op, click
//! to select its row in XProf's table below (its text alternative).
//! `chart` draws the points and roofs, `table` lists the records.

mod chart;
mod table;

use std::sync::Arc;

use leptos::prelude::*;
use proflens_analysis::tools::roofline_model::{self, Peaks, RooflineDevice, RooflineModel, RooflineRecord};

use super::ViewProps;
use crate::widgets::diagnostics::Diagnostics;
use crate::widgets::fmt;
use crate::widgets::table::{Direction, Filter, FilterExportBar, SortableTable, ToolbarText};
use crate::widgets::title::ToolTitle;
use chart::{category_order, RooflineChart};
use table::{cell_title, columns, row_matches, Row};

/// The view of a model of type `RooflineModel`.
pub fn view(props: ViewProps) -> AnyView {
    super::with_model(props, |p, model: RooflineModel| {
        view! { <RooflineView run=p.run host=p.host model=model/> }.into_any()
    })
}

#[component]
fn RooflineView(run: String, host: String, model: RooflineModel) -> impl IntoView {
    let notes = model.diagnostics.clone();
    if model.peaks.device == RooflineDevice::None {
        return view! {
            <section id="tool-roofline_model" class="tool" aria-labelledby="tool-roofline_model-title">
                <ToolTitle tool="roofline_model" run=run host=host/>
                <p id="no-roofline" class="empty">
                    "This profile ran on the CPU only. The roofline model covers GPUs and TPUs (XProf, too, shows an \
                     empty table here)."
                </p>
            </section>
        }
        .into_any();
    }
    let model = Arc::new(model);
    let steps = step_choices(&model.records);
    let step = RwSignal::new(steps.first().cloned().unwrap_or_else(|| "Total".into()));
    let include_feeds = RwSignal::new(true);
    let selected = RwSignal::new(None::<usize>);
    let hovered = RwSignal::new(None::<usize>);
    // The records of the chosen step, in XProf's order.
    let shown = Memo::new({
        let model = model.clone();
        move |_| {
            let (step, feeds) = (step.get(), include_feeds.get());
            model
                .records
                .iter()
                .filter(|r| r.step == step && r.include_infeed_outfeed == feeds)
                .cloned()
                .collect::<Vec<_>>()
        }
    });
    let _ = Effect::watch(move || (step.track(), include_feeds.track()), move |_, _, _| selected.set(None), false);
    let rows = Signal::derive(move || {
        let chosen = selected.get();
        Arc::new(shown.with(|s| {
            s.iter().enumerate().map(|(i, r)| Row { record: r.clone(), selected: chosen == Some(i) }).collect()
        }))
    });
    let categories = Memo::new(move |_| shown.with(|s| category_order(s)));
    let step_options = steps.iter().map(|s| view! { <option value=s.clone()>{step_label(s)}</option> }).collect_view();
    let stored = StoredValue::new(model.clone());
    let filter_text = RwSignal::new(String::new());
    let toolbar = ToolbarText {
        filter_id: "roofline-filter",
        filter_label: "Filter by op or category",
        placeholder: "e.g. fusion or custom-call",
        export_id: "export-roofline",
        export_label: "Export table (CSV)",
        file_name: "roofline_model.csv",
    };
    view! {
        <section id="tool-roofline_model" class="tool" aria-labelledby="tool-roofline_model-title">
            <ToolTitle tool="roofline_model" run=run host=host/>
            <Diagnostics items=notes/>
            <PeaksList peaks=model.peaks.clone()/>
            <div class="toolbar">
                <label>
                    "Step "
                    <select id="roofline-step" on:change=move |e| step.set(event_target_value(&e)) prop:value=move || step.get()>
                        {step_options}
                    </select>
                </label>
                <label>
                    <input
                        type="checkbox"
                        id="roofline-feeds"
                        prop:checked=move || include_feeds.get()
                        on:change=move |e| include_feeds.set(event_target_checked(&e))
                    />
                    " Include infeed and outfeed ops"
                </label>
            </div>
            <RooflineChart
                peaks=model.peaks.clone()
                shown=shown
                categories=categories
                selected=selected
                hovered=hovered
            />
            <FilterExportBar text=toolbar filter=filter_text csv=move || stored.with_value(|m| roofline_model::to_csv(m))/>
            <div class="table-scroll">
                <SortableTable
                    id="roofline-table"
                    caption="The program and its ops — select a heading to sort, a point of the chart to mark its row"
                    columns=columns()
                    rows=rows
                    filter=Filter { text: filter_text.into(), matches: row_matches }
                    sort=(0, Direction::Ascending)
                    page_size=1000
                    empty="No op matches the filter."
                    cell_title=cell_title
                    row_class=|r: &Row| if r.selected { "selected" } else { "" }
                />
            </div>
        </section>
    }
    .into_any()
}

/// The steps the records have, in their order: `Total`, `Average`, numbers.
fn step_choices(records: &[RooflineRecord]) -> Vec<String> {
    let mut steps: Vec<String> = Vec::new();
    for r in records {
        if !steps.contains(&r.step) {
            steps.push(r.step.clone());
        }
    }
    steps
}

fn step_label(step: &str) -> String {
    match step {
        "Total" => "All steps (the whole profile)".into(),
        "Average" => "Average of the complete steps".into(),
        n => format!("Step {n}"),
    }
}

/// The device's peaks and ridge points, as text.
#[component]
fn PeaksList(peaks: Peaks) -> impl IntoView {
    let mut items: Vec<(&'static str, String, String)> = vec![
        (
            "device",
            "Device".into(),
            if peaks.device_type.is_empty() { "unknown".into() } else { peaks.device_type.clone() },
        ),
        ("peak-flops", "Peak FLOP rate".into(), rate_or_unknown(peaks.flop_rate, "GFLOP/s")),
        ("peak-hbm", "HBM bandwidth".into(), bandwidth(&peaks, peaks.hbm_bw)),
    ];
    for (id, label, bw) in on_chip(&peaks) {
        items.push((id, label.into(), bandwidth(&peaks, bw)));
    }
    let items = items
        .into_iter()
        .map(|(id, label, value)| view! { <div data-field=id><dt>{label}</dt><dd>{value}</dd></div> })
        .collect_view();
    view! { <dl id="roofline-peaks" class="summary">{items}</dl> }
}

fn rate_or_unknown(v: f64, unit: &str) -> String {
    if v > 0.0 {
        format!("{} {unit}", fmt::decimal(v, 0))
    } else {
        "unknown".into()
    }
}

/// A bandwidth and where its roof meets the compute roof.
fn bandwidth(peaks: &Peaks, gib: f64) -> String {
    match (gib > 0.0, peaks.ridge_point(gib)) {
        (false, _) => "unknown".into(),
        (true, ridge) if ridge > 0.0 => {
            format!("{} GiB/s (ridge point {} FLOP/byte)", fmt::decimal(gib, 1), fmt::decimal(ridge, 1))
        }
        (true, _) => format!("{} GiB/s", fmt::decimal(gib, 1)),
    }
}

/// The on-chip memories the device has roofs for: (id, label, GiB/s).
fn on_chip(peaks: &Peaks) -> Vec<(&'static str, &'static str, f64)> {
    let candidates = match peaks.device {
        RooflineDevice::Gpu => vec![("peak-shm", "Shared memory / L1 bandwidth", peaks.vmem_write_bw)],
        _ => vec![
            ("peak-cmem-read", "CMEM read bandwidth", peaks.cmem_read_bw),
            ("peak-cmem-write", "CMEM write bandwidth", peaks.cmem_write_bw),
            ("peak-vmem-read", "VMEM read bandwidth", peaks.vmem_read_bw),
            ("peak-vmem-write", "VMEM write bandwidth", peaks.vmem_write_bw),
        ],
    };
    candidates.into_iter().filter(|c| c.2 > 0.0).collect()
}
