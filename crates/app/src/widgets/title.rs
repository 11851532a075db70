//! The heading every tool starts with.

use leptos::prelude::*;
use proflens_analysis::registry;

/// The tool's name (its label in the registry) and which run and host it
/// shows; `tool` is the tool's id.
#[component]
pub fn ToolTitle(tool: &'static str, run: String, host: String) -> impl IntoView {
    let label = registry::find(tool).map_or(tool, |t| t.label());
    view! {
        <h2 id=format!("tool-{tool}-title")>
            {label}
            " "
            <span class="subtitle">{format!("{run} · {host}")}</span>
        </h2>
    }
}
