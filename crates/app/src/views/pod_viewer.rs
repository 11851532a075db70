//! "Pod viewer": one step at a time (a slider picks it), a stacked bar per
//! worker of where that step's time went, to compare the workers of a job;
//! a hover card and a table carry the numbers.

use std::sync::Arc;

use leptos::html::Canvas;
use leptos::prelude::*;
use proflens_analysis::tools::pod_viewer::{self, CoreStep, PodViewer, BUCKETS};
use web_sys::MouseEvent;

use super::ViewProps;
use crate::widgets::chart::{self, BarLayout};
use crate::widgets::chart_frame::{ChartFrame, ChartText};
use crate::widgets::download;
use crate::widgets::fmt;
use crate::widgets::measure::{self, card_side, window_resizes};
use crate::widgets::title::ToolTitle;
use crate::widgets::tpu::tpu_pod_tables;

/// The colour of bucket `index` (into [`BUCKETS`]): the step-time graph's
/// colour for the same category.
fn color_of(index: usize) -> plotters::style::RGBColor {
    chart::PALETTE[index % chart::PALETTE.len()]
}

/// A bucket's time in ms.
fn ms_of(core: &CoreStep, bucket: usize) -> f64 {
    core.bucket_us(bucket) / 1e3
}

/// A core's numbers for the card and the table, copied out of the model.
struct CoreRow {
    host_name: String,
    core: u32,
    total_ms: f64,
    bottleneck: String,
    /// Each bucket's time (index into [`BUCKETS`]), ms.
    ms: [f64; BUCKETS.len()],
}

impl CoreRow {
    fn of(c: &CoreStep) -> CoreRow {
        CoreRow {
            host_name: c.host_name.to_string(),
            core: c.core,
            total_ms: c.total_us / 1e3,
            bottleneck: c.bottleneck.to_string(),
            ms: std::array::from_fn(|b| ms_of(c, b)),
        }
    }
}

/// The buckets with time in any step of any worker (indices into [`BUCKETS`]).
pub fn used_buckets(pod: &PodViewer) -> Vec<usize> {
    let mut used = [false; BUCKETS.len()];
    for s in &pod.steps {
        for (i, &us) in s.cores.breakdown_us.iter().enumerate() {
            used[i % BUCKETS.len()] |= us > 0.0;
        }
    }
    (0..BUCKETS.len()).filter(|&b| used[b]).collect()
}

/// The view of a model of type `PodViewer`.
pub fn view(props: ViewProps) -> AnyView {
    super::with_model(props, |p, model: PodViewer| {
        view! { <PodViewerView run=p.run host=p.host pod=model/> }.into_any()
    })
}

#[component]
fn PodViewerView(run: String, host: String, pod: PodViewer) -> impl IntoView {
    if pod.steps.is_empty() {
        let why = if pod.is_tpu() {
            "TPU steps come from the TPU runtime's per-core step lines, which Proflens does not read yet; this profile's TensorCore time is in the Overview (duty cycle) and the Op profile."
        } else {
            "Steps come from step markers (Keras, tf.profiler.experimental.Trace with step_num, or a loop the profiler recognises)."
        };
        return view! {
            <section id="tool-pod_viewer" class="tool" aria-labelledby="tool-pod_viewer-title">
                <ToolTitle tool="pod_viewer" run=run host=host/>
                <p id="no-pod-steps" class="empty">
                    "No steps were found that every worker ran, so there is nothing to compare. "
                    {why}
                </p>
            </section>
        }
        .into_any();
    }
    let count = pod.steps.len();
    let used = used_buckets(&pod);
    let device_type = pod.device_type.clone();
    // TPU profiles name the buckets in TPU terms (TensorCore, infeed, outfeed).
    let labels: [&'static str; BUCKETS.len()] = std::array::from_fn(|b| pod.bucket_label(b));
    let pod = StoredValue::new(Arc::new(pod));
    let step = RwSignal::new(0usize);
    let canvas = NodeRef::<Canvas>::new();
    let layout = RwSignal::new(None::<BarLayout>);
    let problem = RwSignal::new(None::<String>);
    let hover = RwSignal::new(None::<(usize, f64, f64)>);
    let resized = window_resizes();

    Effect::new(move |_| {
        resized.track();
        let index = step.get();
        let Some(canvas) = canvas.get() else {
            return;
        };
        pod.with_value(|pod| {
            let Some(s) = pod.steps.get(index) else {
                return;
            };
            let bars: Vec<chart::Bar> = pod
                .core_steps(s)
                .map(|c| chart::Bar { label: c.host_name, values: (0..BUCKETS.len()).map(|b| ms_of(&c, b)).collect() })
                .collect();
            let colors: Vec<_> = (0..BUCKETS.len()).map(color_of).collect();
            match chart::stacked_bars(&canvas, &bars, &colors, "Step time (ms)") {
                Ok(drawn) => {
                    layout.set(Some(drawn));
                    problem.set(None);
                }
                Err(e) => problem.set(Some(format!("The pod chart could not be drawn ({e})."))),
            }
        });
    });

    let step_name =
        move || pod.with_value(|p| p.steps.get(step.get()).map(|s| s.step_name.clone()).unwrap_or_default());
    let on_move = move |ev: MouseEvent| {
        let (x, y) = (ev.offset_x() as f64, ev.offset_y() as f64);
        let bar = layout.get_untracked().and_then(|l| l.bar_at(x));
        hover.set(bar.map(|b| (b, x, y)));
    };
    let legend = used
        .iter()
        .map(|&b| {
            view! {
                <li>
                    <span class="swatch" style:background-color=chart::css_color(color_of(b))></span>
                    {labels[b]}
                </li>
            }
        })
        .collect_view();
    let card_used = used.clone();
    let tooltip = move || {
        let (bar, x, y) = hover.get()?;
        let width = canvas.get().map(|c| c.client_width() as f64).unwrap_or(0.0);
        let core =
            pod.with_value(|p| p.steps.get(step.get()).and_then(|s| p.core_step(s, bar)).map(|c| CoreRow::of(&c)))?;
        let rows = card_used
            .iter()
            .rev()
            .map(|&b| {
                view! {
                    <tr>
                        <th scope="row">
                            <span class="swatch" style:background-color=chart::css_color(color_of(b))></span>
                            {labels[b]}
                        </th>
                        <td class="num">{fmt::ms(core.ms[b])}</td>
                    </tr>
                }
            })
            .collect_view();
        let (left, right) = card_side(x, width);
        Some(view! {
            <div
                id="pod-tooltip"
                class="chart-tooltip"
                role="tooltip"
                data-worker=bar.to_string()
                style:left=left
                style:right=right
                style:top=format!("{}px", (y - 20.0).max(0.0))
            >
                <p class="tooltip-title">
                    <strong class="worker-name">{core.host_name.clone()}</strong>
                    {format!(" · core {} · {}", core.core, fmt::ms(core.total_ms))}
                </p>
                <p class="tooltip-note">{format!("Bottleneck: {}", core.bottleneck)}</p>
                <table>
                    <tbody>{rows}</tbody>
                </table>
            </div>
        })
    };
    let highlight = move || {
        let (bar, _, _) = hover.get()?;
        Some(measure::bar_highlight(layout.get()?, bar))
    };
    let table_used = used.clone();
    let table = move || {
        let index = step.get();
        let cores: Vec<CoreRow> = pod
            .with_value(|p| p.steps.get(index).map(|s| p.core_steps(s).map(|c| CoreRow::of(&c)).collect()))
            .unwrap_or_default();
        let head = table_used.iter().map(|&b| view! { <th scope="col" class="num" title=format!("Time of this step in {}, ms", labels[b])>{labels[b]}</th> }).collect_view();
        let rows = cores
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let cells = table_used
                    .iter()
                    .map(|&b| view! { <td class="num">{fmt::decimal(c.ms[b], 3)}</td> })
                    .collect_view();
                view! {
                    <tr data-row=i.to_string()>
                        <th scope="row" class="worker">{c.host_name.clone()}</th>
                        <td class="num">{c.core.to_string()}</td>
                        <td class="num total">{fmt::decimal(c.total_ms, 3)}</td>
                        <td class="bottleneck">{c.bottleneck.clone()}</td>
                        {cells}
                    </tr>
                }
            })
            .collect_view();
        view! {
            <table id="pod-table" class="data">
                <caption>{format!("Step {} per worker (ms)", step_name())}</caption>
                <thead>
                    <tr>
                        <th scope="col" title="The host that ran the step">"Worker (host)"</th>
                        <th scope="col" class="num" title="The core (device) of the host">"Core"</th>
                        <th scope="col" class="num" title="The step's length on this core, ms">"Step time"</th>
                        <th scope="col" title="The category with the most time in this step on this core">"Bottleneck"</th>
                        {head}
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        }
    };
    let export_problem = RwSignal::new(None::<String>);
    let export = move |_| {
        let csv = pod.with_value(|p| pod_viewer::to_csv(p));
        export_problem.set(download::save_text("pod_viewer.csv", "text/csv;charset=utf-8", &csv).err());
    };
    let workers = move || pod.with_value(|p| p.steps.get(step.get()).map_or(0, |s| s.core_count()));
    let label = move || {
        format!(
            "Step {}: a bar per worker, split by where its time went. The same numbers are in the table below.",
            step_name()
        )
    };

    view! {
        <section id="tool-pod_viewer" class="tool" aria-labelledby="tool-pod_viewer-title">
            <ToolTitle tool="pod_viewer" run=run host=host/>
            <p class="note">
                {format!(
                    "Device type: {device_type}. Each worker is one host's devices; {} every worker ran.",
                    fmt::plural(count, "step", "steps"),
                )}
            </p>
            <div class="toolbar pod-steps">
                <label for="pod-step">"Step"</label>
                <input
                    type="range"
                    id="pod-step"
                    min="0"
                    max=(count - 1).to_string()
                    step="1"
                    prop:value=move || step.get().to_string()
                    on:input=move |ev| {
                        let value = event_target_value(&ev).parse::<usize>().unwrap_or(0);
                        step.set(value.min(count - 1));
                        hover.set(None);
                    }
                    aria-valuetext=step_name
                    disabled=count < 2
                />
                <span id="pod-step-name" class="step-name">
                    {move || format!("{} ({} of {})", step_name(), step.get() + 1, count)}
                </span>
                <span class="note">{move || fmt::plural(workers(), "worker", "workers")}</span>
            </div>
            <ChartFrame name="pod-step" caption="Step time of each core, for the chosen step" text=ChartText::Table("pod-table")>
            <div class="chart-wrap" on:mouseleave=move |_| hover.set(None)>
                <canvas
                    id="pod-chart"
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
            <div class="table-scroll">{table}</div>
            {move || pod.with_value(|p| p.steps.get(step.get()).map(|s| tpu_pod_tables(p, s)))}
            <p class="actions">
                <button id="export-pod" type="button" class="button small" on:click=export>
                    "Export all steps (CSV)"
                </button>
            </p>
            {move || export_problem.get().map(|p| view! { <p class="error" role="alert">{p}</p> })}
        </section>
    }
    .into_any()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proflens_analysis::tools::pod_viewer::{NewCore, PodBuilder, PodStep};

    #[test]
    fn buckets_in_use_and_their_times() {
        let mut pod = PodBuilder::new("GPU".into(), Vec::new());
        let mut step = PodStep::new(0, "0".into());
        let mut breakdown_us = [f64::NAN; BUCKETS.len()];
        (breakdown_us[0], breakdown_us[5], breakdown_us[8]) = (2000.0, 1000.0, 0.0);
        let core = NewCore {
            core: 1,
            host_name: "a",
            total_us: 3000.0,
            breakdown_us,
            bottleneck: "Device compute",
            tpu: None,
        };
        pod.push_core(&mut step, core);
        pod.push_step(step);
        let pod = pod.finish();
        let core = pod.core_step(&pod.steps[0], 0).unwrap();
        assert_eq!(ms_of(&core, 0), 2.0);
        assert_eq!(ms_of(&core, 5), 1.0);
        assert_eq!(ms_of(&core, 1), 0.0);
        assert_eq!(ms_of(&core, 99), 0.0);
        assert_eq!(used_buckets(&pod), vec![0, 5]);
    }
}
