//! The profiler's and the analysis's warnings, as the overview and the
//! input pipeline analyzer list them first.

use leptos::prelude::*;
use proflens_analysis::passes::input_pipeline::Diagnostic;

/// The profiler's and the analysis's warnings, first on the page.
#[component]
pub fn Diagnostics(items: Vec<Diagnostic>) -> impl IntoView {
    (!items.is_empty()).then(|| {
        let list = items
            .into_iter()
            .map(|d| {
                let class = format!("diagnostic {}", d.severity.to_ascii_lowercase());
                view! {
                    <li class=class>
                        <strong>{severity_word(&d.severity)}</strong>
                        " "
                        {d.message}
                    </li>
                }
            })
            .collect_view();
        view! {
            <section id="diagnostics" class="diagnostics" aria-label="Diagnostics">
                <ul>{list}</ul>
            </section>
        }
    })
}

fn severity_word(severity: &str) -> &'static str {
    match severity {
        "ERROR" => "Error:",
        "WARNING" => "Warning:",
        _ => "Note:",
    }
}
