//! "Memory profile": for one allocator (memory id) of a host, the summary
//! (allocations, capacity, peaks), memory in use over time with a hover card
//! per allocation event, and what was allocated at the peak as a sortable,
//! filterable table.

use std::sync::Arc;

use leptos::html::Canvas;
use leptos::prelude::*;
use plotters::prelude::*;
use proflens_analysis::tools::memory_profile::{self, Activity, AllocatorProfile, MemoryProfile, Snapshot};
use web_sys::{HtmlCanvasElement, MouseEvent};

use crate::chart;
use crate::download;
use crate::fmt;
use crate::table::{Column, Direction, Filter, SortValue, SortableTable};
use crate::tools::measure::{self, bytes, card_side, window_resizes};
use crate::tools::{Tool, ToolTitle};

/// Series colours: stack, heap, free memory, fragmentation.
const STACK: RGBColor = chart::PALETTE[1];
const HEAP: RGBColor = chart::PALETTE[0];
const FREE: RGBColor = RGBColor(200, 226, 200);
const FRAGMENTATION: RGBColor = chart::PALETTE[7];
const TEXT: RGBColor = RGBColor(87, 96, 106);
const GRID: RGBColor = RGBColor(232, 235, 238);
const AXIS: RGBColor = RGBColor(160, 167, 174);

#[component]
pub fn MemoryProfileView(run: String, host: String, profile: MemoryProfile) -> impl IntoView {
    if profile.allocators.is_empty() {
        return view! {
            <section id="tool-memory_profile" class="tool" aria-labelledby="tool-memory_profile-title">
                <ToolTitle tool=Tool::MemoryProfile run=run host=host/>
                <p id="no-memory" class="empty">
                    "This profile has no allocator events (MemoryAllocation / MemoryDeallocation on the host), "
                    "so there is no memory profile. TensorFlow records them for its allocators when the "
                    "profiler traces the host; JAX profiles and profiles taken without host tracing have none."
                </p>
            </section>
        }
        .into_any();
    }
    let ids: Vec<String> = profile.allocators.keys().cloned().collect();
    // The allocator with the highest peak first: the one worth looking at.
    let first = profile
        .allocators
        .iter()
        .rev()
        .max_by_key(|(_, a)| a.peak_bytes_usage_lifetime)
        .map(|(id, _)| id.clone())
        .unwrap_or_default();
    let selected = RwSignal::new(first);
    let profile = StoredValue::new(Arc::new(profile));
    let problem = RwSignal::new(None::<String>);
    let export = move |_| {
        let csv = profile.with_value(|p| memory_profile::breakdown_csv(p));
        problem.set(download::save_text("memory_breakdown.csv", "text/csv;charset=utf-8", &csv).err());
    };
    let options = ids
        .iter()
        .map(|id| {
            let value = id.clone();
            let is_selected = {
                let id = id.clone();
                move || selected.get() == id
            };
            view! {
                <option value=value prop:selected=is_selected>
                    {id.clone()}
                </option>
            }
        })
        .collect_view();
    let shown = move || {
        let id = selected.get();
        let allocator = profile.with_value(|p| p.allocators.get(&id).cloned())?;
        Some(view! { <AllocatorView allocator=allocator/> })
    };

    view! {
        <section id="tool-memory_profile" class="tool" aria-labelledby="tool-memory_profile-title">
            <ToolTitle tool=Tool::MemoryProfile run=run host=host/>
            <div class="toolbar">
                <label for="memory-id">"Memory ID (allocator)"</label>
                <select id="memory-id" on:change=move |ev| selected.set(event_target_value(&ev))>
                    {options}
                </select>
                <span class="note">{fmt::plural(ids.len(), "allocator", "allocators")}</span>
                <button id="export-memory" type="button" class="button small" on:click=export>
                    "Export breakdowns (CSV)"
                </button>
            </div>
            {move || problem.get().map(|p| view! { <p class="error">{p}</p> })}
            {shown}
        </section>
    }
    .into_any()
}

/// Bytes for people, with the exact count as the hover text.
fn bytes_dd(id: &'static str, n: i64) -> impl IntoView {
    view! {
        <dd id=id data-value=n.to_string() title=format!("{} bytes", fmt::decimal(n as f64, 0))>
            {bytes(n)}
        </dd>
    }
}

/// A snapshot's time for people: ms from the start of its thread's line.
fn time_ms(ps: i64) -> String {
    format!("{} ms", fmt::ps_as_ms(ps))
}

fn fragmentation_text(f: f64) -> String {
    if f.is_finite() {
        fmt::fraction_percent(f)
    } else {
        "—".to_string()
    }
}

#[component]
fn AllocatorView(allocator: AllocatorProfile) -> impl IntoView {
    let a = &allocator;
    let peak = a.peak;
    let summary = view! {
        <dl id="memory-summary" class="summary">
            <div>
                <dt>"Allocations"</dt>
                <dd id="memory-allocations">{fmt::count(a.allocations)}</dd>
            </div>
            <div>
                <dt>"Deallocations"</dt>
                <dd id="memory-deallocations">{fmt::count(a.deallocations)}</dd>
            </div>
            <div>
                <dt>"Memory capacity"</dt>
                {bytes_dd("memory-capacity", a.capacity_bytes)}
            </div>
            <div>
                <dt title="The allocator's own peak since the program started">"Peak heap usage (lifetime)"</dt>
                <dd
                    id="memory-peak-heap"
                    data-value=a.peak_bytes_usage_lifetime.to_string()
                >
                    {bytes(a.peak_bytes_usage_lifetime)}
                    " "
                    <span class="exact">
                        {format!("({} bytes)", fmt::decimal(a.peak_bytes_usage_lifetime as f64, 0))}
                    </span>
                </dd>
            </div>
            <div>
                <dt title="Stack plus heap at the highest point of the profiled time">
                    "Peak memory usage (profiled)"
                </dt>
                <dd id="memory-peak" data-value=peak.peak_bytes_in_use.to_string()>
                    {bytes(peak.peak_bytes_in_use)}
                    " at "
                    <span id="memory-peak-time">{time_ms(a.peak_time_ps)}</span>
                </dd>
            </div>
            <div>
                <dt>"Stack reservation at the peak"</dt>
                {bytes_dd("memory-stack", peak.stack_reserved_bytes)}
            </div>
            <div>
                <dt>"Heap allocation at the peak"</dt>
                {bytes_dd("memory-heap", peak.heap_allocated_bytes)}
            </div>
            <div>
                <dt>"Free memory at the peak"</dt>
                {bytes_dd("memory-free", peak.free_memory_bytes)}
            </div>
            <div>
                <dt title="Share of free memory not in the largest free chunk">"Fragmentation at the peak"</dt>
                <dd id="memory-fragmentation">{fragmentation_text(peak.fragmentation)}</dd>
            </div>
        </dl>
    };
    let peak_step = a.active.first().and_then(|r| activity_of(a, r.snapshot, r.special)).map(|x| x.step);
    let rows: Arc<Vec<BreakdownRow>> = Arc::new(
        a.active
            .iter()
            .filter_map(|r| {
                activity_of(a, r.snapshot, r.special)
                    .map(|x| BreakdownRow { activity: x.clone(), occurrences: r.occurrences })
            })
            .collect(),
    );
    let filter_text = RwSignal::new(String::new());
    let caption = format!(
        "Memory in use at the peak ({}{}), largest first — select a heading to sort",
        time_ms(a.peak_time_ps),
        peak_step.map(|s| format!(", step {s}")).unwrap_or_default()
    );
    let table_rows = Signal::derive(move || rows.clone());
    let timeline = Arc::new(allocator.timeline.clone());
    // Free memory dwarfs what is in use on host allocators: shown when comparable.
    let show_free_at_first = a.capacity_bytes <= peak.peak_bytes_in_use.max(1).saturating_mul(10);

    view! {
        {summary}
        <section class="panel" aria-labelledby="memory-timeline-title">
            <h3 id="memory-timeline-title">"Memory timeline"</h3>
            <Timeline timeline=timeline show_free=show_free_at_first/>
        </section>
        <h3>"Memory breakdown at the peak"</h3>
        <div class="toolbar">
            <label for="memory-filter">"Filter by op name"</label>
            <input
                type="search"
                id="memory-filter"
                placeholder="e.g. Conv2D"
                prop:value=move || filter_text.get()
                on:input=move |ev| filter_text.set(event_target_value(&ev))
            />
        </div>
        <div class="table-scroll">
            <SortableTable
                id="memory-breakdown"
                caption=caption
                columns=breakdown_columns()
                rows=table_rows
                filter=Filter { text: filter_text.into(), matches: op_matches }
                sort=(1, Direction::Descending)
                empty="No allocation matches the filter."
                cell_title=op_title
            />
        </div>
    }
}

/// Substring match on the op name (`needle` is lower-case).
fn op_matches(row: &BreakdownRow, needle: &str) -> bool {
    row.activity.op.to_lowercase().contains(needle)
}

/// The op's whole name as the hover text of its cell.
fn op_title(row: &BreakdownRow, column: &'static str) -> Option<String> {
    (column == "op").then(|| row.activity.op.clone())
}

/// The allocation a breakdown row stands for.
fn activity_of(a: &AllocatorProfile, snapshot: Option<usize>, special: Option<usize>) -> Option<&Activity> {
    match (snapshot, special) {
        (Some(i), _) => a.snapshots.get(i).map(|s| &s.activity),
        (None, Some(i)) => a.special.get(i),
        (None, None) => None,
    }
}

pub struct BreakdownRow {
    pub activity: Activity,
    pub occurrences: u64,
}

fn breakdown_columns() -> Vec<Column<BreakdownRow>> {
    vec![
        Column {
            id: "op",
            label: "Op name",
            title: "",
            numeric: false,
            value: |r| SortValue::Text(&r.activity.op),
            cell: |r| r.activity.op.clone(),
        },
        Column {
            id: "allocation-size",
            label: "Allocation size",
            title: "Bytes the allocator handed out",
            numeric: true,
            value: |r| SortValue::Number(r.activity.allocation_bytes as f64),
            cell: |r| bytes(r.activity.allocation_bytes),
        },
        Column {
            id: "requested-size",
            label: "Requested size",
            title: "Bytes the op asked for",
            numeric: true,
            value: |r| SortValue::Number(r.activity.requested_bytes as f64),
            cell: |r| bytes(r.activity.requested_bytes),
        },
        Column {
            id: "occurrences",
            label: "Occurrences",
            title: "Allocations alike in all these columns",
            numeric: true,
            value: |r| SortValue::Number(r.occurrences as f64),
            cell: |r| fmt::count(r.occurrences),
        },
        Column {
            id: "region",
            label: "Region type",
            title: "",
            numeric: false,
            value: |r| SortValue::Text(&r.activity.region),
            cell: |r| r.activity.region.clone(),
        },
        Column {
            id: "data-type",
            label: "Data type",
            title: "",
            numeric: false,
            value: |r| SortValue::Text(&r.activity.data_type),
            cell: |r| r.activity.data_type.clone(),
        },
        Column {
            id: "shape",
            label: "Shape",
            title: "",
            numeric: false,
            value: |r| SortValue::Text(&r.activity.shape),
            cell: |r| r.activity.shape.clone(),
        },
    ]
}

/// Where the timeline was drawn (CSS pixels) and the time range it spans (ps).
#[derive(Debug, Clone, Copy, PartialEq)]
struct TimelineLayout {
    left: f64,
    right: f64,
    top: f64,
    bottom: f64,
    start_ps: f64,
    end_ps: f64,
}

impl TimelineLayout {
    /// The time (ps) under `x` (CSS pixels), if `x` is over the plot.
    fn time_at(&self, x: f64) -> Option<f64> {
        let width = self.right - self.left;
        if width <= 0.0 || x < self.left || x > self.right {
            return None;
        }
        Some(self.start_ps + (x - self.left) / width * (self.end_ps - self.start_ps))
    }

    fn x_of(&self, ps: f64) -> f64 {
        let span = self.end_ps - self.start_ps;
        if span <= 0.0 {
            return self.left;
        }
        self.left + (ps - self.start_ps) / span * (self.right - self.left)
    }
}

/// The snapshot nearest in time to `ps` (the timeline is sorted by time).
fn nearest(timeline: &[Snapshot], ps: f64) -> Option<usize> {
    if timeline.is_empty() {
        return None;
    }
    let after = timeline.partition_point(|s| (s.time_offset_ps as f64) < ps);
    let candidates = [after.checked_sub(1), (after < timeline.len()).then_some(after)];
    candidates.into_iter().flatten().min_by(|&a, &b| {
        let d = |i: usize| (timeline[i].time_offset_ps as f64 - ps).abs();
        d(a).total_cmp(&d(b))
    })
}

fn in_use(s: &Snapshot) -> i64 {
    s.stats.stack_reserved_bytes.saturating_add(s.stats.heap_allocated_bytes)
}

#[component]
fn Timeline(timeline: Arc<Vec<Snapshot>>, show_free: bool) -> impl IntoView {
    if timeline.is_empty() {
        return view! { <p class="empty">"No allocation events to draw."</p> }.into_any();
    }
    let canvas = NodeRef::<Canvas>::new();
    let layout = RwSignal::new(None::<TimelineLayout>);
    let problem = RwSignal::new(None::<String>);
    let hover = RwSignal::new(None::<(usize, f64, f64)>);
    let show_free = RwSignal::new(show_free);
    let resized = window_resizes();
    let points = StoredValue::new(timeline.clone());
    Effect::new(move |_| {
        resized.track();
        let free = show_free.get();
        let Some(canvas) = canvas.get() else {
            return;
        };
        points.with_value(|t| match draw_timeline(&canvas, t, free) {
            Ok(drawn) => {
                layout.set(Some(drawn));
                problem.set(None);
            }
            Err(e) => problem.set(Some(format!("The memory timeline could not be drawn ({e})."))),
        });
    });
    let on_move = move |ev: MouseEvent| {
        let (x, y) = (ev.offset_x() as f64, ev.offset_y() as f64);
        let found =
            layout.get_untracked().and_then(|l| l.time_at(x)).and_then(|ps| points.with_value(|t| nearest(t, ps)));
        hover.set(found.map(|i| (i, x, y)));
    };
    let marker = move || {
        let (index, _, _) = hover.get()?;
        let l = layout.get()?;
        let ps = points.with_value(|t| t.get(index).map(|s| s.time_offset_ps as f64))?;
        Some(view! {
            <div
                class="time-marker"
                aria-hidden="true"
                style:left=format!("{}px", l.x_of(ps))
                style:top=format!("{}px", l.top)
                style:height=format!("{}px", (l.bottom - l.top).max(0.0))
            ></div>
        })
    };
    let tooltip = move || {
        let (index, x, y) = hover.get()?;
        let width = canvas.get().map(|c| c.client_width() as f64).unwrap_or(0.0);
        let s = points.with_value(|t| t.get(index).cloned())?;
        let (left, right) = card_side(x, width);
        let a = &s.activity;
        let or_dash = |t: &str| if t.is_empty() { "—".to_string() } else { t.to_string() };
        let rows: Vec<(&str, String)> = vec![
            ("Event", if a.allocation { "allocation" } else { "deallocation" }.to_string()),
            ("Requested size", bytes(a.requested_bytes)),
            ("Allocation size", bytes(a.allocation_bytes)),
            ("Op", or_dash(&a.op)),
            ("Step", a.step.to_string()),
            ("Region type", or_dash(&a.region)),
            ("Data type", or_dash(&a.data_type)),
            ("Shape", or_dash(&a.shape)),
            ("Memory in use", bytes(in_use(&s))),
            ("Stack", bytes(s.stats.stack_reserved_bytes)),
            ("Heap", bytes(s.stats.heap_allocated_bytes)),
            ("Free", bytes(s.stats.free_memory_bytes)),
            ("Fragmentation", fragmentation_text(s.stats.fragmentation)),
        ];
        let rows = rows
            .into_iter()
            .map(|(k, v)| {
                view! {
                    <tr>
                        <th scope="row">{k}</th>
                        <td data-field=k.to_lowercase().replace(' ', "-")>{v}</td>
                    </tr>
                }
            })
            .collect_view();
        Some(view! {
            <div
                id="memory-tooltip"
                class="chart-tooltip memory-card"
                role="tooltip"
                data-index=index.to_string()
                style:left=left
                style:right=right
                style:top=format!("{}px", (y - 20.0).max(0.0))
            >
                <p class="tooltip-title">
                    <strong>{time_ms(s.time_offset_ps)}</strong>
                </p>
                <table>
                    <tbody>{rows}</tbody>
                </table>
            </div>
        })
    };
    let legend = move || {
        let mut items = vec![("Stack reservation", STACK), ("Heap allocation", HEAP)];
        if show_free.get() {
            items.push(("Free memory", FREE));
        }
        items.push(("Fragmentation (right axis)", FRAGMENTATION));
        items
            .into_iter()
            .map(|(label, color)| {
                view! {
                    <li>
                        <span class="swatch" style:background-color=chart::css_color(color)></span>
                        {label}
                    </li>
                }
            })
            .collect_view()
    };
    let label = format!(
        "Memory in use over time, {}: stack and heap stacked, fragmentation on the right axis. Hover for each event.",
        fmt::plural(timeline.len(), "event", "events")
    );
    view! {
        <div class="toolbar">
            <label class="check">
                <input
                    type="checkbox"
                    id="memory-show-free"
                    prop:checked=move || show_free.get()
                    on:change=move |ev| show_free.set(event_target_checked(&ev))
                />
                " Show free memory"
            </label>
        </div>
        <div class="chart-wrap" on:mouseleave=move |_| hover.set(None)>
            <canvas
                id="memory-timeline"
                class="chart"
                node_ref=canvas
                role="img"
                aria-label=label
                on:mousemove=on_move
                data-plot-left=move || layout.get().map(|l| l.left.to_string())
                data-plot-right=move || layout.get().map(|l| l.right.to_string())
                data-points=timeline.len().to_string()
            ></canvas>
            {marker}
            {tooltip}
        </div>
        <ul class="legend" aria-label="Series">{legend}</ul>
        {move || problem.get().map(|p| view! { <p class="error">{p}</p> })}
    }
    .into_any()
}

fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// A value that holds from each point until the next: the corners of its steps.
fn steps(points: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let mut out = Vec::with_capacity(points.len() * 2);
    for (i, &(x, y)) in points.iter().enumerate() {
        if i > 0 {
            out.push((x, points[i - 1].1));
        }
        out.push((x, y));
    }
    out
}

/// Draws stack, heap (and free memory) stacked over time and fragmentation
/// on a right axis; returns where the plot is.
fn draw_timeline(canvas: &HtmlCanvasElement, timeline: &[Snapshot], show_free: bool) -> Result<TimelineLayout, String> {
    let (backend, ratio) = chart::backend(canvas)?;
    let px = |css: f64| (css * ratio).round() as u32;
    let root = backend.into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;

    let start = timeline.first().map_or(0.0, |s| s.time_offset_ps as f64);
    let mut end = timeline.last().map_or(0.0, |s| s.time_offset_ps as f64);
    if end <= start {
        end = start + 1e9;
    }
    let top_of = |s: &Snapshot| {
        let used = in_use(s) as f64;
        if show_free {
            used + s.stats.free_memory_bytes as f64
        } else {
            used
        }
    };
    let highest = timeline.iter().map(top_of).filter(|v| v.is_finite()).fold(0.0, f64::max);
    let (unit, unit_name) = measure::byte_unit(highest);
    let y_max = chart::nice_ceiling(highest / unit);
    // Time in ms on the axis.
    let (x0, x1) = (start / 1e9, end / 1e9);
    let font = ("sans-serif", 12.0 * ratio).into_font().color(&TEXT);
    let mut chart = ChartBuilder::on(&root)
        .margin_top(px(10.0))
        .margin_right(px(8.0))
        .x_label_area_size(px(34.0))
        .y_label_area_size(px(64.0))
        .right_y_label_area_size(px(56.0))
        .build_cartesian_2d(x0..x1, 0.0..y_max)
        .map_err(err)?
        .set_secondary_coord(x0..x1, 0.0..100.0);
    let time_label = |v: &f64| fmt::decimal(*v, if (x1 - x0) < 10.0 { 2 } else { 0 });
    chart
        .configure_mesh()
        .x_labels(8)
        .y_labels(6)
        .x_label_formatter(&time_label)
        .y_label_formatter(&|v: &f64| fmt::decimal(*v, if y_max < 10.0 { 1 } else { 0 }))
        .x_desc("Time (ms)")
        .y_desc(format!("Memory ({unit_name})"))
        .label_style(font.clone())
        .axis_desc_style(font.clone())
        .light_line_style(TRANSPARENT)
        .bold_line_style(GRID)
        .axis_style(AXIS)
        .set_all_tick_mark_size(px(4.0))
        .draw()
        .map_err(err)?;
    chart
        .configure_secondary_axes()
        .y_labels(6)
        .y_label_formatter(&|v: &f64| format!("{v:.0}%"))
        .y_desc("Fragmentation (%)")
        .label_style(font.clone())
        .axis_desc_style(font)
        .axis_style(AXIS)
        .draw()
        .map_err(err)?;

    let series = |value: &dyn Fn(&Snapshot) -> f64| -> Vec<(f64, f64)> {
        steps(&timeline.iter().map(|s| (s.time_offset_ps as f64 / 1e9, value(s))).collect::<Vec<_>>())
    };
    let area = |top: Vec<(f64, f64)>| -> Vec<(f64, f64)> {
        let mut polygon = top;
        if let (Some(&(first, _)), Some(&(last, _))) = (polygon.first(), polygon.last()) {
            polygon.push((last, 0.0));
            polygon.push((first, 0.0));
        }
        polygon
    };
    if show_free {
        let free = series(&|s| (in_use(s) as f64 + s.stats.free_memory_bytes as f64) / unit);
        chart.draw_series(std::iter::once(Polygon::new(area(free), FREE.filled()))).map_err(err)?;
    }
    let heap = series(&|s| in_use(s) as f64 / unit);
    chart.draw_series(std::iter::once(Polygon::new(area(heap.clone()), HEAP.mix(0.75).filled()))).map_err(err)?;
    chart.draw_series(std::iter::once(PathElement::new(heap, HEAP.stroke_width(px(1.5).max(1))))).map_err(err)?;
    let stack = series(&|s| s.stats.stack_reserved_bytes as f64 / unit);
    if stack.iter().any(|&(_, v)| v > 0.0) {
        chart.draw_series(std::iter::once(Polygon::new(area(stack), STACK.mix(0.85).filled()))).map_err(err)?;
    }
    let fragmentation = series(&|s| {
        let f = s.stats.fragmentation;
        if f.is_finite() {
            (f * 100.0).clamp(0.0, 100.0)
        } else {
            0.0
        }
    });
    chart
        .draw_secondary_series(std::iter::once(PathElement::new(
            fragmentation,
            FRAGMENTATION.stroke_width(px(1.5).max(1)),
        )))
        .map_err(err)?;
    let (xs, ys) = chart.plotting_area().get_pixel_range();
    root.present().map_err(|e| e.to_string())?;
    Ok(TimelineLayout {
        left: xs.start as f64 / ratio,
        right: xs.end as f64 / ratio,
        top: ys.start as f64 / ratio,
        bottom: ys.end as f64 / ratio,
        start_ps: start,
        end_ps: end,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proflens_analysis::tools::memory_profile::AllocatorStats;

    fn snap(ps: i64, heap: i64) -> Snapshot {
        Snapshot {
            time_offset_ps: ps,
            stats: AllocatorStats { heap_allocated_bytes: heap, ..AllocatorStats::default() },
            activity: Activity {
                allocation: true,
                requested_bytes: 0,
                allocation_bytes: 0,
                address: 0,
                op: String::new(),
                step: 0,
                region: String::new(),
                data_type: String::new(),
                shape: String::new(),
            },
        }
    }

    #[test]
    fn hovering_finds_the_nearest_event() {
        let t = vec![snap(0, 1), snap(100, 2), snap(200, 3)];
        assert_eq!(nearest(&t, -50.0), Some(0));
        assert_eq!(nearest(&t, 40.0), Some(0));
        assert_eq!(nearest(&t, 60.0), Some(1));
        assert_eq!(nearest(&t, 1000.0), Some(2));
        assert_eq!(nearest(&[], 1.0), None);
        let l = TimelineLayout { left: 10.0, right: 110.0, top: 0.0, bottom: 50.0, start_ps: 0.0, end_ps: 200.0 };
        assert_eq!(l.time_at(60.0), Some(100.0));
        assert_eq!(l.time_at(5.0), None);
        assert_eq!(l.x_of(200.0), 110.0);
    }

    #[test]
    fn values_hold_until_the_next_event() {
        assert_eq!(
            steps(&[(0.0, 1.0), (1.0, 3.0), (2.0, 2.0)]),
            vec![(0.0, 1.0), (1.0, 1.0), (1.0, 3.0), (2.0, 3.0), (2.0, 2.0)]
        );
        assert!(steps(&[]).is_empty());
    }
}
