//! The Advisor: the profile's findings ranked by what fixing them would
//! save, each with its cost, confidence, evidence (linked to the tool that
//! shows it) and fix; then the checks this profile could not answer and
//! those that found nothing. Every text of the model is rendered as text:
//! evidence labels and values quote names from the profile.

use leptos::prelude::*;
use proflens_analysis::advice::{Advice, Basis, Confidence, Evidence, Finding, Framework, Link};

use super::{OpenLink, ToolLink, ViewProps};
use crate::protocol::EventAt;
use crate::tool_names;
use crate::widgets::fmt;
use crate::widgets::title::ToolTitle;

/// The view of an `advisor` model (`Advice`).
pub fn view(props: ViewProps) -> AnyView {
    super::with_model(props, |p, advice: Advice| {
        let open = p.actions.open_link.clone();
        view! { <AdvisorView run=p.run host=p.host advice=advice open=open/> }.into_any()
    })
}

#[component]
fn AdvisorView(run: String, host: String, advice: Advice, open: OpenLink) -> impl IntoView {
    let per = Per::of(advice.basis);
    let ctx = Ctx { per, step_ms: advice.step_ms, host: host.clone(), open };
    let findings = if advice.findings.is_empty() {
        view! {
            <p id="advisor-none" class="verdict">
                "No finding: no check found a cost above its threshold on this profile."
            </p>
        }
        .into_any()
    } else {
        let items = advice.findings.iter().enumerate().map(|(i, f)| finding(&ctx, i + 1, f)).collect_view();
        view! {
            <ol id="advisor-findings" class="findings" aria-label="Findings, the largest expected gain first">
                {items}
            </ol>
        }
        .into_any()
    };
    view! {
        <section id="tool-advisor" class="tool advisor" aria-labelledby="tool-advisor-title">
            <ToolTitle tool="advisor" run=run host=host/>
            <p id="advisor-basis" class="note">{basis_note(&advice)}</p>
            {findings}
            {unmeasured(&advice)}
            {clear(&advice)}
        </section>
    }
}

/// What the view's parts share: the unit of the costs, the step they are
/// shares of, and how to open evidence.
struct Ctx {
    per: Per,
    step_ms: f64,
    /// The host on screen (a link to another host says so).
    host: String,
    open: OpenLink,
}

/// What the costs are of: a step, or the whole profiled time where there
/// are no steps.
#[derive(Clone, Copy)]
struct Per {
    /// After a time: "12 ms a step".
    each: &'static str,
    /// After a share: "10% of the step".
    whole: &'static str,
}

impl Per {
    const STEP: Per = Per { each: "a step", whole: "step" };
    const PROFILED: Per = Per { each: "of the profiled time", whole: "profiled time" };

    fn of(basis: Basis) -> Per {
        match basis {
            Basis::Step => Per::STEP,
            Basis::ProfiledTime => Per::PROFILED,
        }
    }
}

fn basis_note(advice: &Advice) -> String {
    let basis = match advice.basis {
        Basis::Step => format!(
            "Costs and gains are per step: the average of {} of {}.",
            fmt::plural(advice.steps, "step", "steps"),
            fmt::ms(advice.step_ms)
        ),
        Basis::ProfiledTime => format!(
            "This profile has no steps: costs and gains are of the whole profiled time ({}).",
            fmt::ms(advice.step_ms)
        ),
    };
    let framework = match advice.framework {
        Framework::Unknown => String::new(),
        known => format!(" Fixes are written for {}.", known.name()),
    };
    let iterations = advice.iterations.as_ref().map_or(String::new(), |n| format!(" {n}"));
    format!("{basis}{iterations}{framework} Ranked by the middle of each expected gain.")
}

fn finding(ctx: &Ctx, rank: usize, f: &Finding) -> impl IntoView {
    let (title_id, labelled_by) = (format!("finding-{rank}-title"), format!("finding-{rank}-title"));
    let gain = format!("Saves {}", gain_text(f.gain_ms_per_step.low, f.gain_ms_per_step.high, ctx.per, ctx.step_ms));
    let cost = format!("{} {}", fmt::ms(f.cost_ms_per_step), ctx.per.each);
    let share = format!("{} of the {}", fmt::fraction_percent(f.cost_share), ctx.per.whole);
    let evidence = (!f.evidence.is_empty()).then(|| evidence_table(ctx, rank, &f.evidence));
    view! {
        <li class="finding" data-finding=f.id.clone() data-rank=rank>
            <article aria-labelledby=labelled_by>
                <h3 id=title_id>
                    <span class="finding-rank">{format!("{rank}.")}</span>
                    " "
                    {f.title.clone()}
                </h3>
                <p class="finding-gain">{gain}</p>
                <dl class="summary stats finding-facts">
                    <div>
                        <dt>"Costs now"</dt>
                        <dd class="finding-cost">{cost}</dd>
                    </div>
                    <div>
                        <dt>"Share"</dt>
                        <dd class="finding-share">{share}</dd>
                    </div>
                    <div>
                        <dt>"Confidence"</dt>
                        <dd class="finding-confidence" data-confidence=confidence_key(f.confidence)>
                            {confidence_label(f.confidence)}
                        </dd>
                    </div>
                </dl>
                <p class="finding-summary">{f.summary.clone()}</p>
                <p class="finding-reasoning">
                    <strong>"How the gain is estimated: "</strong>
                    {f.gain_reasoning.clone()}
                </p>
                {evidence}
                <h4>"Fix"</h4>
                <pre class="finding-fix"><code>{f.fix.clone()}</code></pre>
            </article>
        </li>
    }
}

/// "30–41 ms a step (25–34%)": the range with as many decimals as its
/// larger end needs, one number when both ends read alike.
fn gain_text(low: f64, high: f64, per: Per, step_ms: f64) -> String {
    let ms = range(low, high, decimals(high), "");
    let share = (step_ms > 0.0).then(|| {
        let (low, high) = (100.0 * low / step_ms, 100.0 * high / step_ms);
        format!(" ({})", range(low, high, if high >= 1.0 { 0 } else { 1 }, "%"))
    });
    format!("{ms} ms {}{}", per.each, share.unwrap_or_default())
}

fn decimals(v: f64) -> usize {
    match v.abs() {
        v if v >= 10.0 => 0,
        v if v >= 1.0 => 1,
        v if v >= 0.1 => 2,
        _ => 3,
    }
}

fn range(low: f64, high: f64, places: usize, unit: &str) -> String {
    let (low, high) = (fmt::decimal(low, places), fmt::decimal(high, places));
    if low == high {
        format!("{high}{unit}")
    } else {
        format!("{low}–{high}{unit}")
    }
}

fn confidence_key(c: Confidence) -> &'static str {
    match c {
        Confidence::Low => "low",
        Confidence::Medium => "medium",
        Confidence::High => "high",
    }
}

fn confidence_label(c: Confidence) -> &'static str {
    match c {
        Confidence::Low => "Low",
        Confidence::Medium => "Medium",
        Confidence::High => "High",
    }
}

fn evidence_table(ctx: &Ctx, rank: usize, evidence: &[Evidence]) -> impl IntoView {
    let rows = evidence
        .iter()
        .map(|e| {
            view! {
                <tr>
                    <th scope="row">{e.label.clone()}</th>
                    <td class="num">{e.value.clone()}</td>
                    <td class="evidence-link">{link_cell(ctx, &e.link)}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <table class="data compact evidence" data-finding-rank=rank>
            <caption>"Evidence"</caption>
            <thead>
                <tr>
                    <th scope="col" title="What the number is">
                        "What"
                    </th>
                    <th scope="col" class="num" title="The number as its tool shows it">
                        "Value"
                    </th>
                    <th scope="col" title="The tool that shows it: the link opens it there">
                        "Shown in"
                    </th>
                </tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
    }
}

/// The tool a piece of evidence is in, as a link that opens it there; as
/// text when the page has no such tool.
fn link_cell(ctx: &Ctx, link: &Link) -> AnyView {
    let Some(tool) = tool_names::find(&link.tool) else {
        return link.tool.clone().into_any();
    };
    let to = ToolLink {
        tool: tool.id,
        host: link.host.clone(),
        range: link.t,
        event: link.event.map(|(plane, line, index)| EventAt {
            plane: plane as usize,
            line: line as usize,
            index: index as usize,
        }),
    };
    let mut text = tool.label.to_string();
    if let Some((start, end)) = to.range.filter(|_| tool.id == "trace_viewer") {
        text.push_str(&format!(", {} range", fmt::ms((end - start) as f64 / 1e9)));
    } else if to.event.is_some() && tool.id == "trace_viewer" {
        text.push_str(", at the event");
    }
    if let Some(host) = to.host.as_ref().filter(|h| **h != ctx.host) {
        text.push_str(&format!(" on {host}"));
    }
    let href = (ctx.open.href)(&to);
    let open = ctx.open.open.clone();
    let on_click = move |ev: web_sys::MouseEvent| {
        // A plain click opens it here; a modified one (new tab, window) is the browser's.
        if ev.button() == 0 && !(ev.ctrl_key() || ev.meta_key() || ev.shift_key() || ev.alt_key()) {
            ev.prevent_default();
            open(to.clone());
        }
    };
    view! {
        <a class="evidence-open" href=href data-tool=tool.id on:click=on_click>
            {text}
        </a>
    }
    .into_any()
}

fn unmeasured(advice: &Advice) -> Option<impl IntoView> {
    if advice.unmeasured.is_empty() {
        return None;
    }
    let items = advice
        .unmeasured
        .iter()
        .map(|u| {
            view! {
                <li data-check=u.id.clone()>
                    <strong>{u.title.clone()}</strong>
                    " — "
                    {u.why.clone()}
                </li>
            }
        })
        .collect_view();
    Some(view! {
        <section class="advisor-more" aria-labelledby="advisor-unmeasured-title">
            <h3 id="advisor-unmeasured-title">"Not measured here"</h3>
            <ul id="advisor-unmeasured">{items}</ul>
        </section>
    })
}

fn clear(advice: &Advice) -> Option<impl IntoView> {
    if advice.clear.is_empty() {
        return None;
    }
    let items = advice.clear.iter().map(|id| view! { <li><code>{id.clone()}</code></li> }).collect_view();
    Some(view! {
        <section class="advisor-more" aria-labelledby="advisor-clear-title">
            <h3 id="advisor-clear-title">"Checked, nothing found"</h3>
            <ul id="advisor-clear" class="clear-checks">{items}</ul>
        </section>
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gains_read_as_ranges_with_their_share() {
        assert_eq!(gain_text(30.2, 41.4, Per::STEP, 120.0), "30–41 ms a step (25–34%)");
        assert_eq!(gain_text(1.26, 2.6, Per::STEP, 1000.0), "1.3–2.6 ms a step (0.1–0.3%)");
        assert_eq!(gain_text(5.0, 5.0, Per::STEP, 0.0), "5.0 ms a step");
        let profiled = gain_text(0.04, 0.08, Per::PROFILED, 10.0);
        assert_eq!(profiled, "0.040–0.080 ms of the profiled time (0.4–0.8%)");
    }
}
