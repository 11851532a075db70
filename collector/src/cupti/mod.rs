//! CUPTI's activity records ([`records`]) and their conversion into an
//! XSpace ([`xspace::to_xspace`]), a pure function so it is tested on
//! hand-built records and on records CUPTI 13.0 wrote on an H200
//! ([`raw`], tests/data/gpu_h200), without a GPU.

pub mod activity;
pub mod raw;
pub mod records;
pub mod steps;
pub mod xspace;

pub use records::*;
pub use xspace::to_xspace;
