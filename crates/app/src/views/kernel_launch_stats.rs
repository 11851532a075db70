//! "Kernel launch stats": each CUDA runtime launch of a PyTorch trace
//! matched to the GPU work it started, as HTA's
//! `get_cuda_kernel_launch_stats` does — the summary counts and statistics,
//! a log–log scatter of CPU against GPU duration, and a sortable table of
//! the outliers (a long runtime call or a long launch delay) that exports
//! as CSV. With several ranks, a selector picks the rank shown.

use std::sync::Arc;

use leptos::html::Canvas;
use leptos::prelude::*;
use plotters::prelude::RGBColor;
use proflens_analysis::tools::kernel_launch_stats::{
    self as launch_stats, KernelLaunchStats, Launch, Params, RankLaunches, Stats, LAUNCH_CALLS, MEMORY_CALLS,
};

use super::{ShowInTrace, ViewProps};
use crate::protocol::EventAt;
use crate::widgets::chart::{self, ScatterAxes};
use crate::widgets::chart_frame::{ChartData, ChartFrame, ChartText};
use crate::widgets::fmt;
use crate::widgets::measure::window_resizes;
use crate::widgets::table::{
    Column, Direction, Filter, FilterExportBar, RowAction, SortValue, SortableTable, ToolbarText,
};
use crate::widgets::table_csv::TableCsv;
use crate::widgets::title::ToolTitle;

/// Longest GPU event name the table shows before cutting it (all of it on hover).
const SHORT_NAME_CHARS: usize = 100;
/// The scatter's colours: launches within both cutoffs, and outliers.
const COLORS: [RGBColor; 2] = [chart::PALETTE[0], chart::PALETTE[5]];

/// The view of a `KernelLaunchStats` model.
pub fn view(props: ViewProps) -> AnyView {
    super::with_model(props, |p, model: KernelLaunchStats| {
        let show = p.actions.show_in_trace.clone();
        view! { <LaunchStatsView run=p.run host=p.host model=model show=show/> }.into_any()
    })
}

#[component]
fn LaunchStatsView(run: String, host: String, model: KernelLaunchStats, show: ShowInTrace) -> impl IntoView {
    let params = model.params;
    let ranks: Arc<Vec<RankLaunches>> = Arc::new(model.ranks);
    let chosen = RwSignal::new(0usize);
    let calls = if params.include_memory_events {
        LAUNCH_CALLS.iter().chain(&MEMORY_CALLS).copied().collect::<Vec<_>>().join(", ")
    } else {
        LAUNCH_CALLS.join(", ")
    };
    let intro = format!(
        "Each launch call ({calls}) joined with the device work of the same correlation id, as HolisticTraceAnalysis \
         0.5.0 computes it: the call's CPU duration, the GPU duration, and the launch delay from the call's end to the \
         GPU start. Outliers are calls over {} µs and delays over {} µs.",
        params.runtime_cutoff, params.launch_delay_cutoff
    );
    let picker = (ranks.len() > 1).then(|| {
        let options = ranks
            .iter()
            .enumerate()
            .map(|(i, r)| view! { <option value=i.to_string()>{format!("Rank {} · {}", r.rank, r.host)}</option> })
            .collect_view();
        view! {
            <RankTable ranks=ranks.clone()/>
            <div class="toolbar">
                <label for="launch-rank">"Rank shown below"</label>
                <select
                    id="launch-rank"
                    on:change=move |ev| chosen.set(event_target_value(&ev).parse().unwrap_or(0))
                >
                    {options}
                </select>
            </div>
        }
    });
    let shown = {
        let ranks = ranks.clone();
        move || {
            let rank = ranks.get(chosen.get()).cloned();
            rank.map(|rank| view! { <RankView rank=rank params=params show=show.clone()/> })
        }
    };
    view! {
        <section id="tool-kernel_launch_stats" class="tool" aria-labelledby="tool-kernel_launch_stats-title">
            <ToolTitle tool="kernel_launch_stats" run=run host=host/>
            <p class="note" id="launch-intro">{intro}</p>
            {picker}
            {shown}
        </section>
    }
}

/// Every rank's counts side by side.
#[component]
fn RankTable(ranks: Arc<Vec<RankLaunches>>) -> impl IntoView {
    let rows = ranks
        .iter()
        .map(|r| {
            let s = &r.summary;
            let mean_delay = s.launch_delay.map_or("—".to_string(), |d| fmt::decimal(d.mean, 1));
            view! {
                <tr data-rank=r.rank.to_string()>
                    <th scope="row">{r.rank.to_string()}</th>
                    <td>{r.host.clone()}</td>
                    <td class="num" data-col="launches">{fmt::count(s.num_launches)}</td>
                    <td class="num" data-col="gpu-shorter">{fmt::count(s.gpu_shorter_than_cpu)}</td>
                    <td class="num" data-col="runtime-outliers">{fmt::count(s.cpu_runtime_outliers)}</td>
                    <td class="num" data-col="delay-outliers">{fmt::count(s.launch_delay_outliers)}</td>
                    <td class="num" data-col="mean-delay">{mean_delay}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <table id="launch-ranks" class="data compact">
            <caption>"Every rank"</caption>
            <thead>
                <tr>
                    <th scope="col" title="The process (rank) of the distributed job">"Rank"</th>
                    <th scope="col" title="The rank's trace file">"Trace"</th>
                    <th scope="col" class="num" title="CUDA runtime calls matched to the GPU work they started">"Launches"</th>
                    <th scope="col" class="num" title="Launches whose GPU work took less time than the runtime call on the CPU">"GPU shorter than CPU"</th>
                    <th scope="col" class="num" title="Runtime calls longer than the runtime cut-off (50 µs by default)">"CPU runtime outliers"</th>
                    <th scope="col" class="num" title="Launches whose delay (runtime call end to GPU start) is longer than the delay cut-off (100 µs by default)">"Launch delay outliers"</th>
                    <th scope="col" class="num" title="Mean time from the end of the runtime call to the start of its GPU work, µs">"Mean delay (µs)"</th>
                </tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
        <TableCsv table="launch-ranks"/>
    }
}

/// What the counts leave out: the last step, and launches HTA does not count.
fn notes(rank: &RankLaunches) -> impl IntoView {
    let dropped = (!rank.dropped_steps.is_empty()).then(|| {
        let steps: Vec<String> = rank.dropped_steps.iter().map(|s| format!("ProfilerStep#{s}")).collect();
        format!(
            "As HTA loads a trace by default, the last step ({}) and the work launched in it are left out.",
            steps.join(", ")
        )
    });
    let uncounted = (!rank.uncounted.is_empty()).then(|| {
        let total: u64 = rank.uncounted.iter().map(|u| u.count).sum();
        let names: Vec<String> =
            rank.uncounted.iter().map(|u| format!("{} × {}", fmt::count(u.count), u.name)).collect();
        format!(
            "HTA does not count {} other {} of GPU work ({}).",
            fmt::count(total),
            if total == 1 { "launch" } else { "launches" },
            names.join(", ")
        )
    });
    view! {
        {dropped.map(|t| view! { <p class="note" id="launch-dropped-step">{t}</p> })}
        {uncounted.map(|t| view! { <p class="note" id="launch-uncounted">{t}</p> })}
    }
}

#[component]
fn RankView(rank: RankLaunches, params: Params, show: ShowInTrace) -> impl IntoView {
    let notes = notes(&rank);
    if rank.launches.is_empty() {
        return view! {
            <div class="launch-rank" data-rank=rank.rank.to_string()>
                {notes}
                <p id="no-launches" class="empty">
                    "No CUDA runtime launch in this trace has GPU work with its correlation id, so there are no launch \
                     statistics."
                </p>
            </div>
        }
        .into_any();
    }
    let s = &rank.summary;
    let share = |n: u64| fmt::share(n as f64, s.num_launches as f64);
    let item = |field: &'static str, label: String, value: String| {
        view! {
            <div data-field=field>
                <dt>{label}</dt>
                <dd>{value}</dd>
            </div>
        }
    };
    let summary = view! {
        <dl id="launch-summary" class="summary">
            {item("num-launches", "Launches".into(), fmt::count(s.num_launches))}
            {item(
                "gpu-shorter",
                "GPU shorter than its CPU call".into(),
                format!("{} ({})", fmt::count(s.gpu_shorter_than_cpu), share(s.gpu_shorter_than_cpu)),
            )}
            {item(
                "runtime-outliers",
                format!("CPU runtime over {} µs", params.runtime_cutoff),
                format!("{} ({})", fmt::count(s.cpu_runtime_outliers), share(s.cpu_runtime_outliers)),
            )}
            {item(
                "delay-outliers",
                format!("Launch delay over {} µs", params.launch_delay_cutoff),
                format!("{} ({})", fmt::count(s.launch_delay_outliers), share(s.launch_delay_outliers)),
            )}
        </dl>
    };
    let stats = stats_table(s.cpu_duration, s.gpu_duration, s.launch_delay);
    let rank_id = rank.rank.to_string();
    let rank = Arc::new(rank);
    view! {
        <div class="launch-rank" data-rank=rank_id>
            {notes}
            {summary}
            {stats}
            <LaunchScatter rank=rank.clone() params=params/>
            <OutlierTable rank=rank params=params show=show/>
        </div>
    }
    .into_any()
}

fn stats_table(cpu: Option<Stats>, gpu: Option<Stats>, delay: Option<Stats>) -> impl IntoView {
    let row = |id: &'static str, label: &'static str, stats: Option<Stats>| {
        let stats = stats.unwrap_or_default();
        let cells = [
            ("sum", stats.sum),
            ("mean", stats.mean),
            ("p50", stats.p50),
            ("p95", stats.p95),
            ("max", stats.max),
        ]
        .into_iter()
        .map(|(col, v)| view! { <td class="num" data-col=col data-value=v.to_string()>{fmt::decimal(v, 1)}</td> })
        .collect_view();
        view! {
            <tr data-row=id>
                <th scope="row">{label}</th>
                {cells}
            </tr>
        }
    };
    view! {
        <table id="launch-stats" class="data compact">
            <caption>"Statistics over the launches, µs (percentiles interpolated linearly, as pandas)"</caption>
            <thead>
                <tr>
                    <th scope="col" title="The measure: CPU duration, GPU duration or launch delay"></th>
                    <th scope="col" class="num" title="Sum over the launches, µs">"Sum"</th>
                    <th scope="col" class="num" title="Mean over the launches, µs">"Mean"</th>
                    <th scope="col" class="num" title="Half the launches are below it, µs">"Median"</th>
                    <th scope="col" class="num" title="95% of the launches are below it, µs">"95th percentile"</th>
                    <th scope="col" class="num" title="Largest over the launches, µs">"Max"</th>
                </tr>
            </thead>
            <tbody>
                {row("cpu", "CPU runtime call", cpu)}
                {row("gpu", "GPU duration", gpu)}
                {row("delay", "Launch delay", delay)}
            </tbody>
        </table>
        <TableCsv table="launch-stats"/>
    }
}

/// CPU duration against GPU duration, one mark per launch, outliers in orange.
#[component]
fn LaunchScatter(rank: Arc<RankLaunches>, params: Params) -> impl IntoView {
    let canvas = NodeRef::<Canvas>::new();
    let points: Vec<chart::ScatterPoint> = rank
        .launches
        .iter()
        .map(|l| (l.cpu_duration as f64, l.gpu_duration as f64, usize::from(l.is_outlier(&params))))
        .collect();
    let count = points.len();
    let data = scatter_data(&points);
    let problem = RwSignal::new(None::<String>);
    let marks = RwSignal::new(None::<usize>);
    let resized = window_resizes();
    let guides = [params.runtime_cutoff as f64];
    Effect::new(move |_| {
        resized.track();
        let Some(canvas) = canvas.get() else { return };
        let axes = ScatterAxes {
            x_desc: "CPU runtime call (µs)",
            y_desc: "GPU duration (µs)",
            floor: 1.0,
            diagonal: true,
            x_guides: &guides,
        };
        match chart::log_scatter(&canvas, &points, &COLORS, &axes) {
            Ok(layout) => {
                marks.set(Some(layout.marks));
                problem.set(None);
            }
            Err(e) => problem.set(Some(format!("The chart could not be drawn ({e})."))),
        }
    });
    let label = format!(
        "Scatter of {} launches: CPU runtime call duration against GPU duration, both on log scales.",
        fmt::count(count as u64)
    );
    let legend = [("Within both cutoffs", COLORS[0]), ("Outlier (runtime or delay)", COLORS[1])]
        .into_iter()
        .map(|(text, color)| {
            view! {
                <li>
                    <span class="swatch" style:background-color=chart::css_color(color)></span>
                    {text}
                </li>
            }
        })
        .collect_view();
    view! {
        <figure class="launch-scatter">
            <figcaption>
                "CPU runtime call against GPU duration. Below the diagonal the GPU ran shorter than its launch call \
                 took; right of the vertical line the call took over "
                {params.runtime_cutoff.to_string()}
                " µs. Durations under 1 µs sit on the axes."
            </figcaption>
            <ChartFrame name="launch-scatter" caption="CPU runtime call against GPU duration" text=ChartText::Data(data)>
            <canvas
                id="launch-scatter"
                class="chart scatter"
                node_ref=canvas
                role="img"
                aria-label=label
                data-points=count.to_string()
                data-marks=move || marks.get().map(|m| m.to_string())
            ></canvas>
            <ul class="legend">{legend}</ul>
            </ChartFrame>
            {move || problem.get().map(|p| view! { <p class="error" role="alert">{p}</p> })}
        </figure>
    }
}

/// The scatter's numbers for its "Data table": the first
/// [`DATA_TABLE_ROWS`] launches (the outliers have their own table).
fn scatter_data(points: &[chart::ScatterPoint]) -> ChartData {
    let rows = points
        .iter()
        .take(DATA_TABLE_ROWS)
        .enumerate()
        .map(|(i, &(cpu, gpu, series))| {
            let kind = if series == 1 { "Outlier" } else { "Within both cutoffs" };
            vec![(i + 1).to_string(), fmt::decimal(cpu, 0), fmt::decimal(gpu, 0), kind.to_string()]
        })
        .collect();
    let headers = ["Launch", "CPU runtime call (µs)", "GPU duration (µs)", "Kind"];
    ChartData { headers: headers.map(String::from).to_vec(), rows }
}

/// At most this many launches in the scatter's data table.
const DATA_TABLE_ROWS: usize = 500;

/// One outlier in the table.
pub struct OutlierRow {
    pub gpu_event: String,
    pub short_name: String,
    pub runtime: String,
    pub launch: Launch,
    pub kind: &'static str,
}

/// The rank's outliers, in HTA's order.
pub fn outlier_rows(rank: &RankLaunches, params: &Params) -> Vec<OutlierRow> {
    rank.launches
        .iter()
        .filter(|l| l.is_outlier(params))
        .map(|l| OutlierRow {
            gpu_event: rank.name(l.kernel).to_string(),
            short_name: short_name(rank.name(l.kernel)),
            runtime: rank.name(l.runtime).to_string(),
            launch: *l,
            kind: match launch_stats::outlier_kind(l, params) {
                "both" => "both",
                "cpu_runtime" => "CPU runtime",
                _ => "launch delay",
            },
        })
        .collect()
}

/// A kernel's name without its leading `void ` and parameter list, cut to
/// [`SHORT_NAME_CHARS`]; memcpy and memset names (`Memcpy HtoD (Pageable ->
/// Device)`) stay whole.
pub fn short_name(name: &str) -> String {
    let name = name.trim();
    if name.starts_with("Memcpy") || name.starts_with("Memset") {
        return name.to_string();
    }
    let name = name.strip_prefix("void ").unwrap_or(name);
    let mut depth = 0i32;
    let end = name
        .char_indices()
        .find(|&(_, c)| {
            match c {
                '<' => depth += 1,
                '>' => depth -= 1,
                _ => {}
            }
            c == '(' && depth == 0
        })
        .map_or(name.len(), |(i, _)| i);
    let head = if end == 0 { name } else { name[..end].trim_end() };
    if head.chars().count() > SHORT_NAME_CHARS {
        let cut: String = head.chars().take(SHORT_NAME_CHARS - 1).collect();
        format!("{}…", cut.trim_end())
    } else {
        head.to_string()
    }
}

#[component]
fn OutlierTable(rank: Arc<RankLaunches>, params: Params, show: ShowInTrace) -> impl IntoView {
    let action = show_action(show, rank.host.clone());
    let rows = Arc::new(outlier_rows(&rank, &params));
    let count = rows.len();
    let filter_text = RwSignal::new(String::new());
    let toolbar = ToolbarText {
        filter_id: "launch-filter",
        filter_label: "Filter outliers by GPU event or runtime call",
        placeholder: "e.g. nccl or cudaMemcpyAsync",
        export_id: "export-launch-outliers",
        export_label: "Export outliers (CSV)",
        file_name: "kernel_launch_outliers.csv",
    };
    let csv = {
        let rank = rank.clone();
        move || launch_stats::outliers_csv(&rank, &params)
    };
    let table_rows = Signal::derive(move || rows.clone());
    view! {
        <h3 id="launch-outliers-title">"Outliers"</h3>
        <FilterExportBar text=toolbar filter=filter_text csv=csv/>
        <div class="table-scroll">
            <SortableTable
                id="launch-outliers"
                caption=format!(
                    "{} with a runtime call over {} µs or a launch delay over {} µs, longest delay first — select a \
                     heading to sort; hover a name for all of it",
                    fmt::plural(count, "launch", "launches"),
                    params.runtime_cutoff,
                    params.launch_delay_cutoff,
                )
                columns=columns()
                rows=table_rows
                filter=Filter { text: filter_text.into(), matches: row_matches }
                sort=(5, Direction::Descending)
                empty="No outlier matches."
                cell_title=cell_title
                row_action=action
            />
        </div>
    }
}

/// Shows an outlier's GPU event, selected, in the trace viewer of its rank's host.
fn show_action(show: ShowInTrace, host: String) -> RowAction<OutlierRow> {
    RowAction {
        label: "Trace",
        class: "show-in-trace",
        text: "Show",
        title: "Show this GPU event in the trace viewer",
        applies: |_| true,
        on: Arc::new(move |r: &OutlierRow| {
            let (plane, line, index) = r.launch.at;
            show(Some(host.clone()), EventAt { plane, line, index });
        }),
    }
}

fn row_matches(row: &OutlierRow, needle: &str) -> bool {
    row.gpu_event.to_lowercase().contains(needle) || row.runtime.to_lowercase().contains(needle)
}

fn cell_title(row: &OutlierRow, column: &'static str) -> Option<String> {
    (column == "name").then(|| row.gpu_event.clone())
}

fn columns() -> Vec<Column<OutlierRow>> {
    vec![
        Column {
            id: "name",
            label: "GPU event",
            title: "The kernel, memcpy or memset launched; hover for its full name",
            numeric: false,
            value: |r| SortValue::Text(&r.short_name),
            cell: |r| r.short_name.clone(),
        },
        Column {
            id: "runtime",
            label: "Runtime call",
            title: "The CUDA runtime call on the CPU that launched the GPU event (cudaLaunchKernel, cudaMemcpyAsync…)",
            numeric: false,
            value: |r| SortValue::Text(&r.runtime),
            cell: |r| r.runtime.clone(),
        },
        Column {
            id: "correlation",
            label: "Correlation",
            title: "The id that links the runtime call to its GPU work",
            numeric: true,
            value: |r| SortValue::Number(r.launch.correlation as f64),
            cell: |r| r.launch.correlation.to_string(),
        },
        Column {
            id: "cpu",
            label: "CPU (µs)",
            title: "Duration of the runtime call",
            numeric: true,
            value: |r| SortValue::Number(r.launch.cpu_duration as f64),
            cell: |r| fmt::decimal(r.launch.cpu_duration as f64, 0),
        },
        Column {
            id: "gpu",
            label: "GPU (µs)",
            title: "Duration of the GPU work",
            numeric: true,
            value: |r| SortValue::Number(r.launch.gpu_duration as f64),
            cell: |r| fmt::decimal(r.launch.gpu_duration as f64, 0),
        },
        Column {
            id: "delay",
            label: "Delay (µs)",
            title: "From the end of the runtime call to the start of the GPU work",
            numeric: true,
            value: |r| SortValue::Number(r.launch.launch_delay as f64),
            cell: |r| fmt::decimal(r.launch.launch_delay as f64, 0),
        },
        Column {
            id: "kind",
            label: "Outlier",
            title: "Which cutoff the launch exceeds",
            numeric: false,
            value: |r| SortValue::Text(r.kind),
            cell: |r| r.kind.to_string(),
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_names_drop_return_type_and_parameters() {
        assert_eq!(short_name("void at::native::kernel<float, 2>(int, float*)"), "at::native::kernel<float, 2>");
        assert_eq!(short_name("Memcpy HtoD (Pageable -> Device)"), "Memcpy HtoD (Pageable -> Device)");
        assert_eq!(
            short_name("ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long)"),
            "ncclKernel_Broadcast_RING_LL_Sum_int8_t"
        );
        assert_eq!(short_name("(weird)"), "(weird)");
        let long = format!("k<{}>", "x".repeat(200));
        assert_eq!(short_name(&long).chars().count(), SHORT_NAME_CHARS);
    }
}
