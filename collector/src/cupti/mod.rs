//! CUPTI's activity records ([`records`]) and their conversion into an
//! XSpace ([`xspace::to_xspace`]), a pure function so it is tested on
//! hand-built records without a GPU (it has never run on one).

pub mod activity;
pub mod raw;
pub mod records;
pub mod steps;
pub mod xspace;

pub use records::*;
pub use xspace::to_xspace;
