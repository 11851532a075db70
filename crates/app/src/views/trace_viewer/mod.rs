//! "Trace viewer": the host's timeline on a canvas, without an event cap.
//!
//! The worker builds the timeline once (the host context's trace index:
//! sections of tracks, devices first) and answers queries; the page asks only
//! for the boxes of a window about three screens wide around what is on
//! screen, at one box per pixel and depth at most ([`viewer`]), and draws the
//! last answer at the current zoom while the next one comes ([`draw`]).
//!
//! - [`model`]: rows, time ↔ pixels, ruler ticks, colours (no web types);
//! - [`viewer`]: state on the page (view, scroll, what is under the pointer);
//! - [`client`], [`answers`]: the conversation with the worker (queries, answers);
//! - [`selection`]: selecting events and ranges, marks, search, export;
//! - [`ui`]: the signals behind the DOM around the canvas;
//! - [`window_data`]: the boxes on hand for a time window;
//! - [`surface`], [`draw`], [`interact`], [`listeners`]: the canvas, and the mouse and keyboard;
//! - [`panel`]: the resizable bottom panel that holds [`panes`] (details, hover
//!   card), [`range_pane`] (the range's statistics and [`flame`] graph) and the search's matches;
//! - [`search_list`]: the matches of a search as a list;
//! - [`hook`]: `window.__proflensTrace`, frame times for tests and benchmarks;
//! - [`nav`], [`shortcuts`], [`shortcut_help`]: `.`/`,`, the URL's range and
//!   event, and the `?` list of every shortcut;
//! - [`draw_counter`]: counter tracks as area charts, their axis and hover value;
//! - [`track_prefs`] (no web types), [`track_control`], [`track_finder`]: the
//!   user's track layout (order, pins, hidden, filter), dragging names in the
//!   gutter, the track bar and finder, and saving the layout (URL hash, localStorage);
//! - [`host_list`], [`stragglers`]: "All hosts": which hosts are open, and
//!   which host finished each step last (a table, and flags on the timeline).

pub mod answers;
pub mod client;
pub mod draw;
pub mod draw_counter;
pub mod flame;
pub mod hook;
pub mod host_list;
pub mod interact;
pub mod listeners;
pub mod model;
pub mod nav;
pub mod panel;
pub mod panes;
pub mod range_pane;
pub mod search_list;
pub mod selection;
pub mod shortcut_help;
pub mod shortcuts;
pub mod stragglers;
pub mod surface;
pub mod track_control;
pub mod track_finder;
pub mod track_prefs;
pub mod ui;
pub mod viewer;
pub mod window_data;

use std::sync::Arc;
use std::time::Duration;

use leptos::html::Canvas;
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::CanvasRenderingContext2d;

use proflens_analysis::tools::trace_viewer::TraceLayout;

use super::{TraceRange, TraceTarget, ViewProps};
use crate::protocol::{EventAt, TraceAnswer};
use crate::widgets::fmt;
use crate::widgets::picture;
use crate::widgets::title::ToolTitle;
use model::format_duration;
use viewer::{with_viewer, SendQuery, Ui, Viewer, VIEWER};

/// The view of a `trace_viewer` model (the timeline's layout).
pub fn view(props: ViewProps) -> AnyView {
    super::with_model(props, |p, layout: TraceLayout| {
        let send = p.actions.trace_query.clone();
        let target = p.actions.trace_target;
        let trace_range = p.actions.trace_range;
        view! {
            <TraceViewerView
                run=p.run
                host=p.host
                layout=layout
                wasm_memory_bytes=p.wasm_memory_bytes
                send=send
                target=target
                trace_range=trace_range
            />
        }
        .into_any()
    })
}

/// An answer from the worker, for the viewer of that host if it is on screen.
pub fn on_answer(run: &str, host: &str, seq: u32, answer: TraceAnswer, blob: Option<web_sys::Blob>) {
    with_viewer(|v| {
        if v.run == run && v.host == host {
            v.on_answer(seq, answer, blob);
        }
    });
}

/// The worker was replaced; queries in flight are lost.
pub fn worker_restarted() {
    with_viewer(|v| {
        v.client.reset();
        v.ui.exporting.set(false);
        v.request_frame();
    });
}

/// What a viewer goes on screen with, besides its canvas.
#[derive(Clone)]
struct Mount {
    id: u32,
    send: SendQuery,
    run: String,
    host: String,
    layout: Arc<TraceLayout>,
    ui: Ui,
    target: RwSignal<Option<TraceTarget>>,
    trace_range: RwSignal<Option<TraceRange>>,
}

/// Where the event the page asked for is, when it is of this viewer's host.
fn asked(target: Option<TraceTarget>, run: &str, host: &str) -> Option<EventAt> {
    target.filter(|t| t.run == run && t.host == host).map(|t| t.at)
}

fn mount(m: Mount, canvas: web_sys::HtmlCanvasElement) {
    let Mount { id, send, run, host, layout, ui, target, trace_range } = m;
    let ctx = canvas.get_context("2d").ok().flatten().and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok());
    let Some(ctx) = ctx else {
        ui.details.set(viewer::Details::Failed("This browser gave no 2D drawing context for the timeline.".into()));
        return;
    };
    let listeners = interact::attach(&canvas);
    let on_frame = interact::on_frame;
    let at = asked(target.get_untracked(), &run, &host);
    let range = nav::asked_range(trace_range.get_untracked(), &run, &host);
    let viewer =
        Viewer::new(viewer::Parts { id, send, on_frame, run, host, layout, canvas, ctx, ui, listeners, target });
    let replaced = VIEWER.with(|v| v.try_borrow_mut().map(|mut v| v.replace(viewer)).is_ok());
    if replaced {
        hook::record_layout();
        with_viewer(|v| {
            host_list::fold_beyond_first(v);
            v.request_frame();
            // A shared link's range wins over the zoom to its event.
            if let Some((start, end)) = range {
                v.set_view(model::View { start, end });
            }
            if let Some(at) = at {
                v.locate(at);
                v.keep_view = range.is_some();
            }
        });
    }
}

/// Saves the timeline as it is on screen (a picture of the view, not a chart:
/// no SVG) as `proflens-trace_viewer-view.png`.
fn save_view_png(problem: RwSignal<Option<String>>) {
    let canvas = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id("trace-canvas"));
    let Some(canvas) = canvas else { return };
    let result = picture::save_png(&canvas, "proflens-trace_viewer-view.png", move |e| problem.set(Some(e)));
    problem.set(result.err());
}

fn unmount(id: u32) {
    VIEWER.with(|v| {
        if let Ok(mut v) = v.try_borrow_mut() {
            if v.as_ref().is_some_and(|v| v.id == id) {
                *v = None;
            }
        }
    });
}

#[component]
fn TraceViewerView(
    run: String,
    host: String,
    layout: TraceLayout,
    wasm_memory_bytes: u64,
    send: SendQuery,
    target: RwSignal<Option<TraceTarget>>,
    trace_range: RwSignal<Option<TraceRange>>,
) -> impl IntoView {
    let ui = Ui::new();
    let canvas = NodeRef::<Canvas>::new();
    let id = viewer::next_id();
    let layout = Arc::new(layout);
    // The track layout saved for this profile, before the viewer lays out its rows.
    ui.tracks.set(track_control::load(&run, &host, &layout));
    let track_bar =
        view! { <track_finder::TrackBar ui=ui layout=layout.clone() run=run.clone() host=host.clone() viewer_id=id/> };
    let summary_line = format!(
        "{} on {} in {}; timeline built in {:.0} ms.",
        fmt::plural(layout.events as usize, "event", "events"),
        fmt::plural(layout.sections.iter().map(|s| s.tracks.len()).sum(), "track", "tracks"),
        format_duration((layout.end_ps - layout.start_ps) as f64),
        layout.build_ms,
    );
    let memory = wasm_memory_bytes;
    // "All hosts": the host list and the stragglers table.
    let host_list = (!layout.hosts.is_empty()).then(|| {
        view! { <host_list::HostList hosts=Arc::new(layout.hosts.clone())/> }
    });
    let stragglers = (!layout.hosts.is_empty()).then(|| {
        view! { <stragglers::StragglersTable layout=layout.clone()/> }
    });
    let empty = (layout.events == 0).then(|| {
        view! { <p class="notice" id="trace-empty">"This host recorded no events: the timeline is empty."</p> }
    });
    {
        let m =
            Mount { id, send, run: run.clone(), host: host.clone(), layout: layout.clone(), ui, target, trace_range };
        nav::keep_range_in_url(id, ui, trace_range, run.clone(), host.clone());
        Effect::new(move |_| {
            if let Some(canvas) = canvas.get() {
                mount(m.clone(), canvas);
            }
        });
        // An event asked for while the viewer is on screen (a hand-edited URL).
        let (run, host) = (run.clone(), host.clone());
        let _ = Effect::watch(
            move || target.get(),
            move |t, _, _| {
                if let Some(at) = asked(t.clone(), &run, &host) {
                    with_viewer(|v| {
                        if v.id == id && v.locating != Some(at) && v.selected_at != Some(at) {
                            v.locate(at);
                        }
                    });
                }
            },
            false,
        );
    }
    // The canvas takes the theme's colours: redraw when they change.
    Effect::new(move |_| {
        crate::theme::track();
        with_viewer(|v| {
            if v.id == id {
                v.request_frame();
            }
        });
    });
    on_cleanup(move || unmount(id));

    // Search: as you type (after a pause), Enter for the next match.
    let search_text = RwSignal::new(String::new());
    let regex = RwSignal::new(false);
    let typed = RwSignal::new(0u32);
    let run_search = move |select_first: bool| {
        let (text, re) = (search_text.get_untracked(), regex.get_untracked());
        with_viewer(|v| v.search(text, re, select_first));
    };
    let on_input = move |ev: web_sys::Event| {
        search_text.set(event_target_value(&ev));
        typed.update(|n| *n = n.wrapping_add(1));
        let mine = typed.get_untracked();
        set_timeout(
            move || {
                if typed.try_get_untracked() == Some(mine) {
                    run_search(false);
                }
            },
            Duration::from_millis(250),
        );
    };
    let on_search_key = move |ev: web_sys::KeyboardEvent| {
        if ev.key() != "Enter" {
            return;
        }
        ev.prevent_default();
        let text = search_text.get_untracked();
        let current = with_viewer(|v| v.searched.clone()).flatten();
        if current == Some((text, regex.get_untracked())) {
            let by = if ev.shift_key() { -1 } else { 1 };
            with_viewer(|v| v.step_hit(by));
        } else {
            typed.update(|n| *n = n.wrapping_add(1));
            run_search(true);
        }
    };
    let on_regex = move |ev: web_sys::Event| {
        regex.set(event_target_checked(&ev));
        run_search(false);
    };
    let count = move || {
        let s = ui.search.get();
        if let Some(e) = s.error {
            return e;
        }
        if s.busy {
            return "Searching…".to_string();
        }
        match (s.total, s.current) {
            (None, _) => String::new(),
            (Some(0), _) => "No matches".to_string(),
            (Some(total), Some(i)) if s.on_hand as u64 == total => {
                format!("{} of {}", fmt::count(i as u64 + 1), fmt::count(total))
            }
            (Some(total), Some(i)) => format!(
                "{} of {} listed ({} matches in all)",
                fmt::count(i as u64 + 1),
                fmt::count(s.on_hand as u64),
                fmt::count(total)
            ),
            (Some(total), None) => fmt::plural(total as usize, "match", "matches"),
        }
    };
    let no_hits = move || ui.search.with(|s| s.on_hand == 0);
    let step = move |by: isize| {
        with_viewer(|v| v.step_hit(by));
    };

    let range_text = move || {
        let (a, b) = ui.range.get();
        format!("{} – {} ms ({} shown)", fmt::ps_as_ms(a as i64), fmt::ps_as_ms(b as i64), format_duration(b - a))
    };
    let export_text = move || match ui.export.get() {
        _ if ui.exporting.get() => Some(("note", "Preparing the export…".to_string())),
        Some(Ok(text)) => Some(("note", text)),
        Some(Err(text)) => Some(("error", text)),
        None => None,
    };

    let picture_problem = RwSignal::new(None::<String>);
    // The range on screen and an export's progress, in the bottom panel's bar.
    let panel_bar = view! {
        <p class="trace-status">
            <span
                id="trace-range"
                data-start-ps=move || format!("{:.0}", ui.range.get().0)
                data-end-ps=move || format!("{:.0}", ui.range.get().1)
            >
                {range_text}
            </span>
            {move || export_text().map(|(class, text)| view! { <span id="trace-export-status" class=class>{text}</span> })}
        </p>
    }
    .into_any();
    // The timeline fills the window: one row of controls above it, the panel below.
    view! {
        <section id="tool-trace_viewer" class="tool trace-viewer" aria-labelledby="tool-trace_viewer-title">
            <ToolTitle tool="trace_viewer" run=run host=host/>
            {empty}
            <div class="trace-bar">
                <div class="toolbar trace-toolbar" role="search">
                    <input
                        type="search"
                        id="trace-search"
                        placeholder="Search events by name"
                        aria-label="Search events by name"
                        autocomplete="off"
                        spellcheck="false"
                        on:input=on_input
                        on:keydown=on_search_key
                    />
                    <label class="check">
                        <input type="checkbox" id="trace-search-regex" on:change=on_regex/>
                        "Regex"
                    </label>
                    <button
                        type="button"
                        id="trace-search-prev"
                        class="button small"
                        aria-label="Previous match"
                        prop:disabled=no_hits
                        on:click=move |_| step(-1)
                    >
                        "‹"
                    </button>
                    <button
                        type="button"
                        id="trace-search-next"
                        class="button small"
                        aria-label="Next match"
                        prop:disabled=no_hits
                        on:click=move |_| step(1)
                    >
                        "›"
                    </button>
                    <span id="trace-search-count" class="search-count" role="status" aria-live="polite">
                        {count}
                    </span>
                </div>
                {track_bar}
                {host_list}
                <div class="toolbar trace-actions">
                    <button
                        type="button"
                        id="trace-export"
                        class="button small"
                        prop:disabled=move || ui.exporting.get()
                        on:click=move |_| {
                            with_viewer(|v| v.export(false));
                        }
                    >
                        "Export trace (JSON)"
                    </button>
                    <button
                        type="button"
                        id="trace-export-selection"
                        class="button small"
                        prop:disabled=move || ui.exporting.get() || ui.selection.get().is_none()
                        on:click=move |_| {
                            with_viewer(|v| v.export(true));
                        }
                    >
                        "Export selection"
                    </button>
                    <button id="trace-save-png" type="button" class="button small" on:click=move |_| save_view_png(picture_problem)>
                        "Save PNG"
                    </button>
                    {move || picture_problem.get().map(|p| view! { <span class="error" role="alert">{p}</span> })}
                </div>
            </div>
            <div class="trace-wrap">
                <canvas
                    id="trace-canvas"
                    node_ref=canvas
                    tabindex="0"
                    role="img"
                    aria-label="Timeline of the host's events: sections per device and host, a row per thread or stream. The details of a clicked event appear in the panel below."
                ></canvas>
                <panes::TooltipView ui=ui/>
            </div>
            <panel::BottomPanel bar=panel_bar>
                <search_list::SearchList ui=ui/>
                <div class="trace-panes">
                    <panes::DetailsPane ui=ui/>
                    <range_pane::RangePane ui=ui/>
                </div>
                {stragglers}
                <p class="note trace-facts-line" id="trace-layout" data-events=layout.events.to_string()
                    data-wasm-memory=memory.to_string()>
                    {summary_line}
                </p>
                <p class="note trace-help">
                    <kbd>"W"</kbd>"/"<kbd>"S"</kbd>" or the wheel zoom · "<kbd>"A"</kbd>"/"<kbd>"D"</kbd>
                    " or drag pan · "<kbd>"Alt"</kbd>"+wheel or "<kbd>"↑"</kbd>"/"<kbd>"↓"</kbd>" scroll tracks · click an event for details · "
                    <kbd>"Shift"</kbd>"+drag selects a range · "<kbd>"F"</kbd>" fits it · "<kbd>"M"</kbd>" marks it · "
                    <kbd>"0"</kbd>" shows all · "<kbd>"."</kbd>"/"<kbd>","</kbd>" next/previous slice · "
                    "click a section header to fold it · drag a name in the gutter to move it · "
                    <button type="button" id="trace-shortcuts-open" class="link-button" on:click=move |_| shortcut_help::open()>
                        "All shortcuts"
                    </button>
                    " ("<kbd>"?"</kbd>")"
                </p>
            </panel::BottomPanel>
            <shortcut_help::ShortcutHelp/>
        </section>
    }
}
