//! `proflens info PATH`: what each run and host holds, as JSON.

use crate::{input, Failure};
use proflens_analysis::tools::info::host_info;
use serde::Serialize;
use std::path::Path;

#[derive(Serialize)]
struct Summary {
    runs: Vec<RunSummary>,
}

#[derive(Serialize)]
struct RunSummary {
    name: String,
    hosts: Vec<HostSummary>,
}

#[derive(Serialize)]
struct HostSummary {
    name: String,
    planes: Vec<PlaneSummary>,
}

#[derive(Serialize)]
struct PlaneSummary {
    name: String,
    lines: usize,
    events: u64,
}

pub fn run(path: &Path) -> Result<(), Failure> {
    // Legacy per-tool files: which tool file each is.
    if crate::legacy::info(path)? {
        return Ok(());
    }
    let input = input::resolve(path)?;
    let mut runs = Vec::new();
    for run in &input.logdir.runs {
        let mut hosts = Vec::new();
        for host in &run.hosts {
            let profile = input::load(&input.files[host.file])?;
            let info = host_info(&profile);
            let planes = info
                .planes
                .into_iter()
                .map(|p| PlaneSummary { name: p.name, lines: p.lines.len(), events: p.events })
                .collect();
            hosts.push(HostSummary { name: host.name.clone(), planes });
        }
        runs.push(RunSummary { name: run.name.clone(), hosts });
    }
    let json = serde_json::to_string_pretty(&Summary { runs })?;
    println!("{json}");
    Ok(())
}
