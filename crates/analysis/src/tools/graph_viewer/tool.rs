//! The graph viewer as a registry tool. `--format xprof` and `txt` write
//! XProf's `long_txt` of the module; `json` the laid-out graph around the
//! node; `svg` that graph drawn.

use super::{graph_viewer, select_module, GraphViewer, DEFAULT_WIDTH};
use crate::context::{Format, HostContext, Inputs, Output, Rendered, Request, Tool, ToolError};

pub struct GraphViewerTool;

/// XProf's answer for a profile without HLO (its graph viewer fails so).
const NO_HLO: &str = "No HLO module found in the HLO proto";

impl Tool for GraphViewerTool {
    fn id(&self) -> &'static str {
        "graph_viewer"
    }

    fn label(&self) -> &'static str {
        "Graph viewer"
    }

    fn inputs(&self) -> Inputs {
        Inputs { xspace: true, ..Inputs::default() }
    }

    fn formats(&self) -> &'static [Format] {
        &[Format::Json, Format::Xprof, Format::Txt, Format::Svg]
    }

    fn run(&self, host: &HostContext, request: &Request) -> Result<Output, ToolError> {
        let hlo = host.hlo()?;
        let modules: Vec<String> = hlo.modules.iter().map(|m| m.display_name()).collect();
        let Some(chosen) = select_module(&hlo.modules, request.module.as_deref()) else {
            if let Some(name) = &request.module {
                return Err(ToolError::Failed(format!(
                    "no module {}; the modules are: {}",
                    proflens_format::quoted(name),
                    modules.join(", ")
                )));
            }
            let failed = match hlo.errors.first() {
                Some(e) => format!("The profile's XLA programs could not be read: {e}"),
                None => format!("{NO_HLO}: this profile records no XLA program (no HLO in its /host:metadata plane)."),
            };
            let page = GraphViewer {
                modules,
                module: String::new(),
                node: String::new(),
                graph_width: DEFAULT_WIDTH,
                merge_fusion: request.merge_fusion,
                names: Vec::new(),
                graph: None,
                text: String::new(),
                failed: Some(failed),
            };
            return Ok(Output::new("graph_viewer", page));
        };
        host.progress("Drawing the graph");
        let width = request.graph_width.unwrap_or(DEFAULT_WIDTH);
        let page = graph_viewer(modules, chosen, request.node.as_deref(), width, request.merge_fusion);
        Ok(Output::new("graph_viewer", page))
    }
}

impl GraphViewer {
    fn no_module(&self) -> Option<ToolError> {
        self.module.is_empty().then(|| ToolError::Failed(self.failed.clone().unwrap_or_else(|| NO_HLO.into())))
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn graph_or_error(&self) -> Result<&super::Graph, ToolError> {
        if let Some(e) = self.no_module() {
            return Err(e);
        }
        self.graph.as_ref().ok_or_else(|| ToolError::Failed(self.failed.clone().unwrap_or_default()))
    }
}

impl Rendered for GraphViewer {
    /// The module, the node and the laid-out graph (no text: `txt` has it).
    #[cfg(not(target_arch = "wasm32"))]
    fn json(&self) -> Result<serde_json::Value, ToolError> {
        let graph = self.graph_or_error()?;
        Ok(serde_json::json!({
            "module": self.module,
            "node": self.node,
            "graph_width": self.graph_width,
            "merge_fusion": self.merge_fusion,
            "graph": graph,
        }))
    }

    /// XProf's `type=long_txt` output, byte for byte.
    #[cfg(not(target_arch = "wasm32"))]
    fn xprof_text(&self) -> Option<Result<String, ToolError>> {
        Some(self.txt())
    }

    fn txt(&self) -> Result<String, ToolError> {
        match self.no_module() {
            Some(e) => Err(e),
            None => Ok(self.text.clone()),
        }
    }

    /// The CLI's drawing (the page draws its own SVG).
    #[cfg(not(target_arch = "wasm32"))]
    fn svg(&self) -> Result<String, ToolError> {
        self.graph_or_error()?;
        super::svg::to_svg(self).ok_or_else(|| ToolError::Failed("no graph".into()))
    }
}
