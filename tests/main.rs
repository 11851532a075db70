//! The cross-crate tests on the fixtures in tests/data, one module per file, in
//! one test binary: `cargo test -p proflens-tests --test cross_crate <file>::`
//! runs one file's tests (say `overview_parity::`).

mod advisor;
mod advisor_pairs;
mod bad_input;
mod critical_path;
mod docs;
mod framework_op_stats_parity;
mod fuzz_replay;
mod gpu_h100_fixtures;
mod gpu_h200_fixtures;
mod graph_viewer_parity;
mod hlo_stats_parity;
mod hta_counters_parity;
mod idle_time_breakdown_parity;
mod kernel_launch_stats_parity;
mod kernel_sequences;
mod kernel_stats_parity;
mod kineto_parity;
mod kineto_tools;
mod legacy_tools;
mod legacy_tpu_tools;
mod memory_profile_parity;
mod memory_viewer_parity;
mod op_profile_parity;
mod overview_parity;
mod pytorch_modules;
mod roofline_model_parity;
mod split_decode;
mod steps_parity;
mod stragglers_parity;
mod tf_data;
mod trace_diff_parity;
mod trace_export;
mod trace_viewer_parity;
mod xla_tools_without_xla;
mod xspace_fixtures;

// The fuzz bodies name their shared helpers from the crate root, as in the fuzz crate.
use fuzz_replay::{build, common};
