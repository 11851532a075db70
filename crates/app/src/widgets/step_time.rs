//! The step-time graph shared by the Overview and the Input pipeline
//! analyzer: one stacked bar per step (a colour per category), its legend, a
//! hover card with the step's numbers, the same numbers as a table, and
//! summary statistics.

use std::sync::Arc;

use leptos::html::Canvas;
use leptos::prelude::*;
use proflens_analysis::common::stats::Summary;
use proflens_analysis::passes::input_pipeline::{InputPipelineAnalysis, StepBreakdown};
use web_sys::MouseEvent;

use crate::widgets::chart::{self, BarLayout};
use crate::widgets::chart_frame::{ChartFrame, ChartText};
use crate::widgets::fmt;
use crate::widgets::measure;

/// A part of a step's time.
#[derive(Clone, Copy)]
pub struct Category {
    pub label: &'static str,
    pub ms: fn(&StepBreakdown) -> f64,
}

/// The categories, bottom of the bar first (XProf's order).
pub const CATEGORIES: [Category; 9] = [
    Category { label: "Device compute", ms: |s| s.device_compute_ms },
    Category { label: "Device to device", ms: |s| s.device_to_device_ms },
    Category { label: "Device collectives", ms: |s| s.device_collectives_ms },
    Category { label: "Host compute", ms: |s| s.host_compute_ms },
    Category { label: "Kernel launch", ms: |s| s.kernel_launch_ms },
    Category { label: "Input", ms: StepBreakdown::input_ms },
    Category { label: "Output", ms: |s| s.output_ms },
    Category { label: "Compilation", ms: |s| s.compile_ms },
    Category { label: "All others", ms: |s| s.other_ms },
];

/// The colour of category `index`: fixed, so that a category looks the same in every profile.
fn color_of(index: usize) -> plotters::style::RGBColor {
    chart::PALETTE[index % chart::PALETTE.len()]
}

/// The categories with time in any step (indices into [`CATEGORIES`]).
pub fn used_categories(steps: &[StepBreakdown]) -> Vec<usize> {
    (0..CATEGORIES.len()).filter(|&c| steps.iter().any(|s| (CATEGORIES[c].ms)(s) > 0.0)).collect()
}

/// Graph, legend, hover card (`#step-tooltip`) and a table of the same
/// numbers, with their CSV export (`#export-steps`).
#[component]
pub fn StepTimeGraph(analysis: Arc<InputPipelineAnalysis>) -> impl IntoView {
    let canvas = NodeRef::<Canvas>::new();
    let layout = RwSignal::new(None::<BarLayout>);
    let problem = RwSignal::new(None::<String>);
    // (step, x, y) under the pointer, CSS pixels within the chart box.
    let hover = RwSignal::new(None::<(usize, f64, f64)>);
    let resized = window_resizes();

    let used = used_categories(&analysis.steps);
    let steps = StoredValue::new(analysis.clone());
    Effect::new(move |_| {
        resized.track();
        let Some(canvas) = canvas.get() else {
            return;
        };
        steps.with_value(|analysis| {
            let bars: Vec<chart::Bar> = analysis
                .steps
                .iter()
                .map(|s| chart::Bar { label: &s.name, values: CATEGORIES.iter().map(|c| (c.ms)(s)).collect() })
                .collect();
            let colors: Vec<_> = (0..CATEGORIES.len()).map(color_of).collect();
            match chart::stacked_bars(&canvas, &bars, &colors, "Step time (ms)") {
                Ok(drawn) => {
                    layout.set(Some(drawn));
                    problem.set(None);
                }
                Err(e) => problem.set(Some(format!("The step-time graph could not be drawn ({e})."))),
            }
        });
    });

    let on_move = move |ev: MouseEvent| {
        let (x, y) = (ev.offset_x() as f64, ev.offset_y() as f64);
        let step = layout.get_untracked().and_then(|l| l.bar_at(x));
        hover.set(step.map(|s| (s, x, y)));
    };
    let legend = used
        .iter()
        .map(|&c| {
            view! {
                <li>
                    <span class="swatch" style:background-color=chart::css_color(color_of(c))></span>
                    {CATEGORIES[c].label}
                </li>
            }
        })
        .collect_view();
    let card_used = used.clone();
    let tooltip = move || {
        let (index, x, y) = hover.get()?;
        let width = canvas.get().map(|c| c.client_width() as f64).unwrap_or(0.0);
        let step = steps.with_value(|a| a.steps.get(index).cloned())?;
        let rows = card_used
            .iter()
            .rev()
            .map(|&c| {
                view! {
                    <tr>
                        <th scope="row">
                            <span class="swatch" style:background-color=chart::css_color(color_of(c))></span>
                            {CATEGORIES[c].label}
                        </th>
                        <td class="num">{fmt::ms((CATEGORIES[c].ms)(&step))}</td>
                    </tr>
                }
            })
            .collect_view();
        // Beside the pointer, on the side with more room.
        let (left, right) = if x > width / 2.0 {
            (None, Some(format!("{}px", (width - x + 14.0).max(0.0))))
        } else {
            (Some(format!("{}px", x + 14.0)), None)
        };
        Some(view! {
            <div
                id="step-tooltip"
                class="chart-tooltip"
                role="tooltip"
                data-step=index.to_string()
                style:left=left
                style:right=right
                style:top=format!("{}px", (y - 20.0).max(0.0))
            >
                <p class="tooltip-title">
                    <strong class="step-name">{step.name.clone()}</strong>
                    " · "
                    {fmt::ms(step.step_time_ms)}
                </p>
                <table>
                    <tbody>{rows}</tbody>
                </table>
            </div>
        })
    };
    // A light band over the slot of the step under the pointer.
    let highlight = move || {
        let (index, _, _) = hover.get()?;
        Some(measure::bar_highlight(layout.get()?, index))
    };
    let count = analysis.steps.len();
    let export_problem = RwSignal::new(None::<String>);
    let export = move |_| {
        let result = steps.with_value(|a| export_steps(a));
        export_problem.set(result.err());
    };
    let label = format!(
        "Step-time graph: {}, each a bar split by where its time went. The same numbers are in the table below.",
        fmt::plural(count, "step", "steps")
    );

    view! {
        <div class="step-graph">
            <ChartFrame name="step-time" caption="Step time by category" text=ChartText::Table("step-table")>
            <div class="chart-wrap" on:mouseleave=move |_| hover.set(None)>
                <canvas
                    id="step-time-graph"
                    class="chart"
                    node_ref=canvas
                    role="img"
                    aria-label=label
                    on:mousemove=on_move
                    data-plot-left=move || layout.get().map(|l| l.left.to_string())
                    data-plot-right=move || layout.get().map(|l| l.right.to_string())
                    data-bars=move || layout.get().map(|l| l.count.to_string())
                ></canvas>
                {highlight}
                {tooltip}
            </div>
            <ul class="legend" aria-label="Categories">{legend}</ul>
            </ChartFrame>
            {move || problem.get().map(|p| view! { <p class="error" role="alert">{p}</p> })}
            <StepTable steps=analysis.clone() used=used/>
            <p class="actions">
                <button id="export-steps" type="button" class="button small" on:click=export>
                    "Export steps (CSV)"
                </button>
            </p>
            {move || export_problem.get().map(|p| view! { <p class="error" role="alert">{p}</p> })}
        </div>
    }
}

/// Counts the window's resizes while the calling component lives, so that
/// charts that read it are drawn again at their new size.
fn window_resizes() -> RwSignal<u32> {
    let resized = RwSignal::new(0u32);
    let listener = window_event_listener(leptos::ev::resize, move |_| resized.update(|n| *n = n.wrapping_add(1)));
    on_cleanup(move || listener.remove());
    resized
}

/// Share of a step's time waiting for input, percent (0 for an empty step).
pub fn input_share(step: &StepBreakdown) -> f64 {
    if step.step_time_ms > 0.0 {
        100.0 * step.input_ms() / step.step_time_ms
    } else {
        0.0
    }
}

/// A bar per step: the share of its time spent waiting for input
/// (`#input-percent-graph`); the numbers are in the step table.
#[component]
pub fn InputShareGraph(analysis: Arc<InputPipelineAnalysis>) -> impl IntoView {
    let canvas = NodeRef::<Canvas>::new();
    let problem = RwSignal::new(None::<String>);
    let resized = window_resizes();
    let steps = StoredValue::new(analysis);
    // The colour of "Input" in the step-time graph.
    let input = CATEGORIES.iter().position(|c| c.label == "Input").unwrap_or(0);
    Effect::new(move |_| {
        resized.track();
        let Some(canvas) = canvas.get() else {
            return;
        };
        steps.with_value(|a| {
            let bars: Vec<chart::Bar> =
                a.steps.iter().map(|s| chart::Bar { label: &s.name, values: vec![input_share(s)] }).collect();
            let drawn = chart::stacked_bars(&canvas, &bars, &[color_of(input)], "Waiting for input (%)");
            problem.set(drawn.err().map(|e| format!("The input-share graph could not be drawn ({e}).")));
        });
    });
    let label =
        "Share of each step's time spent waiting for input, one bar per step; the numbers are in the step table.";
    view! {
        <ChartFrame name="input-share" caption="Share of each step waiting for input" text=ChartText::Table("step-table")>
            <canvas id="input-percent-graph" class="chart short" node_ref=canvas role="img" aria-label=label></canvas>
        </ChartFrame>
        {move || problem.get().map(|p| view! { <p class="error" role="alert">{p}</p> })}
    }
}

/// Rows the step table draws when first opened; "Show all" draws the rest.
/// A profile can have thousands of steps, and tens of thousands of cells
/// would cost hundreds of milliseconds before anything showed.
pub const FIRST_STEP_ROWS: usize = 200;

/// The graph's numbers as a table, folded away: its rows are drawn only
/// when it is opened (a folded table is seen by no one), the first
/// [`FIRST_STEP_ROWS`] of them until "Show all" is pressed.
#[component]
fn StepTable(steps: Arc<InputPipelineAnalysis>, used: Vec<usize>) -> impl IntoView {
    let head = used.iter().map(|&c| view! { <th scope="col" class="num" title=format!("Time of the step in {}, ms", CATEGORIES[c].label)>{CATEGORIES[c].label}</th> }).collect_view();
    let count = steps.steps.len();
    let open = RwSignal::new(false);
    let all = RwSignal::new(false);
    let steps = StoredValue::new(steps);
    let used = StoredValue::new(used);
    let rows = move || {
        if !open.get() {
            return None;
        }
        let shown = if all.get() { count } else { count.min(FIRST_STEP_ROWS) };
        Some(steps.with_value(|a| used.with_value(|used| step_rows(&a.steps[..shown], used))))
    };
    let more = move || {
        (open.get() && !all.get() && count > FIRST_STEP_ROWS).then(|| {
            view! {
                <p class="actions">
                    <button id="step-table-all" type="button" class="button small" on:click=move |_| all.set(true)>
                        {format!("Show all {count} steps")}
                    </button>
                </p>
            }
        })
    };
    let on_toggle = move |ev: web_sys::Event| {
        let details: web_sys::HtmlDetailsElement = event_target(&ev);
        open.set(details.open());
    };
    view! {
        <details class="step-table" on:toggle=on_toggle>
            <summary>"Step times as a table (ms)"</summary>
            <table id="step-table" class="data" aria-label="Step times (ms)">
                <thead>
                    <tr>
                        <th scope="col" title="The step's name or number">"Step"</th>
                        <th scope="col" class="num" title="The step's length, ms">"Step time"</th>
                        {head}
                        <th scope="col" class="num" title="Input time as a share of the step">"Waiting for input"</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
            {more}
        </details>
    }
}

/// A table row per step: its time, its categories' and its input share.
fn step_rows(steps: &[StepBreakdown], used: &[usize]) -> AnyView {
    steps
        .iter()
        .map(|s| {
            let cells = used.iter().map(|&c| view! { <td class="num">{fmt::decimal((CATEGORIES[c].ms)(s), 2)}</td> });
            view! {
                <tr>
                    <th scope="row">{s.name.clone()}</th>
                    <td class="num">{fmt::decimal(s.step_time_ms, 2)}</td>
                    {cells.collect_view()}
                    <td class="num input-share">{fmt::percent(input_share(s))}</td>
                </tr>
            }
        })
        .collect_view()
        .into_any()
}

/// Average, standard deviation, minimum and maximum of a per-step number.
#[component]
pub fn SummaryStats(
    id: &'static str,
    summary: Summary,
    /// Formats one value ("110.2 ms", "92.7%").
    format: fn(f64) -> String,
) -> impl IntoView {
    let sd = summary.standard_deviation.map(format).unwrap_or_else(|| "—".to_string());
    view! {
        <dl class="summary stats" id=id>
            <div>
                <dt>"Average"</dt>
                <dd class="average">{format(summary.average)}</dd>
            </div>
            <div>
                <dt>"Standard deviation"</dt>
                <dd class="sd">{sd}</dd>
            </div>
            <div>
                <dt>"Minimum"</dt>
                <dd class="min">{format(summary.minimum)}</dd>
            </div>
            <div>
                <dt>"Maximum"</dt>
                <dd class="max">{format(summary.maximum)}</dd>
            </div>
        </dl>
    }
}

/// Said where a graph would be when the profile has no steps.
#[component]
pub fn NoSteps() -> impl IntoView {
    view! {
        <p id="no-steps" class="empty">
            "No steps were found in this profile, so there is no step-time graph. "
            "Steps come from step markers (Keras, tf.profiler.experimental.Trace with step_num, or a loop the profiler recognises)."
        </p>
    }
}

/// Step times as CSV, offered as a download.
pub fn export_steps(analysis: &InputPipelineAnalysis) -> Result<(), String> {
    crate::widgets::download::save_text(
        "steps.csv",
        "text/csv;charset=utf-8",
        &proflens_analysis::passes::input_pipeline::steps_csv(analysis),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_categories_with_time_are_listed() {
        let step = StepBreakdown {
            name: "train 1".into(),
            step_time_ms: 10.0,
            device_compute_ms: 0.0,
            device_to_device_ms: 0.0,
            device_collectives_ms: 0.0,
            host_compute_ms: 3.0,
            kernel_launch_ms: 0.0,
            host_wait_input_ms: 6.0,
            host_to_device_ms: 0.5,
            output_ms: 0.0,
            compile_ms: 0.0,
            other_ms: 0.5,
        };
        let used: Vec<&str> =
            used_categories(std::slice::from_ref(&step)).into_iter().map(|c| CATEGORIES[c].label).collect();
        assert_eq!(used, ["Host compute", "Input", "All others"]);
        assert_eq!((CATEGORIES[5].ms)(&step), 6.5);
    }
}
