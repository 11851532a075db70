//! "Compare": one tool on a baseline and a candidate, side by side, from the
//! worker's `proflens_analysis::compare::Comparison`. What differs between
//! the sides (hardware, kind of profile, steps) and what is missing come
//! first, above the numbers, so that nobody reads a change that is not one.
//!
//! - [`overview`]: step time, its breakdown as paired bars and a table
//!   (also the memory figures' table);
//! - [`table`]: ops, operators and kernels keyed alike on both sides;
//! - [`tree`]: the op profile's tree with a delta per node;
//! - [`trace_diff`]: HTA's trace diff of two PyTorch traces;
//! - [`advice`]: the Advisor's findings on both sides, what grew first.

mod advice;
mod overview;
mod table;
mod trace_diff;
mod tree;

use leptos::prelude::*;
use proflens_analysis::compare::{self, Comparison, Delta, SideFacts};

use super::ViewProps;
use crate::widgets::fmt;
use crate::widgets::how_to_read::HowToRead;

/// The view name of a comparison (`views::VIEWS`).
pub const VIEW: &str = "compare";

/// The view of a model of type `Comparison`.
pub fn view(props: ViewProps) -> AnyView {
    super::with_model(props, |_, model: Comparison| view! { <CompareView comparison=model/> }.into_any())
}

/// The tool's name for people (the trace diff is no tool of the registry).
pub fn tool_label(tool: &str) -> &'static str {
    if tool == compare::TRACE_DIFF {
        return "Trace diff";
    }
    crate::tool_names::find(tool).map_or("this tool", |t| t.label)
}

/// What compare mode shows for a tool that has no comparison.
pub fn not_comparable(tool: &str) -> AnyView {
    let tools: Vec<&str> =
        compare::TOOLS.iter().filter(|t| **t != compare::TRACE_DIFF).map(|t| tool_label(t)).collect();
    let sentence = format!(
        "The {} cannot be compared. The tools that compare two profiles are: {}, and the trace diff for two PyTorch traces. Choose one above, or leave compare mode.",
        tool_label(tool),
        tools.join(", ")
    );
    view! {
        <section id="tool-compare" class="tool compare">
            <p id="not-comparable" class="empty">{sentence}</p>
        </section>
    }
    .into_any()
}

#[component]
fn CompareView(comparison: Comparison) -> impl IntoView {
    let title = format!("Compare: {}", tool_label(&comparison.tool));
    let body = match comparison.tool.as_str() {
        "overview_page" => view! { <overview::Breakdown comparison=comparison.clone()/> }.into_any(),
        _ if comparison.advice.is_some() => view! { <advice::AdviceView comparison=comparison.clone()/> }.into_any(),
        _ if comparison.trace_diff.is_some() => {
            view! { <trace_diff::TraceDiffView comparison=comparison.clone()/> }.into_any()
        }
        _ if comparison.table.is_some() => view! { <table::TableView comparison=comparison.clone()/> }.into_any(),
        _ if comparison.tree.is_some() => view! { <tree::TreeView comparison=comparison.clone()/> }.into_any(),
        _ => view! { <overview::Figures comparison=comparison.clone() caption="Memory, baseline and candidate"/> }
            .into_any(),
    };
    let verdict = (!comparison.verdict.is_empty()).then(|| {
        view! {
            <p id="compare-verdict" class="verdict">
                {comparison.verdict.clone()}
            </p>
        }
    });
    view! {
        <section id="tool-compare" class="tool compare" data-tool=comparison.tool.clone() aria-labelledby="tool-compare-title">
            <h2 id="tool-compare-title">{title}</h2>
            <HowToRead topic="compare"/>
            <Sides base=comparison.base.clone() candidate=comparison.candidate.clone()/>
            <Sentences id="compare-differences" class="messages xspace-warnings" title="What differs between the sides" items=comparison.differences.clone()/>
            <Sentences id="compare-notes" class="messages notes" title="What is missing" items=comparison.notes.clone()/>
            <StepTime step=comparison.step_time_ms/>
            {verdict}
            {body}
        </section>
    }
}

/// Which run and host each side is, and what kind of profile.
#[component]
fn Sides(base: SideFacts, candidate: SideFacts) -> impl IntoView {
    let side = |role: &'static str, id: &'static str, facts: SideFacts| {
        let mut what = vec![facts.kind.clone()];
        if !facts.device_type.is_empty() {
            what.push(if facts.device_count > 0 {
                format!("{} × {}", fmt::count(facts.device_count), facts.device_type)
            } else {
                facts.device_type.clone()
            });
        }
        what.push(fmt::plural(facts.hosts, "host", "hosts"));
        what.push(fmt::plural(facts.steps, "step", "steps"));
        let what = what.into_iter().filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" · ");
        view! {
            <div id=id class="side">
                <dt>{role}</dt>
                <dd>
                    <strong class="side-label">{facts.label}</strong>
                    <span class="note">{what}</span>
                </dd>
            </div>
        }
    };
    view! {
        <dl class="summary sides">
            {side("Baseline", "side-base", base)}
            {side("Candidate", "side-candidate", candidate)}
        </dl>
    }
}

/// A titled list of sentences; nothing when there are none.
#[component]
fn Sentences(id: &'static str, class: &'static str, title: &'static str, items: Vec<String>) -> impl IntoView {
    (!items.is_empty()).then(|| {
        let items = items.into_iter().map(|s| view! { <li>{s}</li> }).collect_view();
        view! {
            <div id=id class=class>
                <strong>{title}</strong>
                <ul>{items}</ul>
            </div>
        }
    })
}

/// Both sides' average step time and the change.
#[component]
fn StepTime(step: Option<Delta>) -> impl IntoView {
    step.map(|d| {
        view! {
            <dl id="compare-step-time" class="summary stats">
                <div>
                    <dt>"Baseline step time"</dt>
                    <dd id="step-base" data-value=d.base.to_string()>{fmt::ms(d.base)}</dd>
                </div>
                <div>
                    <dt>"Candidate step time"</dt>
                    <dd id="step-candidate" data-value=d.candidate.to_string()>{fmt::ms(d.candidate)}</dd>
                </div>
                <div>
                    <dt>"Change"</dt>
                    <dd id="step-delta" data-value=d.delta.to_string() class=change_class(d.delta)>
                        {format!("{} ms ({})", fmt::signed(d.delta, 2), fmt::signed_percent(d.delta_pct))}
                    </dd>
                </div>
            </dl>
        }
    })
}

/// `slower` / `faster` / `same` for a time's change (a class for its colour).
pub fn change_class(delta: f64) -> &'static str {
    if delta > 0.0 {
        "change slower"
    } else if delta < 0.0 {
        "change faster"
    } else {
        "change same"
    }
}

/// The comparison's CSV as a download button, with the reason beside it when
/// the browser refuses the download.
#[component]
fn ExportCsv(label: &'static str, file_name: String, comparison: Comparison) -> impl IntoView {
    let problem = RwSignal::new(None::<String>);
    let csv = StoredValue::new(compare::report::csv(&comparison));
    let export = move |_| {
        problem.set(
            csv.with_value(|csv| crate::widgets::download::save_text(&file_name, "text/csv;charset=utf-8", csv)).err(),
        );
    };
    view! {
        <p class="actions">
            <button id="export-compare" type="button" class="button small" on:click=export>
                {label}
            </button>
        </p>
        {move || problem.get().map(|p| view! { <p class="error" role="alert">{p}</p> })}
    }
}
