//! The heading every tool starts with.

use leptos::prelude::*;
use proflens_analysis::registry;

use crate::widgets::how_to_read::{topic_for, HowToRead, ShownView};

/// The tool's name (its label in the registry) and which run and host it
/// shows, and below it the tool's "How to read this" guide, collapsed;
/// `tool` is the tool's id.
#[component]
pub fn ToolTitle(tool: &'static str, run: String, host: String) -> impl IntoView {
    let label = registry::find(tool).map_or(tool, |t| t.label());
    let shown = use_context::<ShownView>();
    let topic = topic_for(tool, shown.as_ref().map(|s| s.0.as_str()));
    view! {
        <h2 id=format!("tool-{tool}-title")>
            {label}
            " "
            <span class="subtitle">{format!("{run} · {host}")}</span>
        </h2>
        <HowToRead topic=topic/>
    }
}
