//! The overview's comparison: the step-time breakdown of both sides as
//! paired bars (baseline above candidate, per category) and as a table; the
//! same table shows the memory figures of the memory tools.

use leptos::html::Canvas;
use leptos::prelude::*;
use proflens_analysis::compare::Comparison;

use super::{change_class, ExportCsv};
use crate::widgets::chart;
use crate::widgets::chart_frame::{ChartFrame, ChartText};
use crate::widgets::fmt;
use crate::widgets::measure::window_resizes;

/// The breakdown chart (when there are parts besides the step time) and table.
#[component]
pub fn Breakdown(comparison: Comparison) -> impl IntoView {
    let parts: Vec<(String, f64, f64)> = comparison
        .metrics
        .iter()
        .filter(|m| m.name != "Step time")
        .map(|m| (m.name.clone(), m.value.base, m.value.candidate))
        .collect();
    let chart = (!parts.is_empty()).then(|| view! { <PairedChart parts=parts/> });
    view! {
        {chart}
        <Figures comparison=comparison caption="Average step time and its parts (ms)"/>
    }
}

/// Paired horizontal bars with an HTML legend.
#[component]
fn PairedChart(parts: Vec<(String, f64, f64)>) -> impl IntoView {
    let canvas = NodeRef::<Canvas>::new();
    let problem = RwSignal::new(None::<String>);
    let resized = window_resizes();
    // Tall enough for two bars per part.
    let height = format!("{}px", 60 + 34 * parts.len());
    let parts = StoredValue::new(parts);
    Effect::new(move |_| {
        resized.track();
        let Some(canvas) = canvas.get() else { return };
        parts.with_value(|parts| {
            let labels: Vec<&str> = parts.iter().map(|(n, _, _)| n.as_str()).collect();
            let pairs: Vec<(f64, f64)> = parts.iter().map(|(_, b, c)| (*b, *c)).collect();
            match chart::paired_bars(&canvas, &labels, &pairs, "Average per step (ms)") {
                Ok(()) => problem.set(None),
                Err(e) => problem.set(Some(format!("The breakdown could not be drawn ({e})."))),
            }
        });
    });
    let swatch = |i: usize| chart::css_color(chart::PAIR[i]);
    view! {
        <figure class="panel compare-chart" id="compare-breakdown">
            <figcaption>"Where a step's time goes, baseline and candidate"</figcaption>
            <ul class="legend">
                <li>
                    <span class="swatch" style:background-color=swatch(0)></span>
                    "Baseline"
                </li>
                <li>
                    <span class="swatch" style:background-color=swatch(1)></span>
                    "Candidate"
                </li>
            </ul>
            <ChartFrame name="compare-breakdown" caption="" text=ChartText::Table("compare-figures")>
                <canvas
                    node_ref=canvas
                    class="chart short"
                    style:height=height
                    role="img"
                    aria-label="Average time per step by category, baseline and candidate; the table below has the numbers"
                ></canvas>
            </ChartFrame>
            {move || problem.get().map(|p| view! { <p class="error" role="alert">{p}</p> })}
        </figure>
    }
}

/// The comparison's figures (`metrics`) as a table, with a CSV download.
#[component]
pub fn Figures(comparison: Comparison, caption: &'static str) -> impl IntoView {
    if comparison.metrics.is_empty() {
        return view! { <p id="no-figures" class="empty">"There are no figures to compare on both sides."</p> }
            .into_any();
    }
    let rows = comparison
        .metrics
        .iter()
        .map(|m| {
            let d = m.value;
            let unit = if m.unit.is_empty() { String::new() } else { format!(" {}", m.unit) };
            view! {
                <tr data-metric=m.name.clone()>
                    <th scope="row">{m.name.clone()}</th>
                    <td class="num base" data-value=d.base.to_string()>{format!("{}{unit}", fmt::decimal(d.base, 2))}</td>
                    <td class="num candidate" data-value=d.candidate.to_string()>
                        {format!("{}{unit}", fmt::decimal(d.candidate, 2))}
                    </td>
                    <td class=format!("num delta {}", change_class(d.delta)) data-value=d.delta.to_string()>
                        {format!("{}{unit}", fmt::signed(d.delta, 2))}
                    </td>
                    <td class="num delta-pct">{fmt::signed_percent(d.delta_pct)}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <table id="compare-figures" class="data compact">
            <caption>{caption}</caption>
            <thead>
                <tr>
                    <th scope="col" title="The figure compared">""</th>
                    <th scope="col" class="num" title="The figure in the baseline profile">"Baseline"</th>
                    <th scope="col" class="num" title="The figure in the candidate profile">"Candidate"</th>
                    <th scope="col" class="num" title="Candidate minus baseline">"Change"</th>
                    <th scope="col" class="num" title="Change as a percentage of the baseline">"Change (%)"</th>
                </tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
        <ExportCsv label="Export table (CSV)" file_name=format!("compare_{}.csv", comparison.tool) comparison=comparison.clone()/>
    }
    .into_any()
}
