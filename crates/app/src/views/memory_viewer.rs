//! "Memory viewer": one XLA module's buffer assignment over its program
//! order — the peak and what makes it up, a chart of live memory at each
//! point of the program (with and without padding) with a hover card, and
//! the largest buffers live at the peak with their size, shape, op and
//! padding overhead, filterable and exported as CSV.

use std::sync::Arc;

use leptos::ev::MouseEvent;
use leptos::html::Canvas;
use leptos::prelude::*;
use plotters::prelude::*;
use proflens_analysis::tools::memory_viewer::{self, HeapObject, MemoryViewer, MemoryViewerPage};
use web_sys::HtmlCanvasElement;

use super::ViewProps;
use crate::widgets::chart;
use crate::widgets::chart_frame::{ChartData, ChartFrame, ChartText};
use crate::widgets::fmt;
use crate::widgets::measure::{card_side, window_resizes};
use crate::widgets::table::{Column, Direction, Filter, FilterExportBar, SortValue, SortableTable, ToolbarText};
use crate::widgets::title::ToolTitle;

const PADDED: RGBColor = chart::PALETTE[0];
const UNPADDED: RGBColor = chart::PALETTE[1];

/// The view of a `memory_viewer` model: one module, and the others to choose from.
pub fn view(props: ViewProps) -> AnyView {
    super::with_model(props, |p, page: MemoryViewerPage| {
        let choose = p.actions.choose_module.clone();
        view! { <MemoryViewerView run=p.run host=p.host page=page choose=choose/> }.into_any()
    })
}

/// `choose` asks for another module.
#[component]
fn MemoryViewerView(
    run: String,
    host: String,
    page: MemoryViewerPage,
    choose: Arc<dyn Fn(String) + Send + Sync>,
) -> impl IntoView {
    let MemoryViewerPage { modules, module, viewer, failed, .. } = page;
    let picker = (modules.len() > 1).then(|| {
        let options = modules
            .iter()
            .map(|m| {
                let selected = *m == module;
                view! { <option value=m.clone() selected=selected>{m.clone()}</option> }
            })
            .collect_view();
        view! {
            <div class="toolbar">
                <label for="memory-viewer-module">"XLA module"</label>
                <select
                    id="memory-viewer-module"
                    on:change=move |ev| choose(event_target_value(&ev))
                >
                    {options}
                </select>
            </div>
        }
    });
    let body = match (viewer, failed) {
        (Some(viewer), _) => view! { <ModuleMemory viewer=Arc::from(viewer)/> }.into_any(),
        (None, failed) => view! {
            <p id="no-memory-viewer" class="empty">
                {failed.unwrap_or_else(|| "There is no buffer assignment to show.".to_string())}
            </p>
        }
        .into_any(),
    };
    view! {
        <section id="tool-memory_viewer" class="tool" aria-labelledby="tool-memory_viewer-title">
            <ToolTitle tool="memory_viewer" run=run host=host/>
            {picker}
            {body}
        </section>
    }
}

/// The program point where live memory is highest (the first such point).
/// `heap_sizes[i]` is the memory before heap event `i`, so the peak is the
/// point after the event that reached it.
pub fn peak_point(v: &MemoryViewer) -> usize {
    let mut best = 0;
    for (i, &size) in v.heap_sizes.iter().enumerate() {
        if size > v.heap_sizes[best] {
            best = i;
        }
    }
    best
}

/// The instruction whose heap event led to program point `i`.
fn instruction_before(v: &MemoryViewer, i: usize) -> String {
    match i.checked_sub(1).and_then(|e| v.hlo_instruction_names.get(e)) {
        Some(name) if !name.is_empty() => name.clone(),
        _ => "the program's start".to_string(),
    }
}

fn mib(v: f64) -> String {
    format!("{} MiB", fmt::decimal(v, 2))
}

#[component]
fn ModuleMemory(viewer: Arc<MemoryViewer>) -> impl IntoView {
    let v = viewer.clone();
    let peak_at = peak_point(&v);
    let peak_op = instruction_before(&v, peak_at);
    let facts = vec![
        ("peak", "Peak memory (with padding)", mib(v.peak_heap_mib)),
        ("peak-unpadded", "Peak memory without padding", mib(v.peak_unpadded_heap_mib)),
        ("padding", "Padding overhead at the peak", mib(v.peak_heap_mib - v.peak_unpadded_heap_mib)),
        ("peak-at", "Peak at program point", format!("{peak_at} (after {peak_op})")),
        ("allocations", "Total buffer allocations", mib(v.total_buffer_allocation_mib)),
        ("parameters", "Entry parameters", mib(v.entry_computation_parameters_mib)),
        ("live-out", "May be live out", mib(v.maybe_live_out_mib)),
        ("indefinite", "Live for the whole program", mib(v.indefinite_buffer_allocation_mib)),
    ];
    let facts = facts
        .into_iter()
        .map(|(id, label, value)| {
            view! {
                <div>
                    <dt>{label}</dt>
                    <dd data-field=id>{value}</dd>
                </div>
            }
        })
        .collect_view();
    let largest: Arc<Vec<Buffer>> = Arc::new(
        v.max_heap_by_size().into_iter().enumerate().map(|(i, h)| Buffer { rank: i + 1, heap: h.clone() }).collect(),
    );
    let count = largest.len();
    let table_rows = Signal::derive(move || largest.clone());
    let filter_text = RwSignal::new(String::new());
    let stored = StoredValue::new(viewer.clone());
    let toolbar = ToolbarText {
        filter_id: "memory-viewer-filter",
        filter_label: "Filter by op or buffer",
        placeholder: "",
        export_id: "export-memory-viewer",
        export_label: "Export buffers (CSV)",
        file_name: "memory_viewer.csv",
    };
    view! {
        <section id="memory-viewer-summary" class="panel" aria-labelledby="memory-viewer-summary-title">
            <h3 id="memory-viewer-summary-title">{format!("Module {}", v.module_name)}</h3>
            <dl id="memory-viewer-facts" class="summary">{facts}</dl>
        </section>
        <section class="panel" aria-labelledby="memory-viewer-chart-title">
            <h3 id="memory-viewer-chart-title">"Live memory over the program order"</h3>
            <HeapChart viewer=viewer.clone()/>
        </section>
        <section class="panel" aria-labelledby="memory-viewer-buffers-title">
            <h3 id="memory-viewer-buffers-title">"Largest buffers at the peak"</h3>
            <FilterExportBar
                text=toolbar
                filter=filter_text
                csv=move || stored.with_value(|v| memory_viewer::max_heap_csv(v))
            />
            <div class="table-scroll">
                <SortableTable
                    id="memory-viewer-buffers"
                    caption=format!(
                        "{} live at the peak, largest first — select a heading to sort",
                        fmt::plural(count, "buffer", "buffers"),
                    )
                    columns=columns()
                    rows=table_rows
                    filter=Filter { text: filter_text.into(), matches: buffer_matches }
                    sort=(0, Direction::Ascending)
                    empty="No buffer matches the filter."
                />
            </div>
        </section>
    }
}

/// A buffer live at the peak with its rank by size.
pub struct Buffer {
    pub rank: usize,
    pub heap: HeapObject,
}

fn buffer_matches(b: &Buffer, needle: &str) -> bool {
    [&b.heap.tf_op_name, &b.heap.instruction_name, &b.heap.label].iter().any(|s| s.to_lowercase().contains(needle))
}

fn padding_mib(b: &Buffer) -> f64 {
    (b.heap.logical_buffer_size_mib - b.heap.unpadded_shape_mib).max(0.0)
}

fn columns() -> Vec<Column<Buffer>> {
    vec![
        Column {
            id: "rank",
            label: "Rank",
            title: "Position by size, 1 = largest",
            numeric: true,
            value: |b| SortValue::Number(b.rank as f64),
            cell: |b| b.rank.to_string(),
        },
        Column {
            id: "size",
            label: "Size (MiB)",
            title: "The buffer's size as allocated, padding included, MiB",
            numeric: true,
            value: |b| SortValue::Number(b.heap.logical_buffer_size_mib),
            cell: |b| fmt::decimal(b.heap.logical_buffer_size_mib, 3),
        },
        Column {
            id: "unpadded",
            label: "Unpadded (MiB)",
            title: "The buffer's size without padding, MiB",
            numeric: true,
            value: |b| SortValue::Number(b.heap.unpadded_shape_mib),
            cell: |b| fmt::decimal(b.heap.unpadded_shape_mib, 3),
        },
        Column {
            id: "padding",
            label: "Padding overhead (MiB)",
            title: "Size with the layout's padding minus the shape's own size",
            numeric: true,
            value: |b| SortValue::Number(padding_mib(b)),
            cell: |b| fmt::decimal(padding_mib(b), 3),
        },
        Column {
            id: "shape",
            label: "Shape",
            title: "The buffer's shape: element type and dimensions",
            numeric: false,
            value: |b| SortValue::Text(&b.heap.shape_string),
            cell: |b| b.heap.shape_string.clone(),
        },
        Column {
            id: "op",
            label: "Framework op",
            title: "The TensorFlow or JAX op that made the buffer",
            numeric: false,
            value: |b| SortValue::Text(&b.heap.tf_op_name),
            cell: |b| b.heap.tf_op_name.clone(),
        },
        Column {
            id: "instruction",
            label: "HLO instruction",
            title: "The HLO instruction whose result the buffer holds",
            numeric: false,
            value: |b| SortValue::Text(&b.heap.instruction_name),
            cell: |b| b.heap.instruction_name.clone(),
        },
        Column {
            id: "kind",
            label: "Allocation type",
            title: "Parameter, output, thread-local, constant or temporary",
            numeric: false,
            value: |b| SortValue::Text(&b.heap.group_name),
            cell: |b| b.heap.group_name.clone(),
        },
    ]
}

/// Where the plot was drawn (CSS pixels) and how many program points it spans.
#[derive(Debug, Clone, Copy, PartialEq)]
struct PlotLayout {
    left: f64,
    right: f64,
    top: f64,
    bottom: f64,
    points: usize,
}

impl PlotLayout {
    /// The program point under `x`, if `x` is over the plot.
    fn point_at(&self, x: f64) -> Option<usize> {
        let width = self.right - self.left;
        if self.points == 0 || width <= 0.0 || x < self.left || x > self.right {
            return None;
        }
        let last = (self.points - 1).max(1) as f64;
        Some((((x - self.left) / width * last).round() as usize).min(self.points - 1))
    }

    fn x_of(&self, point: usize) -> f64 {
        let last = (self.points.max(2) - 1) as f64;
        self.left + point as f64 / last * (self.right - self.left)
    }
}

/// The heap chart's numbers for its "Data table": the first 500 points.
fn heap_data(v: &MemoryViewer) -> ChartData {
    let rows = v
        .heap_sizes
        .iter()
        .enumerate()
        .take(500)
        .map(|(i, padded)| {
            let unpadded = v.unpadded_heap_sizes.get(i).copied().unwrap_or(0.0);
            vec![i.to_string(), mib(*padded), mib(unpadded)]
        })
        .collect();
    let headers = ["Program point", "Live memory", "Without padding"];
    ChartData { headers: headers.map(String::from).to_vec(), rows }
}

#[component]
fn HeapChart(viewer: Arc<MemoryViewer>) -> impl IntoView {
    if viewer.heap_sizes.is_empty() {
        return view! { <p class="empty">"The module has no heap events to draw."</p> }.into_any();
    }
    let canvas = NodeRef::<Canvas>::new();
    let layout = RwSignal::new(None::<PlotLayout>);
    let problem = RwSignal::new(None::<String>);
    let hover = RwSignal::new(None::<(usize, f64, f64)>);
    let resized = window_resizes();
    let stored = StoredValue::new(viewer.clone());
    Effect::new(move |_| {
        resized.track();
        let Some(canvas) = canvas.get() else {
            return;
        };
        stored.with_value(|v| match draw(&canvas, v) {
            Ok(drawn) => {
                layout.set(Some(drawn));
                problem.set(None);
            }
            Err(e) => problem.set(Some(format!("The memory chart could not be drawn ({e})."))),
        });
    });
    let on_move = move |ev: MouseEvent| {
        let (x, y) = (ev.offset_x() as f64, ev.offset_y() as f64);
        hover.set(layout.get_untracked().and_then(|l| l.point_at(x)).map(|i| (i, x, y)));
    };
    let peak = peak_point(&viewer);
    let peak_marker = move || {
        let l = layout.get()?;
        Some(view! {
            <div
                class="time-marker peak-marker"
                aria-hidden="true"
                style:left=format!("{}px", l.x_of(peak))
                style:top=format!("{}px", l.top)
                style:height=format!("{}px", (l.bottom - l.top).max(0.0))
            ></div>
        })
    };
    let tooltip = move || {
        let (index, x, y) = hover.get()?;
        let width = canvas.get().map(|c| c.client_width() as f64).unwrap_or(0.0);
        let (left, right) = card_side(x, width);
        let (padded, unpadded, op) = stored.with_value(|v| {
            (
                v.heap_sizes.get(index).copied().unwrap_or(0.0),
                v.unpadded_heap_sizes.get(index).copied().unwrap_or(0.0),
                instruction_before(v, index),
            )
        });
        Some(view! {
            <div
                id="memory-viewer-tooltip"
                class="chart-tooltip"
                role="tooltip"
                data-index=index.to_string()
                style:left=left
                style:right=right
                style:top=format!("{}px", (y - 20.0).max(0.0))
            >
                <p class="tooltip-title">
                    <strong>{format!("Program point {index}")}</strong>
                    {if index == peak { " (peak)" } else { "" }}
                </p>
                <table>
                    <tbody>
                        <tr>
                            <th scope="row">"After"</th>
                            <td data-field="instruction">{op}</td>
                        </tr>
                        <tr>
                            <th scope="row">"Live memory"</th>
                            <td data-field="live">{mib(padded)}</td>
                        </tr>
                        <tr>
                            <th scope="row">"Without padding"</th>
                            <td data-field="unpadded">{mib(unpadded)}</td>
                        </tr>
                    </tbody>
                </table>
            </div>
        })
    };
    let data = heap_data(&viewer);
    view! {
        <ChartFrame name="heap" caption="Live memory over the program order" text=ChartText::Data(data)>
        <div class="chart-wrap">
            <canvas
                id="memory-viewer-chart"
                class="chart"
                node_ref=canvas
                role="img"
                aria-label="Live memory (MiB) at each point of the program order, with and without padding; the peak is marked"
                on:mousemove=on_move
                on:mouseleave=move |_| hover.set(None)
            ></canvas>
            {peak_marker}
            {tooltip}
        </div>
        <ul class="legend" aria-label="Series">
            <li>
                <span class="swatch" style:background-color=chart::css_color(PADDED)></span>
                "Live memory"
            </li>
            <li>
                <span class="swatch" style:background-color=chart::css_color(UNPADDED)></span>
                "Without padding"
            </li>
        </ul>
        </ChartFrame>
        {move || problem.get().map(|p| view! { <p class="error" role="alert">{p}</p> })}
    }
    .into_any()
}

fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

fn draw(canvas: &HtmlCanvasElement, v: &MemoryViewer) -> Result<PlotLayout, String> {
    let (backend, ratio) = chart::backend(canvas)?;
    let px = |css: f64| (css * ratio).round() as u32;
    let root = backend.into_drawing_area();
    let ink = crate::theme::chart_colors();
    root.fill(&ink.background).map_err(err)?;
    let points = v.heap_sizes.len();
    let highest = v.heap_sizes.iter().copied().filter(|x| x.is_finite()).fold(0.0, f64::max);
    let y_max = chart::nice_ceiling(highest);
    let x_max = (points.max(2) - 1) as f64;
    let font = ("sans-serif", 12.0 * ratio).into_font().color(&ink.text);
    let mut plot = ChartBuilder::on(&root)
        .margin_top(px(10.0))
        .margin_right(px(12.0))
        .x_label_area_size(px(34.0))
        .y_label_area_size(px(64.0))
        .build_cartesian_2d(0.0..x_max, 0.0..y_max)
        .map_err(err)?;
    plot.configure_mesh()
        .x_labels(8)
        .y_labels(6)
        .x_label_formatter(&|x: &f64| format!("{x:.0}"))
        .y_label_formatter(&|y: &f64| fmt::decimal(*y, if y_max < 10.0 { 1 } else { 0 }))
        .x_desc("Program order (heap events)")
        .y_desc("Live memory (MiB)")
        .label_style(font.clone())
        .axis_desc_style(font)
        .light_line_style(TRANSPARENT)
        .bold_line_style(ink.grid)
        .axis_style(ink.axis)
        .draw()
        .map_err(err)?;
    let series = |values: &[f64]| -> Vec<(f64, f64)> {
        values.iter().enumerate().map(|(i, &y)| (i as f64, if y.is_finite() { y } else { 0.0 })).collect()
    };
    let padded = series(&v.heap_sizes);
    let mut area = padded.clone();
    area.push((x_max, 0.0));
    area.push((0.0, 0.0));
    plot.draw_series(std::iter::once(Polygon::new(area, PADDED.mix(0.25).filled()))).map_err(err)?;
    plot.draw_series(std::iter::once(PathElement::new(padded, PADDED.stroke_width(px(1.5).max(1))))).map_err(err)?;
    plot.draw_series(std::iter::once(PathElement::new(
        series(&v.unpadded_heap_sizes),
        UNPADDED.stroke_width(px(1.5).max(1)),
    )))
    .map_err(err)?;
    let (xs, ys) = plot.plotting_area().get_pixel_range();
    root.present().map_err(err)?;
    Ok(PlotLayout {
        left: xs.start as f64 / ratio,
        right: xs.end as f64 / ratio,
        top: ys.start as f64 / ratio,
        bottom: ys.end as f64 / ratio,
        points,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_peak_is_the_point_after_the_event_that_reached_it() {
        let v = MemoryViewer {
            heap_sizes: vec![5.0, 5.0, 9.0, 9.0, 2.0],
            hlo_instruction_names: vec!["a".into(), "conv".into(), "b".into(), "c".into(), String::new()],
            ..MemoryViewer::default()
        };
        assert_eq!(peak_point(&v), 2);
        assert_eq!(instruction_before(&v, 2), "conv");
        assert_eq!(instruction_before(&v, 0), "the program's start");
    }

    #[test]
    fn hovering_finds_the_program_point() {
        let l = PlotLayout { left: 10.0, right: 110.0, top: 0.0, bottom: 50.0, points: 11 };
        assert_eq!(l.point_at(10.0), Some(0));
        assert_eq!(l.point_at(60.0), Some(5));
        assert_eq!(l.point_at(110.0), Some(10));
        assert_eq!(l.point_at(5.0), None);
        assert_eq!(l.x_of(5), 60.0);
    }
}
