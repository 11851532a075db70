//! See `fuzz/bodies/decode_tar.rs`: the body is shared with the corpus
//! replay test (`tests/fuzz_replay.rs`).
#![no_main]

#[path = "../bodies/decode_tar.rs"]
mod body;

libfuzzer_sys::fuzz_target!(|data: &[u8]| body::run(data));
