//! The heading every tool starts with, and its "Save report" button, on one row.

use leptos::prelude::*;

use super::report::{save_report, ReportInfo};
use crate::widgets::how_to_read::{topic_for, HowToRead, ShownView};

/// The tool's name (its label in the registry) and which run and host it
/// shows, and below it the tool's "How to read this" guide, collapsed;
/// `tool` is the tool's id.
#[component]
pub fn ToolTitle(tool: &'static str, run: String, host: String) -> impl IntoView {
    let label = crate::tool_names::find(tool).map_or(tool, |t| t.label);
    let shown = use_context::<ShownView>();
    let topic = topic_for(tool, shown.as_ref().map(|s| s.0.as_str()));
    let problem = RwSignal::new(None::<String>);
    let (report_run, report_host) = (StoredValue::new(run.clone()), StoredValue::new(host.clone()));
    let save = move |_| {
        let info = ReportInfo { tool, tool_label: label, run: &report_run.get_value(), host: &report_host.get_value() };
        problem.set(save_report(&info).err().map(|e| format!("Proflens could not save the report: {e}.")));
    };
    // One row: the title, then "Save report" at its end; the guide below.
    view! {
        <div class="tool-head">
            <h2 id=format!("tool-{tool}-title")>
                {label}
                " "
                <span class="subtitle">{format!("{run} · {host}")}</span>
            </h2>
            <div class="report-bar">
                <button type="button" class="button small save-report" on:click=save>
                    "Save report"
                </button>
                {move || problem.get().map(|p| view! { <p class="error" role="alert">{p}</p> })}
            </div>
        </div>
        <HowToRead topic=topic/>
    }
}
