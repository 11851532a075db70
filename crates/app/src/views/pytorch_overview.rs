//! The overview of PyTorch profiler (Kineto) traces: `ProfilerStep#N` as
//! steps, each broken down into kernel, memcpy, memset, runtime, data
//! loading, CPU op and other time (a stacked bar per step with a hover card,
//! and a table) plus the GPU utilisation; for several ranks of one job, the
//! distributed view (computation, communication and their overlap per rank).

use std::sync::Arc;

use leptos::ev::MouseEvent;
use leptos::html::Canvas;
use leptos::prelude::*;
use proflens_analysis::tools::overview::distributed::RankView;
use proflens_analysis::tools::overview::pytorch::{MultiRankOverview, PytorchOverview, StepBreakdown};

use super::ViewProps;
use crate::widgets::chart::{self, BarLayout};
use crate::widgets::chart_frame::{ChartFrame, ChartText};
use crate::widgets::download;
use crate::widgets::fmt;
use crate::widgets::measure::{self, card_side, window_resizes};
use crate::widgets::table_csv::TableCsv;
use crate::widgets::title::ToolTitle;

/// The roles a step's time splits into, in drawing order (bottom first).
pub const ROLES: [&str; 7] = ["Kernel", "Memcpy", "Memset", "Runtime", "Data loading", "CPU op", "Other"];

/// A role's time in a step, ms.
pub fn role_ms(step: &StepBreakdown, role: usize) -> f64 {
    let ps = match role {
        0 => step.kernel_ps,
        1 => step.memcpy_ps,
        2 => step.memset_ps,
        3 => step.runtime_ps,
        4 => step.dataloader_ps,
        5 => step.cpu_op_ps,
        _ => step.other_ps,
    };
    ps as f64 / 1e9
}

fn ms(ps: i64) -> String {
    fmt::ms(ps as f64 / 1e9)
}

fn percent(v: f64) -> String {
    format!("{}%", fmt::decimal(v, 1))
}

/// The view of a `pytorch_overview` model (one rank, or several).
pub fn view(props: ViewProps) -> AnyView {
    super::with_model(props, |p, overview: MultiRankOverview| {
        view! { <PytorchOverviewView run=p.run host=p.host overview=overview/> }.into_any()
    })
}

#[component]
fn PytorchOverviewView(run: String, host: String, overview: MultiRankOverview) -> impl IntoView {
    let multi = overview.ranks.len() > 1;
    let distributed = multi.then(|| view! { <Distributed ranks=overview.distributed.ranks.clone()/> });
    let ranks = overview
        .ranks
        .into_iter()
        .map(|r| {
            let title = multi.then(|| format!("Rank {}", r.label));
            view! { <RankSteps title=title overview=r.overview/> }
        })
        .collect_view();
    view! {
        <section id="tool-overview_page" class="tool pytorch" aria-labelledby="tool-overview_page-title">
            <ToolTitle tool="overview_page" run=run host=host/>
            <p class="note">
                "A PyTorch profiler trace: steps are the "
                <code>"ProfilerStep#N"</code>
                " ranges; each instant of a step counts for the first role active then (kernel, memcpy, memset, runtime, data loading, CPU op), the rest is other."
            </p>
            {distributed}
            {ranks}
        </section>
    }
}

#[component]
fn RankSteps(title: Option<String>, overview: PytorchOverview) -> impl IntoView {
    let a = &overview.average;
    let rank = match (overview.rank, overview.world_size) {
        (Some(r), Some(w)) => format!("{r} of {w}"),
        (Some(r), None) => r.to_string(),
        _ => "—".to_string(),
    };
    let steps_note = if overview.whole_trace {
        "No ProfilerStep#N ranges: the whole trace is one step.".to_string()
    } else {
        fmt::plural(overview.steps.len(), "step", "steps")
    };
    let summary = view! {
        <dl class="summary pytorch-summary">
            <div>
                <dt>"Steps"</dt>
                <dd data-field="steps">{steps_note}</dd>
            </div>
            <div>
                <dt>"Average step time"</dt>
                <dd data-field="average-step">{ms(a.window_ps)}</dd>
            </div>
            <div>
                <dt>"GPU utilisation"</dt>
                <dd data-field="gpu-utilization">{percent(a.gpu_utilization_pct)}</dd>
            </div>
            <div>
                <dt>"Data loading"</dt>
                <dd data-field="dataloader">{ms(a.dataloader_ps)}</dd>
            </div>
            <div>
                <dt>"Rank"</dt>
                <dd data-field="rank">{rank}</dd>
            </div>
        </dl>
    };
    let csv = StoredValue::new(proflens_analysis::tools::overview::pytorch::steps_csv(&overview));
    let problem = RwSignal::new(None::<String>);
    let export = move |_| {
        let saved = csv.with_value(|c| download::save_text("pytorch_steps.csv", "text/csv;charset=utf-8", c));
        problem.set(saved.err());
    };
    let steps = Arc::new(overview.steps);
    let label = title.clone().unwrap_or_else(|| "Steps".to_string());
    let heading = title.map(|t| view! { <h3>{t}</h3> });
    view! {
        <section class="panel pytorch-rank" aria-label=label>
            {heading}
            {summary}
            <StepChart steps=steps.clone()/>
            <StepTable steps=steps/>
            <p class="actions">
                <button type="button" class="button small export-steps" on:click=export>
                    "Export steps (CSV)"
                </button>
            </p>
            {move || problem.get().map(|p| view! { <p class="error" role="alert">{p}</p> })}
        </section>
    }
}

fn role_color(role: usize) -> plotters::style::RGBColor {
    chart::PALETTE[role % chart::PALETTE.len()]
}

#[component]
fn StepChart(steps: Arc<Vec<StepBreakdown>>) -> impl IntoView {
    let canvas = NodeRef::<Canvas>::new();
    let layout = RwSignal::new(None::<BarLayout>);
    let problem = RwSignal::new(None::<String>);
    let hover = RwSignal::new(None::<(usize, f64, f64)>);
    let resized = window_resizes();
    let stored = StoredValue::new(steps.clone());
    Effect::new(move |_| {
        resized.track();
        let Some(canvas) = canvas.get() else {
            return;
        };
        stored.with_value(|steps| {
            let bars: Vec<chart::Bar> = steps
                .iter()
                .map(|s| chart::Bar { label: &s.name, values: (0..ROLES.len()).map(|r| role_ms(s, r)).collect() })
                .collect();
            let colors: Vec<_> = (0..ROLES.len()).map(role_color).collect();
            match chart::stacked_bars(&canvas, &bars, &colors, "Step time (ms)") {
                Ok(drawn) => {
                    layout.set(Some(drawn));
                    problem.set(None);
                }
                Err(e) => problem.set(Some(format!("The step chart could not be drawn ({e})."))),
            }
        });
    });
    let on_move = move |ev: MouseEvent| {
        let (x, y) = (ev.offset_x() as f64, ev.offset_y() as f64);
        hover.set(layout.get_untracked().and_then(|l| l.bar_at(x)).map(|b| (b, x, y)));
    };
    let tooltip = move || {
        let (bar, x, y) = hover.get()?;
        let width = canvas.get().map(|c| c.client_width() as f64).unwrap_or(0.0);
        let step = stored.with_value(|s| s.get(bar).cloned())?;
        let rows = (0..ROLES.len())
            .rev()
            .map(|r| {
                view! {
                    <tr>
                        <th scope="row">
                            <span class="swatch" style:background-color=chart::css_color(role_color(r))></span>
                            {ROLES[r]}
                        </th>
                        <td class="num">{fmt::ms(role_ms(&step, r))}</td>
                    </tr>
                }
            })
            .collect_view();
        let (left, right) = card_side(x, width);
        Some(view! {
            <div
                class="chart-tooltip step-card"
                role="tooltip"
                data-step=bar.to_string()
                style:left=left
                style:right=right
                style:top=format!("{}px", (y - 20.0).max(0.0))
            >
                <p class="tooltip-title">
                    <strong class="step-name">{step.name.clone()}</strong>
                    {format!(" · {}", ms(step.window_ps))}
                </p>
                <p class="tooltip-note">{format!("GPU utilisation {}", percent(step.gpu_utilization_pct))}</p>
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
    let legend = (0..ROLES.len())
        .map(|r| {
            view! {
                <li>
                    <span class="swatch" style:background-color=chart::css_color(role_color(r))></span>
                    {ROLES[r]}
                </li>
            }
        })
        .collect_view();
    view! {
        <ChartFrame name="step-time" caption="Time per step by role" text=ChartText::Table("pytorch-steps")>
        <div class="chart-wrap">
            <canvas
                class="chart step-chart"
                node_ref=canvas
                role="img"
                data-bars=steps.len().to_string()
                aria-label="A bar per step, split by role; the same numbers are in the table below"
                on:mousemove=on_move
                on:mouseleave=move |_| hover.set(None)
            ></canvas>
            {highlight}
            {tooltip}
        </div>
        <ul class="legend" aria-label="Roles">{legend}</ul>
        </ChartFrame>
        {move || problem.get().map(|p| view! { <p class="error" role="alert">{p}</p> })}
    }
}

#[component]
fn StepTable(steps: Arc<Vec<StepBreakdown>>) -> impl IntoView {
    let head = ROLES.iter().map(|r| view! { <th scope="col" class="num" title=format!("Time of the step when {} was the first active role, ms", r)>{*r}</th> }).collect_view();
    let rows = steps
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let cells = (0..ROLES.len())
                .map(|r| view! { <td class="num" data-col=ROLES[r]>{fmt::decimal(role_ms(s, r), 3)}</td> })
                .collect_view();
            view! {
                <tr data-row=i.to_string()>
                    <th scope="row" class="step">{s.name.clone()}</th>
                    <td class="num total">{fmt::decimal(s.window_ps as f64 / 1e9, 3)}</td>
                    {cells}
                    <td class="num">{fmt::decimal(s.gpu_utilization_pct, 1)}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <div class="table-scroll">
            <table id="pytorch-steps" class="data pytorch-steps">
                <caption>"Time per step and role (ms)"</caption>
                <thead>
                    <tr>
                        <th scope="col" title="The ProfilerStep#N range">"Step"</th>
                        <th scope="col" class="num" title="The step's length, ms">"Step time"</th>
                        {head}
                        <th scope="col" class="num" title="Share of the step with a kernel running on the GPU">"GPU util. (%)"</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
            <TableCsv table="pytorch-steps"/>
        </div>
    }
}

#[component]
fn Distributed(ranks: Vec<RankView>) -> impl IntoView {
    let rows = ranks
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let overlap = r.comm_comp_overlap_pct.map_or("—".to_string(), percent);
            view! {
                <tr data-row=i.to_string()>
                    <th scope="row" class="rank">{r.label.clone()}</th>
                    <td class="num" data-col="computation">{ms(r.computation_ps)}</td>
                    <td class="num" data-col="communication">{ms(r.communication_ps)}</td>
                    <td class="num" data-col="overlap">{overlap}</td>
                    <td class="num" data-col="compute">{percent(r.compute_pct)}</td>
                    <td class="num" data-col="non-compute">{percent(r.non_compute_pct)}</td>
                    <td class="num" data-col="idle">{percent(r.idle_pct)}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <section id="pytorch-distributed" class="panel" aria-labelledby="pytorch-distributed-title">
            <h3 id="pytorch-distributed-title">"Distributed: computation and communication per rank"</h3>
            <div class="table-scroll">
                <table id="distributed-table" class="data">
                    <caption>
                        "Over each rank's steps: kernel time computing and communicating (NCCL), how much of the communication overlaps computation, and the GPU's time split into computing, only communicating or copying, and idle."
                    </caption>
                    <thead>
                        <tr>
                            <th scope="col" title="The process (rank) of the distributed job">"Rank"</th>
                            <th scope="col" class="num" title="Kernel time computing (not communicating), summed over the steps">"Computation"</th>
                            <th scope="col" class="num" title="Kernel time communicating (NCCL), summed over the steps">"Communication"</th>
                            <th scope="col" class="num" title="Share of the communication time during which computation also ran">"Overlap"</th>
                            <th scope="col" class="num" title="Share of the GPU's time computing">"Compute"</th>
                            <th scope="col" class="num" title="Share of the GPU's time only communicating or copying">"Non-compute"</th>
                            <th scope="col" class="num" title="Share of the GPU's time with nothing running">"Idle"</th>
                        </tr>
                    </thead>
                    <tbody>{rows}</tbody>
                </table>
                <TableCsv table="distributed-table"/>
            </div>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_role_has_its_time() {
        let step = StepBreakdown {
            step: 1,
            name: "ProfilerStep#1".into(),
            start_ps: 0,
            cpu_duration_ps: 10_000_000_000,
            window_ps: 28_000_000_000,
            kernel_ps: 1_000_000_000,
            memcpy_ps: 2_000_000_000,
            memset_ps: 3_000_000_000,
            runtime_ps: 4_000_000_000,
            dataloader_ps: 5_000_000_000,
            cpu_op_ps: 6_000_000_000,
            other_ps: 7_000_000_000,
            gpu_utilization_pct: 3.6,
        };
        let all: Vec<f64> = (0..ROLES.len()).map(|r| role_ms(&step, r)).collect();
        assert_eq!(all, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]);
        assert_eq!(all.iter().sum::<f64>(), step.window_ps as f64 / 1e9);
    }
}
