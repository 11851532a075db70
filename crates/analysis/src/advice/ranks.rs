//! What the detectors say across steps and across hosts or ranks: slow
//! outlier steps, a run's hosts merged into one list, and stragglers.

use super::fixes::fix;
use super::{ms, pct, Advice, Basis, Confidence, Draft, Evidence, Finding, Found, Framework, Link, Outcome, Range};
use crate::passes::steps::StepInfo;

/// A step's start and duration, ps, from whichever step table.
pub trait Step {
    fn span(&self) -> (i64, i64);
}

impl Step for StepInfo {
    fn span(&self) -> (i64, i64) {
        (self.begin_ps, self.duration_ps)
    }
}

impl Step for (i64, i64) {
    fn span(&self) -> (i64, i64) {
        *self
    }
}

/// A step slower than this many times the median is an outlier.
pub const OUTLIER_FACTOR: f64 = 1.5;
/// The outliers' time over the median, per step, that makes a finding.
pub const OUTLIER_MIN_SHARE: f64 = 0.03;

pub fn median(mut values: Vec<f64>) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    if values.len() % 2 == 1 {
        values[mid]
    } else {
        (values[mid - 1] + values[mid]) / 2.0
    }
}

/// Steps slower than [`OUTLIER_FACTOR`] times the median:
/// their time above the median, spread over all steps, is the cost.
pub fn step_outliers<S: Step>(steps: &[S], step_ms: f64, framework: Framework, host: Option<&str>) -> Outcome {
    if steps.len() < 4 {
        return Outcome::Unmeasured {
            title: "Slow outlier steps".into(),
            why: format!("{} steps are too few to tell outliers from the median (4 or more)", steps.len()),
        };
    }
    let times: Vec<f64> = steps.iter().map(|s| s.span().1 as f64 / 1e9).collect();
    let med = median(times.clone());
    let slow: Vec<usize> = (0..steps.len()).filter(|&i| times[i] > OUTLIER_FACTOR * med).collect();
    let excess: f64 = slow.iter().map(|&i| times[i] - med).sum();
    let cost = excess / steps.len() as f64;
    if slow.is_empty() || step_ms <= 0.0 || cost / step_ms < OUTLIER_MIN_SHARE {
        return Outcome::Clear;
    }
    let floor: f64 = slow.iter().map(|&i| times[i] - OUTLIER_FACTOR * med).sum::<f64>();
    let worst = slow.iter().copied().max_by(|&a, &b| times[a].total_cmp(&times[b])).expect("slow is not empty");
    let (begin, duration) = steps[worst].span();
    let mut d = Draft {
        id: "step_outliers",
        title: "Some steps are much slower than the median".into(),
        summary: format!(
            "{} of {} steps took more than {}× the median step ({}); the slowest took {}.",
            slow.len(),
            steps.len(),
            OUTLIER_FACTOR,
            ms(med),
            ms(times[worst])
        ),
        cost_ms: cost,
        step_ms,
        gain_fraction: (0.0, 1.0),
        reasoning: String::new(),
        confidence: Confidence::Medium,
        evidence: vec![
            Evidence { label: "Median step time".into(), value: ms(med), link: Link::tool("overview_page") },
            Evidence {
                label: "The slowest step".into(),
                value: ms(times[worst]),
                link: Link { host: host.map(str::to_owned), ..Link::trace(begin, begin.saturating_add(duration)) },
            },
        ],
        fix: fix("step_outliers", framework),
    };
    // The range: the outliers brought down to 1.5× the median (low) or to the median (high).
    let low = floor / steps.len() as f64;
    d.gain_fraction = (low / cost, 1.0);
    d.reasoning = format!(
        "Removing the cause brings the slow steps back to the median: {} a step on average; at least {} if they only come down to {}× the median.",
        ms(cost),
        ms(low),
        OUTLIER_FACTOR
    );
    d.finish()
}

/// The hosts' (or ranks') advice as one: a finding's cost and gain are the
/// mean over the hosts (a host without it counts 0), its evidence the
/// host where it costs the most, and step times that differ across hosts
/// give the straggler finding.
pub fn merge(hosts: &[(String, Advice)]) -> Advice {
    let Some((_, first)) = hosts.first() else {
        return Advice::new(Framework::Unknown, Basis::ProfiledTime, 0.0, 0, Found::default());
    };
    if hosts.len() == 1 {
        return first.clone();
    }
    let n = hosts.len() as f64;
    // A PyTorch job's files are its ranks.
    let noun = if first.framework == Framework::PyTorch { "ranks" } else { "hosts" };
    let step_ms = hosts.iter().map(|(_, a)| a.step_ms).sum::<f64>() / n;
    let basis = if hosts.iter().all(|(_, a)| a.basis == Basis::Step) { Basis::Step } else { Basis::ProfiledTime };
    let mut found = Found::default();
    let mut ids: Vec<&str> = hosts.iter().flat_map(|(_, a)| a.findings.iter().map(|f| f.id.as_str())).collect();
    ids.sort_unstable();
    ids.dedup();
    for id in ids {
        let with: Vec<(&str, &Finding)> =
            hosts.iter().filter_map(|(h, a)| a.finding(id).map(|f| (h.as_str(), f))).collect();
        let (worst_host, worst) = *with
            .iter()
            .max_by(|a, b| a.1.cost_ms_per_step.total_cmp(&b.1.cost_ms_per_step))
            .expect("an id comes from a finding");
        let mean = |get: &dyn Fn(&Finding) -> f64| with.iter().map(|(_, f)| get(f)).sum::<f64>() / n;
        let cost = mean(&|f| f.cost_ms_per_step);
        let mut finding = worst.clone();
        finding.cost_ms_per_step = cost;
        finding.cost_share = super::share(cost, step_ms).clamp(0.0, 1.0);
        finding.gain_ms_per_step =
            Range { low: mean(&|f| f.gain_ms_per_step.low), high: mean(&|f| f.gain_ms_per_step.high) };
        finding.summary = format!(
            "On {} of {} {noun} (mean over all {noun}: {} a step). Where it costs most, {worst_host}: {}",
            with.len(),
            hosts.len(),
            ms(cost),
            worst.summary
        );
        for e in &mut finding.evidence {
            e.link.host = Some(worst_host.to_string());
        }
        found.findings.push(finding);
    }
    for (_, a) in hosts {
        for u in &a.unmeasured {
            if !found.unmeasured.iter().any(|x| x.id == u.id) && !found.findings.iter().any(|f| f.id == u.id) {
                found.unmeasured.push(u.clone());
            }
        }
    }
    for id in &first.clear {
        if !found.findings.iter().any(|f| &f.id == id) && !found.unmeasured.iter().any(|u| &u.id == id) {
            found.clear.push(id.clone());
        }
    }
    found.add("stragglers", stragglers(hosts, step_ms, first.framework, noun));
    let steps = hosts.iter().map(|(_, a)| a.steps).min().unwrap_or(1);
    Advice::new(first.framework, basis, step_ms, steps, found)
}

/// Minimum gap between the slowest host's step time and the median host's,
/// as a share of the median.
pub const STRAGGLER_MIN_SHARE: f64 = 0.05;

fn stragglers(hosts: &[(String, Advice)], step_ms: f64, framework: Framework, noun: &str) -> Outcome {
    let med = median(hosts.iter().map(|(_, a)| a.step_ms).collect());
    let (slowest, worst) = hosts.iter().max_by(|a, b| a.1.step_ms.total_cmp(&b.1.step_ms)).expect("several hosts");
    let cost = worst.step_ms - med;
    if med <= 0.0 || cost / med < STRAGGLER_MIN_SHARE {
        return Outcome::Clear;
    }
    let one = noun.trim_end_matches('s');
    let title = format!("A straggler {one}: the others wait for it");
    Draft {
        id: "stragglers",
        title,
        summary: format!(
            "{slowest} takes {} a step against the median {one}'s {} ({} more).",
            ms(worst.step_ms),
            ms(med),
            pct(cost / med)
        ),
        cost_ms: cost,
        step_ms,
        gain_fraction: (0.5, 1.0),
        reasoning: format!(
            "In synchronous training every {one} waits for the slowest at each collective: bringing it to the median saves {} a step; at least half if only part of its extra time is its own.",
            ms(cost)
        ),
        confidence: Confidence::Medium,
        evidence: vec![Evidence {
            label: format!("Step time of {slowest}"),
            value: ms(worst.step_ms),
            link: Link { host: Some(slowest.clone()), ..Link::tool("overview_page") },
        }],
        fix: fix("stragglers", framework),
    }
    .finish()
}
