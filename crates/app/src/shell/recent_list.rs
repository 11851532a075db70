//! The start screen's list of recently opened profiles: demos reopen in one
//! click, and so do files whose handles the browser kept (Chromium, after it
//! grants read access again); other files are named only (open them again
//! to analyse them).

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::bridge;
use crate::recent::{self, Recent};
use crate::recent_handles;
use crate::state::AppState;

#[component]
pub fn RecentList() -> impl IntoView {
    let state = expect_context::<AppState>();
    let entries = RwSignal::new(recent::list());
    let item = move |entry: Recent| {
        let when = recent::ago(js_sys::Date::now(), entry.at_ms);
        let kept = entry.handles.clone().filter(|_| recent_handles::supported());
        if let Some(key) = kept {
            let label = format!("Open {} again", entry.name);
            return view! {
                <li class="recent-item" data-kept="true">
                    <span class="recent-name">{entry.name}</span>
                    {format!(" — {when} ")}
                    <button
                        type="button"
                        class="button small recent-open"
                        aria-label=label
                        on:click=move |_| reopen(state, key.clone())
                    >
                        "Open again"
                    </button>
                </li>
            }
            .into_any();
        }
        match entry.demo {
            Some(id) => {
                let label = format!("Open the demo {} again", entry.name);
                let reopen = id.clone();
                view! {
                    <li class="recent-item" data-demo=id>
                        <span class="recent-name">{entry.name}</span>
                        {format!(" — demo, {when} ")}
                        <button
                            type="button"
                            class="button small recent-open"
                            aria-label=label
                            on:click=move |_| bridge::open_demo(state, &reopen, false)
                        >
                            "Open again"
                        </button>
                    </li>
                }
                .into_any()
            }
            None => view! {
                <li class="recent-item">
                    <span class="recent-name">{entry.name}</span>
                    {format!(" — recently opened, {when} (open it again to analyse it)")}
                </li>
            }
            .into_any(),
        }
    };
    move || {
        let list = entries.get();
        (!list.is_empty()).then(|| {
            let items = list.into_iter().map(item).collect_view();
            view! {
                <section id="recent" class="recent" aria-labelledby="recent-title">
                    <h3 id="recent-title">"Recently opened"</h3>
                    <ul>{items}</ul>
                    <button
                        id="recent-clear"
                        type="button"
                        class="button small"
                        on:click=move |_| {
                            recent::clear();
                            recent_handles::forget_all();
                            entries.set(Vec::new());
                        }
                    >
                        "Clear the list"
                    </button>
                </section>
            }
        })
    }
}

/// Reopens kept files: the browser may ask the user for read access first.
fn reopen(state: AppState, key: String) {
    spawn_local(async move {
        match recent_handles::reopen(&key).await {
            Ok(files) if !files.is_empty() => {
                recent::remember_files(&files.iter().map(|(p, _)| p.clone()).collect::<Vec<_>>(), Some(key));
                bridge::open_files(state, files);
            }
            Ok(_) => state.error.set(Some("The recently opened files are empty now.".into())),
            Err(why) => state.error.set(Some(format!("The recently opened files could not be opened again: {why}."))),
        }
    });
}
