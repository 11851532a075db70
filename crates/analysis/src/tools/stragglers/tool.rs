//! Stragglers as a registry tool: PyTorch ranks of one run together.

use super::{stragglers, RankSummary, Stragglers, NUM_CANDIDATES};
use crate::common::csv::csv_field;
use crate::context::{Format, HostContext, Inputs, Output, Rendered, Request, Tool, ToolError};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::fmt::Write;
use std::rc::Rc;

pub struct StragglersTool;

impl Tool for StragglersTool {
    fn id(&self) -> &'static str {
        "stragglers"
    }

    fn label(&self) -> &'static str {
        "Stragglers"
    }

    /// Its own work beside HTA's frame cut to the GPU side (the host's shared pass
    /// `gpu_frame`, counted once by [`crate::context::Held::over_gpu_frame`]): one
    /// rank's map step: the frame's events copied with their texts (64 bytes each)
    /// and their iterations, 25.1 bytes an event measured on the 1.0 GB synthetic
    /// Kineto trace (`examples/hta_heap.rs`), a tenth more for margin.
    fn working_bytes_per_event(&self, held: crate::context::Held) -> u64 {
        held.over_gpu_frame(29)
    }

    fn inputs(&self) -> Inputs {
        Inputs { all_ranks: true, ..Inputs::default() }
    }

    fn formats(&self) -> &'static [Format] {
        &[Format::Json, Format::Csv, Format::Hta]
    }

    fn run(&self, host: &HostContext, request: &Request) -> Result<Output, ToolError> {
        let summary = summarize(host, 0, request.include_last_step)?;
        Ok(Output::new("stragglers", stragglers(&[summary], NUM_CANDIDATES, request.include_last_step)?))
    }

    fn combine(&self, hosts: &[Rc<HostContext>], request: &Request) -> Result<Output, ToolError> {
        let include_last = request.include_last_step;
        // One rank's events at a time: each summary is a few numbers.
        let summaries =
            hosts.iter().enumerate().map(|(i, h)| summarize(h, i, include_last)).collect::<Result<Vec<_>, _>>()?;
        Ok(Output::new("stragglers", stragglers(&summaries, NUM_CANDIDATES, include_last)?))
    }
}

/// One rank's summary; its rank is the trace's `distributedInfo.rank`, else
/// its place in the run.
fn summarize(host: &HostContext, position: usize, include_last: bool) -> Result<RankSummary, ToolError> {
    let part = match host.rank_part::<StragglerPart>("stragglers", include_last) {
        Some(given) => StragglerPart::clone(&given),
        None => of_trace(host, include_last)?,
    };
    let mut summary = part.summary;
    summary.rank = part.rank.unwrap_or(position as i64);
    Ok(summary)
}

/// A rank's part of the stragglers (its rank summary's): the summary, and
/// its `distributedInfo.rank` if it has one (the place in the run is known
/// only when the ranks are combined).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StragglerPart {
    pub rank: Option<i64>,
    pub summary: RankSummary,
}

/// The part for the default request (the last profiler step left out).
pub fn rank_part(host: &HostContext) -> Result<StragglerPart, ToolError> {
    of_trace(host, false)
}

fn of_trace(host: &HostContext, include_last: bool) -> Result<StragglerPart, ToolError> {
    if !host.is_kineto()? {
        return Err(ToolError::Failed(format!(
            "“{}” is not a PyTorch trace; stragglers are found between PyTorch ranks.",
            host.name()
        )));
    }
    let rank = host.kineto()?.rank;
    let (profile, frame) = (host.profile()?, host.gpu_frame()?);
    Ok(StragglerPart { rank, summary: RankSummary::of_frame(0, host.name(), &profile, &frame, include_last) })
}

impl Rendered for Stragglers {
    /// The candidate kernel per rank and iteration.
    fn csv(&self) -> Result<String, ToolError> {
        let mut out = String::from(
            "rank,iteration,stream,name,ts_us,dur_us,normalized_start_time,duration,late_by_us,is_straggler\n",
        );
        for r in &self.rows {
            let _ = writeln!(
                out,
                "{},{},{},{},{},{},{},{},{},{}",
                r.rank,
                r.iteration,
                r.stream,
                csv_field(&r.name),
                r.ts,
                r.dur,
                r.normalized_start_time,
                r.duration,
                r.late_by_us,
                r.is_straggler
            );
        }
        Ok(out)
    }

    /// The shape of the goldens made from `get_potential_stragglers`.
    #[cfg(not(target_arch = "wasm32"))]
    fn hta(&self) -> Result<Value, ToolError> {
        let rows: Vec<Value> = self
            .rows
            .iter()
            .map(|r| {
                json!({
                    "rank": r.rank, "iteration": r.iteration, "stream": r.stream, "name": r.name,
                    "ts": r.ts, "dur": r.dur,
                    "normalized_start_time": r.normalized_start_time, "duration": r.duration,
                })
            })
            .collect();
        let ranks: serde_json::Map<String, Value> =
            self.ranks.iter().map(|(rank, label)| (rank.to_string(), Value::from(label.as_str()))).collect();
        let counts: serde_json::Map<String, Value> =
            self.straggler_counts.iter().map(|(rank, n)| (rank.to_string(), Value::from(*n))).collect();
        Ok(json!({
            "hta_version": "0.5.0",
            "api": "TraceAnalysis.get_potential_stragglers",
            "params": {
                "profiler_steps": null,
                "num_candidates": self.num_candidates,
                "visualize": false,
                "straggler_identification_impl": "find_stragglers_with_late_start_comm_kernels",
            },
            "load": {
                "include_last_profiler_step": self.include_last_step,
                "ns_rounding": true,
                "ranks": ranks,
                "profiler_steps_used": self.iterations,
            },
            "time_unit": "us",
            "potential_stragglers": self.potential_stragglers,
            "straggler_counts": counts,
            "candidate_metric": { "metric": "normalized_start_time", "rows": rows },
        }))
    }
}
