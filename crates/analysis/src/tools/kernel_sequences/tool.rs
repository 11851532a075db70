//! Kernel sequences as a registry tool: one PyTorch rank at a time.

use super::{kernel_sequences, KernelSequences, MIN_PATTERN_LEN, OPERATOR_NAME};
use crate::common::csv::csv_field;
use crate::context::{Format, HostContext, Inputs, Output, Rendered, Request, Tool, ToolError};
use std::fmt::Write;

pub struct KernelSequencesTool;

impl Tool for KernelSequencesTool {
    fn id(&self) -> &'static str {
        "kernel_sequences"
    }

    fn label(&self) -> &'static str {
        "Kernel sequences"
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
                "“{}” is not a PyTorch trace; kernel sequences are read from PyTorch operators' launches.",
                host.name()
            )));
        }
        let model = kernel_sequences(&*host.profile()?, OPERATOR_NAME, MIN_PATTERN_LEN, request.include_last_step);
        Ok(Output::new("kernel_sequences", model))
    }
}

impl Rendered for KernelSequences {
    /// One row per sequence; its kernels joined by ` | ` (HTA's `|`, spaced).
    fn csv(&self) -> Result<String, ToolError> {
        let mut out =
            String::from("rank,operator,kernels,num_kernels,count,gpu_total_us,gpu_mean_us,gpu_share,cpu_total_us\n");
        for r in &self.rows {
            let _ = writeln!(
                out,
                "{},{},{},{},{},{},{},{},{}",
                r.rank,
                csv_field(&r.operator),
                csv_field(&r.kernels.join(" | ")),
                r.kernels.len(),
                r.count,
                r.gpu_total_us,
                r.gpu_mean_us,
                r.gpu_share,
                r.cpu_total_us
            );
        }
        Ok(out)
    }
}
