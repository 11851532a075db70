//! PyTorch rank summaries: every tool of all ranks prints the same bytes
//! with one thread, with several (`--jobs`), from rank summaries written
//! beside the traces (`proflens summarize`), and from the summaries alone.

use crate::common;

use common::{data, proflens};
use proflens_analysis::rank_summary::COMBINED_FROM_RANK_SUMMARIES;
use proflens_analysis::registry;
use std::path::{Path, PathBuf};

/// A job folder under the temp dir with the two ranks of the sampled
/// multi-rank fixture.
fn make_job(name: &str) -> (PathBuf, Vec<&'static str>) {
    let job = std::env::temp_dir().join(format!("proflens-rank-summaries-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&job);
    std::fs::create_dir_all(&job).unwrap();
    let ranks = vec!["sampled_rank-0", "sampled_rank-1"];
    for rank in &ranks {
        let from = data(&format!("kineto/kineto-multirank-sampled/{rank}.json.gz"));
        std::fs::copy(from, job.join(format!("{rank}.json.gz"))).unwrap();
    }
    (job, ranks)
}

/// What `proflens tool` prints, byte for byte, or its failure. The trace
/// viewer's `build_ms` (the wall-clock time its index took, different on
/// every run, with or without summaries) is set to 0 first.
fn tool(path: &Path, tool: &str, extra: &[&str]) -> Result<Vec<u8>, String> {
    let mut args = vec!["tool", path.to_str().unwrap(), tool];
    args.extend_from_slice(extra);
    let out = proflens(&args);
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    if tool != "trace_viewer" {
        return Ok(out.stdout);
    }
    let text = String::from_utf8(out.stdout).unwrap();
    let key = "\"build_ms\": ";
    assert_eq!(text.matches(key).count(), 1, "one build time");
    let at = text.find(key).unwrap() + key.len();
    let end = at + text[at..].find([',', '\n']).unwrap();
    Ok(format!("{}0{}", &text[..at], &text[end..]).into_bytes())
}

/// Every tool of all ranks (the registry's), its JSON.
fn outputs(path: &Path, tools: &[&str], extra: &[&str]) -> Vec<(String, Result<Vec<u8>, String>)> {
    tools.iter().map(|id| (id.to_string(), tool(path, id, extra))).collect()
}

fn all_ranks_tools() -> Vec<&'static str> {
    registry::TOOLS.iter().filter(|t| t.inputs().all_ranks).map(|t| t.id()).collect()
}

fn assert_same(what: &str, base: &[(String, Result<Vec<u8>, String>)], other: &[(String, Result<Vec<u8>, String>)]) {
    assert_eq!(base.len(), other.len());
    for ((id, a), (other_id, b)) in base.iter().zip(other) {
        assert_eq!(id, other_id);
        let a = a.as_ref().unwrap_or_else(|e| panic!("{what}: {id} fails from the traces: {e}"));
        let b = b.as_ref().unwrap_or_else(|e| panic!("{what}: {id} fails: {e}"));
        if a != b {
            let dump = std::env::temp_dir().join(format!("proflens-rank-summaries-{id}"));
            std::fs::write(dump.with_extension("a"), a).unwrap();
            std::fs::write(dump.with_extension("b"), b).unwrap();
            panic!("{what}: {id} differs (both in {}.a / .b)", dump.display());
        }
    }
}

fn summarize(path: &Path, jobs: &str) -> String {
    let out = proflens(&["summarize", path.to_str().unwrap(), "--jobs", jobs]);
    assert!(out.status.success(), "summarize: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn every_tool_of_all_ranks_prints_the_same_from_traces_and_from_rank_summaries() {
    let (job, ranks) = make_job("same");
    let tools = all_ranks_tools();
    // Every tool with a part, and the trace viewer, which reads the traces.
    assert!(COMBINED_FROM_RANK_SUMMARIES.iter().all(|t| tools.contains(t)), "{tools:?}");
    assert!(tools.len() > COMBINED_FROM_RANK_SUMMARIES.len());
    let serial = outputs(&job, &tools, &["--jobs", "1"]);
    assert_same("--jobs 4", &serial, &outputs(&job, &tools, &["--jobs", "4"]));

    let written = summarize(&job, "2");
    assert_eq!(written.matches(": written").count(), ranks.len(), "{written}");
    for rank in &ranks {
        assert!(job.join(format!("{rank}.proflens-summary.bin.gz")).is_file());
    }
    assert_eq!(summarize(&job, "2").matches(": up to date").count(), ranks.len());
    assert_same("beside the traces", &serial, &outputs(&job, &tools, &["--jobs", "1"]));
    // The last step too: the parts are the default request's, so the traces are read.
    let last = ["--include-last-step", "--jobs", "1"];
    let stragglers = ["stragglers"];
    let with_last = outputs(&job, &stragglers, &last);
    std::fs::remove_file(job.join("sampled_rank-0.proflens-summary.bin.gz")).unwrap();
    std::fs::remove_file(job.join("sampled_rank-1.proflens-summary.bin.gz")).unwrap();
    assert_same("the last step", &outputs(&job, &stragglers, &last), &with_last);

    // The summaries alone: a job without any trace, for the tools with parts.
    summarize(&job, "1");
    let alone = job.join("alone");
    std::fs::create_dir_all(&alone).unwrap();
    for rank in &ranks {
        let file = format!("{rank}.proflens-summary.bin.gz");
        std::fs::copy(job.join(&file), alone.join(&file)).unwrap();
    }
    let with_parts: Vec<(String, Result<Vec<u8>, String>)> =
        serial.iter().filter(|(id, _)| COMBINED_FROM_RANK_SUMMARIES.contains(&id.as_str())).cloned().collect();
    let ids: Vec<&str> = with_parts.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids.len(), COMBINED_FROM_RANK_SUMMARIES.len());
    assert_same("from summaries alone", &with_parts, &outputs(&alone, &ids, &[]));
    let e = tool(&alone, "trace_viewer", &[]).unwrap_err();
    assert!(e.contains("only its summary"), "{e}");
    std::fs::remove_dir_all(&job).unwrap();
}

#[test]
fn a_changed_trace_or_a_damaged_rank_summary_is_not_read() {
    let (job, _) = make_job("stale");
    summarize(&job, "2");
    let expected = tool(&job, "stragglers", &[]).unwrap();
    // Rank 1's trace is rewritten (one byte more): its summary no longer describes it.
    let trace = job.join("sampled_rank-1.json.gz");
    let mut bytes = std::fs::read(&trace).unwrap();
    bytes.push(0);
    std::fs::write(&trace, &bytes).unwrap();
    let out = proflens(&["tool", job.to_str().unwrap(), "stragglers"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("sampled_rank-1.proflens-summary.bin.gz: not used"), "{stderr}");
    // A damaged summary: said, and the trace is read.
    std::fs::write(job.join("sampled_rank-0.proflens-summary.bin.gz"), b"\x1f\x8b\x08\x00garbage").unwrap();
    std::fs::copy(data("kineto/kineto-multirank-sampled/sampled_rank-1.json.gz"), &trace).unwrap();
    let out = proflens(&["tool", job.to_str().unwrap(), "stragglers"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && stderr.contains("sampled_rank-0.proflens-summary.bin.gz: not used"), "{stderr}");
    assert_eq!(out.stdout, expected);
    std::fs::remove_dir_all(&job).unwrap();
}
