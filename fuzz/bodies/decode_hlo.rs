//! Any bytes as a module's `xla.HloProto`, then the XLA tools that read the
//! HLO alone: an error or a view, never a panic.

pub fn run(data: &[u8]) {
    if let Ok(module) = proflens_format::hlo::decode_hlo_proto(data, 1) {
        let _ = proflens_analysis::tools::memory_viewer::memory_viewer(&module, 0);
    }
}
