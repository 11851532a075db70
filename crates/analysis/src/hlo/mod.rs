//! Indexes over the HLO of a profile's XLA programs: instructions by name,
//! their costs, and the XLA kernels of GPUs matched to their instructions.

pub mod cost;
pub mod gpu;
pub mod print;
pub mod text;
