//! "GPU kernel stats": every kernel launch aggregated per kernel, launch
//! shape and op — a pie of the kernels with the most time and a sortable,
//! filterable table that exports as CSV. Kernel names are C++ signatures
//! hundreds of characters long, so the table shows a shortened form and
//! keeps the full name as the cell's hover text.

use std::collections::HashMap;
use std::sync::Arc;

use leptos::html::Canvas;
use leptos::prelude::*;
use proflens_analysis::common::hardware::HardwareType;
use proflens_analysis::passes::kernels::KernelRow;
use proflens_analysis::tools::kernel_stats::{self, HostKernelRow, KernelStats};

use super::ViewProps;
use crate::widgets::chart;
use crate::widgets::chart_frame::{ChartData, ChartFrame, ChartText};
use crate::widgets::fmt;
use crate::widgets::measure::{self, window_resizes};
use crate::widgets::table::{Column, Direction, Filter, FilterExportBar, SortValue, SortableTable, ToolbarText};
use crate::widgets::title::ToolTitle;

mod names;
pub use names::short_kernel_name;

/// Kernels the pie shows before the rest is summed as "Other".
const PIE_SLICES: usize = 10;

/// A table row: the kernel with its rank, its shortened name and, in a
/// table of several hosts, its host ("all" where the hosts' rows add up).
pub struct Row {
    pub rank: usize,
    pub short_name: String,
    pub host: String,
    pub kernel: KernelRow,
}

/// The view of a `kernel_stats` model.
pub fn view(props: ViewProps) -> AnyView {
    super::with_model(props, |p, model: KernelStats| {
        view! { <KernelStatsView run=p.run host=p.host stats=model/> }.into_any()
    })
}

fn table(rows: impl Iterator<Item = (String, KernelRow)>) -> Arc<Vec<Row>> {
    let rows = rows.enumerate().map(|(i, (host, kernel))| Row {
        rank: i + 1,
        short_name: short_kernel_name(&kernel.name),
        host,
        kernel,
    });
    Arc::new(rows.collect())
}

/// Over several hosts the table shows the hosts' rows added up by default
/// (one row per kernel, launch shape and op: what the run did); "One row
/// per host" lists each host's kernels apart, as XProf's all-hosts table
/// and `--format xprof` do.
#[component]
fn KernelStatsView(run: String, host: String, stats: KernelStats) -> impl IntoView {
    let KernelStats { kernels, hardware, host_rows } = stats;
    if kernels.is_empty() {
        let why = match hardware {
            HardwareType::CpuOnly => {
                "This profile is CPU-only: no GPU kernels were recorded, so there are no kernel statistics."
            }
            _ => "No GPU kernels with launch details were recorded in this profile, so there are no kernel statistics.",
        };
        return view! {
            <section id="tool-kernel_stats" class="tool" aria-labelledby="tool-kernel_stats-title">
                <ToolTitle tool="kernel_stats" run=run host=host/>
                <p id="no-kernels" class="empty">
                    {why}
                    " Kernel statistics come from the GPU planes of a profile taken on an NVIDIA (CUPTI) or AMD (ROCm) GPU."
                </p>
            </section>
        }
        .into_any();
    }

    let slices = pie_slices(&kernels, PIE_SLICES);
    let several = !host_rows.is_empty();
    let merged = table(kernels.into_iter().map(|k| (if several { "all".to_string() } else { String::new() }, k)));
    let by_host = table(host_rows.into_iter().map(|r| (r.host, r.kernel)));
    let per_host = RwSignal::new(false);
    let filter_text = RwSignal::new(String::new());
    let shown = StoredValue::new((merged, by_host));
    let rows = move || shown.with_value(|(m, h)| if per_host.get() { h.clone() } else { m.clone() });
    let csv = move || {
        let by_host = per_host.get_untracked();
        shown.with_value(|(m, h)| {
            let rows = if by_host { h } else { m };
            let kernels: Vec<KernelRow> = rows.iter().map(|r| r.kernel.clone()).collect();
            if by_host {
                let hosts = rows.iter().zip(kernels).map(|(r, kernel)| HostKernelRow { host: r.host.clone(), kernel });
                kernel_stats::to_csv_by_host(&hosts.collect::<Vec<_>>())
            } else {
                kernel_stats::to_csv(&kernels)
            }
        })
    };
    let toolbar = ToolbarText {
        filter_id: "kernel-filter",
        filter_label: "Filter by kernel or op name",
        placeholder: "e.g. Eigen or MatMul",
        export_id: "export-kernels",
        export_label: "Export table (CSV)",
        file_name: "kernel_stats.csv",
    };
    let toggle = several.then(|| {
        view! {
            <div class="toolbar">
                <label class="check">
                    <input
                        type="checkbox"
                        id="kernels-per-host"
                        prop:checked=move || per_host.get()
                        on:change=move |ev| per_host.set(event_target_checked(&ev))
                    />
                    " One row per host (as XProf lists them; otherwise the hosts' launches add up)"
                </label>
            </div>
        }
    });
    let table = move || {
        let rows = rows();
        let what = if per_host.get() {
            fmt::plural(rows.len(), "kernel row of the hosts", "kernel rows of the hosts")
        } else {
            fmt::plural(rows.len(), "kernel launch shape", "kernel launch shapes")
        };
        view! {
            <SortableTable
                id="kernel-stats"
                caption=format!("{what} by total time — select a heading to sort; hover a name for all of it")
                columns=columns(several)
                rows=Signal::derive(move || rows.clone())
                filter=Filter { text: filter_text.into(), matches: kernel_matches }
                sort=(0, Direction::Ascending)
                empty="No kernel matches the filter."
                cell_title=cell_title
            />
        }
    };

    view! {
        <section id="tool-kernel_stats" class="tool" aria-labelledby="tool-kernel_stats-title">
            <ToolTitle tool="kernel_stats" run=run host=host/>
            <KernelPie slices=slices/>
            {toggle}
            <FilterExportBar text=toolbar filter=filter_text csv=csv/>
            <div class="table-scroll">{table}</div>
        </section>
    }
    .into_any()
}

/// The full names behind the shortened ones.
fn cell_title(row: &Row, column: &'static str) -> Option<String> {
    match column {
        "kernel" => Some(row.kernel.name.clone()),
        "op" if !row.kernel.op_name.is_empty() => Some(row.kernel.op_name.clone()),
        _ => None,
    }
}

/// Substring match on the full kernel name or the op name (`needle` is lower-case).
fn kernel_matches(row: &Row, needle: &str) -> bool {
    row.kernel.name.to_lowercase().contains(needle) || row.kernel.op_name.to_lowercase().contains(needle)
}

/// One slice of the pie: a kernel (all its launch shapes and ops together).
#[derive(Debug, Clone, PartialEq)]
pub struct Slice {
    pub name: String,
    pub short_name: String,
    pub total_ns: u64,
    /// The sum of the kernels left out.
    pub other: bool,
}

/// Total time per kernel name, the `top` largest first and the rest as "Other".
pub fn pie_slices(kernels: &[KernelRow], top: usize) -> Vec<Slice> {
    let mut sums: Vec<(&str, u64)> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    for k in kernels.iter().filter(|k| k.total_ns > 0) {
        match index.get(k.name.as_str()) {
            Some(&i) => sums[i].1 = sums[i].1.saturating_add(k.total_ns),
            None => {
                index.insert(&k.name, sums.len());
                sums.push((&k.name, k.total_ns));
            }
        }
    }
    sums.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    let mut slices: Vec<Slice> = sums
        .iter()
        .take(if sums.len() > top + 1 { top } else { sums.len() })
        .map(|(name, total)| Slice {
            name: name.to_string(),
            short_name: short_kernel_name(name),
            total_ns: *total,
            other: false,
        })
        .collect();
    if sums.len() > top + 1 {
        let rest = sums[top..].iter().fold(0u64, |a, (_, t)| a.saturating_add(*t));
        slices.push(Slice { name: "Other".into(), short_name: "Other".into(), total_ns: rest, other: true });
    }
    slices
}

#[component]
fn KernelPie(slices: Vec<Slice>) -> impl IntoView {
    let canvas = NodeRef::<Canvas>::new();
    let total: f64 = slices.iter().map(|s| s.total_ns as f64).sum();
    let color = |i: usize, s: &Slice| if s.other { chart::OTHER } else { chart::PALETTE[i % chart::PALETTE.len()] };
    let drawn: Vec<_> = slices.iter().enumerate().map(|(i, s)| (s.total_ns as f64, color(i, s))).collect();
    let problem = RwSignal::new(None::<String>);
    let resized = window_resizes();
    Effect::new(move |_| {
        resized.track();
        if let Some(canvas) = canvas.get() {
            problem.set(chart::pie(&canvas, &drawn).err().map(|e| format!("The chart could not be drawn ({e}).")));
        }
    });
    let legend = slices
        .iter()
        .enumerate()
        .map(|(i, s)| {
            view! {
                <li>
                    <span class="swatch" style:background-color=chart::css_color(color(i, s))></span>
                    <span class="slice-label" title=s.name.clone()>
                        {s.short_name.clone()}
                    </span>
                    " "
                    <span class="slice-share">
                        {format!("{} µs · {}", measure::us(s.total_ns as f64 / 1e3), fmt::share(s.total_ns as f64, total))}
                    </span>
                </li>
            }
        })
        .collect_view();
    let title = "Kernels with the most total time";
    let label = format!("{title}; the shares are listed beside the chart.");
    let rows = slices
        .iter()
        .map(|s| {
            let us = measure::us(s.total_ns as f64 / 1e3);
            vec![s.name.clone(), us, fmt::share(s.total_ns as f64, total)]
        })
        .collect();
    let data = ChartData { headers: vec!["Kernel".into(), "Total time (µs)".into(), "Share".into()], rows };
    view! {
        <figure class="pie kernel-pie">
            <figcaption>{title}</figcaption>
            <ChartFrame name="kernel-pie" caption="" text=ChartText::Data(data)>
                <div class="pie-body">
                    <canvas id="kernel-pie" class="pie-chart" node_ref=canvas role="img" aria-label=label></canvas>
                    <ul class="legend vertical">{legend}</ul>
                </div>
            </ChartFrame>
            {move || problem.get().map(|p| view! { <p class="error" role="alert">{p}</p> })}
        </figure>
    }
}

fn yes_no(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

fn dims(d: &[u64; 3]) -> String {
    format!("{},{},{}", d[0], d[1], d[2])
}

/// Threads (block) or blocks (grid) in all: what the dimensions multiply to.
fn volume(d: &[u64; 3]) -> f64 {
    d.iter().map(|&v| v as f64).product()
}

fn avg_ns(k: &KernelRow) -> f64 {
    if k.occurrences == 0 {
        0.0
    } else {
        k.total_ns as f64 / k.occurrences as f64
    }
}

/// XProf's columns, in its order; over several hosts the host second.
fn columns(with_host: bool) -> Vec<Column<Row>> {
    let host = Column {
        id: "host",
        label: "Host",
        title: "\"all\": the hosts' launches added up",
        numeric: false,
        value: |r: &Row| SortValue::Text(&r.host),
        cell: |r: &Row| r.host.clone(),
    };
    let mut out = xprof_columns();
    if with_host {
        out.insert(1, host);
    }
    out
}

fn xprof_columns() -> Vec<Column<Row>> {
    vec![
        Column {
            id: "rank",
            label: "Rank",
            title: "By total time",
            numeric: true,
            value: |r| SortValue::Number(r.rank as f64),
            cell: |r| r.rank.to_string(),
        },
        Column {
            id: "kernel",
            label: "Kernel name",
            title: "Shortened; hover a name for all of it",
            numeric: false,
            value: |r| SortValue::Text(&r.kernel.name),
            cell: |r| r.short_name.clone(),
        },
        Column {
            id: "registers",
            label: "Registers per thread",
            title: "Registers each thread of the kernel uses; many registers lower occupancy",
            numeric: true,
            value: |r| SortValue::Number(r.kernel.registers_per_thread as f64),
            cell: |r| fmt::count(r.kernel.registers_per_thread),
        },
        Column {
            id: "shmem",
            label: "Shared memory (bytes)",
            title: "Static plus dynamic shared memory per block",
            numeric: true,
            value: |r| SortValue::Number((r.kernel.static_shmem_bytes + r.kernel.dynamic_shmem_bytes) as f64),
            cell: |r| fmt::count(r.kernel.static_shmem_bytes.saturating_add(r.kernel.dynamic_shmem_bytes)),
        },
        Column {
            id: "block",
            label: "Block dim",
            title: "Threads per block (x,y,z)",
            numeric: true,
            value: |r| SortValue::Number(volume(&r.kernel.block)),
            cell: |r| dims(&r.kernel.block),
        },
        Column {
            id: "grid",
            label: "Grid dim",
            title: "Blocks per grid (x,y,z)",
            numeric: true,
            value: |r| SortValue::Number(volume(&r.kernel.grid)),
            cell: |r| dims(&r.kernel.grid),
        },
        Column {
            id: "occupancy",
            label: "Occupancy (%)",
            title: "Theoretical occupancy",
            numeric: true,
            value: |r| SortValue::Number(r.kernel.occupancy_pct),
            cell: |r| fmt::percent(r.kernel.occupancy_pct),
        },
        Column {
            id: "op-tensorcore-eligible",
            label: "Op TensorCore eligible",
            title: "The op's kernels could use TensorCores",
            numeric: false,
            value: |r| SortValue::Text(yes_no(r.kernel.op_tensor_core_eligible)),
            cell: |r| yes_no(r.kernel.op_tensor_core_eligible).to_string(),
        },
        Column {
            id: "uses-tensorcore",
            label: "Kernel uses TensorCore",
            title: "The kernel ran on TensorCores (judged from its name)",
            numeric: false,
            value: |r| SortValue::Text(yes_no(r.kernel.uses_tensor_core)),
            cell: |r| yes_no(r.kernel.uses_tensor_core).to_string(),
        },
        Column {
            id: "op",
            label: "Op name",
            title: "The framework op the kernel ran for",
            numeric: false,
            value: |r| SortValue::Text(&r.kernel.op_name),
            cell: |r| if r.kernel.op_name.is_empty() { "—".to_string() } else { r.kernel.op_name.clone() },
        },
        Column {
            id: "occurrences",
            label: "Occurrences",
            title: "How many times the kernel ran with this launch shape and op",
            numeric: true,
            value: |r| SortValue::Number(r.kernel.occurrences as f64),
            cell: |r| fmt::count(r.kernel.occurrences),
        },
        Column {
            id: "total",
            label: "Total duration (µs)",
            title: "Sum of the kernel's run times, µs",
            numeric: true,
            value: |r| SortValue::Number(r.kernel.total_ns as f64 / 1e3),
            cell: |r| measure::us(r.kernel.total_ns as f64 / 1e3),
        },
        Column {
            id: "avg",
            label: "Avg. duration (µs)",
            title: "Total duration ÷ occurrences, µs",
            numeric: true,
            value: |r| SortValue::Number(avg_ns(&r.kernel) / 1e3),
            cell: |r| measure::us(avg_ns(&r.kernel) / 1e3),
        },
        Column {
            id: "min",
            label: "Min. duration (µs)",
            title: "Shortest run, µs",
            numeric: true,
            value: |r| SortValue::Number(r.kernel.min_ns as f64 / 1e3),
            cell: |r| measure::us(r.kernel.min_ns as f64 / 1e3),
        },
        Column {
            id: "max",
            label: "Max. duration (µs)",
            title: "Longest run, µs",
            numeric: true,
            value: |r| SortValue::Number(r.kernel.max_ns as f64 / 1e3),
            cell: |r| measure::us(r.kernel.max_ns as f64 / 1e3),
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernel(name: &str, op: &str, total_ns: u64) -> KernelRow {
        KernelRow {
            name: name.into(),
            registers_per_thread: 32,
            static_shmem_bytes: 0,
            dynamic_shmem_bytes: 0,
            block: [256, 1, 1],
            grid: [80, 1, 1],
            occupancy_pct: 100.0,
            op_tensor_core_eligible: false,
            uses_tensor_core: false,
            op_name: op.into(),
            occurrences: 2,
            total_ns,
            min_ns: total_ns / 2,
            max_ns: total_ns / 2,
        }
    }

    #[test]
    fn pie_sums_launch_shapes_and_keeps_the_largest() {
        let kernels: Vec<KernelRow> =
            (0..13).map(|i| kernel(&format!("k{i}"), "op", 100 - i as u64)).chain([kernel("k0", "op2", 50)]).collect();
        let slices = pie_slices(&kernels, 10);
        assert_eq!(slices.len(), 11);
        assert_eq!((slices[0].name.as_str(), slices[0].total_ns), ("k0", 150));
        assert!(slices[10].other);
        assert_eq!(slices[10].total_ns, (100 - 10) + (100 - 11) + (100 - 12));
        // One kernel over the limit is shown as itself.
        assert_eq!(pie_slices(&kernels[..11], 10).len(), 11);
        assert!(pie_slices(&[], 10).is_empty());
    }

    #[test]
    fn filter_matches_kernel_or_op() {
        let row = Row {
            rank: 1,
            short_name: String::new(),
            host: String::new(),
            kernel: kernel("void Eigen::x", "model/MatMul", 1),
        };
        assert!(kernel_matches(&row, "eigen"));
        assert!(kernel_matches(&row, "matmul"));
        assert!(!kernel_matches(&row, "conv"));
    }
}
