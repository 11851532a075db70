//! What every comparison starts with: what each side is, its average step
//! time and breakdown (the overview's numbers), what differs between the
//! sides, and the verdict.
//!
//! The step breakdown is the overview's: XProf's categories for XSpace
//! hosts (averages over the steps), torch-tb-profiler's roles for PyTorch
//! traces (averages over `ProfilerStep#N` windows). All ranks of a PyTorch
//! job: the mean over the ranks of each rank's averages.

use super::model::{Comparison, Delta, Metric, SideFacts, PYTORCH_TRACE};
use super::Side;
use crate::common::schema::GPU_PLANE_PREFIX;
use crate::context::{HostContext, Output, Request, ToolError};
use crate::tools::overview::pytorch::{MultiRankOverview, StepBreakdown};
use crate::tools::overview::OverviewPage;

/// One side's steps: the average step time and its parts, ms.
struct Steps {
    facts: SideFacts,
    step_ms: Option<f64>,
    parts: Vec<(&'static str, f64)>,
}

/// The comparison's common part; the overview's own comparison is this.
pub fn compare(tool: &str, base: &Side, candidate: &Side, request: &Request) -> Result<Comparison, ToolError> {
    let mut notes = Vec::new();
    let mut side = |side: &Side, role: &str| -> Result<Steps, ToolError> {
        match side.run("overview_page", role, request).and_then(|out| of(side, &out)) {
            Ok(steps) => {
                if steps.step_ms.is_none() {
                    notes.push(format!("The {role} ({}) has no steps, so it has no step time.", side.label));
                }
                Ok(steps)
            }
            // The overview is what is compared: its failure is the answer.
            Err(e) if tool == "overview_page" => Err(e),
            Err(e) => {
                notes.push(format!("No step time for the {role}: {e}"));
                Ok(Steps {
                    facts: SideFacts { label: side.label.clone(), ..SideFacts::default() },
                    step_ms: None,
                    parts: vec![],
                })
            }
        }
    };
    let (b, c) = (side(base, "baseline")?, side(candidate, "candidate")?);
    let step_time_ms = b.step_ms.zip(c.step_ms).map(|(b, c)| Delta::new(b, c));
    // Every verdict names the parts that moved; only the overview lists them.
    let breakdown = metrics(&b, &c);
    let verdict = step_time_ms.map(|step| verdict(&step, &breakdown)).unwrap_or_default();
    let metrics = if tool == "overview_page" { breakdown } else { Vec::new() };
    Ok(Comparison {
        tool: tool.to_string(),
        differences: differences(&b.facts, &c.facts),
        base: b.facts,
        candidate: c.facts,
        notes,
        step_time_ms,
        verdict,
        metrics,
        table: None,
        tree: None,
        trace_diff: None,
        advice: None,
    })
}

/// A side's steps from its overview (XSpace or legacy page, or PyTorch ranks).
fn of(side: &Side, output: &Output) -> Result<Steps, ToolError> {
    let mut facts = SideFacts { label: side.label.clone(), hosts: side.hosts.len(), ..SideFacts::default() };
    if let Some(page) = output.model_as::<OverviewPage>() {
        let has_events = side.hosts.iter().any(|h| h.has_events());
        facts.kind = if has_events { "XSpace" } else { "TensorBoard tool files" }.into();
        facts.device_type = page.run_environment.device_type.clone();
        facts.device_count = page.run_environment.device_core_count;
        facts.steps = page.input.steps.len();
        facts.step_marker = match (&page.steps_note, facts.steps) {
            (_, 0) => "none".into(),
            (Some(note), _) => format!("inferred by Proflens: {note}"),
            (None, _) => "XProf's step markers".into(),
        };
        let b = &page.input.breakdown;
        let parts = vec![
            ("Device compute", b.device_compute.average),
            ("Device to device", b.device_to_device.average),
            ("Device collectives", b.device_collectives.average),
            ("Host compute", b.host_compute.average),
            ("Kernel launch", b.kernel_launch.average),
            ("Input", b.input.average),
            ("Output", b.output.average),
            ("Compile", b.compile.average),
            ("All others", b.other.average),
        ];
        let step_ms = (facts.steps > 0).then_some(page.input.step_time.average);
        return Ok(Steps { facts, step_ms, parts });
    }
    if let Some(ranks) = output.model_as::<MultiRankOverview>() {
        facts.kind = PYTORCH_TRACE.into();
        let first = ranks.ranks.first().map(|r| &r.overview);
        facts.device_count = ranks.ranks.iter().map(|r| r.overview.devices.len() as u64).sum();
        facts.device_type = match side.hosts.first().map(|h| gpu_name(h)) {
            _ if facts.device_count == 0 => "CPU".into(),
            Some(Some(name)) => name,
            _ => "GPU".into(),
        };
        facts.steps = first.map_or(0, |o| if o.whole_trace { 0 } else { o.steps.len() });
        facts.step_marker = if facts.steps > 0 { "ProfilerStep#N".into() } else { "none".into() };
        let n = ranks.ranks.len().max(1) as f64;
        let mean = |f: fn(&StepBreakdown) -> i64| {
            ranks.ranks.iter().map(|r| f(&r.overview.average) as f64 / 1e9).sum::<f64>() / n
        };
        let parts = vec![
            ("Kernel", mean(|s| s.kernel_ps)),
            ("Memcpy", mean(|s| s.memcpy_ps)),
            ("Memset", mean(|s| s.memset_ps)),
            ("Runtime", mean(|s| s.runtime_ps)),
            ("DataLoader", mean(|s| s.dataloader_ps)),
            ("CPU op", mean(|s| s.cpu_op_ps)),
            ("Other", mean(|s| s.other_ps)),
        ];
        let step_ms = (facts.steps > 0).then(|| mean(|s| s.window_ps));
        return Ok(Steps { facts, step_ms, parts });
    }
    Err(ToolError::Failed(format!("the overview of {} has no steps to compare", side.label)))
}

/// The first GPU's name a PyTorch trace records (`deviceProperties`).
fn gpu_name(host: &HostContext) -> Option<String> {
    let profile = host.profile().ok()?;
    let key = profile.strings.lookup("gpu_device_name")?;
    profile
        .planes
        .iter()
        .filter(|p| profile.str(p.name).starts_with(GPU_PLANE_PREFIX))
        .find_map(|p| p.stats.get(key, &profile.strings).and_then(|v| v.as_str().map(str::to_owned)))
}

/// The breakdown side by side: every part either side has, step time first.
fn metrics(b: &Steps, c: &Steps) -> Vec<Metric> {
    // Without steps on both sides a breakdown would compare averages over
    // nothing: the notes say which side has none.
    let (Some(bs), Some(cs)) = (b.step_ms, c.step_ms) else { return Vec::new() };
    let mut out = vec![Metric { name: "Step time".into(), unit: "ms".into(), value: Delta::new(bs, cs) }];
    if (b.facts.kind == PYTORCH_TRACE) != (c.facts.kind == PYTORCH_TRACE) {
        return out; // Different breakdowns: only the step time compares.
    }
    for (name, base) in &b.parts {
        let candidate = c.parts.iter().find(|(n, _)| n == name).map_or(0.0, |(_, v)| *v);
        if *base != 0.0 || candidate != 0.0 {
            out.push(Metric { name: name.to_string(), unit: "ms".into(), value: Delta::new(*base, candidate) });
        }
    }
    out
}

/// What differs between the sides beyond the numbers, one sentence each.
fn differences(b: &SideFacts, c: &SideFacts) -> Vec<String> {
    let mut out = Vec::new();
    let mut differ = |what: &str, bv: &str, cv: &str| {
        if bv != cv && !bv.is_empty() && !cv.is_empty() {
            out.push(format!("{what}: baseline {bv}, candidate {cv}."));
        }
    };
    differ("Profile", &b.kind, &c.kind);
    differ("Device", &b.device_type, &c.device_type);
    differ("Devices", &b.device_count.to_string(), &c.device_count.to_string());
    differ("Hosts", &b.hosts.to_string(), &c.hosts.to_string());
    differ("Step markers", &b.step_marker, &c.step_marker);
    out
}

/// Relative change under which the step time counts as unchanged, percent.
const UNCHANGED_PCT: f64 = 1.0;
/// Parts named in the verdict: at most this many…
const NAMED_PARTS: usize = 3;
/// …each moving at least this share of the step-time change.
const NAMED_SHARE: f64 = 0.1;

/// One paragraph: the step-time change, the parts that made it, and what
/// got slower or faster.
pub fn verdict(step: &Delta, metrics: &[Metric]) -> String {
    let pct = step.delta_pct.unwrap_or(0.0);
    let head = format!("{:.2} ms → {:.2} ms", step.base, step.candidate);
    if pct.abs() < UNCHANGED_PCT {
        return format!("Step time unchanged within {UNCHANGED_PCT} % ({head}, {}).", signed_pct(pct));
    }
    let mut parts: Vec<&Metric> = metrics.iter().filter(|m| m.name != "Step time").collect();
    parts.sort_by(|a, b| b.value.delta.abs().total_cmp(&a.value.delta.abs()));
    let named: Vec<&Metric> = parts
        .iter()
        .copied()
        .filter(|m| m.value.delta.abs() >= NAMED_SHARE * step.delta.abs())
        .take(NAMED_PARTS)
        .collect();
    let mut text = format!("Step time {} ({head})", signed_pct(pct));
    if !named.is_empty() {
        let list: Vec<String> =
            named.iter().map(|m| format!("{} {} ms", m.name.to_lowercase(), signed(m.value.delta))).collect();
        text += &format!(": {}", list.join(", "));
    }
    // The largest part that moved the way the step time moved.
    let slower = step.delta > 0.0;
    match named.iter().find(|m| (m.value.delta > 0.0) == slower) {
        Some(main) => {
            text += &format!(" — {} got {}.", what(&main.name), if slower { "slower" } else { "faster" });
        }
        None => text += &format!(" — the candidate is {}.", if slower { "slower" } else { "faster" }),
    }
    text
}

/// What a breakdown part stands for, in a sentence.
fn what(part: &str) -> &'static str {
    match part {
        "Input" => "the input pipeline",
        "Device compute" | "Kernel" => "device compute",
        "Kernel launch" | "Runtime" => "kernel launching on the host",
        "Host compute" | "CPU op" => "host compute",
        "Device to device" | "Memcpy" | "Memset" => "memory copies",
        "Device collectives" => "communication between devices",
        "Output" => "output to the host",
        "Compile" => "compilation",
        "DataLoader" => "data loading",
        _ => "time outside ops (Python, I/O, idle)",
    }
}

fn signed(v: f64) -> String {
    if v >= 0.0 {
        format!("+{v:.2}")
    } else {
        format!("−{:.2}", -v)
    }
}

fn signed_pct(pct: f64) -> String {
    if pct >= 0.0 {
        format!("+{pct:.1} %")
    } else {
        format!("−{:.1} %", -pct)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metric(name: &str, base: f64, candidate: f64) -> Metric {
        Metric { name: name.into(), unit: "ms".into(), value: Delta::new(base, candidate) }
    }

    #[test]
    fn verdict_names_the_parts_that_moved() {
        let step = Delta::new(100.0, 118.0);
        let parts = [metric("Input", 10.0, 51.0), metric("Device compute", 60.0, 37.0), metric("Output", 1.0, 1.1)];
        let text = verdict(&step, &parts);
        assert_eq!(
            text,
            "Step time +18.0 % (100.00 ms → 118.00 ms): input +41.00 ms, device compute −23.00 ms — the input pipeline got slower."
        );
    }

    #[test]
    fn verdict_unchanged_and_faster() {
        assert!(verdict(&Delta::new(100.0, 100.5), &[]).starts_with("Step time unchanged within 1 %"));
        let text = verdict(&Delta::new(100.0, 80.0), &[metric("Kernel", 50.0, 30.0)]);
        assert!(text.ends_with("— device compute got faster."), "{text}");
        assert_eq!(Delta::new(0.0, 5.0).delta_pct, None);
    }
}
