//! "Overview": where the step time goes (summary and step-time graph), the
//! verdict and what to do next, the most expensive operations and where the
//! program ran.

use std::sync::Arc;

use leptos::prelude::*;
use proflens_analysis::common::hardware::HardwareType;
use proflens_analysis::common::stats::Summary;
use proflens_analysis::passes::input_pipeline::BreakdownSummary;
use proflens_analysis::passes::run_environment::RunEnvironment;
use proflens_analysis::tools::overview::{OpsSide, OverviewPage, OverviewStats, Recommendation, TopOp, TpuUtilization};

use super::ViewProps;
use crate::widgets::diagnostics::Diagnostics;
use crate::widgets::fmt;
use crate::widgets::step_time::{NoSteps, StepTimeGraph, SummaryStats};
use crate::widgets::table_csv::TableCsv;
use crate::widgets::title::ToolTitle;
use crate::widgets::tpu::{tpu_step_table, tpu_summary_list};

/// The view of a model of type `OverviewPage`.
pub fn view(props: ViewProps) -> AnyView {
    super::with_model(props, |p, model: OverviewPage| {
        view! { <OverviewView run=p.run host=p.host page=model/> }.into_any()
    })
}

#[component]
fn OverviewView(run: String, host: String, page: OverviewPage) -> impl IntoView {
    let has_device = page.run_environment.hardware_type != HardwareType::CpuOnly;
    let gpu = page.run_environment.hardware_type == HardwareType::Gpu;
    let tpu = page.run_environment.hardware_type == HardwareType::Tpu;
    let tpu_files = tpu_panel(page.tpu.clone(), page.input.tpu.clone());
    let input = Arc::new(page.input);
    let graph = if input.steps.is_empty() {
        view! { <NoSteps/> }.into_any()
    } else {
        view! { <StepTimeGraph analysis=input.clone()/> }.into_any()
    };
    view! {
        <section id="tool-overview_page" class="tool" aria-labelledby="tool-overview_page-title">
            <ToolTitle tool="overview_page" run=run host=host/>
            <Diagnostics items=page.diagnostics/>
            <div class="panels">
                <section class="panel" id="performance-summary" aria-labelledby="performance-summary-title">
                    <h3 id="performance-summary-title">"Performance summary"</h3>
                    <PerformanceSummary
                        step_time=input.step_time
                        breakdown=input.breakdown.clone()
                        steps=input.steps.len()
                        stats=page.stats.clone()
                        has_device=has_device
                        tpu=tpu
                    />
                </section>
                <section class="panel wide" aria-labelledby="step-graph-title">
                    <h3 id="step-graph-title">"Step-time graph"</h3>
                    {graph}
                </section>
            </div>
            {tpu_files}
            <RecommendationView recommendation=page.recommendation/>
            <div class="panels">
                <section class="panel wide" aria-labelledby="top-ops-title">
                    <h3 id="top-ops-title">"Top 10 operations"</h3>
                    <TopOps ops=page.top_ops side=page.top_ops_side gpu=gpu tpu=tpu/>
                </section>
                <section class="panel" aria-labelledby="run-environment-title">
                    <h3 id="run-environment-title">"Run environment"</h3>
                    <Environment env=page.run_environment/>
                </section>
            </div>
        </section>
    }
}

/// A TPU tool file's utilisation figures and step table, when it has them.
fn tpu_panel(
    summary: Option<proflens_analysis::tools::overview::tpu::TpuSummary>,
    steps: Option<proflens_analysis::passes::input_pipeline::tpu::TpuStepAnalysis>,
) -> Option<AnyView> {
    if summary.is_none() && steps.as_ref().is_none_or(|s| s.steps.is_empty()) {
        return None;
    }
    let summary = summary.as_ref().map(tpu_summary_list);
    let steps = steps.filter(|s| !s.steps.is_empty()).as_ref().map(tpu_step_table);
    Some(
        view! {
            <section class="panel wide" id="tpu-panel" aria-labelledby="tpu-panel-title">
                <h3 id="tpu-panel-title">"TPU"</h3>
                {summary}
                {steps}
            </section>
        }
        .into_any(),
    )
}

/// The step-time categories as the summary lists them (XProf's order); on
/// TPUs in XProf's TPU terms (a TPU step's input is its infeed, its output
/// its outfeed, its collectives all-reduce and all-to-all), without the
/// GPU-only kernel launches.
fn breakdown_rows(b: &BreakdownSummary, tpu: bool) -> Vec<(&'static str, &'static str, Summary)> {
    if tpu {
        return vec![
            ("compilation", "Compilation", b.compile),
            ("input", "TensorCore input (infeed)", b.input),
            ("output", "TensorCore output (outfeed)", b.output),
            ("host-compute", "Host compute", b.host_compute),
            ("device-to-device", "Device to device (send, recv)", b.device_to_device),
            ("device-collectives", "All-reduce and all-to-all", b.device_collectives),
            ("device-compute", "TensorCore compute", b.device_compute),
            ("all-others", "TensorCore idle and other", b.other),
        ];
    }
    vec![
        ("compilation", "Compilation", b.compile),
        ("input", "Input", b.input),
        ("output", "Output", b.output),
        ("kernel-launch", "Kernel launch", b.kernel_launch),
        ("host-compute", "Host compute", b.host_compute),
        ("device-to-device", "Device to device", b.device_to_device),
        ("device-collectives", "Device collective communication", b.device_collectives),
        ("device-compute", "Device compute", b.device_compute),
        ("all-others", "All others", b.other),
    ]
}

#[component]
fn PerformanceSummary(
    step_time: Summary,
    breakdown: BreakdownSummary,
    steps: usize,
    stats: OverviewStats,
    has_device: bool,
    tpu: bool,
) -> impl IntoView {
    let rows = breakdown_rows(&breakdown, tpu)
        .into_iter()
        .map(|(id, label, s)| {
            let share = if step_time.average > 0.0 {
                fmt::percent(100.0 * s.average / step_time.average)
            } else {
                "—".into()
            };
            view! {
                <tr data-category=id>
                    <th scope="row">{label}</th>
                    <td class="num avg" data-value=s.average.to_string()>{fmt::ms(s.average)}</td>
                    <td class="num sd">{s.standard_deviation.map(fmt::ms).unwrap_or_else(|| "—".into())}</td>
                    <td class="num share">{share}</td>
                </tr>
            }
        })
        .collect_view();
    let utilization = stats.tpu.clone().map(|u| view! { <TpuUtilizationView u=u/> });
    let precision = (has_device && !tpu).then(|| {
        view! {
            <dl class="summary" id="precision">
                <div>
                    <dt>"Device compute in 16 bit"</dt>
                    <dd id="precision-16">{fmt::percent(stats.device_compute_16bit_percent)}</dd>
                </div>
                <div>
                    <dt>"Device compute in 32 bit"</dt>
                    <dd id="precision-32">{fmt::percent(stats.device_compute_32bit_percent)}</dd>
                </div>
            </dl>
        }
    });
    view! {
        <p class="headline">
            <span id="avg-step-time" data-value=step_time.average.to_string()>
                {fmt::ms(step_time.average)}
            </span>
            " average step time over "
            {fmt::plural(steps, "step", "steps")}
        </p>
        <SummaryStats id="step-time-stats" summary=step_time format=fmt::ms/>
        <table id="step-breakdown" class="data compact">
            <caption>"Average time per step, by category"</caption>
            <thead>
                <tr>
                    <th scope="col" title="A part of the step time: device compute, input, kernel launch, host compute, communication and the rest">"Category"</th>
                    <th scope="col" class="num" title="Mean time per step in this category">"Average"</th>
                    <th scope="col" class="num" title="Standard deviation over the steps">"Std. dev."</th>
                    <th scope="col" class="num" title="Average of the category as a share of the average step time">"Of step"</th>
                </tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
        <TableCsv table="step-breakdown"/>
        {utilization}
        {precision}
        <dl class="summary">
            <div>
                <dt>"Op occurrences on the host"</dt>
                <dd>{fmt::percent(stats.host_tf_op_percent)}</dd>
            </div>
            <div>
                <dt>"on the device"</dt>
                <dd>{fmt::percent(stats.device_tf_op_percent)}</dd>
            </div>
            <div>
                <dt>"Host op time run eagerly"</dt>
                <dd>{fmt::percent(stats.host_op_time_eager_percent)}</dd>
            </div>
            <div>
                <dt>"Device op time run eagerly"</dt>
                <dd>{fmt::percent(stats.device_op_time_eager_percent)}</dd>
            </div>
        </dl>
    }
}

/// A utilisation counter the TPU runtime recorded, percent.
fn counter(id: &'static str, label: &'static str, value: f64) -> impl IntoView {
    view! {
        <div>
            <dt>{label}</dt>
            <dd id=id>{fmt::percent(value)}</dd>
        </div>
    }
}

/// XProf's TPU analysis: how busy the TensorCores were over the profile.
#[component]
fn TpuUtilizationView(u: TpuUtilization) -> impl IntoView {
    view! {
        <dl class="summary" id="tpu-utilization">
            <div>
                <dt title="Share of the measured time in which the TensorCores (and SparseCores) ran ops">
                    "TPU duty cycle"
                </dt>
                <dd id="tpu-duty-cycle" data-value=u.device_duty_cycle_percent.to_string()>
                    {fmt::percent(u.device_duty_cycle_percent)}
                </dd>
            </div>
            <div>
                <dt title="Share of the TensorCores' measured time in which no op ran">"TensorCore idle time"</dt>
                <dd id="tpu-idle">{fmt::percent(u.device_idle_time_percent)}</dd>
            </div>
            <div>
                <dt title="Share of the host threads' measured time in which no framework op ran">
                    "Host idle time"
                </dt>
                <dd id="host-idle">{fmt::percent(u.host_idle_time_percent)}</dd>
            </div>
            {u.counters.mxu_utilization_percent.map(|v| counter("mxu-utilization", "MXU utilisation", v))}
            {u.counters.hbm_utilization_percent.map(|v| counter("hbm-utilization", "HBM utilisation", v))}
        </dl>
    }
}

#[component]
fn RecommendationView(recommendation: Recommendation) -> impl IntoView {
    let r = recommendation;
    let statements: Vec<String> = [
        r.kernel_launch_statement,
        r.all_other_statement,
        r.device_collectives_statement,
        r.precision_statement,
        r.eager_statement,
    ]
    .into_iter()
    .filter(|s| !s.trim().is_empty())
    .collect();
    let statements = (!statements.is_empty()).then(|| {
        view! {
            <ul id="statements" class="statements">
                {statements.into_iter().map(|s| view! { <li>{s}</li> }).collect_view()}
            </ul>
        }
    });
    let advice = (!r.advice.is_empty()).then(|| {
        let items = r
            .advice
            .into_iter()
            .map(|a| {
                view! {
                    <li>
                        <strong>{a.title}</strong>
                        ". "
                        {a.text}
                    </li>
                }
            })
            .collect_view();
        view! {
            <h4>"What to try"</h4>
            <ul id="advice" class="advice">{items}</ul>
        }
    });
    let class = format!("verdict bottleneck-{}", r.bottleneck);
    view! {
        <section id="recommendation" class="panel recommendation" aria-labelledby="recommendation-title">
            <h3 id="recommendation-title">"Recommendation for the next step"</h3>
            <p id="verdict" class=class data-bottleneck=r.bottleneck.clone()>{r.statement}</p>
            {statements}
            {advice}
        </section>
    }
}

#[component]
fn TopOps(ops: Vec<TopOp>, side: OpsSide, gpu: bool, tpu: bool) -> impl IntoView {
    // XProf normalises TPU FLOPs to bf16.
    let flop_label = if tpu { "GFLOP/s (bf16-normalised)" } else { "GFLOP/s" };
    let note = (side == OpsSide::Host).then(|| {
        view! {
            <p id="top-ops-note" class="note">
                "No device was profiled, so these are the host's operations (idle time left out)."
            </p>
        }
    });
    if ops.is_empty() {
        return view! {
            {note}
            <p class="empty" id="top-ops">"No operations were recorded."</p>
        }
        .into_any();
    }
    let tensor_core_head = gpu.then(|| {
        view! {
            <th scope="col" title="The op's kernels could use TensorCores">"TensorCore eligible"</th>
            <th scope="col" title="The op's kernels did use TensorCores">"Uses TensorCore"</th>
        }
    });
    let rows = ops
        .into_iter()
        .enumerate()
        .map(|(i, op)| {
            let yes_no = |b: bool| if b { "yes" } else { "no" };
            let tensor_core = gpu.then(|| {
                view! {
                    <td>{yes_no(op.tensor_core_eligible)}</td>
                    <td>{yes_no(op.uses_tensor_core)}</td>
                }
            });
            view! {
                <tr data-row=i.to_string()>
                    <td class="num" data-value=op.self_time_fraction.to_string()>
                        {fmt::fraction_percent(op.self_time_fraction)}
                    </td>
                    <td class="num">{fmt::fraction_percent(op.cumulative_time_fraction)}</td>
                    <td class="category">{op.category}</td>
                    <td class="operation">{op.name}</td>
                    <td class="num">{fmt::decimal(op.flop_rate, 2)}</td>
                    {tensor_core}
                </tr>
            }
        })
        .collect_view();
    view! {
        {note}
        <table id="top-ops" class="data compact" aria-labelledby="top-ops-title">
            <thead>
                <tr>
                    <th scope="col" class="num" title="The op's self time as a share of all device self time">"Self time"</th>
                    <th scope="col" class="num" title="Running total of the self-time share down the table">"Cumulative"</th>
                    <th scope="col" title="The op's type">"Category"</th>
                    <th scope="col" title="The framework op">"Operation"</th>
                    <th scope="col" class="num" title="FLOPs ÷ self time, from the op's costs">{flop_label}</th>
                    {tensor_core_head}
                </tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
        <TableCsv table="top-ops"/>
    }
    .into_any()
}

#[component]
fn Environment(env: RunEnvironment) -> impl IntoView {
    let hosts = if env.hostnames.is_empty() {
        fmt::count(env.host_count)
    } else {
        format!("{} ({})", fmt::count(env.host_count), env.hostnames.join(", "))
    };
    let devices =
        if env.device_core_count == 0 { "none (CPU only)".to_string() } else { fmt::count(env.device_core_count) };
    let mut rows: Vec<(&'static str, &'static str, String)> = vec![
        ("env-hosts", "Hosts", hosts),
        ("env-device-type", "Device type", env.device_type.clone()),
        ("env-device-count", if env.hardware_type == HardwareType::Tpu { "TPU cores" } else { "Devices" }, devices),
    ];
    if let Some(caps) = &env.device {
        let amd = caps.vendor == "AMD" || env.device_type.starts_with("AMD");
        if caps.core_count > 0 {
            let label = if amd { "Compute units per device" } else { "Streaming multiprocessors per device" };
            rows.push(("env-cores", label, fmt::count(caps.core_count)));
        }
        if let Some(cc) = &caps.compute_capability {
            rows.push(("env-compute-capability", "Compute capability", cc.clone()));
        }
        if caps.clock_rate_khz > 0 {
            rows.push(("env-clock", "Clock", format!("{} MHz", fmt::decimal(caps.clock_rate_khz as f64 / 1e3, 0))));
        }
        if caps.memory_bytes > 0 {
            let gib = caps.memory_bytes as f64 / (1u64 << 30) as f64;
            rows.push(("env-memory", "Memory", format!("{} GiB", fmt::decimal(gib, 1))));
        }
        if caps.memory_bandwidth_bytes_per_second > 0 {
            let gbs = caps.memory_bandwidth_bytes_per_second as f64 / 1e9;
            rows.push(("env-bandwidth", "Memory bandwidth", format!("{} GB/s", fmt::decimal(gbs, 0))));
        }
    }
    let items = rows
        .into_iter()
        .map(|(id, label, value)| {
            view! {
                <div>
                    <dt>{label}</dt>
                    <dd id=id>{value}</dd>
                </div>
            }
        })
        .collect_view();
    view! { <dl id="run-environment" class="summary vertical">{items}</dl> }
}
