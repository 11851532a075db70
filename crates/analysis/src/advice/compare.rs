//! "Why did it get slower": the Advisor on a baseline and a candidate,
//! finding by finding. Each finding's cost (ms per step) on both sides, its
//! change, and the change as a share of the step time's change, so that a
//! step that grew by 10 ms reads as "the input pipeline: +7 ms, 70 %".
//!
//! A finding exists only above its detector's threshold: on a side without
//! it the cost counts 0 (it was below the threshold, or the detector could
//! not measure it there, which the row notes).

use super::{Advice, Finding};
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;
use std::collections::BTreeSet;

/// A change of at most this much (ms) is float rounding, not a change: one
/// profile analysed twice gives equal costs up to the order of additions.
const SAME_MS: f64 = 1e-6;

/// The Advisor's findings on both sides.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AdviceDiff {
    /// Each side's step time as the Advisor measured it (the costs' basis), ms.
    pub base_step_ms: f64,
    pub candidate_step_ms: f64,
    /// candidate − base, ms.
    pub step_change_ms: f64,
    /// New and grown findings first, largest change first; then shrunk and
    /// gone, largest fall first; then the unchanged.
    pub rows: Vec<FindingChange>,
}

/// One finding id on both sides.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FindingChange {
    pub id: String,
    /// The candidate's title (the baseline's when it is gone).
    pub title: String,
    pub status: ChangeStatus,
    /// The cost on each side, ms per step; `None` where the side has no such finding.
    pub base_ms: Option<f64>,
    pub candidate_ms: Option<f64>,
    /// candidate − base, ms per step, a missing side counting 0.
    pub change_ms: f64,
    /// `change_ms` / the step time's change (a fraction, negative when they
    /// move apart); `None` when the step time did not change.
    pub share_of_step_change: Option<f64>,
    /// Why a side has no such finding, when its detector could not measure there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// How a finding changed from the baseline to the candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeStatus {
    /// Only in the candidate.
    New,
    Grew,
    Shrank,
    /// Only in the baseline.
    Gone,
    Same,
}

impl ChangeStatus {
    pub fn name(self) -> &'static str {
        match self {
            ChangeStatus::New => "new",
            ChangeStatus::Grew => "grew",
            ChangeStatus::Shrank => "shrank",
            ChangeStatus::Gone => "gone",
            ChangeStatus::Same => "same",
        }
    }

    /// The rows' groups: what made it slower, what made it faster, the rest.
    fn group(self) -> u8 {
        match self {
            ChangeStatus::New | ChangeStatus::Grew => 0,
            ChangeStatus::Shrank | ChangeStatus::Gone => 1,
            ChangeStatus::Same => 2,
        }
    }
}

/// One row per finding id on either side.
pub fn diff(base: &Advice, candidate: &Advice) -> AdviceDiff {
    let step_change_ms = candidate.step_ms - base.step_ms;
    let ids: BTreeSet<&str> = base.findings.iter().chain(&candidate.findings).map(|f| f.id.as_str()).collect();
    let mut rows: Vec<FindingChange> = ids
        .into_iter()
        .map(|id| {
            let (b, c) = (base.finding(id), candidate.finding(id));
            let cost = |f: Option<&Finding>| f.map(|f| f.cost_ms_per_step);
            let change_ms = cost(c).unwrap_or(0.0) - cost(b).unwrap_or(0.0);
            let status = match (b, c) {
                (None, _) => ChangeStatus::New,
                (_, None) => ChangeStatus::Gone,
                _ if change_ms.abs() <= SAME_MS => ChangeStatus::Same,
                _ if change_ms > 0.0 => ChangeStatus::Grew,
                _ => ChangeStatus::Shrank,
            };
            let note = match (b, c) {
                (None, _) => unmeasured(base, id, "baseline"),
                (_, None) => unmeasured(candidate, id, "candidate"),
                _ => None,
            };
            FindingChange {
                id: id.to_string(),
                title: c.or(b).map(|f| f.title.clone()).unwrap_or_default(),
                status,
                base_ms: cost(b),
                candidate_ms: cost(c),
                change_ms,
                share_of_step_change: (step_change_ms.abs() > SAME_MS).then(|| change_ms / step_change_ms),
                note,
            }
        })
        .collect();
    rows.sort_by(|a, b| {
        a.status.group().cmp(&b.status.group()).then_with(|| {
            let by_change = match a.status.group() {
                0 => b.change_ms.total_cmp(&a.change_ms),
                1 => a.change_ms.total_cmp(&b.change_ms),
                _ => Ordering::Equal,
            };
            by_change.then_with(|| a.id.cmp(&b.id))
        })
    });
    AdviceDiff { base_step_ms: base.step_ms, candidate_step_ms: candidate.step_ms, step_change_ms, rows }
}

/// "Not measured on the candidate: why", when the side's detector could not measure.
fn unmeasured(side: &Advice, id: &str, role: &str) -> Option<String> {
    side.unmeasured.iter().find(|u| u.id == id).map(|u| format!("Not measured on the {role}: {}", u.why))
}

#[cfg(test)]
mod tests {
    use super::super::{Basis, Confidence, Found, Framework, Range, Unmeasured};
    use super::*;

    fn finding(id: &str, cost: f64) -> Finding {
        Finding {
            id: id.into(),
            title: format!("{id} title"),
            summary: String::new(),
            cost_ms_per_step: cost,
            cost_share: 0.0,
            gain_ms_per_step: Range { low: cost / 2.0, high: cost },
            gain_reasoning: String::new(),
            confidence: Confidence::High,
            evidence: vec![],
            fix: String::new(),
        }
    }

    fn advice(step_ms: f64, findings: &[(&str, f64)], unmeasured: &[&str]) -> Advice {
        let found = Found {
            findings: findings.iter().map(|&(id, cost)| finding(id, cost)).collect(),
            unmeasured: unmeasured
                .iter()
                .map(|&id| Unmeasured { id: id.into(), title: id.into(), why: "no GPU".into() })
                .collect(),
            clear: vec![],
        };
        Advice::new(Framework::Jax, Basis::Step, step_ms, 10, found)
    }

    fn row<'a>(d: &'a AdviceDiff, id: &str) -> &'a FindingChange {
        d.rows.iter().find(|r| r.id == id).unwrap()
    }

    #[test]
    fn each_id_gets_its_costs_change_and_share_of_the_step_change() {
        let base = advice(100.0, &[("input", 10.0), ("launch", 8.0), ("idle", 5.0), ("same", 3.0)], &[]);
        let candidate = advice(120.0, &[("input", 25.0), ("launch", 6.0), ("host", 4.0), ("same", 3.0)], &[]);
        let d = diff(&base, &candidate);
        assert_eq!((d.base_step_ms, d.candidate_step_ms, d.step_change_ms), (100.0, 120.0, 20.0));
        assert_eq!(d.rows.len(), 5);
        let input = row(&d, "input");
        assert_eq!((input.status, input.base_ms, input.candidate_ms), (ChangeStatus::Grew, Some(10.0), Some(25.0)));
        assert_eq!(input.change_ms, 15.0);
        assert_eq!(input.share_of_step_change, Some(15.0 / 20.0));
        let host = row(&d, "host");
        assert_eq!((host.status, host.base_ms, host.change_ms), (ChangeStatus::New, None, 4.0));
        assert_eq!(host.share_of_step_change, Some(0.2));
        let idle = row(&d, "idle");
        assert_eq!((idle.status, idle.candidate_ms, idle.change_ms), (ChangeStatus::Gone, None, -5.0));
        assert_eq!(idle.share_of_step_change, Some(-0.25));
        assert_eq!((row(&d, "launch").status, row(&d, "launch").change_ms), (ChangeStatus::Shrank, -2.0));
        assert_eq!((row(&d, "same").status, row(&d, "same").change_ms), (ChangeStatus::Same, 0.0));
        assert_eq!(row(&d, "host").title, "host title");
        assert_eq!(row(&d, "idle").title, "idle title");
    }

    #[test]
    fn rows_put_what_made_it_slower_first() {
        let base = advice(100.0, &[("a", 1.0), ("b", 9.0), ("c", 4.0), ("s", 2.0)], &[]);
        let candidate = advice(110.0, &[("a", 3.0), ("b", 2.0), ("new", 6.0), ("s", 2.0)], &[]);
        let d = diff(&base, &candidate);
        let order: Vec<&str> = d.rows.iter().map(|r| r.id.as_str()).collect();
        // new +6, a +2; then b −7, c −4 (gone); then s.
        assert_eq!(order, ["new", "a", "b", "c", "s"]);
        let changes: Vec<f64> = d.rows.iter().map(|r| r.change_ms).collect();
        assert!(changes[0] >= changes[1] && changes[1] > 0.0 && changes[2] <= changes[3] && changes[3] < 0.0);
    }

    #[test]
    fn an_unchanged_step_time_has_no_shares() {
        let base = advice(50.0, &[("a", 5.0)], &[]);
        let candidate = advice(50.0, &[("a", 7.0)], &[]);
        let d = diff(&base, &candidate);
        assert_eq!(d.step_change_ms, 0.0);
        assert_eq!(d.rows[0].share_of_step_change, None);
        assert_eq!(d.rows[0].change_ms, 2.0);
        // The same advice on both sides: every row the same.
        let same = diff(&base, &base);
        assert!(same.rows.iter().all(|r| r.status == ChangeStatus::Same && r.change_ms == 0.0));
    }

    #[test]
    fn a_detector_that_could_not_measure_on_a_side_is_noted() {
        let base = advice(10.0, &[("launch", 2.0)], &[]);
        let candidate = advice(12.0, &[], &["launch"]);
        let d = diff(&base, &candidate);
        assert_eq!(d.rows[0].status, ChangeStatus::Gone);
        assert_eq!(d.rows[0].note.as_deref(), Some("Not measured on the candidate: no GPU"));
        assert_eq!(diff(&base, &base).rows[0].note, None);
    }
}
