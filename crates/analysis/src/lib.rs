//! Pure analysis over the profile model.
//!
//! One module per tool; each turns a [`proflens_model::Profile`] into a serde
//! view model that the CLI prints and the app renders. No I/O, no web types.
//! Shared passes (grouping, op metrics, step events) are computed once per
//! host and reused by every tool.

pub mod datatable;
pub mod framework_op_stats;
pub mod grouping;
pub mod hlo_cost;
pub mod hlo_stats;
pub mod hlo_text;
pub mod host;
pub mod info;
pub mod input_pipeline;
pub mod kernel_stats;
pub mod legacy;
pub mod memory_profile;
pub mod memory_viewer;
pub mod op_metrics;
pub mod op_profile;
pub mod overview;
pub mod pod_viewer;
pub mod pytorch;
pub mod run_environment;
pub mod schema;
pub mod stats;
pub mod steps;
pub mod tf_data;
pub mod tf_op;
pub mod trace_viewer;
pub mod xla_ops;
