//! The memory timeline: the canvas, its legend and free-memory switch, and
//! the hover card for the allocation event nearest the pointer.

use std::sync::Arc;

use leptos::html::Canvas;
use leptos::prelude::*;
use proflens_analysis::tools::memory_profile::Snapshot;
use web_sys::MouseEvent;

use super::draw::{draw_timeline, in_use, TimelineLayout, FRAGMENTATION, FREE, HEAP, STACK};
use super::{fragmentation_text, time_ms};
use crate::widgets::chart;
use crate::widgets::chart_frame::{ChartData, ChartFrame, ChartText};
use crate::widgets::fmt;
use crate::widgets::measure::{bytes, card_side, window_resizes};

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

/// At most this many events in the timeline's data table.
const DATA_TABLE_ROWS: usize = 500;

/// The timeline's numbers for its "Data table": the first events.
fn timeline_data(timeline: &[Snapshot]) -> ChartData {
    let headers = ["Time", "Memory in use", "Stack", "Heap", "Free", "Fragmentation"];
    let rows = timeline
        .iter()
        .take(DATA_TABLE_ROWS)
        .map(|s| {
            vec![
                time_ms(s.time_offset_ps),
                bytes(in_use(s)),
                bytes(s.stats.stack_reserved_bytes),
                bytes(s.stats.heap_allocated_bytes),
                bytes(s.stats.free_memory_bytes),
                fragmentation_text(s.stats.fragmentation),
            ]
        })
        .collect();
    ChartData { headers: headers.map(String::from).to_vec(), rows }
}

#[component]
pub(super) fn Timeline(timeline: Arc<Vec<Snapshot>>, show_free: bool) -> impl IntoView {
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
        <ChartFrame name="memory-timeline" caption="Memory timeline" text=ChartText::Data(timeline_data(&timeline))>
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
        </ChartFrame>
        {move || problem.get().map(|p| view! { <p class="error" role="alert">{p}</p> })}
    }
    .into_any()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proflens_analysis::tools::memory_profile::{Activity, AllocatorStats};

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
}
