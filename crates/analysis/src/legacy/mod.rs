//! Legacy tool files → the view models the tools already render.
//!
//! `proflens_format::legacy` decodes a `<host>.overview_page.pb`,
//! `.input_pipeline.pb`, `.tensorflow_stats.pb`, `.kernel_stats.pb` or an
//! XProf tool JSON; this module turns it into the same [`OverviewPage`],
//! [`InputPipelineAnalysis`], [`FrameworkOpStats`], kernel rows,
//! [`PodViewer`] and [`MemoryProfile`] that an XSpace gives, so the views and
//! `to_xprof_json` work unchanged. The numbers are the file's own: nothing is
//! recomputed from events (there are none). Fields a file has that a view
//! model lacks are dropped; what a view model needs that a file lacks is left
//! empty (each converter says which).

mod input;
mod memory;
mod memory_viewer;
mod op_profile;
mod op_stats;
mod overview;
mod pod;

pub use input::{input_pipeline_from_proto, input_pipeline_from_tables};
pub use memory::memory_profile_from_json;
pub use memory_viewer::memory_viewer_from_json;
pub use op_profile::op_profile_from_json;
pub use op_stats::{
    framework_op_stats_from_proto, framework_op_stats_from_tables, kernel_stats_from_proto, kernel_stats_from_tables,
};
pub use overview::{overview_from_proto, overview_from_tables};
pub use pod::pod_viewer_from_json;

use crate::framework_op_stats::FrameworkOpStats;
use crate::input_pipeline::InputPipelineAnalysis;
use crate::kernel_stats::KernelRow;
use crate::memory_profile::MemoryProfile;
use crate::memory_viewer::MemoryViewer;
use crate::op_profile::OpProfile;
use crate::overview::OverviewPage;
use crate::pod_viewer::PodViewer;
use proflens_format::legacy::{LegacyError, LegacyFile, LegacyTool};
use serde::{Deserialize, Serialize};

/// One legacy file's tool, as the view model the tool's view renders.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum LegacyView {
    Overview(Box<OverviewPage>),
    InputPipeline(Box<InputPipelineAnalysis>),
    FrameworkOpStats(FrameworkOpStats),
    KernelStats(Vec<KernelRow>),
    PodViewer(PodViewer),
    MemoryProfile(MemoryProfile),
    OpProfile(Box<OpProfile>),
    MemoryViewer(Box<MemoryViewer>),
}

impl LegacyView {
    /// XProf's name of the tool this view belongs to.
    pub fn xprof_tool(&self) -> &'static str {
        match self {
            LegacyView::Overview(_) => "overview_page",
            LegacyView::InputPipeline(_) => "input_pipeline_analyzer",
            LegacyView::FrameworkOpStats(_) => "framework_op_stats",
            LegacyView::KernelStats(_) => "kernel_stats",
            LegacyView::PodViewer(_) => "pod_viewer",
            LegacyView::MemoryProfile(_) => "memory_profile",
            LegacyView::OpProfile(_) => "op_profile",
            LegacyView::MemoryViewer(_) => "memory_viewer",
        }
    }
}

/// The view model of a decoded legacy file. JSON whose shape does not fit is
/// an error that names the tool.
pub fn view(file: &LegacyFile) -> Result<LegacyView, LegacyError> {
    Ok(match file {
        LegacyFile::OverviewPage(page) => LegacyView::Overview(Box::new(overview_from_proto(page))),
        LegacyFile::OverviewTables(tables) => LegacyView::Overview(Box::new(overview_from_tables(tables)?)),
        LegacyFile::InputPipeline(result) => LegacyView::InputPipeline(Box::new(input_pipeline_from_proto(result))),
        LegacyFile::InputPipelineTables(tables) => {
            LegacyView::InputPipeline(Box::new(input_pipeline_from_tables(tables)?))
        }
        LegacyFile::TensorflowStats(db) => LegacyView::FrameworkOpStats(framework_op_stats_from_proto(db)),
        LegacyFile::KernelStats(db) => LegacyView::KernelStats(kernel_stats_from_proto(db)),
        LegacyFile::TensorflowStatsTables(tables) => {
            LegacyView::FrameworkOpStats(framework_op_stats_from_tables(tables)?)
        }
        LegacyFile::KernelStatsTables(tables) => LegacyView::KernelStats(kernel_stats_from_tables(tables)?),
        LegacyFile::PodViewer(value) => LegacyView::PodViewer(pod_viewer_from_json(value)?),
        LegacyFile::MemoryProfile(value) => LegacyView::MemoryProfile(memory_profile_from_json(value)?),
        LegacyFile::OpProfile(value) => LegacyView::OpProfile(Box::new(op_profile_from_json(value)?)),
        LegacyFile::MemoryViewer(value) => LegacyView::MemoryViewer(Box::new(memory_viewer_from_json(value)?)),
    })
}

/// Shape errors of the JSON converters.
fn shape(tool: LegacyTool, detail: impl Into<String>) -> LegacyError {
    LegacyError::Shape { tool, detail: detail.into() }
}
