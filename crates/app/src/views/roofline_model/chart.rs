//! The roofline chart of the chosen records: points coloured by category,
//! the roofs, a transparent button over each point (hover, focus, select)
//! and the hover card.

use leptos::html::Canvas;
use leptos::prelude::*;
use plotters::style::RGBColor;
use proflens_analysis::tools::roofline_model::{Peaks, RooflineRecord};

use super::on_chip;
use crate::widgets::chart::{self, ScatterPoint, OTHER, PALETTE};
use crate::widgets::chart_frame::{ChartFrame, ChartText};
use crate::widgets::fmt;
use crate::widgets::measure::{self, window_resizes};
use crate::widgets::roofline::{roofline_chart, Roof, Roofs};

const GB_PER_GIB: f64 = (1u64 << 30) as f64 / 1e9;
/// Categories with a colour of their own; the rest share grey.
const COLORED_CATEGORIES: usize = PALETTE.len() - 1;
/// The roofs' colours: compute (drawn in the theme's ink instead), HBM,
/// then the on-chip memories; each at least 3:1 against both themes' chart
/// ground.
const ROOF_COLORS: [RGBColor; 4] =
    [RGBColor(40, 40, 40), RGBColor(200, 30, 30), RGBColor(150, 90, 200), RGBColor(30, 130, 60)];

/// Categories by self time, longest first (`Program` first).
pub fn category_order(records: &[RooflineRecord]) -> Vec<String> {
    let mut time: Vec<(String, f64)> = Vec::new();
    for r in records {
        let weight = if r.category == "Program" { f64::INFINITY } else { r.total_self_time_us };
        match time.iter_mut().find(|(c, _)| *c == r.category) {
            Some((_, t)) => *t += weight,
            None => time.push((r.category.clone(), weight)),
        }
    }
    time.sort_by(|a, b| b.1.total_cmp(&a.1));
    time.into_iter().map(|(c, _)| c).collect()
}

fn color_of(categories: &[String], category: &str) -> (usize, RGBColor) {
    match categories.iter().position(|c| c == category) {
        Some(i) if i < COLORED_CATEGORIES => (i, PALETTE[i]),
        _ => (COLORED_CATEGORIES, OTHER),
    }
}

/// The chart, its legend, point buttons and hover card.
#[component]
pub fn RooflineChart(
    peaks: Peaks,
    shown: Memo<Vec<RooflineRecord>>,
    categories: Memo<Vec<String>>,
    selected: RwSignal<Option<usize>>,
    hovered: RwSignal<Option<usize>>,
) -> impl IntoView {
    let canvas = NodeRef::<Canvas>::new();
    let positions = RwSignal::new(Vec::<Option<(f64, f64)>>::new());
    let problem = RwSignal::new(None::<String>);
    let resized = window_resizes();
    let mut memories = vec![Roof { gb_per_s: peaks.hbm_bw * GB_PER_GIB, color: ROOF_COLORS[1] }];
    for (i, (_, _, bw)) in on_chip(&peaks).into_iter().enumerate() {
        memories.push(Roof { gb_per_s: bw * GB_PER_GIB, color: ROOF_COLORS[2 + i.min(1)] });
    }
    let peak_gflops = peaks.flop_rate;
    let roof_count = memories.iter().filter(|m| m.gb_per_s > 0.0).count() + usize::from(peak_gflops > 0.0);
    Effect::new({
        let memories = memories.clone();
        move |_| {
            resized.track();
            let chosen = selected.get();
            let Some(canvas) = canvas.get() else { return };
            let order = categories.get();
            let points: Vec<ScatterPoint> = shown.with(|s| {
                s.iter()
                    .map(|r| (r.operational_intensity, r.measured_flop_rate, color_of(&order, &r.category).0))
                    .collect()
            });
            let mut colors: Vec<RGBColor> = PALETTE[..COLORED_CATEGORIES].to_vec();
            colors.push(OTHER);
            let roofs = Roofs { peak_gflops, compute_color: crate::theme::chart_colors().ink, memories: &memories };
            match roofline_chart(&canvas, &points, &colors, &roofs, chosen) {
                Ok((_, at)) => {
                    positions.set(at);
                    problem.set(None);
                }
                Err(e) => problem.set(Some(format!("The chart could not be drawn ({e})."))),
            }
        }
    });
    let plotted = move || positions.with(|p| p.iter().filter(|p| p.is_some()).count());
    let off_chart = move || shown.with(|s| s.len()).saturating_sub(plotted());
    let buttons = move || {
        positions.with(|at| {
            shown.with(|records| {
                at.iter()
                    .zip(records)
                    .enumerate()
                    .filter_map(|(i, (p, r))| p.map(|p| (i, p, r.operation.clone())))
                    .map(|(i, (x, y), name)| {
                        view! {
                            <button
                                type="button"
                                class="roofline-point"
                                data-index=i.to_string()
                                data-name=name.clone()
                                aria-label=name
                                aria-pressed=move || (selected.get() == Some(i)).to_string()
                                style:left=format!("{}px", x - 6.0)
                                style:top=format!("{}px", y - 6.0)
                                on:mouseenter=move |_| hovered.set(Some(i))
                                on:focus=move |_| hovered.set(Some(i))
                                on:mouseleave=move |_| hovered.set(None)
                                on:blur=move |_| hovered.set(None)
                                on:click=move |_| {
                                    selected.set(Some(i));
                                    scroll_to_selected_row();
                                }
                            ></button>
                        }
                    })
                    .collect_view()
            })
        })
    };
    let card = move || {
        let i = hovered.get()?;
        let (x, _) = positions.with(|p| p.get(i).copied().flatten())?;
        let record = shown.with(|s| s.get(i).cloned())?;
        let width = canvas.get().map_or(800.0, |c| f64::from(c.client_width()));
        let (left, right) = measure::card_side(x, width);
        Some(view! {
            <div id="roofline-hover" class="chart-tooltip" style:left=left style:right=right style:top="0.5rem">
                <p class="tooltip-title"><strong>{record.operation.clone()}</strong></p>
                <p class="hover-lines">{hover_text(&record)}</p>
            </div>
        })
    };
    let legend = move || {
        let order = categories.get();
        let mut items: Vec<(String, RGBColor)> =
            order.iter().take(COLORED_CATEGORIES).enumerate().map(|(i, c)| (c.clone(), PALETTE[i])).collect();
        if order.len() > COLORED_CATEGORIES {
            items.push(("Other categories".into(), OTHER));
        }
        legend_items(items)
    };
    let mut roofs = Vec::new();
    if peak_gflops > 0.0 {
        roofs.push(("Peak FLOP rate".to_string(), ROOF_COLORS[0]));
    }
    for (m, label) in memories.iter().zip(std::iter::once("HBM").chain(on_chip(&peaks).into_iter().map(|c| c.1))) {
        if m.gb_per_s > 0.0 {
            roofs.push((format!("{label} roof"), m.color));
        }
    }
    // The compute roof is drawn in the theme's ink: its swatch follows the theme.
    let roof_legend = move || {
        let ink = crate::theme::chart_colors().ink;
        legend_items(roofs.iter().map(|(t, c)| (t.clone(), if *c == ROOF_COLORS[0] { ink } else { *c })).collect())
    };
    let label = move || {
        format!(
            "Roofline chart: {} ops and programs as points, FLOP rate against operational intensity on log scales, \
             under {} roofs. The table below lists the same records.",
            plotted(),
            roof_count
        )
    };
    view! {
        <figure class="roofline">
            <figcaption>
                "Normalized FLOP rate against operational intensity (all bytes accessed), both on log scales. \
                 Hover a point for its op; select it to mark its row in the table."
                {move || {
                    let n = off_chart();
                    (n > 0).then(|| format!(" {} with no FLOPs or no bytes are in the table only.", fmt::plural(n, "record", "records")))
                }}
            </figcaption>
            <ChartFrame name="roofline" caption="" text=ChartText::Table("roofline-table")>
            <div class="chart-wrap">
                <canvas
                    id="roofline-chart"
                    class="chart scatter"
                    node_ref=canvas
                    role="img"
                    aria-label=label
                    data-points=move || plotted().to_string()
                    data-roofs=roof_count.to_string()
                ></canvas>
                {buttons}
                {card}
            </div>
            <ul class="legend roofs">{roof_legend}</ul>
            <ul class="legend categories">{legend}</ul>
            </ChartFrame>
            {move || problem.get().map(|p| view! { <p class="error" role="alert">{p}</p> })}
        </figure>
    }
}

/// A legend: each item's swatch and text (`data-item` names it).
fn legend_items(items: Vec<(String, RGBColor)>) -> impl IntoView {
    items
        .into_iter()
        .map(|(text, color)| {
            let item = text.clone();
            view! {
                <li data-item=item>
                    <span class="swatch" style:background-color=chart::css_color(color)></span>
                    {text}
                </li>
            }
        })
        .collect_view()
}

/// The hover card's lines after the op's name.
fn hover_text(r: &RooflineRecord) -> String {
    format!(
        "{}\n{} GFLOP/s at {} FLOP/byte\nBound by {}, roofline efficiency {}\nTotal time {} µs",
        r.category,
        fmt::decimal(r.measured_flop_rate, 2),
        fmt::decimal(r.operational_intensity, 3),
        r.bound_by,
        fmt::fraction_percent(r.roofline_efficiency),
        measure::us(r.total_time_us)
    )
}

/// Scrolls the table to the row just marked, once it is drawn.
fn scroll_to_selected_row() {
    request_animation_frame(|| {
        let row = document().query_selector("#roofline-table tbody tr.selected").ok().flatten();
        if let Some(row) = row {
            row.scroll_into_view_with_bool(false);
        }
    });
}
