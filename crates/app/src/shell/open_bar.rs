//! Opening profiles: the pickers (files, a folder), demos and recent files;
//! dropping anywhere on the page. Before a profile is open they are a bar at
//! the top of the page; once one is, they fold into the header's "Open…"
//! menu (`o`), so the tool gets the screen, and the menu also adds a profile
//! to compare.

use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DataTransfer, DragEvent, HtmlInputElement};

use super::demo_menu::DemoMenu;
use super::recent_list::RecentList;
use super::ShellUi;
use crate::bridge;
use crate::intake;
use crate::recent_handles;
use crate::state::{AppState, Status};
use crate::widgets::fmt;

/// Whether a profile is on screen (or loading): the bar has folded into the
/// header's menu. After an error or a cancel nothing is, and the bar is back.
fn profile_open(state: AppState) -> bool {
    state.shown.with(|s| s.is_some())
        || (matches!(state.status.get(), Status::Loading { .. })
            && state.opened.with(|o| o.as_ref().is_some_and(|o| !o.runs.is_empty())))
}

#[component]
pub fn OpenPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let shell = expect_context::<ShellUi>();
    let menu = move || profile_open(state);
    let hidden = move || menu() && !shell.open_menu.get();
    // Whatever opened (a pick, a drop, a demo, a recent entry), the menu has done its job.
    Effect::new(move |_| {
        state.opened.track();
        shell.open_menu.set(false);
    });

    let on_pick = move |ev: web_sys::Event| {
        let input = event_target::<HtmlInputElement>(&ev);
        let files = intake::from_file_list(input.files());
        // Let the same selection be picked again later.
        input.set_value("");
        shell.open_menu.set(false);
        recent_handles::remember(&files, None);
        bridge::open_files(state, files);
    };
    let on_add = move |ev: web_sys::Event| {
        let input = event_target::<HtmlInputElement>(&ev);
        let files = intake::from_file_list(input.files());
        input.set_value("");
        shell.open_menu.set(false);
        bridge::add_files(state, files);
    };

    view! {
        <section
            id="open"
            class="open"
            class:menu=menu
            hidden=hidden
            role=move || menu().then_some("dialog")
            aria-labelledby="open-title"
        >
            <h2 id="open-title">"Open a profile"</h2>
            <div id="drop-zone" class="drop-zone" class:dragging=move || shell.dragging.get()>
                <p class="drop-hint">
                    "Drop profiles — "
                    <code>"*.xplane.pb"</code>
                    ", PyTorch or Chrome traces ("
                    <code>"*.json[.gz]"</code>
                    "), TensorBoard tool files — or a whole log folder anywhere on this page, or:"
                </p>
                <div class="open-actions">
                    <input
                        type="file"
                        id="open-files"
                        class="visually-hidden"
                        multiple
                        on:change=on_pick
                    />
                    <label for="open-files" class="button" on:click=move |ev| pick_kept(state, shell, ev, false)>
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
                    <label for="open-folder" class="button" on:click=move |ev| pick_kept(state, shell, ev, true)>
                        "Choose a folder…"
                    </label>
                    <DemoMenu/>
                    <input
                        type="file"
                        id="add-files"
                        class="visually-hidden"
                        aria-label="Add a profile to compare"
                        multiple
                        on:change=on_add
                    />
                    <Show when=menu>
                        <label for="add-files" class="button" title="Open more files beside these, as the baseline of a comparison">
                            "Add a profile to compare…"
                        </label>
                    </Show>
                </div>
                // Mounted when shown, so that it lists what was opened since.
                {move || (!menu() || shell.open_menu.get()).then(|| view! { <RecentList/> })}
            </div>
            <p class="privacy">
                "Everything stays on this machine: files are read by this page and never uploaded."
            </p>
            <Show when=menu>
                <button id="open-close" type="button" class="button small" on:click=move |_| shell.open_menu.set(false)>
                    "Close"
                </button>
            </Show>
        </section>
        <Show when=move || shell.dragging.get() && hidden()>
            <div id="drop-overlay" class="drop-overlay" aria-hidden="true">
                <p>"Drop to open"</p>
            </div>
        </Show>
    }
}

/// "Open…" in the header, once a profile is open (the menu of [`OpenPanel`]).
#[component]
pub fn OpenMenuButton() -> impl IntoView {
    let state = expect_context::<AppState>();
    let shell = expect_context::<ShellUi>();
    view! {
        <Show when=move || profile_open(state)>
            <button
                id="open-menu"
                type="button"
                class="button small"
                aria-controls="open"
                aria-expanded=move || shell.open_menu.get().to_string()
                title="Open other profiles, a demo or a recent file (O)"
                on:click=move |_| shell.open_menu.update(|o| *o = !*o)
            >
                "Open…"
            </button>
        </Show>
    }
}

/// Files dropped anywhere on the page are opened (the browser would
/// otherwise replace the page with them).
pub fn accept_drops_anywhere(state: AppState, shell: ShellUi) {
    let win = window();
    let over = Closure::<dyn FnMut(DragEvent)>::new(move |ev: DragEvent| {
        ev.prevent_default();
        if let Some(data) = ev.data_transfer() {
            data.set_drop_effect("copy");
        }
        shell.dragging.set(true);
    });
    // Leaving the window (no element to enter next) ends the drag.
    let leave = Closure::<dyn FnMut(DragEvent)>::new(move |ev: DragEvent| {
        if ev.related_target().is_none() {
            shell.dragging.set(false);
        }
    });
    let drop = Closure::<dyn FnMut(DragEvent)>::new(move |ev: DragEvent| {
        ev.prevent_default();
        shell.dragging.set(false);
        shell.open_menu.set(false);
        if let Some(data) = ev.data_transfer() {
            open_dropped(state, &data);
        }
    });
    for (name, f) in [("dragenter", &over), ("dragover", &over), ("dragleave", &leave), ("drop", &drop)] {
        let _ = win.add_event_listener_with_callback(name, f.as_ref().unchecked_ref());
    }
    over.forget();
    leave.forget();
    drop.forget();
}

/// Opens what was dropped: files at once, folders once walked.
fn open_dropped(state: AppState, data: &DataTransfer) {
    let handles = recent_handles::drop_handles(data);
    match intake::drop_entries(data) {
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
}

/// Where the browser keeps handles (Chromium), its own pickers replace the
/// file inputs, so that the files reopen from the recent list later.
fn pick_kept(state: AppState, shell: ShellUi, ev: web_sys::MouseEvent, folder: bool) {
    if !recent_handles::supported() {
        return;
    }
    ev.prevent_default();
    spawn_local(async move {
        match recent_handles::pick(folder).await {
            Ok(Some((handles, files))) => {
                shell.open_menu.set(false);
                recent_handles::remember(&files, Some(handles));
                bridge::open_files(state, files);
            }
            Ok(None) => {}
            Err(why) => state.error.set(Some(format!("The files could not be opened: {why}."))),
        }
    });
}
