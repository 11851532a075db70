//! Comparing two profiles: a baseline and a candidate, each one host or
//! every host (rank) of a run, tool by tool. Each side's numbers come from
//! the tools themselves, through [`registry::run`], so a comparison shows
//! exactly what the two tool views show, and reuses what they computed.
//!
//! - [`steps`]: the average step time and its breakdown (every comparison
//!   carries them), and the verdict in plain words;
//! - [`tables`]: op, operator, HLO op and kernel tables keyed alike on both sides;
//! - [`tree`]: the op profile's tree with a delta per node;
//! - [`memory`]: memory peaks;
//! - [`trace_diff`]: HTA's trace diff of two PyTorch traces;
//! - the Advisor's findings finding by finding ([`crate::advice::compare`]);
//! - [`report`]: CSV and the Markdown report.

mod memory;
mod model;
pub mod report;
mod steps;
mod tables;
mod trace_diff;
mod tree;

pub use model::*;
pub use trace_diff::trace_diff;

use crate::advice::{self, Advice};
use crate::context::{HostContext, Output, Request, ToolError};
use crate::registry;
use std::rc::Rc;

/// The tools a comparison exists for, in the selector's order.
pub const TOOLS: &[&str] = &[
    "overview_page",
    ADVISOR,
    "framework_op_stats",
    "kernel_stats",
    "hlo_stats",
    "op_profile",
    "memory_profile",
    "memory_viewer",
    TRACE_DIFF,
];

/// The Advisor: each side's findings, and which of them made the step slower.
pub const ADVISOR: &str = "advisor";

/// HTA's trace diff: not a tool of the registry, only a comparison.
pub const TRACE_DIFF: &str = "trace_diff";

/// One side: a host, or every host of a run together.
pub struct Side {
    /// `run / host`, as the user chose it.
    pub label: String,
    pub hosts: Vec<Rc<HostContext>>,
}

impl Side {
    /// Whether the side is a PyTorch trace (decodes it). A file that cannot
    /// be decoded as events may still be a tool file (TensorBoard's JSON
    /// named like a trace): the tools say what it is.
    fn is_kineto(&self) -> bool {
        self.hosts.first().is_some_and(|h| h.has_events() && h.is_kineto().unwrap_or(false))
    }

    /// A tool's output on this side; failures name the side.
    fn run(&self, tool: &str, role: &str, request: &Request) -> Result<Rc<Output>, ToolError> {
        let found = registry::find(tool).ok_or_else(|| ToolError::Failed(format!("unknown tool '{tool}'")))?;
        registry::run(found, &self.hosts, request).map_err(|e| match e {
            ToolError::OneHost => ToolError::Failed(format!(
                "the {role} ({}) has several hosts and the {} describes one: choose a host",
                self.label,
                found.label()
            )),
            other => ToolError::Failed(format!("the {role} ({}): {other}", self.label)),
        })
    }
}

/// A side's Advice, from the Advisor's output.
fn advice_of<'a>(out: &'a Output, role: &str, side: &Side) -> Result<&'a Advice, ToolError> {
    out.model_as::<Advice>()
        .ok_or_else(|| ToolError::Failed(format!("the {role} ({}): the Advisor gave no findings", side.label)))
}

/// A tool's name for people.
fn label(tool: &str) -> &'static str {
    registry::find(tool).map_or("trace diff", |t| t.label())
}

/// `tool` on `base` and `candidate`, side by side.
pub fn compare(tool: &str, base: &Side, candidate: &Side, request: &Request) -> Result<Comparison, ToolError> {
    let tool = if tool == "tensorflow_stats" { "framework_op_stats" } else { tool };
    if !TOOLS.contains(&tool) {
        return Err(ToolError::Failed(format!(
            "there is no comparison for '{tool}'; the comparisons are: {}",
            TOOLS.join(", ")
        )));
    }
    let kinds = (base.is_kineto(), candidate.is_kineto());
    let mut comparison = steps::compare(tool, base, candidate, request)?;
    match tool {
        "overview_page" => {}
        TRACE_DIFF => {
            let one = |side: &Side, role: &str| match side.hosts.as_slice() {
                [host] if side.is_kineto() => Ok(host.profile()?),
                [_] => Err(ToolError::Failed(format!(
                    "the trace diff compares two PyTorch traces; the {role} ({}) is not one",
                    side.label
                ))),
                _ => Err(ToolError::Failed(format!(
                    "the trace diff compares one rank with one rank; the {role} ({}) has {}: choose a host",
                    side.label,
                    side.hosts.len()
                ))),
            };
            let (control, test) = (one(base, "baseline")?, one(candidate, "candidate")?);
            comparison.trace_diff = Some(trace_diff(&control, &test, None, None)?);
        }
        ADVISOR => {
            let (b, c) = (base.run(tool, "baseline", request)?, candidate.run(tool, "candidate", request)?);
            let diff = advice::compare::diff(advice_of(&b, "baseline", base)?, advice_of(&c, "candidate", candidate)?);
            if diff.rows.is_empty() {
                comparison.notes.push(
                    "Neither side has a finding above its detector's threshold: there is nothing to compare.".into(),
                );
            }
            comparison.advice = Some(diff);
        }
        "op_profile" => {
            let (b, c) = (base.run(tool, "baseline", request)?, candidate.run(tool, "candidate", request)?);
            let tree = tree::compare(&b, &c)?;
            if tree.children.is_empty() {
                comparison
                    .notes
                    .push("Neither side has XLA ops in its op profile: there is nothing to compare.".into());
            }
            comparison.tree = Some(tree);
        }
        "memory_profile" | "memory_viewer" => {
            let (b, c) = (base.run(tool, "baseline", request)?, candidate.run(tool, "candidate", request)?);
            comparison.metrics = memory::compare(&b, &c, &mut comparison.notes)?;
        }
        _ => {
            let (b, c) = (base.run(tool, "baseline", request)?, candidate.run(tool, "candidate", request)?);
            let by_name = comparison.base.device_type != comparison.candidate.device_type;
            if by_name && tool == "kernel_stats" {
                comparison.notes.push(
                    "The devices differ, so kernels are matched by name only: launch shapes differ between kinds of GPU."
                        .into(),
                );
            }
            let table = tables::compare(&b, &c, by_name)?;
            if table.rows.is_empty() {
                comparison
                    .notes
                    .push(format!("Neither side has rows in its {}: there is nothing to compare.", label(tool)));
            }
            comparison.table = Some(table);
        }
    }
    if kinds.0 != kinds.1 && tool != "overview_page" {
        comparison.notes.push(
            "One side is a PyTorch trace and the other is not: their rows come from different profilers, so few of them match."
                .into(),
        );
    }
    Ok(comparison)
}
