//! The critical path as a registry tool: one PyTorch rank at a time.

use super::{critical_paths_of, CriticalPath};
use crate::common::csv::csv_field;
use crate::context::{Format, HostContext, Inputs, Output, Rendered, Request, Tool, ToolError};
use std::fmt::Write;

pub struct CriticalPathTool;

impl Tool for CriticalPathTool {
    fn id(&self) -> &'static str {
        "critical_path"
    }

    fn label(&self) -> &'static str {
        "Critical path"
    }

    /// HTA's whole frame ([`crate::passes::kineto::hta::events`]).
    fn working_bytes_per_event(&self, _: crate::context::Held) -> u64 {
        crate::passes::kineto::hta::WORKING_BYTES_PER_EVENT
    }

    fn inputs(&self) -> Inputs {
        Inputs { kineto: true, ..Inputs::default() }
    }

    fn formats(&self) -> &'static [Format] {
        &[Format::Json, Format::Csv]
    }

    fn run(&self, host: &HostContext, request: &Request) -> Result<Output, ToolError> {
        if !host.is_kineto()? {
            return Err(ToolError::Failed(format!(
                "“{}” is not a PyTorch trace; the critical path is found in PyTorch profiler traces.",
                host.name()
            )));
        }
        let model = critical_paths_of(&*host.profile()?, request.annotation.as_deref(), request.step)
            .map_err(ToolError::Failed)?;
        Ok(Output::new("critical_path", model))
    }
}

impl Rendered for CriticalPath {
    /// Every step's path, one segment a row.
    fn csv(&self) -> Result<String, ToolError> {
        let mut out = String::from(
            "step,instance,segment,kind,edge,ts_us,dur_us,weight_us,event_name,event_cat,event_ts_us,event_dur_us,stream\n",
        );
        for s in &self.steps {
            for (n, seg) in s.segments.iter().enumerate() {
                let (name, cat, ts, dur, stream) = match &seg.event {
                    Some(e) => (
                        csv_field(&e.name),
                        csv_field(&e.cat),
                        e.ts_us.to_string(),
                        e.dur_us.to_string(),
                        e.stream.to_string(),
                    ),
                    None => Default::default(),
                };
                let _ = writeln!(
                    out,
                    "{},{},{},{},{},{},{},{},{},{},{},{},{}",
                    s.step,
                    s.instance,
                    n,
                    seg.kind.id(),
                    seg.edge,
                    seg.ts_us,
                    seg.dur_us,
                    seg.weight_us,
                    name,
                    cat,
                    ts,
                    dur,
                    stream
                );
            }
        }
        Ok(out)
    }
}
