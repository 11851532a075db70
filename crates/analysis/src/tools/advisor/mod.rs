//! The Advisor: one ranked list of what costs a profile the most, with the
//! evidence, a gain estimate and the fix ([`crate::advice`] holds the
//! detectors; this is the tool that gathers their inputs from a host).

use crate::advice::{self, ranks, xspace, Advice, Framework};
use crate::context::{Format, HostContext, Inputs, Output, Rendered, Request, Tool, ToolError};
use crate::passes::input_pipeline::legacy::{
    input_pipeline_from_overview_tables, input_pipeline_from_proto, input_pipeline_from_tables,
};
use proflens_format::legacy::{LegacyFile, LegacyTool};
use std::rc::Rc;

pub struct AdvisorTool;

impl Tool for AdvisorTool {
    fn id(&self) -> &'static str {
        "advisor"
    }

    fn label(&self) -> &'static str {
        "Advisor"
    }

    fn inputs(&self) -> Inputs {
        Inputs {
            xspace: true,
            kineto: true,
            reads_tool_files: &[LegacyTool::InputPipeline, LegacyTool::OverviewPage],
            all_hosts: true,
            all_ranks: true,
            ..Inputs::default()
        }
    }

    fn formats(&self) -> &'static [Format] {
        &[Format::Json, Format::Csv, Format::Md]
    }

    fn run(&self, host: &HostContext, _request: &Request) -> Result<Output, ToolError> {
        Ok(Output::new("advisor", advice_of(host)?))
    }

    /// Each host's advice, merged: costs are means over the hosts, evidence
    /// from the host where a finding costs most, plus stragglers.
    fn combine(&self, hosts: &[Rc<HostContext>], _request: &Request) -> Result<Output, ToolError> {
        let mut each = Vec::with_capacity(hosts.len());
        for host in hosts {
            host.progress(&format!("Advising on {}", host.name()));
            each.push((host.name().to_string(), advice_of(host)?));
        }
        Ok(Output::new("advisor", ranks::merge(&each)))
    }
}

/// A PyTorch rank's advice: its part of the advice of all ranks (its rank
/// summary's).
pub fn rank_part(host: &HostContext) -> Result<Advice, ToolError> {
    Ok(advice::of_kineto(&*host.kineto()?, Some(&*host.profile()?)))
}

/// One host's advice, from its events or its TensorBoard tool files.
fn advice_of(host: &HostContext) -> Result<Advice, ToolError> {
    // TensorBoard's step breakdown, where the host has it, whatever else it has
    // (a tool set's trace has no steps).
    let kinds = host.tool_file_kinds();
    if kinds.contains(&LegacyTool::InputPipeline) || kinds.contains(&LegacyTool::OverviewPage) {
        return legacy(host);
    }
    if let Some(given) = host.rank_part::<Advice>("advisor", false) {
        return Ok(Advice::clone(&given));
    }
    if host.is_kineto()? {
        return rank_part(host);
    }
    let analysis = host.analysis()?;
    let profile = host.profile()?;
    // Damaged XLA programs leave the XLA op detectors unmeasured, not the rest.
    let (has_xla, xla_unreadable) = match host.xla_programs_if_any() {
        Ok(programs) => (!programs.modules.is_empty(), None),
        Err(why) => (false, Some(why)),
    };
    let xla = if has_xla { Some(host.xla_ops()?) } else { None };
    let input = analysis.input_pipeline();
    let spans: Vec<(i64, i64)> = analysis.shown_steps().0.steps.iter().map(|s| (s.begin_ps, s.duration_ps)).collect();
    Ok(advice::of_xspace(&xspace::Host {
        input: &input,
        analysis: Some(&analysis),
        xla: xla.as_deref(),
        xla_unreadable,
        profiled_ms: profile.span_ps().map(|(start, end)| end.saturating_sub(start) as f64 / 1e9),
        dispatches_per_step: advice::dispatch::dispatches_per_step(&profile, &spans),
        framework: advice::framework_of(&analysis.host_ops, has_xla),
    }))
}

/// A host of TensorBoard tool files: the step breakdown of its input
/// pipeline (or overview) file. TensorBoard's tool files are TensorFlow's.
fn legacy(host: &HostContext) -> Result<Advice, ToolError> {
    let input = if let Some(file) = host.tool_file(LegacyTool::InputPipeline) {
        match &*file? {
            LegacyFile::InputPipeline(result) => input_pipeline_from_proto(result),
            LegacyFile::InputPipelineTables(tables) => input_pipeline_from_tables(tables).map_err(|e| e.to_string())?,
            _ => return Err(ToolError::Failed("not an input pipeline file".into())),
        }
    } else if let Some(file) = host.tool_file(LegacyTool::OverviewPage) {
        match &*file? {
            LegacyFile::OverviewPage(page) => {
                input_pipeline_from_proto(&page.input_analysis.clone().unwrap_or_default())
            }
            LegacyFile::OverviewTables(tables) => {
                input_pipeline_from_overview_tables(tables).map_err(|e| e.to_string())?
            }
            _ => return Err(ToolError::Failed("not an overview file".into())),
        }
    } else {
        return Err(ToolError::Failed(format!(
            "Host “{}” has neither a profile nor an input pipeline or overview file for the Advisor to read.",
            host.name()
        )));
    };
    Ok(advice::of_xspace(&xspace::Host {
        input: &input,
        analysis: None,
        xla: None,
        xla_unreadable: None,
        profiled_ms: None,
        framework: Framework::TensorFlow,
        dispatches_per_step: None,
    }))
}

/// The CLI's formats; the page renders the model itself, so the worker's
/// wasm leaves them out (the worker's size is bounded: xtask/src/wasm_size.rs).
impl Rendered for Advice {
    /// The findings as a table: one row a finding, ranked.
    #[cfg(not(target_arch = "wasm32"))]
    fn csv(&self) -> Result<String, ToolError> {
        let mut out = String::from("rank,id,title,cost_ms_per_step,cost_share,gain_low_ms,gain_high_ms,confidence\n");
        for (i, f) in self.findings.iter().enumerate() {
            let row = [
                (i + 1).to_string(),
                f.id.clone(),
                f.title.clone(),
                f.cost_ms_per_step.to_string(),
                f.cost_share.to_string(),
                f.gain_ms_per_step.low.to_string(),
                f.gain_ms_per_step.high.to_string(),
                serde_json::to_value(f.confidence).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default(),
            ];
            let fields: Vec<String> = row.iter().map(|c| crate::common::csv::csv_field(c)).collect();
            out.push_str(&fields.join(","));
            out.push('\n');
        }
        Ok(out)
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn md(&self) -> Result<String, ToolError> {
        Ok(advice::markdown::report(self, "Proflens Advisor"))
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn json(&self) -> Result<serde_json::Value, ToolError> {
        advice::json(self).map_err(|e| ToolError::Failed(e.to_string()))
    }
}
