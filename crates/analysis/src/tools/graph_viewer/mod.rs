//! XProf's graph viewer: one XLA module's HLO as text (`type=long_txt`,
//! byte-equal to XProf's) and the graph around a chosen instruction, laid
//! out here (XProf hands the graph to a Graphviz service).
//!
//! - this module: the view model and how a request picks module and node;
//! - `neighborhood`: the instructions within N hops, fusions as clusters;
//! - `layout`: the layered drawing; `svg`: the drawing as SVG text;
//! - `tool`: the registry tool.

pub mod layout;
pub mod neighborhood;
pub mod svg;
pub mod tool;

pub use tool::GraphViewerTool;

use crate::hlo::print::module_text;
use proflens_model::hlo::HloModule;
use serde::{Deserialize, Serialize};

/// XProf's default number of hops around the node.
pub const DEFAULT_WIDTH: u32 = 3;
/// More hops than this draw too much to read (and to lay out quickly).
pub const MAX_WIDTH: u32 = 10;
/// Instruction names sent for the page's search; a module with more lists
/// the first ones (the search then also takes any typed name).
const MAX_NAMES: usize = 20_000;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GraphNode {
    pub name: String,
    pub opcode: String,
    /// The shape with its layout, as the HLO text writes it.
    pub shape: String,
    /// XProf's colour group (`matmul`, `fusion`, `parameter`, …).
    pub category: String,
    /// The fusion cluster it is drawn in.
    pub cluster: Option<usize>,
    /// The node the graph is drawn around.
    pub center: bool,
    /// Operands and users beyond the drawn hops.
    pub more_operands: usize,
    pub more_users: usize,
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GraphEdge {
    pub from: usize,
    pub to: usize,
    /// From the operand's bottom to the user's top.
    pub points: Vec<(f64, f64)>,
}

/// An expanded fusion: the fusion instruction and the fused computation
/// whose instructions are drawn inside its box.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cluster {
    pub name: String,
    pub computation: String,
    pub center: bool,
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Graph {
    pub nodes: Vec<GraphNode>,
    pub edges: Vec<GraphEdge>,
    pub clusters: Vec<Cluster>,
    pub width: f64,
    pub height: f64,
}

/// The graph viewer's page: the module list, the chosen module's text and
/// the graph around the chosen node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GraphViewer {
    pub modules: Vec<String>,
    pub module: String,
    /// The instruction the graph is drawn around.
    pub node: String,
    pub graph_width: u32,
    pub merge_fusion: bool,
    /// Instruction names of the module, for the search (at most `MAX_NAMES`).
    pub names: Vec<String>,
    pub graph: Option<Graph>,
    /// XProf's `long_txt`: the module as HLO text.
    pub text: String,
    /// Why there is no graph or no module, in words.
    pub failed: Option<String>,
}

/// The module a request names (`name(program id)` or the plain name), else
/// the one the memory viewer opens too: the most memory allocated, then the
/// most instructions.
pub fn select_module<'a>(modules: &'a [HloModule], name: Option<&str>) -> Option<&'a HloModule> {
    match name {
        Some(n) => modules.iter().find(|m| m.display_name() == n).or_else(|| modules.iter().find(|m| m.name == n)),
        None => modules.iter().max_by_key(|m| {
            let memory = m
                .buffer_assignment
                .as_ref()
                .map_or(0, |b| b.allocations.iter().fold(0i64, |total, a| total.saturating_add(a.size)));
            (memory, m.instructions().count())
        }),
    }
}

/// The page for `module`: its text and the graph around `node` (default:
/// the entry's root) within `width` hops.
pub fn graph_viewer(
    modules: Vec<String>,
    module: &HloModule,
    node: Option<&str>,
    width: u32,
    merge_fusion: bool,
) -> GraphViewer {
    let width = width.min(MAX_WIDTH);
    let default_node = || {
        let entry = module.entry_computation()?;
        entry.instructions.iter().find(|i| i.id == entry.root_id).or(entry.instructions.last()).map(|i| i.name.clone())
    };
    let node = node.map(str::to_string).or_else(default_node).unwrap_or_default();
    let graph = neighborhood::neighborhood(module, &node, width, merge_fusion);
    let failed = graph
        .is_none()
        .then(|| format!("There is no instruction {} in {}.", proflens_format::quoted(&node), module.display_name()));
    GraphViewer {
        modules,
        module: module.display_name(),
        node,
        graph_width: width,
        merge_fusion,
        names: module.instructions().take(MAX_NAMES).map(|(_, i)| i.name.clone()).collect(),
        graph,
        text: module_text(module),
        failed,
    }
}
