//! The overview as a registry tool: XSpace hosts (one, or all of a run),
//! PyTorch ranks, and TensorBoard's `overview_page.pb` / overview JSON.

use super::hta_breakdowns::breakdowns;
use super::pytorch::{self, multi_rank_of, steps_csv, MultiRankOverview, OverviewPart};
use super::{legacy, overview, to_xprof_json, OverviewPage};
use crate::context::{
    combined_analysis, working_bytes_per_event, AsSerialize, Format, Held, HostContext, Inputs, Output, Rendered,
    Request, Tool, ToolError,
};
use crate::passes::host_analysis::HostAnalysis;
use crate::passes::input_pipeline::{step_columns, steps_csv as input_steps_csv, warnings_of};
use proflens_format::legacy::{LegacyFile, LegacyTool};
use proflens_model::Origin;
use serde_json::Value;
use std::rc::Rc;

pub struct OverviewTool;

impl Tool for OverviewTool {
    fn id(&self) -> &'static str {
        "overview_page"
    }

    fn label(&self) -> &'static str {
        "Overview"
    }

    /// For a PyTorch trace, the Kineto index it builds (48 or 64 bytes a
    /// host or device event) and the breakdown's intervals (31 measured);
    /// otherwise as any tool.
    fn working_bytes_per_event(&self, held: Held) -> u64 {
        match held.origin {
            Origin::Kineto => 100,
            Origin::XSpace | Origin::ChromeTrace => working_bytes_per_event(held),
        }
    }

    /// hta: on PyTorch traces, HTA's temporal breakdown and comm/comp overlap.
    fn formats(&self) -> &'static [Format] {
        &[Format::Json, Format::Csv, Format::Xprof, Format::Hta]
    }

    fn inputs(&self) -> Inputs {
        Inputs {
            xspace: true,
            kineto: true,
            tool_files: &[LegacyTool::OverviewPage],
            all_hosts: true,
            all_ranks: true,
            ..Inputs::default()
        }
    }

    fn run(&self, host: &HostContext, request: &Request) -> Result<Output, ToolError> {
        if let Some(file) = host.tool_file(LegacyTool::OverviewPage) {
            let page = match &*file? {
                LegacyFile::OverviewPage(page) => legacy::overview_from_proto(page),
                LegacyFile::OverviewTables(tables) => {
                    legacy::overview_from_tables(tables).map_err(|e| e.to_string())?
                }
                _ => return Err(ToolError::Failed("not an overview file".into())),
            };
            return Ok(Output::new("overview_page", page));
        }
        if host.is_kineto()? && request.format == Format::Hta {
            return Ok(Output::new("pytorch_overview", breakdowns(&[host], request.include_last_step)?));
        }
        if host.is_kineto()? {
            return Ok(Output::new("pytorch_overview", multi_rank_of(vec![rank_part(host)?])));
        }
        Ok(page(&*host.analysis()?, request))
    }

    fn combine(&self, hosts: &[Rc<HostContext>], request: &Request) -> Result<Output, ToolError> {
        let kineto = hosts.first().map(|h| h.is_kineto()).transpose()? == Some(true);
        if kineto && request.format == Format::Hta {
            let hosts: Vec<&HostContext> = hosts.iter().map(|h| &**h).collect();
            return Ok(Output::new("pytorch_overview", breakdowns(&hosts, request.include_last_step)?));
        }
        if kineto {
            let parts = hosts.iter().map(|h| rank_part(h)).collect::<Result<Vec<_>, _>>()?;
            return Ok(Output::new("pytorch_overview", multi_rank_of(parts)));
        }
        let combined = combined_analysis(hosts)?;
        Ok(page(&combined, request))
    }
}

fn page(a: &HostAnalysis, request: &Request) -> Output {
    Output::new("overview_page", page_of(a, request.format == Format::Xprof))
}

/// Proflens's page (inferred steps where XProf finds none), or XProf's own.
pub fn page_of(a: &HostAnalysis, as_xprof: bool) -> OverviewPage {
    let (steps, note) = if as_xprof { (&a.steps, None) } else { a.shown_steps() };
    let mut page = overview(steps, a);
    page.steps_note = note.map(str::to_owned);
    page
}

/// A rank's part of the multi-rank overview: its rank summary's, else of its trace.
pub fn rank_part(host: &HostContext) -> Result<OverviewPart, ToolError> {
    if let Some(given) = host.rank_part::<OverviewPart>("overview_page", false) {
        return Ok(OverviewPart::clone(&given));
    }
    Ok(pytorch::rank_part(host.name(), &*host.kineto()?))
}

impl Rendered for OverviewPage {
    /// The model, its step table as rows (the page gets it as columns).
    fn json(&self) -> Result<Value, ToolError> {
        step_columns::json_with_rows(self.as_serialize(), "/input/steps", &self.input.steps)
            .map_err(|e| ToolError::Failed(e.to_string()))
    }

    fn csv(&self) -> Result<String, ToolError> {
        Ok(input_steps_csv(&self.input))
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn xprof(&self) -> Result<Value, ToolError> {
        Ok(to_xprof_json(self))
    }

    fn warnings(&self) -> Vec<String> {
        warnings_of(&self.diagnostics)
    }
}

impl Rendered for MultiRankOverview {
    /// One rank: its overview; several: every rank and the distributed view.
    fn json(&self) -> Result<Value, ToolError> {
        let value = match self.ranks.as_slice() {
            [one] => serde_json::to_value(&one.overview),
            _ => serde_json::to_value(self),
        };
        value.map_err(|e| ToolError::Failed(e.to_string()))
    }

    fn csv(&self) -> Result<String, ToolError> {
        match self.ranks.as_slice() {
            [one] => Ok(steps_csv(&one.overview)),
            _ => Err(ToolError::NoFormat("the step table describes one rank; choose one with --host".into())),
        }
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn xprof(&self) -> Result<Value, ToolError> {
        Err(ToolError::NoFormat("XProf has no overview_page for PyTorch traces; use --format json or csv".into()))
    }
}
