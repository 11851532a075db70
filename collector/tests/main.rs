//! The collector's tests, one module per file, in one test binary:
//! `cargo test -p proflens-collector --test collector_tests run_signals::` runs one file's.

mod common;
mod cupti_records;

mod capture_errors;
mod cupti_h100_records;
mod cupti_h200_records;
mod cupti_xspace;
mod jax_capture;
mod run_command;
mod run_passthrough;
mod run_signals;
