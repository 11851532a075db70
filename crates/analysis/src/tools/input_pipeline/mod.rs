//! Input pipeline analyzer: the input analysis of [`crate::passes::input_pipeline`]
//! for one host or all hosts of a run.

mod tool;

pub use tool::InputPipelineTool;
