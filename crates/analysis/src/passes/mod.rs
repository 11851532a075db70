//! What several tools share for one host. Each pass is a function of the
//! profile (and of earlier passes); [`crate::context::HostContext`] runs each
//! at most once per host.

pub mod device_caps;
pub mod device_env;
pub mod duty_cycle;
pub mod grouping;
pub mod host_analysis;
pub mod input_pipeline;
pub mod kernels;
pub mod kineto;
pub mod op_metrics;
pub mod performance_counters;
pub mod run_environment;
pub(crate) mod step_runs;
pub mod step_spans;
pub mod steps;
pub mod tensor_core;
pub mod trace;
pub mod training;
pub mod xla_ops;
pub mod xla_ops_combine;
