//! See `fuzz/bodies/decode_perfetto.rs`: the body is shared with the corpus
//! replay test (`tests/fuzz_replay.rs`).
#![no_main]

#[path = "../bodies/decode_perfetto.rs"]
mod body;
#[path = "../bodies/common.rs"]
mod common;

libfuzzer_sys::fuzz_target!(|data: &[u8]| body::run(data));
