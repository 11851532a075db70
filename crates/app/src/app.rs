//! The shell: header with run/host/tool selectors, the open panel (pickers,
//! drop zone, demo), progress and errors, and the selected tool's view.

use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DragEvent, HtmlInputElement};

use proflens_analysis::compare;

use crate::bridge::{self, TraceSink};
use crate::demo_menu::{DemoCaption, DemoMenu};
use crate::demos;
use crate::intake;
use crate::recent_handles;
use crate::recent_list::RecentList;
use crate::selectors::Selectors;
use crate::state::{AppState, Pick, Status};
use crate::theme::ThemeToggle;
use crate::url_state::UrlState;
use crate::view_actions::actions;
use crate::views::{self, trace_viewer, TraceRange, TraceTarget, ViewProps};
use crate::widgets::fmt;
use crate::widgets::how_to_read::ShownView;

#[component]
pub fn App() -> impl IntoView {
    let state = AppState::new();
    provide_context(state);
    bridge::set_trace_sink(TraceSink {
        on_answer: trace_viewer::on_answer,
        on_restart: trace_viewer::worker_restarted,
    });

    // The URL's selection is applied once files are opened; `#demo=NAME` opens a demo.
    let url = UrlState::parse(&current_hash());
    if let Some(tool) = url.tool {
        state.tool.set(tool);
    }
    state.trace_target.set(trace_target(&url));
    state.trace_range.set(trace_range(&url));
    let open_demo_now = url.demo.clone();
    bridge::set_pending_url(url);
    match served_logdir() {
        Some(Ok(logdir)) => bridge::open_logdir_url(state, logdir),
        Some(Err(message)) => state.error.set(Some(message)),
        None => {
            if let Some(demo) = open_demo_now {
                bridge::open_demo(state, &demo, true);
            }
        }
    }
    watch_hash(state);
    keep_hash_in_sync(state);
    guard_window_drops();
    crate::theme::start();

    view! {
        <header class="topbar">
            <h1 class="brand">"Proflens"</h1>
            <Selectors/>
            <ThemeToggle/>
        </header>
        <main id="main">
            <OpenPanel/>
            <StatusArea/>
            <DemoCaption/>
            <ToolArea/>
        </main>
    }
}

/// The `?logdir=URL` of the page, resolved against the page's address. Only
/// the page's own origin is allowed: nothing leaves it (the CSP says so too).
fn served_logdir() -> Option<Result<String, String>> {
    let location = web_sys::window()?.location();
    let search = location.search().ok()?;
    let logdir = web_sys::UrlSearchParams::new_with_str(&search).ok()?.get("logdir")?;
    let page = location.href().ok()?;
    let origin = location.origin().ok()?;
    Some(match web_sys::Url::new_with_base(&logdir, &page) {
        Ok(url) if url.origin() == origin => Ok(url.href()),
        Ok(_) => Err(format!(
            "The log directory {logdir} is on another site. Proflens reads log directories only from the site that serves it ({origin})."
        )),
        Err(_) => Err(format!("“{logdir}” is not a valid address for a log directory.")),
    })
}

fn state() -> AppState {
    expect_context::<AppState>()
}

#[component]
fn OpenPanel() -> impl IntoView {
    let state = state();
    let dragging = RwSignal::new(false);
    // Once a profile is open the panel shrinks to one line, and stays so
    // while tools and hosts are switched.
    let compact = move || {
        state.shown.with(|s| s.is_some()) || state.opened.with(|o| o.as_ref().is_some_and(|o| !o.runs.is_empty()))
    };

    let on_pick = move |ev: web_sys::Event| {
        let input = event_target::<HtmlInputElement>(&ev);
        let files = intake::from_file_list(input.files());
        // Let the same selection be picked again later.
        input.set_value("");
        recent_handles::remember(&files, None);
        bridge::open_files(state, files);
    };
    let on_drop = move |ev: DragEvent| {
        ev.prevent_default();
        dragging.set(false);
        let Some(data) = ev.data_transfer() else {
            return;
        };
        let handles = recent_handles::drop_handles(&data);
        match intake::drop_entries(&data) {
            Err(files) => {
                recent_handles::remember_drop(&files, handles);
                bridge::open_files(state, files);
            }
            Ok(entries) if entries.is_empty() => {}
            Ok(entries) => {
                state.error.set(None);
                state.notice.set(Some("Reading the dropped items…".into()));
                spawn_local(async move {
                    let (files, unreadable) = intake::walk(entries).await;
                    state.notice.set(None);
                    if files.is_empty() {
                        state.error.set(Some(if unreadable > 0 {
                            "The dropped items could not be read.".into()
                        } else {
                            "The dropped folder is empty.".into()
                        }));
                        return;
                    }
                    recent_handles::remember_drop(&files, handles);
                    bridge::open_files(state, files);
                    if unreadable > 0 {
                        state.notice.set(Some(format!(
                            "{} could not be read and {} left out.",
                            fmt::plural(unreadable, "dropped item", "dropped items"),
                            if unreadable == 1 { "was" } else { "were" }
                        )));
                    }
                });
            }
        }
    };
    let on_drag_over = move |ev: DragEvent| {
        ev.prevent_default();
        if let Some(data) = ev.data_transfer() {
            data.set_drop_effect("copy");
        }
        dragging.set(true);
    };

    view! {
        <section id="open" class="open" class:compact=compact aria-labelledby="open-title">
            <h2 id="open-title">"Open a profile"</h2>
            <div
                id="drop-zone"
                class="drop-zone"
                class:dragging=move || dragging.get()
                on:dragenter=on_drag_over
                on:dragover=on_drag_over
                on:dragleave=move |_| dragging.set(false)
                on:drop=on_drop
            >
                <p class="drop-hint">
                    "Drop profiles — "
                    <code>"*.xplane.pb"</code>
                    ", PyTorch or Chrome traces ("
                    <code>"*.json[.gz]"</code>
                    "), TensorBoard tool files — or a whole log folder here, or:"
                </p>
                <div class="open-actions">
                    <input
                        type="file"
                        id="open-files"
                        class="visually-hidden"
                        multiple
                        on:change=on_pick
                    />
                    <label for="open-files" class="button" on:click=move |ev| pick_kept(state, ev, false)>
                        "Choose files…"
                    </label>
                    <input
                        type="file"
                        id="open-folder"
                        class="visually-hidden"
                        on:change=on_pick
                        multiple
                        prop:webkitdirectory=true
                    />
                    <label for="open-folder" class="button" on:click=move |ev| pick_kept(state, ev, true)>
                        "Choose a folder…"
                    </label>
                    <DemoMenu/>
                </div>
                {move || (!compact()).then(|| view! { <RecentList/> })}
            </div>
            <p class="privacy">
                "Everything stays on this machine: files are read by this page and never uploaded."
            </p>
        </section>
    }
}

/// Where the browser keeps handles (Chromium), its own pickers replace the
/// file inputs, so that the files reopen from the recent list later.
fn pick_kept(state: AppState, ev: web_sys::MouseEvent, folder: bool) {
    if !recent_handles::supported() {
        return;
    }
    ev.prevent_default();
    spawn_local(async move {
        match recent_handles::pick(folder).await {
            Ok(Some((handles, files))) => {
                recent_handles::remember(&files, Some(handles));
                bridge::open_files(state, files);
            }
            Ok(None) => {}
            Err(why) => state.error.set(Some(format!("The files could not be opened: {why}."))),
        }
    });
}

#[component]
fn StatusArea() -> impl IntoView {
    let state = state();
    let loading = move || match state.status.get() {
        Status::Loading { fraction, label } => Some((fraction, label)),
        _ => None,
    };
    let error = move || state.error.get();
    let skipped = move || state.opened.with(|o| o.as_ref().map(|o| o.skipped.clone())).filter(|s| !s.is_empty());

    view! {
        <div class="status">
            {move || {
                state
                    .notice
                    .get()
                    .map(|n| {
                        let retry = (state.status.get() == Status::Cancelled
                            && !state.host.get().is_empty())
                            .then(|| {
                                view! {
                                    " "
                                    <button
                                        id="retry"
                                        type="button"
                                        class="button small"
                                        on:click=move |_| bridge::load_host(state)
                                    >
                                        {format!("Load {} again", state.host.get_untracked())}
                                    </button>
                                }
                            });
                        view! {
                            <p id="notice" class="notice" role="status">
                                {n}
                                {retry}
                            </p>
                        }
                    })
            }}
            <div id="error" class="error" role="alert" hidden=move || error().is_none()>
                {move || error().unwrap_or_default()}
            </div>
            {move || {
                skipped()
                    .map(|skipped| {
                        let skipped_count = skipped.len();
                        let summary = format!(
                            "{} not opened:",
                            match skipped.len() {
                                1 => "1 file was".to_string(),
                                n => format!("{} files were", fmt::count(n as u64)),
                            }
                        );
                        let items = skipped
                            .into_iter()
                            .map(|s| {
                                view! {
                                    <li>
                                        <span class="path">{s.path}</span>
                                        " — "
                                        {s.reason}
                                    </li>
                                }
                            })
                            .collect_view();
                        let few = skipped_count <= 3;
                        view! {
                            <details id="skipped" class="skipped" open=few>
                                <summary>{summary}</summary>
                                <ul>{items}</ul>
                            </details>
                        }
                    })
            }}
            {move || {
                loading()
                    .map(|(fraction, label)| {
                        let (text, bar) = match fraction {
                            Some(fraction) => {
                                let percent = (fraction * 100.0).round() as u32;
                                (
                                    format!("{label}… {percent}%"),
                                    view! {
                                        <progress id="progress" max="1" prop:value=fraction></progress>
                                    }
                                        .into_any(),
                                )
                            }
                            // No value: the browser shows a busy bar.
                            None => {
                                (
                                    format!("{label}…"),
                                    view! { <progress id="progress" max="1"></progress> }.into_any(),
                                )
                            }
                        };
                        view! {
                            <section id="loading" class="loading" role="status" aria-label="Loading">
                                <label for="progress" id="phase">
                                    {text}
                                </label>
                                {bar}
                                {move || {
                                    state
                                        .stalled_s
                                        .get()
                                        .map(|s| {
                                            view! {
                                                <span id="stalled" class="stalled">
                                                    {format!("No progress for {s} s.")}
                                                </span>
                                            }
                                        })
                                }}
                                <button
                                    id="cancel"
                                    type="button"
                                    class="button"
                                    on:click=move |_| bridge::cancel(state)
                                >
                                    "Cancel"
                                </button>
                            </section>
                        }
                    })
            }}
        </div>
    }
}

/// The view of the host on screen, with what it may ask of the worker; in
/// compare mode, the comparison (or which tools compare).
#[component]
fn ToolArea() -> impl IntoView {
    let state = state();
    move || {
        let tool = state.tool.get();
        if state.base.with(|b| b.is_some()) && !compare::TOOLS.contains(&tool) {
            return Some(views::compare::not_comparable(tool));
        }
        state.shown.get().map(|shown| {
            let actions = actions(state, &shown.run, &shown.host);
            // Which guide ToolTitle shows: PyTorch variants share their tool's id.
            provide_context(ShownView(shown.view.clone()));
            let props = ViewProps {
                run: shown.run,
                host: shown.host,
                model: shown.model,
                wasm_memory_bytes: shown.wasm_memory_bytes,
                actions,
            };
            views::render(&shown.view, props)
        })
    }
}

/// The event a URL asks the trace viewer to show, with its run and host.
fn trace_target(url: &UrlState) -> Option<TraceTarget> {
    Some(TraceTarget { run: url.run.clone()?, host: url.host.clone()?, at: url.event? })
}

/// The time range a URL asks the trace viewer to show, with its run and host.
fn trace_range(url: &UrlState) -> Option<TraceRange> {
    let (start_ps, end_ps) = url.trace_range?;
    Some(TraceRange { run: url.run.clone()?, host: url.host.clone()?, start_ps, end_ps })
}

fn current_hash() -> String {
    window().location().hash().unwrap_or_default()
}

/// Writes the selection into the URL hash (without adding history entries).
fn keep_hash_in_sync(state: AppState) {
    Effect::new(move |_| {
        let run = state.run.get();
        let host = state.host.get();
        let tool = state.tool.get();
        let Some(demo) = state.opened.with(|o| o.as_ref().map(|o| o.demo.clone())) else {
            return;
        };
        let base = state.base.get();
        let target = state.trace_target.get().filter(|t| tool == "trace_viewer" && t.run == run && t.host == host);
        let range = state.trace_range.get().filter(|r| tool == "trace_viewer" && r.run == run && r.host == host);
        let url = UrlState {
            demo,
            run: (!run.is_empty()).then_some(run),
            host: (!host.is_empty()).then_some(host),
            tool: Some(tool),
            base_run: base.as_ref().map(|b| b.run.clone()),
            base_host: base.map(|b| b.host),
            trace_range: range.map(|r| (r.start_ps, r.end_ps)),
            event: target.map(|t| t.at),
        };
        // The trace viewer's track layout stays (it names its profile).
        let hash = trace_viewer::track_control::carry_hash_key(&url.to_hash(), &current_hash());
        if hash != current_hash() {
            if let Ok(history) = window().history() {
                let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&hash));
            }
        }
    });
}

/// Follows hand edits of the hash (and back/forward between hashes).
fn watch_hash(state: AppState) {
    let on_change = Closure::<dyn FnMut()>::new(move || {
        let url = UrlState::parse(&current_hash());
        let mut tool_changed = false;
        let target = trace_target(&url);
        if target.is_some() && target != state.trace_target.get_untracked() {
            state.trace_target.set(target);
            tool_changed = true;
        }
        // A hand-edited range: the viewer on screen follows it.
        let range = trace_range(&url);
        if range.is_some() && range != state.trace_range.get_untracked() {
            state.trace_range.set(range);
        }
        if let Some(tool) = url.tool {
            if tool != state.tool.get_untracked() {
                state.tool.set(tool);
                tool_changed = true;
            }
        }
        let wanted = state.opened.with_untracked(|o| {
            let o = o.as_ref()?;
            let run = url.run.clone()?;
            let host = url.host.clone().filter(|h| o.has(&run, h)).or_else(|| o.hosts_of(&run).first().cloned())?;
            Some((run, host))
        });
        let files_open = state.opened.with_untracked(|o| o.is_some());
        let base = url.base().map(|(run, host)| Pick { run, host });
        let base = base.filter(|b| state.opened.with_untracked(|o| o.as_ref().is_some_and(|o| o.has(&b.run, &b.host))));
        let base_changed = files_open && base != state.base.get_untracked();
        if base_changed {
            state.base.set(base);
        }
        match wanted {
            Some((run, host)) if run != state.run.get_untracked() || host != state.host.get_untracked() => {
                state.run.set(run);
                state.host.set(host);
                bridge::load_host(state);
            }
            _ if url.demo.as_ref().is_some_and(|d| demo_changed(state, d)) => {
                let demo = url.demo.clone().unwrap_or_default();
                bridge::set_pending_url(url);
                bridge::open_demo(state, &demo, true);
            }
            _ if base_changed => bridge::load_host(state),
            _ if tool_changed => bridge::show_tool(state),
            _ => {}
        }
    });
    window().set_onhashchange(Some(on_change.as_ref().unchecked_ref()));
    on_change.forget();
}

/// Whether the URL names another demo than the one open (or none is).
fn demo_changed(state: AppState, asked: &str) -> bool {
    let open = state.opened.with_untracked(|o| o.as_ref().and_then(|o| o.demo.clone()));
    open.as_deref() != Some(demos::find(asked).id)
}

/// A file dropped outside the drop zone must not replace the page.
fn guard_window_drops() {
    let prevent = Closure::<dyn FnMut(web_sys::Event)>::new(|ev: web_sys::Event| {
        ev.prevent_default();
    });
    let win = window();
    let _ = win.add_event_listener_with_callback("dragover", prevent.as_ref().unchecked_ref());
    let _ = win.add_event_listener_with_callback("drop", prevent.as_ref().unchecked_ref());
    prevent.forget();
}
