//! `proflens compare BASE CANDIDATE`: one tool's comparison of two
//! profiles (`proflens_analysis::compare`, as the page's Compare view),
//! and a performance gate for CI: with `--fail-if-slower PCT` the exit
//! code is [`SLOWER`] when the candidate's average step time is more than
//! PCT % above the baseline's.

use crate::hosts;
use crate::output;
use crate::Failure;
use proflens_analysis::compare::{self, report, Comparison, Side};
use proflens_analysis::context::Request;
use std::path::{Path, PathBuf};

/// The exit code of a candidate slower than the gate allows (failures exit 1).
pub const SLOWER: u8 = 2;

pub struct Args {
    pub base: PathBuf,
    pub candidate: PathBuf,
    pub tool: String,
    /// Run and host of each side; `--run`/`--host` fill both.
    pub base_run: Option<String>,
    pub base_host: Option<String>,
    pub candidate_run: Option<String>,
    pub candidate_host: Option<String>,
    pub format: Format,
    pub output: Option<PathBuf>,
    pub module: Option<String>,
    pub fail_if_slower: Option<f64>,
}

/// The output formats of `proflens compare`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// The whole comparison.
    Json,
    /// Its main table.
    Csv,
    /// A short Markdown report for a pull request.
    Md,
}

/// Whether the candidate passed the gate (always, without one).
pub enum Verdict {
    Pass,
    Slower,
}

pub fn run(args: &Args) -> Result<Verdict, Failure> {
    if let Some(pct) = args.fail_if_slower {
        if !pct.is_finite() || pct < 0.0 {
            return Err(Failure(format!("--fail-if-slower takes a percentage ≥ 0, not {pct}")));
        }
    }
    let request = Request { module: args.module.clone(), ..Request::default() };
    // Both sides stay open together: a host is read again only if its own
    // context dropped its events.
    let base = side(&args.base, args.base_run.as_deref(), args.base_host.as_deref(), "baseline")?;
    let candidate = side(&args.candidate, args.candidate_run.as_deref(), args.candidate_host.as_deref(), "candidate")?;
    let comparison = compare::compare(&args.tool, &base, &candidate, &request).map_err(|e| Failure(e.to_string()))?;
    let text = match args.format {
        Format::Json => serde_json::to_string_pretty(&comparison)? + "\n",
        Format::Csv => report::csv(&comparison),
        Format::Md => report::markdown(&comparison),
    };
    output::write(args.output.as_deref(), &text)?;
    match args.fail_if_slower {
        Some(pct) => gate(&comparison, pct),
        None => Ok(Verdict::Pass),
    }
}

/// One side: the run and host chosen in `path`, named `path[ run][ / host]`.
fn side(path: &Path, run: Option<&str>, host: Option<&str>, role: &str) -> Result<Side, Failure> {
    let mut opened = hosts::open(path).map_err(|Failure(why)| Failure(format!("the {role}: {why}")))?;
    let (chosen, hosts) = crate::combine::choose(&mut opened, run, host, path)
        .map_err(|Failure(why)| Failure(format!("the {role}: {why}")))?;
    let label = match host {
        Some(host) => format!("{} / {host}", chosen.name),
        None if hosts.len() == 1 => format!("{} / {}", chosen.name, hosts[0].name()),
        None => format!("{} / all {} hosts", chosen.name, hosts.len()),
    };
    Ok(Side { label, hosts })
}

/// The gate: the step-time change against the allowed percentage.
fn gate(c: &Comparison, allowed_pct: f64) -> Result<Verdict, Failure> {
    let Some(step) = c.step_time_ms else {
        let why = if c.notes.is_empty() { "a side has no steps".to_string() } else { c.notes.join(" ") };
        return Err(Failure(format!("--fail-if-slower needs the step time of both sides: {why}")));
    };
    let Some(pct) = step.delta_pct else {
        return Err(Failure("--fail-if-slower: the baseline's step time is 0 ms".into()));
    };
    if pct > allowed_pct {
        eprintln!(
            "proflens: the candidate is {pct:.1} % slower than the baseline ({:.2} ms → {:.2} ms per step), more than the {allowed_pct} % allowed",
            step.base, step.candidate
        );
        return Ok(Verdict::Slower);
    }
    Ok(Verdict::Pass)
}
