//! See `fuzz/bodies/tools_xspace_built.rs`: the body is shared with the corpus replay
//! test (`tests/fuzz_replay.rs`).
#![no_main]

#[path = "../bodies/tools_xspace_built.rs"]
mod body;
#[path = "../bodies/build.rs"]
mod build;
#[path = "../bodies/common.rs"]
mod common;

libfuzzer_sys::fuzz_target!(|data: &[u8]| body::run(data));
