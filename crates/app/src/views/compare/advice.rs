//! The Advisor on both sides ("why did it get slower"): one row per
//! finding, its cost per step on each side, the change, and the change's
//! share of the step time's change. What grew or is new comes first, as the
//! analysis orders it; the table downloads as the comparison's CSV.

use leptos::prelude::*;
use proflens_analysis::compare::{AdviceDiff, ChangeStatus, Comparison, FindingChange};

use super::{change_class, ExportCsv};
use crate::widgets::fmt;

#[component]
pub fn AdviceView(comparison: Comparison) -> impl IntoView {
    let Some(advice) = comparison.advice.clone() else { return ().into_any() };
    if advice.rows.is_empty() {
        return view! {
            <p id="no-findings" class="empty">
                "Neither side has a finding above its detector's threshold."
            </p>
        }
        .into_any();
    }
    let rows = advice.rows.iter().map(row).collect_view();
    view! {
        <table id="compare-advice" class="data compact">
            <caption>{caption(&advice)}</caption>
            <thead>
                <tr>
                    <th scope="col" title="The Advisor's finding">"Finding"</th>
                    <th scope="col" title="new: only in the candidate; gone: only in the baseline (below its threshold there)">
                        "Status"
                    </th>
                    <th scope="col" class="num" title="What the finding costs per step in the baseline">"Baseline"</th>
                    <th scope="col" class="num" title="What the finding costs per step in the candidate">"Candidate"</th>
                    <th scope="col" class="num" title="Candidate minus baseline, a missing side counting 0">"Change"</th>
                    <th scope="col" class="num" title="The change over the step time's change">"Share of step change"</th>
                </tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
        <ExportCsv label="Export table (CSV)" file_name="compare_advisor.csv".to_string() comparison=comparison.clone()/>
    }
    .into_any()
}

/// The Advisor's own step times, which the shares are of.
fn caption(a: &AdviceDiff) -> String {
    format!(
        "Findings by change, ms per step (the Advisor's step time {} → {}, {} ms)",
        fmt::ms(a.base_step_ms),
        fmt::ms(a.candidate_step_ms),
        fmt::signed(a.step_change_ms, 2)
    )
}

fn row(r: &FindingChange) -> impl IntoView {
    let cost = |v: Option<f64>| v.map_or("—".to_string(), fmt::ms);
    let share = r.share_of_step_change.map_or("—".to_string(), |s| format!("{}%", fmt::signed(100.0 * s, 1)));
    view! {
        <tr class=status_class(r.status) data-id=r.id.clone()>
            <th scope="row" title=r.note.clone().unwrap_or_default()>{r.title.clone()}</th>
            <td class="status">{status_text(r.status)}</td>
            <td class="num base" data-value=r.base_ms.map(|v| v.to_string())>{cost(r.base_ms)}</td>
            <td class="num candidate" data-value=r.candidate_ms.map(|v| v.to_string())>{cost(r.candidate_ms)}</td>
            <td class=format!("num delta {}", change_class(r.change_ms)) data-value=r.change_ms.to_string()>
                {format!("{} ms", fmt::signed(r.change_ms, 2))}
            </td>
            <td class="num share">{share}</td>
        </tr>
    }
}

/// `status-new`…: the classes the keyed tables use, so the colours match.
fn status_class(status: ChangeStatus) -> &'static str {
    match status {
        ChangeStatus::New => "status-new",
        ChangeStatus::Gone => "status-gone",
        ChangeStatus::Grew | ChangeStatus::Shrank => "status-changed",
        ChangeStatus::Same => "status-same",
    }
}

/// How a finding changed, with the keyed tables' marks.
fn status_text(status: ChangeStatus) -> &'static str {
    match status {
        ChangeStatus::New => "+ new",
        ChangeStatus::Gone => "− gone",
        ChangeStatus::Grew => "grew",
        ChangeStatus::Shrank => "shrank",
        ChangeStatus::Same => "same",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_read_like_the_keyed_tables() {
        assert_eq!(
            status_class(ChangeStatus::Grew),
            super::super::table::status_class(proflens_analysis::compare::Status::Changed)
        );
        assert_eq!(
            status_text(ChangeStatus::Gone),
            super::super::table::status_text(proflens_analysis::compare::Status::Gone)
        );
        let a = AdviceDiff { base_step_ms: 10.0, candidate_step_ms: 12.5, step_change_ms: 2.5, rows: vec![] };
        assert!(caption(&a).contains("+2.50 ms"), "{}", caption(&a));
    }
}
