//! "All hosts": the stragglers per step under the timeline (the host that
//! finished each step last, on the run's clock, and by how much), and their
//! flags on the canvas at the step's end on that host's first section header.

use std::sync::Arc;

use leptos::prelude::*;
use wasm_bindgen::JsValue;
use web_sys::CanvasRenderingContext2d;

use proflens_analysis::tools::trace_viewer::TraceLayout;

use super::model::{format_duration, View, GUTTER_W, SECTION_H};
use super::viewer::{with_viewer, Viewer};
use crate::widgets::fmt;

/// The flag's colour: an alert orange that reads on both themes' headers.
const FLAG: &str = "#d9480f";

/// Draws a flag per straggler whose end is on screen; the number drawn.
/// Work per frame is per step, never per event.
pub fn draw_flags(v: &Viewer, ctx: &CanvasRenderingContext2d, css_w: f64, css_h: f64) -> Result<usize, JsValue> {
    let width = v.timeline_width();
    let mut drawn = 0;
    ctx.set_fill_style_str(FLAG);
    for s in &v.layout.stragglers {
        let Some(span) = v.layout.hosts.get(s.host as usize) else { continue };
        let Some(row) = v.rows.sections.iter().find(|r| r.index == span.first_section as usize) else { continue };
        let x = GUTTER_W + v.view.x(s.end_ps as f64, width);
        let y = v.scroll_top() + row.y - v.scroll_y;
        if x < GUTTER_W || x > css_w || y < v.scroll_top() || y + SECTION_H > css_h {
            continue;
        }
        ctx.fill_rect(x - 0.5, y + 3.0, 1.5, SECTION_H - 6.0);
        ctx.begin_path();
        ctx.move_to(x + 1.0, y + 3.0);
        ctx.line_to(x + 9.0, y + 6.5);
        ctx.line_to(x + 1.0, y + 10.0);
        ctx.close_path();
        ctx.fill();
        drawn += 1;
    }
    Ok(drawn)
}

/// The stragglers table; a row shows its step's end on the timeline.
#[component]
pub fn StragglersTable(layout: Arc<TraceLayout>) -> impl IntoView {
    let rows = layout
        .stragglers
        .iter()
        .map(|s| {
            let host = layout.hosts.get(s.host as usize).map(|h| h.name.clone()).unwrap_or_default();
            let (end, first) = (s.end_ps as f64, (s.end_ps - s.lag_first_ps) as f64);
            let show = move |_| {
                // From the first host's end to the last's, with a margin.
                let margin = ((end - first) * 0.25).max(1_000_000.0);
                with_viewer(|v| v.set_view(View::fit(first - margin, end + margin)));
            };
            view! {
                <tr data-row="">
                    <td data-col="step">
                        <button type="button" class="link" on:click=show title="Show this step's end on the timeline">
                            {s.step.clone()}
                        </button>
                    </td>
                    <td data-col="host">{host}</td>
                    <td data-col="hosts" class="num">{s.hosts.to_string()}</td>
                    <td data-col="end" class="num" data-ps=s.end_ps.to_string()>{fmt::ps_as_ms(s.end_ps)}</td>
                    <td data-col="lag_median" class="num" data-ps=s.lag_median_ps.to_string()>
                        {format_duration(s.lag_median_ps as f64)}
                    </td>
                    <td data-col="lag_first" class="num" data-ps=s.lag_first_ps.to_string()>
                        {format_duration(s.lag_first_ps as f64)}
                    </td>
                </tr>
            }
        })
        .collect_view();
    let empty = layout.stragglers.is_empty().then(|| {
        view! { <p class="note" id="trace-stragglers-none">"No step ran on two hosts or more: no stragglers to show."</p> }
    });
    view! {
        <section class="trace-stragglers" aria-labelledby="trace-stragglers-title">
            <h3 id="trace-stragglers-title">"Stragglers per step"</h3>
            <p class="note">
                "The host that finished each step last on the run's clock (hosts aligned by their capture start), "
                "and how far behind the median host and the first host it ended. A flag marks it on the timeline."
            </p>
            {empty}
            <table id="trace-stragglers" class="data-table">
                <thead>
                    <tr>
                        <th scope="col" title="The step, by its number: the same step on every host">"Step"</th>
                        <th scope="col" title="The host (or rank) that finished this step last, on the run's aligned clock">"Last host"</th>
                        <th scope="col" title="How many hosts ran this step">"Hosts"</th>
                        <th scope="col" title="When the last host finished the step, ms from the start of the run's timeline">"Its end (ms)"</th>
                        <th scope="col" title="How much later the last host finished than the median host (the lower middle one when the count is even)">"Lag vs median"</th>
                        <th scope="col" title="How much later the last host finished than the first host to finish">"Lag vs first"</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </section>
    }
}
