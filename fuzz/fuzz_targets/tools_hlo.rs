//! See `fuzz/bodies/tools_hlo.rs`: the body is shared with the corpus replay
//! test (`tests/fuzz_replay.rs`).
#![no_main]

#[path = "../bodies/tools_hlo.rs"]
mod body;
#[path = "../bodies/build.rs"]
mod build;
#[path = "../bodies/common.rs"]
mod common;

libfuzzer_sys::fuzz_target!(|data: &[u8]| body::run(data));
