//! Pure analysis over the profile model: no I/O, no web types; it runs
//! natively (CLI) and in wasm (the app's worker).
//!
//! Layers: common < hlo < passes < advice < context < tools < rank_summary < registry < compare
//! Independent: tools
//!
//! - [`common`]: XProf's stat names, op-name rules, tables and CSV.
//! - [`hlo`]: indexes over the HLO of a profile's XLA programs.
//! - [`passes`]: what several tools share for one host (grouping, steps,
//!   op metrics, kernels, the input analysis, the trace index…).
//! - [`advice`]: the Advisor's detectors over the passes: findings ranked by
//!   what a fix would gain, with evidence and the fix.
//! - [`context`]: [`context::HostContext`], which runs each pass at most
//!   once per host, lazily, and keeps tools' results; [`context::RunContext`],
//!   a run's hosts together; and the [`context::Tool`] trait.
//! - [`tools`]: one folder per tool; tools never import each other.
//! - [`rank_summary`]: a PyTorch rank reduced to each tool of all ranks'
//!   part, written beside its trace and given to its context.
//! - [`registry`]: the one list of tools, which the CLI and the app read.
//! - [`compare`]: two profiles side by side, tool by tool, from the tools' own numbers.
//!
//! `cargo xtask check-arch` checks this order and that no modules form a circle.

// The CLI's writers (XProf's JSON, HTA's numbers, Markdown: `Rendered::xprof`,
// `hta`, `md`) are compiled out of wasm, which renders models itself and whose
// worker has a size budget (xtask/src/wasm_size.rs); what only they use is
// unused there. Native builds, linted with `-D warnings`, still catch what is
// unused everywhere.
#![cfg_attr(target_arch = "wasm32", allow(unused_imports, dead_code))]

pub mod advice;
pub mod common;
pub mod compare;
pub mod context;
pub mod hlo;
pub mod passes;
pub mod rank_summary;
pub mod registry;
pub mod tools;
