//! Under the header: the notice (with "Load again" after a cancel), the
//! error, the files left out, and the progress of a load with its Cancel.

use leptos::prelude::*;

use crate::bridge;
use crate::state::{AppState, Status};
use crate::widgets::fmt;

#[component]
pub fn StatusArea() -> impl IntoView {
    let state = expect_context::<AppState>();
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
