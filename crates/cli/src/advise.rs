//! `proflens advise PATH`: the Advisor's ranked findings on one host, or on
//! all hosts (ranks) of a run together, through the registry's `advisor`
//! tool, as JSON for scripts or Markdown for a pull request; and a CI gate:
//! with `--fail-on ID,…` the exit code is [`FOUND`] when one of those
//! findings is present (a finding exists only above its detector's threshold).

use crate::hosts::{self, names};
use crate::output;
use crate::Failure;
use proflens_analysis::advice::{self, markdown, Advice};
use proflens_analysis::context::{Request, ToolError};
use proflens_analysis::registry;
use std::path::PathBuf;

/// The exit code when a finding named by `--fail-on` is present (failures exit 1).
pub const FOUND: u8 = 2;

/// The registry's id of the Advisor.
const ADVISOR: &str = "advisor";

pub struct Args {
    pub path: PathBuf,
    pub run: Option<String>,
    pub host: Option<String>,
    pub format: Format,
    /// Finding ids, each one of `advice::DETECTORS`.
    pub fail_on: Vec<String>,
    pub output: Option<PathBuf>,
}

/// The output formats of `proflens advise`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// The findings ranked, with evidence (each with its tool and app link) and fixes.
    Json,
    /// A short Markdown report for a pull request.
    Md,
}

/// Whether a finding named by `--fail-on` is present.
pub enum Verdict {
    Pass,
    Found,
}

pub fn run(args: &Args) -> Result<Verdict, Failure> {
    // Checked before the profile is read: a misspelt id would otherwise pass every gate.
    let fail_on = fail_on_ids(&args.fail_on)?;
    let tool = registry::find(ADVISOR).ok_or_else(|| Failure("this build has no Advisor".into()))?;
    let mut opened = hosts::open(&args.path)?;
    let (run, hosts) = crate::combine::choose(&mut opened, args.run.as_deref(), args.host.as_deref(), &args.path)?;
    crate::parallel::analyse_hosts(tool.id(), run, &hosts, crate::parallel::jobs(None), false);
    let output = registry::run(tool, &hosts, &Request::default()).map_err(|e| match e {
        ToolError::OneHost => Failure(format!(
            "the Advisor describes one host here; choose one with --host: {}",
            names(hosts.iter().map(|h| h.name()))
        )),
        other => Failure(other.to_string()),
    })?;
    let advice = output.model_as::<Advice>().ok_or_else(|| Failure("the Advisor gave no findings".into()))?;
    let text = match args.format {
        // The registry's `--format json` of the Advisor: `proflens tool PATH advisor` prints the same.
        Format::Json => serde_json::to_string_pretty(&advice::json(advice)?)? + "\n",
        Format::Md => {
            let on = match (args.host.as_deref(), hosts.as_slice()) {
                (Some(host), _) => format!("{} / {host}", run.name),
                (None, [one]) => format!("{} / {}", run.name, one.name()),
                (None, all) => format!("{} / all {} hosts", run.name, all.len()),
            };
            markdown::report(advice, &format!("Proflens Advisor: {on}"))
        }
    };
    output::write(args.output.as_deref(), &text)?;
    let present: Vec<&str> = fail_on.iter().filter(|id| advice.finding(id).is_some()).map(String::as_str).collect();
    if present.is_empty() {
        return Ok(Verdict::Pass);
    }
    eprintln!("proflens: --fail-on: the profile has {}", present.join(", "));
    Ok(Verdict::Found)
}

/// `--fail-on` as ids (commas or repeats), each a known detector's.
fn fail_on_ids(given: &[String]) -> Result<Vec<String>, Failure> {
    let mut ids = Vec::new();
    for id in given.iter().flat_map(|g| g.split(',')).map(str::trim).filter(|id| !id.is_empty()) {
        if !advice::DETECTORS.iter().any(|(known, _)| *known == id) {
            return Err(Failure(format!(
                "--fail-on: unknown finding {}; the findings are: {}",
                proflens_format::quoted(id),
                names(advice::DETECTORS.iter().map(|(known, _)| *known))
            )));
        }
        if !ids.iter().any(|known| known == id) {
            ids.push(id.to_string());
        }
    }
    Ok(ids)
}
