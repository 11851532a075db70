//! The trace viewer as a registry tool: its answer is the layout; the page
//! then asks for windows of events (the app's trace queries). On all hosts
//! (or all ranks) the layout is every host's, on the run's clock.

use super::{layout, run_layout, TraceLayout};
use crate::context::{Format, HostContext, Inputs, Output, Rendered, Request, Tool, ToolError};
use std::rc::Rc;

pub struct TraceViewerTool;

impl Tool for TraceViewerTool {
    fn id(&self) -> &'static str {
        "trace_viewer"
    }

    fn label(&self) -> &'static str {
        "Trace viewer"
    }

    fn formats(&self) -> &'static [Format] {
        &[Format::Json]
    }

    fn inputs(&self) -> Inputs {
        Inputs {
            xspace: true,
            kineto: true,
            tool_set_trace: true,
            all_hosts: true,
            all_ranks: true,
            ..Inputs::default()
        }
    }

    fn run(&self, host: &HostContext, _: &Request) -> Result<Output, ToolError> {
        let (profile, index) = (host.profile()?, host.trace()?);
        Ok(Output::new("trace_viewer", layout(&profile, &index)))
    }

    fn combine(&self, hosts: &[Rc<HostContext>], _: &Request) -> Result<Output, ToolError> {
        Ok(Output::new("trace_viewer", run_layout::combine(hosts)?))
    }
}

impl Rendered for TraceLayout {}
