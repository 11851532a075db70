//! "Profile info": summary of one host and its planes; a plane row opens its
//! lines and plane stats.

use leptos::prelude::*;
use proflens_analysis::context::LoadStats;
use proflens_analysis::tools::info::{HostInfo, InfoPage, LineInfo, PlaneInfo};

use super::ViewProps;
use crate::widgets::fmt;
use crate::widgets::table_csv::TableCsv;
use crate::widgets::title::ToolTitle;

/// The view of an `info` model: the host's planes, and what loading it cost.
pub fn view(props: ViewProps) -> AnyView {
    super::with_model(props, |p, page: InfoPage| {
        let memory = p.wasm_memory_bytes;
        view! { <InfoView run=p.run host=p.host info=page.info load=page.load wasm_memory_bytes=memory/> }.into_any()
    })
}

#[component]
fn InfoView(run: String, host: String, info: HostInfo, load: LoadStats, wasm_memory_bytes: u64) -> impl IntoView {
    let hostnames = if info.hostnames.is_empty() { "not recorded".to_string() } else { info.hostnames.join(", ") };
    let start = info.start_time_ns.map(fmt::utc_datetime).unwrap_or_else(|| "not recorded".to_string());
    let duration = info
        .duration_ps
        .map(|d| format!("{} ms", fmt::ps_as_ms(d)))
        .unwrap_or_else(|| "unknown (no events)".to_string());
    let events = info.events;
    let errors = info.errors.clone();
    let warnings = info.warnings.clone();
    let plane_count = info.planes.len();
    let decode_ms = format!("{:.0}", load.decode_ms);
    let memory_mib = format!("{:.1}", wasm_memory_bytes as f64 / (1024.0 * 1024.0));
    let rows = info
        .planes
        .iter()
        .enumerate()
        .map(|(index, plane)| view! { <PlaneRow index=index plane=plane.clone()/> })
        .collect_view();

    view! {
        <section id="tool-info" class="tool" aria-labelledby="tool-info-title">
            <ToolTitle tool="info" run=run host=host/>
            <dl class="summary">
                <div>
                    <dt>"Host names in the file"</dt>
                    <dd id="hostnames">{hostnames}</dd>
                </div>
                <div>
                    <dt>"Capture start"</dt>
                    <dd id="capture-start">{start}</dd>
                </div>
                <div>
                    <dt>"Duration"</dt>
                    <dd id="duration">{duration}</dd>
                </div>
                <div>
                    <dt>"Events"</dt>
                    <dd>
                        <span id="total-events" data-value=events.to_string()>
                            {fmt::count(events)}
                        </span>
                    </dd>
                </div>
                <div>
                    <dt>"Planes"</dt>
                    <dd id="plane-count">{plane_count}</dd>
                </div>
                <div>
                    <dt>"Decoded in"</dt>
                    <dd>
                        <span id="decode-time" data-value=load.decode_ms.to_string()>{decode_ms}</span>
                        " ms"
                    </dd>
                </div>
                <div>
                    <dt>"Worker memory"</dt>
                    <dd>
                        <span id="worker-memory" data-value=wasm_memory_bytes.to_string()>
                            {memory_mib}
                        </span>
                        " MiB"
                    </dd>
                </div>
            </dl>
            <MessageList id="xspace-errors" title="Errors recorded by the profiler" items=errors/>
            <MessageList
                id="xspace-warnings"
                title="Warnings recorded by the profiler"
                items=warnings
            />
            <table id="planes" class="data">
                <caption>"Planes — select a row to see its lines"</caption>
                <thead>
                    <tr>
                        <th scope="col" title="One source of events: the host, or one device">"Plane"</th>
                        <th scope="col" class="num" title="Lines (threads or streams) in the plane">"Lines"</th>
                        <th scope="col" class="num" title="Events recorded in the plane or line">"Events"</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
            <TableCsv table="planes"/>
        </section>
    }
}

/// A list of the profiler's own errors or warnings; nothing when empty.
#[component]
fn MessageList(id: &'static str, title: &'static str, items: Vec<String>) -> impl IntoView {
    (!items.is_empty()).then(|| {
        let heading = format!("{title} ({})", items.len());
        view! {
            <section class=format!("messages {id}")>
                <h3>{heading}</h3>
                <ul id=id>{items.into_iter().map(|m| view! { <li>{m}</li> }).collect_view()}</ul>
            </section>
        }
    })
}

#[component]
fn PlaneRow(index: usize, plane: PlaneInfo) -> impl IntoView {
    let open = RwSignal::new(false);
    let toggle = move || open.update(|o| *o = !*o);
    let line_count = plane.lines.len();
    let events = plane.events;
    let detail_id = format!("plane-detail-{index}");
    let name = if plane.name.is_empty() { "(unnamed)".to_string() } else { plane.name.clone() };
    let plane = StoredValue::new(plane);
    view! {
        <tr
            data-plane=index.to_string()
            class="plane-row"
            class:open=move || open.get()
            on:click=move |_| toggle()
        >
            // A table row cannot say it is expanded (only a treegrid's can):
            // the name is a button that does, reached by Tab, pressed by Enter
            // or Space; its click toggles the row by bubbling to it.
            <td class="plane-name">
                <button
                    type="button"
                    class="plane-toggle"
                    aria-expanded=move || if open.get() { "true" } else { "false" }
                    aria-controls=detail_id.clone()
                >
                    {name}
                </button>
            </td>
            <td class="lines num" data-value=line_count.to_string()>{line_count}</td>
            <td class="events num" data-value=events.to_string()>{fmt::count(events)}</td>
        </tr>
        <Show when=move || open.get()>
            <tr class="plane-detail" id=detail_id.clone()>
                <td colspan="3">{plane.with_value(plane_detail)}</td>
            </tr>
        </Show>
    }
}

fn plane_detail(plane: &PlaneInfo) -> impl IntoView + use<> {
    let lines = if plane.lines.is_empty() {
        view! { <p class="empty">"This plane has no lines."</p> }.into_any()
    } else {
        let rows = plane.lines.iter().enumerate().map(|(i, line)| line_row(i, line)).collect_view();
        view! {
            <table class="lines data">
                <caption>"Lines"</caption>
                <thead>
                    <tr>
                        <th scope="col" title="The line's name: a thread or a stream">"Line"</th>
                        <th scope="col" title="The name the trace viewer shows for the line">"Display name"</th>
                        <th scope="col" class="num" title="Events recorded in the plane or line">"Events"</th>
                        <th scope="col" class="num" title="Start of the line's first event, ms from the start of the profile">"First start (ms)"</th>
                        <th scope="col" class="num" title="End of the line's last event, ms from the start of the profile">"Last end (ms)"</th>
                        <th scope="col" class="num" title="Last end minus first start, ms">"Span (ms)"</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        }
        .into_any()
    };
    let stats = (!plane.stats.is_empty()).then(|| {
        let rows = plane
            .stats
            .iter()
            .map(|s| {
                view! {
                    <tr>
                        <th scope="row">{s.name.clone()}</th>
                        <td>{s.value.clone()}</td>
                    </tr>
                }
            })
            .collect_view();
        view! {
            <table class="plane-stats data">
                <caption>"Plane stats"</caption>
                <tbody>{rows}</tbody>
            </table>
        }
    });
    view! { <div class="plane-detail-body">{lines} {stats}</div> }
}

fn line_row(index: usize, line: &LineInfo) -> impl IntoView + use<> {
    let ms = |ps: Option<i64>| ps.map(fmt::ps_as_ms).unwrap_or_else(|| "—".to_string());
    let span = match (line.start_ps, line.end_ps) {
        (Some(s), Some(e)) => Some(e.saturating_sub(s)),
        _ => None,
    };
    view! {
        <tr data-line=index.to_string()>
            <td class="line-name">{line.name.clone()}</td>
            <td class="display-name">{line.display_name.clone().unwrap_or_default()}</td>
            <td class="events num" data-value=line.events.to_string()>{fmt::count(line.events)}</td>
            <td class="start num">{ms(line.start_ps)}</td>
            <td class="end num">{ms(line.end_ps)}</td>
            <td class="span num">{ms(span)}</td>
        </tr>
    }
}
