//! One folder per tool. Each folder holds its computation (over the passes
//! of [`crate::context::HostContext`]), its output formats and its
//! [`crate::context::Tool`] implementation; [`crate::registry`] lists them.
//! Tools never import each other: what two tools share is a pass.

pub mod advisor;
pub mod critical_path;
pub mod framework_op_stats;
pub mod graph_viewer;
pub mod hlo_stats;
pub mod idle_time_breakdown;
pub mod info;
pub mod input_pipeline;
pub mod kernel_launch_stats;
pub mod kernel_sequences;
pub mod kernel_stats;
pub mod memory_bandwidth;
pub mod memory_profile;
pub mod memory_viewer;
pub mod modules;
pub mod op_profile;
pub mod overview;
pub mod pod_viewer;
pub mod queue_length;
pub mod roofline_model;
pub mod stragglers;
pub mod tf_data;
pub mod trace_viewer;
