//! `proflens advise`: the Advisor's findings as JSON and Markdown on real
//! XSpace and PyTorch fixtures, one host and all ranks of a run, and the
//! `--fail-on` gate's exit codes.

use crate::common;

use common::{data, json, proflens};
use proflens_analysis::advice::{markdown, DETECTORS};
use serde_json::Value;

/// One XSpace with an input-bound step, one PyTorch trace, one two-rank PyTorch job.
const FIXTURES: &[&str] =
    &["xspace/input_bound", "kineto/kineto-v100-resnet50-pt19", "kineto/kineto-multirank-sampled"];

fn path(rel: &str) -> String {
    data(rel).to_str().unwrap().to_string()
}

fn mid(f: &Value) -> f64 {
    f["gain_ms_per_step"]["low"].as_f64().unwrap() + f["gain_ms_per_step"]["high"].as_f64().unwrap()
}

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

#[test]
fn json_has_the_advice_fields_and_findings_ranked_by_gain() {
    for rel in FIXTURES {
        let advice = json(&["advise", &path(rel), "--format", "json"]);
        let mut keys: Vec<&str> = advice.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(keys, ["basis", "clear", "findings", "framework", "step_ms", "steps", "unmeasured"], "{rel}");
        let step_ms = advice["step_ms"].as_f64().unwrap();
        assert!(step_ms > 0.0, "{rel}");
        let findings = advice["findings"].as_array().unwrap();
        assert!(!findings.is_empty(), "{rel}: these fixtures each have a finding");
        for f in findings {
            let id = f["id"].as_str().unwrap();
            assert!(DETECTORS.iter().any(|(known, _)| *known == id), "{rel}: {id} is no detector");
            assert!(!f["title"].as_str().unwrap().is_empty() && !f["fix"].as_str().unwrap().is_empty(), "{rel} {id}");
            let (cost, share) = (f["cost_ms_per_step"].as_f64().unwrap(), f["cost_share"].as_f64().unwrap());
            assert!((share - (cost / step_ms).min(1.0)).abs() < 1e-9, "{rel} {id}: share {share} of {cost}/{step_ms}");
            let (low, high) =
                (f["gain_ms_per_step"]["low"].as_f64().unwrap(), f["gain_ms_per_step"]["high"].as_f64().unwrap());
            assert!(0.0 <= low && low <= high && high <= cost + 1e-9, "{rel} {id}: gain {low}..{high} of {cost}");
            assert!(["low", "medium", "high"].contains(&f["confidence"].as_str().unwrap()), "{rel} {id}");
            let evidence = f["evidence"].as_array().unwrap();
            assert!(!evidence.is_empty(), "{rel} {id}");
            for e in evidence {
                // Every item names its tool and links to it in the app.
                let tool = e["tool"].as_str().unwrap();
                let link = e["link"].as_str().unwrap();
                assert!(!tool.is_empty(), "{rel} {id}: {e}");
                assert!(
                    link == format!("#tool={tool}") || link.starts_with(&format!("#tool={tool}&")),
                    "{rel} {id}: {e}"
                );
                assert_eq!(e["at"]["tool"], e["tool"], "{rel} {id}");
                assert!(e["label"].is_string() && e["value"].is_string(), "{rel} {id}: {e}");
            }
        }
        // Ranked: the middle of the gain range, largest first.
        for pair in findings.windows(2) {
            assert!(mid(&pair[0]) >= mid(&pair[1]), "{rel}: {} before {}", pair[0]["id"], pair[1]["id"]);
        }
        // A detector answers once: found, clear or unmeasured.
        let mut ids: Vec<&str> = findings.iter().map(|f| f["id"].as_str().unwrap()).collect();
        ids.extend(advice["clear"].as_array().unwrap().iter().map(|c| c.as_str().unwrap()));
        ids.extend(advice["unmeasured"].as_array().unwrap().iter().map(|u| u["id"].as_str().unwrap()));
        let count = ids.len();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), count, "{rel}: {ids:?}");
    }
}

#[test]
fn advise_and_the_registry_tool_print_the_same_advice() {
    for rel in FIXTURES {
        let p = path(rel);
        let advise = proflens(&["advise", &p]);
        let tool = proflens(&["tool", &p, "advisor", "--format", "json"]);
        assert!(advise.status.success() && tool.status.success(), "{rel}: {}", String::from_utf8_lossy(&tool.stderr));
        assert_eq!(stdout(&advise), stdout(&tool), "{rel}");
        let md = proflens(&["tool", &p, "advisor", "--format", "md"]);
        assert!(md.status.success(), "{rel}: {}", String::from_utf8_lossy(&md.stderr));
        assert!(stdout(&md).starts_with("## Proflens Advisor"), "{rel}");
    }
}

#[test]
fn markdown_names_the_top_finding_first_and_lists_its_evidence() {
    for rel in FIXTURES {
        let p = path(rel);
        let advice = json(&["advise", &p]);
        let out = proflens(&["advise", &p, "--format", "md"]);
        assert!(out.status.success(), "{rel}: {}", String::from_utf8_lossy(&out.stderr));
        let md = stdout(&out);
        let top = &advice["findings"][0];
        let title = markdown::cell(top["title"].as_str().unwrap());
        let first_row = md.lines().find(|l| l.starts_with("| 1 | ")).unwrap_or_else(|| panic!("{rel}: {md}"));
        assert!(first_row.contains(&title), "{rel}: {first_row}");
        for e in top["evidence"].as_array().unwrap() {
            assert!(md.contains(&format!("(`{}`)", e["link"].as_str().unwrap())), "{rel}: {}", e["link"]);
        }
        assert_eq!(md.matches("\n### ").count(), advice["findings"].as_array().unwrap().len(), "{rel}");
    }
}

#[test]
fn one_rank_or_all_ranks_of_a_run() {
    let p = path("kineto/kineto-multirank-sampled");
    let ranks = json(&["info", &p]);
    let hosts: Vec<String> =
        ranks["runs"][0]["hosts"].as_array().unwrap().iter().map(|h| h["name"].as_str().unwrap().to_string()).collect();
    assert!(hosts.len() > 1, "{hosts:?}");
    for host in &hosts {
        let one = json(&["advise", &p, "--host", host]);
        let tool = json(&["tool", &p, "advisor", "--host", host]);
        assert_eq!(one, tool, "{host}");
    }
    let all = proflens(&["advise", &p, "--format", "md"]);
    assert!(stdout(&all).lines().next().unwrap().ends_with(&format!("all {} hosts", hosts.len())), "{}", stdout(&all));
    let unknown = proflens(&["advise", &p, "--host", "no-such-rank"]);
    assert_eq!(unknown.status.code(), Some(1));
}

#[test]
fn fail_on_exits_2_only_for_a_finding_that_is_present() {
    for rel in ["xspace/input_bound", "kineto/kineto-v100-resnet50-pt19"] {
        let p = path(rel);
        let advice = json(&["advise", &p]);
        let found: Vec<&str> =
            advice["findings"].as_array().unwrap().iter().map(|f| f["id"].as_str().unwrap()).collect();
        let present = found[found.len() - 1];
        let absent = DETECTORS.iter().map(|(id, _)| *id).find(|id| !found.contains(id)).unwrap();
        let code = |args: &[&str]| {
            let mut all = vec!["advise", p.as_str()];
            all.extend_from_slice(args);
            let out = proflens(&all);
            (out.status.code(), out)
        };
        assert_eq!(code(&[]).0, Some(0), "{rel}");
        assert_eq!(code(&["--fail-on", absent]).0, Some(0), "{rel}: {absent}");
        let (status, out) = code(&["--fail-on", present]);
        assert_eq!(status, Some(2), "{rel}: {present}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(String::from_utf8_lossy(&out.stderr).contains(present), "{rel}");
        // The advice is printed before the verdict.
        assert_eq!(serde_json::from_slice::<Value>(&out.stdout).unwrap(), advice, "{rel}");
        assert_eq!(code(&["--fail-on", &format!("{absent},{present}")]).0, Some(2), "{rel}");
        assert_eq!(code(&["--fail-on", absent, "--fail-on", present, "--format", "md"]).0, Some(2), "{rel}");
    }
}

#[test]
fn failures_exit_1_with_a_plain_message() {
    let input_bound = path("xspace/input_bound");
    let missing = path("xspace/no-such-profile");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["advise", &missing], "no-such-profile"),
        (vec!["advise", &input_bound, "--fail-on", "not_a_finding"], "unknown finding 'not_a_finding'"),
        (vec!["advise", &input_bound, "--fail-on", "input_bound,typo"], "unknown finding 'typo'"),
        // The ids are checked before the profile is read.
        (vec!["advise", &missing, "--fail-on", "typo"], "unknown finding"),
        (vec!["advise", &input_bound, "--format", "csv"], "csv"),
    ];
    for (args, message) in cases {
        let out = proflens(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn output_goes_to_a_file_whole() {
    let dir = std::env::temp_dir().join(format!("proflens-advise-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("advice.md");
    let p = path("xspace/input_bound");
    let out = proflens(&["advise", &p, "--format", "md", "-o", file.to_str().unwrap()]);
    assert!(out.status.success() && out.stdout.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    let printed = proflens(&["advise", &p, "--format", "md"]);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), stdout(&printed));
    let _ = std::fs::remove_dir_all(&dir);
}
