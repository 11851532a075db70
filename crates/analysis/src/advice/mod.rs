//! The Advisor's findings: what costs a profile the most, what a fix would
//! gain, the evidence and the fix, ranked by what they are worth.
//!
//! Each detector reads the passes the tools read (the step breakdown, op
//! metrics, kernels, the Kineto index) and states its figures in the units
//! the tools show, so a finding can be checked against the tool its
//! evidence names. A detector that cannot measure its cost on a profile
//! says so ([`Unmeasured`]) and is not ranked. Thresholds and gain models
//! are listed, with their sources, in `docs/advisor.md`.

pub mod compare;
pub mod dispatch;
pub mod fixes;
pub mod kineto;
pub mod markdown;
pub mod ranks;
pub mod xspace;

use serde::{Deserialize, Serialize};

/// The framework a finding's words and fix are written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Framework {
    TensorFlow,
    Jax,
    PyTorch,
    #[default]
    Unknown,
}

impl Framework {
    pub fn name(self) -> &'static str {
        match self {
            Framework::TensorFlow => "TensorFlow",
            Framework::Jax => "JAX",
            Framework::PyTorch => "PyTorch",
            Framework::Unknown => "the framework",
        }
    }
}

/// How sure a detector is that its cost is real and its fix applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Confidence {
    Low,
    Medium,
    High,
}

/// A range of milliseconds per step.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
pub struct Range {
    pub low: f64,
    pub high: f64,
}

/// Where in the app a piece of evidence is: a tool, and for the trace
/// viewer a time range (ps, the trace's own clock) or an event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Link {
    /// The registry id of the tool that shows it.
    pub tool: String,
    /// The host (or rank) it is on, when the advice covers several.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// The trace viewer's time range, ps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t: Option<(i64, i64)>,
    /// The trace viewer's event: plane, line, index in the profile model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<(u32, u32, u32)>,
}

impl Link {
    pub fn tool(tool: &str) -> Link {
        Link { tool: tool.into(), ..Link::default() }
    }

    pub fn trace(start_ps: i64, end_ps: i64) -> Link {
        Link { t: Some((start_ps, end_ps)), ..Link::tool("trace_viewer") }
    }

    /// The app's URL hash fragment for this link, without run and host
    /// (`tool=trace_viewer&t=1-2`), as the CLI prints it.
    pub fn fragment(&self) -> String {
        let mut out = format!("tool={}", self.tool);
        if let Some((start, end)) = self.t {
            out.push_str(&format!("&t={start}-{end}"));
        }
        if let Some((plane, line, index)) = self.event {
            out.push_str(&format!("&event={plane}.{line}.{index}"));
        }
        out
    }
}

/// One number behind a finding, with the tool that shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    /// What the number is, in words ("Input time per step (average)").
    pub label: String,
    /// The number as the tool shows it, with its unit ("41.2 ms").
    pub value: String,
    pub link: Link,
}

/// One finding: a cost, the gain its fix would bring, the evidence and the fix.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// Stable id (`input_bound`), for `--fail-on` and comparisons.
    pub id: String,
    /// In the framework's words.
    pub title: String,
    /// What the detector saw, in one or two sentences.
    pub summary: String,
    /// What the problem costs now, ms per step (of the profiled time per
    /// step where there are no steps).
    pub cost_ms_per_step: f64,
    /// The cost as a share of the step time, 0..=1.
    pub cost_share: f64,
    /// The estimated gain of the fix, ms per step.
    pub gain_ms_per_step: Range,
    /// How the gain range was reached.
    pub gain_reasoning: String,
    pub confidence: Confidence,
    pub evidence: Vec<Evidence>,
    /// Concrete code or configuration for the framework.
    pub fix: String,
}

/// A detector that ran but could not measure its cost on this profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Unmeasured {
    pub id: String,
    pub title: String,
    pub why: String,
}

/// What the costs are shares of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    /// Per training or inference step, averaged over the profile's steps.
    Step,
    /// No steps: the whole profiled time counts as one step.
    ProfiledTime,
}

/// The Advisor's answer for one host, rank, or a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Advice {
    pub framework: Framework,
    pub basis: Basis,
    /// The step time the shares are of (average), ms.
    pub step_ms: f64,
    /// Steps the averages are over (1 for profiled time).
    pub steps: usize,
    /// Ranked: the largest expected gain first.
    pub findings: Vec<Finding>,
    /// Detectors that could not measure their cost here, and why.
    pub unmeasured: Vec<Unmeasured>,
    /// Detectors that ran and found nothing above their thresholds.
    pub clear: Vec<String>,
    /// A PyTorch trace without `ProfilerStep#N`: which iterations the steps
    /// are (the instances of an annotation; `advice::kineto::iteration_roles`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iterations: Option<String>,
}

impl Advice {
    /// Ranks the findings: the largest middle of the gain range first, then
    /// the larger cost, then the id, so the order is stable.
    pub fn new(framework: Framework, basis: Basis, step_ms: f64, steps: usize, found: Found) -> Advice {
        let Found { mut findings, unmeasured, clear } = found;
        findings.sort_by(|a, b| {
            let mid = |f: &Finding| f.gain_ms_per_step.low + f.gain_ms_per_step.high;
            mid(b).total_cmp(&mid(a)).then(b.cost_ms_per_step.total_cmp(&a.cost_ms_per_step)).then(a.id.cmp(&b.id))
        });
        Advice { framework, basis, step_ms, steps, findings, unmeasured, clear, iterations: None }
    }

    /// The finding with this id.
    pub fn finding(&self, id: &str) -> Option<&Finding> {
        self.findings.iter().find(|f| f.id == id)
    }
}

/// What the detectors gave, before ranking.
#[derive(Debug, Default)]
pub struct Found {
    pub findings: Vec<Finding>,
    pub unmeasured: Vec<Unmeasured>,
    pub clear: Vec<String>,
}

impl Found {
    /// A detector's answer: a finding, nothing, or why it could not measure.
    pub fn add(&mut self, id: &str, outcome: Outcome) {
        match outcome {
            Outcome::Found(f) => self.findings.push(*f),
            Outcome::Clear => self.clear.push(id.into()),
            Outcome::Unmeasured { title, why } => self.unmeasured.push(Unmeasured { id: id.into(), title, why }),
        }
    }
}

/// One detector's answer.
pub enum Outcome {
    Found(Box<Finding>),
    Clear,
    Unmeasured { title: String, why: String },
}

/// A detector's finding, built field by field (ids, words and evidence
/// differ; the arithmetic of cost, share and gain is shared).
pub struct Draft<'a> {
    pub id: &'a str,
    pub title: String,
    pub summary: String,
    pub cost_ms: f64,
    pub step_ms: f64,
    /// Fractions of the cost a fix removes at least and at most.
    pub gain_fraction: (f64, f64),
    pub reasoning: String,
    pub confidence: Confidence,
    pub evidence: Vec<Evidence>,
    pub fix: String,
}

impl Draft<'_> {
    /// Adds a piece of evidence: what the number is, the number, where it shows.
    pub fn cite(&mut self, label: impl Into<String>, value: String, link: Link) {
        self.evidence.push(Evidence { label: label.into(), value, link });
    }

    pub fn finish(self) -> Outcome {
        let share = share(self.cost_ms, self.step_ms).clamp(0.0, 1.0);
        Outcome::Found(Box::new(Finding {
            id: self.id.into(),
            title: self.title,
            summary: self.summary,
            cost_ms_per_step: self.cost_ms,
            cost_share: share,
            gain_ms_per_step: Range {
                low: self.cost_ms * self.gain_fraction.0,
                high: self.cost_ms * self.gain_fraction.1,
            },
            gain_reasoning: self.reasoning,
            confidence: self.confidence,
            evidence: self.evidence,
            fix: self.fix,
        }))
    }
}

/// `part` as a share of `whole` (0 when there is no whole), not clamped:
/// summaries say when a cost passes the step.
pub fn share(part: f64, whole: f64) -> f64 {
    if whole > 0.0 {
        part / whole
    } else {
        0.0
    }
}

/// `v` ms with a sensible number of digits.
pub fn ms(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0} ms")
    } else if v >= 1.0 {
        format!("{v:.1} ms")
    } else {
        format!("{v:.3} ms")
    }
}

/// `share` (0..=1) as a percentage.
pub fn pct(share: f64) -> String {
    format!("{:.1}%", share * 100.0)
}

/// Every detector's id and title, in no particular order: the ids
/// `--fail-on` accepts and `docs/advisor.md` documents.
pub const DETECTORS: &[(&str, &str)] = &[
    ("input_bound", "Steps wait for input (tf.data, DataLoader)"),
    ("host_between_steps", "Host work between steps"),
    ("kernel_launch_bound", "Kernel-launch bound"),
    ("launch_delay_outliers", "Kernels that start long after their launch"),
    ("small_kernels", "Tiny kernels"),
    ("device_idle", "Device idle during the step"),
    ("sync_in_step", "Host-device synchronisation in the step"),
    ("host_to_device", "Host-device copies on the critical path"),
    ("pageable_memcpy", "Copies from pageable memory"),
    ("fp32_compute", "32-bit compute where 16-bit would do"),
    ("tensor_cores_unused", "Tensor cores not used"),
    ("layout_transposes", "NCHW/NHWC layout transposes"),
    ("eager_ops", "Ops run eagerly"),
    ("xla_copies", "XLA layout-change copies"),
    ("unfused_elementwise", "Unfused elementwise ops"),
    ("compile_in_steps", "Recompilation inside steps"),
    ("collective_wait", "Waiting for collectives"),
    ("stragglers", "Straggler hosts or ranks"),
    ("memory_near_limit", "Memory near the device's limit"),
    ("step_outliers", "Slow outlier steps"),
];

/// TensorFlow when the host ran framework ops; JAX when it ran XLA programs
/// only (JAX records no framework ops on the host: its one host "op" is the
/// `XlaModule` that runs a program; TensorFlow ops always have a type).
pub fn framework_of(host_ops: &crate::passes::op_metrics::OpMetricsDb, has_xla: bool) -> Framework {
    if host_ops.ops.iter().any(|op| !op.is_idle() && !op.category.is_empty() && op.category != "XlaModule") {
        Framework::TensorFlow
    } else if has_xla {
        Framework::Jax
    } else {
        Framework::Unknown
    }
}

/// The advice for one XSpace host.
pub fn of_xspace(host: &xspace::Host<'_>) -> Advice {
    let (basis, step_ms, steps, found) = xspace::detect(host);
    Advice::new(host.framework, basis, step_ms, steps, found)
}

/// The advice for one PyTorch rank (`profile`: the trace the index was
/// built from, for links that select an event).
pub fn of_kineto(index: &crate::passes::kineto::KinetoIndex, profile: Option<&proflens_model::Profile>) -> Advice {
    let (basis, step_ms, steps, found, iterations) = kineto::detect(index, profile);
    Advice { iterations, ..Advice::new(Framework::PyTorch, basis, step_ms, steps, found) }
}

/// `--format json`: the advice with each evidence's `tool` and its `link`
/// as the app's URL fragment (`#tool=trace_viewer&t=…`) beside the
/// structured link (`at`).
pub fn json(advice: &Advice) -> serde_json::Result<serde_json::Value> {
    let mut value = serde_json::to_value(advice)?;
    let findings = value.get_mut("findings").and_then(|f| f.as_array_mut());
    for (finding, model) in findings.into_iter().flatten().zip(&advice.findings) {
        let evidence = finding.get_mut("evidence").and_then(|e| e.as_array_mut());
        for (item, e) in evidence.into_iter().flatten().zip(&model.evidence) {
            if let Some(item) = item.as_object_mut() {
                let at = item.remove("link").unwrap_or_default();
                item.insert("tool".into(), e.link.tool.clone().into());
                item.insert("link".into(), format!("#{}", e.link.fragment()).into());
                item.insert("at".into(), at);
            }
        }
    }
    Ok(value)
}
