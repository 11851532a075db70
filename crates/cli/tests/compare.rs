//! Comparing two profiles: the analysis (`proflens_analysis::compare`) on
//! every fixture against itself and on pairs whose differences are known,
//! and `proflens compare` with its formats and its CI gate's exit codes.

use crate::common;

use common::{app_host, data, fixtures, proflens};
use proflens_analysis::compare::{self, ChangeStatus, Comparison, DiffNode, Side, Status};
use proflens_analysis::context::{HostContext, Request};
use proflens_analysis::registry;
use proflens_analysis::tools::memory_viewer::MemoryViewerPage;
use serde_json::Value;
use std::rc::Rc;

fn side(label: &str, host: Rc<HostContext>) -> Side {
    Side { label: label.into(), hosts: vec![host] }
}

fn tree_unchanged(node: &DiffNode) -> bool {
    node.status == Status::Same && node.delta_ps == 0.0 && node.children.iter().all(tree_unchanged)
}

/// Every delta of a comparison is zero and every row the same.
fn assert_unchanged(c: &Comparison, what: &str) {
    assert!(c.differences.is_empty(), "{what}: {:?}", c.differences);
    if let Some(step) = c.step_time_ms {
        assert_eq!((step.delta, step.delta_pct), (0.0, Some(0.0)), "{what}");
        assert!(c.verdict.starts_with("Step time unchanged"), "{what}: {}", c.verdict);
    }
    for m in &c.metrics {
        assert_eq!(m.value.delta, 0.0, "{what}: {}", m.name);
    }
    if let Some(table) = &c.table {
        assert_eq!(table.base_total, table.candidate_total, "{what}");
        for r in &table.rows {
            assert!(r.status == Status::Same && r.delta == 0.0 && r.share_of_change_pct == 0.0, "{what}: {r:?}");
        }
    }
    if let Some(tree) = &c.tree {
        assert!(tree_unchanged(tree), "{what}");
    }
    if let Some(advice) = &c.advice {
        assert_eq!(advice.step_change_ms, 0.0, "{what}");
        for r in &advice.rows {
            assert!(
                r.status == ChangeStatus::Same && r.change_ms == 0.0 && r.share_of_step_change.is_none(),
                "{what}: {r:?}"
            );
        }
    }
    if let Some(diff) = &c.trace_diff {
        for r in &diff.rows {
            assert!(r.diff_counts == 0 && r.diff_duration == 0.0 && r.counts_change_categories == "=", "{what}: {r:?}");
        }
    }
}

#[test]
fn every_fixture_compared_with_itself_shows_no_change() {
    let mut compared = 0;
    for path in fixtures() {
        // Two contexts of one file: each side decodes and analyses on its own.
        let (base, candidate) = (app_host(&path), app_host(&path));
        let kineto = base.has_events() && base.is_kineto().unwrap_or(false);
        for tool in compare::TOOLS {
            let what = format!("{} {tool}", path.display());
            let result = compare::compare(
                tool,
                &side("base", base.clone()),
                &side("candidate", candidate.clone()),
                &Request::default(),
            );
            // A comparison exists exactly where the tool has an answer.
            let expected = match registry::find(tool) {
                Some(t) => match registry::run(t, std::slice::from_ref(&base), &Request::default()) {
                    // The memory viewer answers "no XLA program" as a page.
                    Ok(out) => out.model_as::<MemoryViewerPage>().is_none_or(|page| page.viewer.is_some()),
                    Err(_) => false,
                },
                None => kineto,
            };
            match result {
                Ok(c) => {
                    assert!(expected, "{what}: compared where the tool has no answer");
                    assert_unchanged(&c, &what);
                    compared += 1;
                }
                Err(e) => assert!(!expected, "{what}: {e}"),
            }
        }
    }
    assert!(compared > 40, "{compared} comparisons");
}

/// The framework ops of one side, summed per (side, type, name) as the comparison keys them.
fn op_self_times(path: &str) -> std::collections::HashMap<Vec<String>, f64> {
    let out = proflens(&["tool", path, "framework_op_stats", "--format", "json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stats: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut found = std::collections::HashMap::new();
    for r in stats["without_idle"]["rows"].as_array().unwrap() {
        let key = ["side", "op_type", "operation"].map(|k| r[k].as_str().unwrap().to_string()).to_vec();
        *found.entry(key).or_insert(0.0) += r["total_self_time_us"].as_f64().unwrap();
    }
    found
}

#[test]
fn xla_on_cpu_replaces_the_onednn_kernels() {
    // One TensorFlow training loop, without and with jit_compile=True.
    let (base, candidate) = (data("xspace/custom_loop"), data("xspace/custom_loop_xla"));
    let (b, c) = (base.to_str().unwrap(), candidate.to_str().unwrap());
    let out = proflens(&["compare", b, c, "--tool", "framework_op_stats"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let comparison: Comparison = serde_json::from_slice(&out.stdout).unwrap();
    let table = comparison.table.as_ref().unwrap();
    let rows_with = |status: Status| -> Vec<&str> {
        table.rows.iter().filter(|r| r.status == status).map(|r| r.key[1].as_str()).collect()
    };
    // XLA compiles the step into one cluster; oneDNN's kernels are gone.
    assert!(
        rows_with(Status::New).iter().any(|t| t.starts_with("__inference_train_step")),
        "{:?}",
        rows_with(Status::New)
    );
    for gone in ["_MklNativeFusedConv2D", "_MklNativeConv2DBackpropInput", "_MklMatMul"] {
        assert!(rows_with(Status::Gone).contains(&gone), "{gone}");
    }
    // Each side's numbers are that side's own tool numbers.
    let (base_ops, candidate_ops) = (op_self_times(b), op_self_times(c));
    for r in &table.rows {
        let (bv, cv) =
            (base_ops.get(&r.key).copied().unwrap_or(0.0), candidate_ops.get(&r.key).copied().unwrap_or(0.0));
        assert!((r.base - bv).abs() < 1e-6 && (r.candidate - cv).abs() < 1e-6, "{:?}", r.key);
    }
    let share: f64 = table.rows.iter().map(|r| r.share_of_change_pct.abs()).sum();
    assert!((share - 100.0).abs() < 1e-6, "shares add up to {share}");
    // The step time is each side's overview average.
    let step = comparison.step_time_ms.unwrap();
    for (path, value) in [(b, step.base), (c, step.candidate)] {
        let overview = common::json(&["tool", path, "overview_page"]);
        let average = overview["input"]["step_time"]["average"].as_f64().unwrap();
        assert_eq!(average, value, "{path}");
    }
    assert!(comparison.verdict.contains("host compute"), "{}", comparison.verdict);
}

fn recapture(case: &str) -> String {
    data(&format!("compare/{case}")).to_str().unwrap().to_string()
}

#[test]
fn two_captures_of_one_program_match_and_a_changed_program_is_slower() {
    let again = common::json(&["compare", &recapture("base"), &recapture("again")]);
    assert_eq!(again["differences"], serde_json::json!([]));
    // Ten steps captured each time; both sides find the same number of whole ones.
    let steps = again["base"]["steps"].as_u64().unwrap();
    assert!(steps > 5 && again["candidate"]["steps"].as_u64() == Some(steps), "{again}");
    let changed = common::json(&["compare", &recapture("base"), &recapture("changed")]);
    let step = &changed["step_time_ms"];
    let (base, candidate) = (step["base"].as_f64().unwrap(), step["candidate"].as_f64().unwrap());
    assert!(candidate > 2.0 * base, "{step}");
    assert_eq!(step["delta"].as_f64().unwrap(), candidate - base);
    assert!(changed["verdict"].as_str().unwrap().starts_with("Step time +"), "{}", changed["verdict"]);
}

#[test]
fn the_gate_exits_2_only_when_the_candidate_is_slower_than_allowed() {
    let (base, changed) = (recapture("base"), recapture("changed"));
    let gate = |b: &str, c: &str, pct: &str| proflens(&["compare", b, c, "--fail-if-slower", pct]);
    let slower = gate(&base, &changed, "50");
    assert_eq!(slower.status.code(), Some(2), "{}", String::from_utf8_lossy(&slower.stderr));
    assert!(String::from_utf8_lossy(&slower.stderr).contains("% slower than the baseline"));
    // The comparison is printed before the verdict.
    let printed: Value = serde_json::from_slice(&slower.stdout).unwrap();
    assert!(printed["step_time_ms"]["delta_pct"].as_f64().unwrap() > 50.0);
    assert_eq!(gate(&changed, &base, "5").status.code(), Some(0), "faster passes");
    assert_eq!(gate(&base, &base, "0").status.code(), Some(0), "unchanged passes at 0 %");
    // A huge allowance passes even the slower candidate.
    assert_eq!(gate(&base, &changed, "100000").status.code(), Some(0));
}

#[test]
fn failures_exit_1_with_a_plain_message() {
    let base = recapture("base");
    let no_steps = data("xspace/external/tw003.xplane.pb");
    let garbage = data("bad/random.xplane.pb");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["compare", &base, no_steps.to_str().unwrap(), "--fail-if-slower", "5"],
            "needs the step time of both sides",
        ),
        (vec!["compare", &base, garbage.to_str().unwrap()], "the candidate ("),
        (vec!["compare", garbage.to_str().unwrap(), &base], "the baseline ("),
        (vec!["compare", &base, &base, "--tool", "input_pipeline_analyzer"], "there is no comparison for"),
        (vec!["compare", &base, &base, "--tool", "trace_diff"], "compares two PyTorch traces"),
        (vec!["compare", &base, &base, "--fail-if-slower=-3"], "percentage"),
        (vec!["compare", &base], "CANDIDATE"),
    ];
    for (args, message) in cases {
        let out = proflens(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty() || args.contains(&"--fail-if-slower"), "{args:?}");
    }
}

#[test]
fn markdown_and_csv_reports() {
    let (b, c) = (data("xspace/custom_loop"), data("xspace/custom_loop_xla"));
    let (b, c) = (b.to_str().unwrap(), c.to_str().unwrap());
    let md = proflens(&["compare", b, c, "--format", "md"]);
    let md = String::from_utf8(md.stdout).unwrap();
    assert!(md.starts_with("## Proflens comparison: overview_page"), "{md}");
    assert!(md.contains("**Step time:**") && md.contains("| Host compute |"), "{md}");
    let csv = proflens(&["compare", b, c, "--tool", "framework_op_stats", "--format", "csv"]);
    let csv = String::from_utf8(csv.stdout).unwrap();
    assert!(csv.starts_with("Side,Type,Operation,status,base_count,candidate_count,base_us,"), "{csv}");
    assert!(csv.lines().count() > 20);
}

#[test]
fn trace_diff_prints_htas_rows_in_htas_column_names() {
    let dir = data("kineto/kineto-trace-diff-a100-v100");
    let (control, test) = (dir.join("control.json.gz"), dir.join("test.json.gz"));
    let printed = common::json(&["compare", control.to_str().unwrap(), test.to_str().unwrap(), "--tool", "trace_diff"]);
    let golden: Value =
        serde_json::from_slice(&std::fs::read(dir.join("goldens/hta_trace_diff.all_iterations.json")).unwrap())
            .unwrap();
    let (rows, expected) = (printed["trace_diff"]["rows"].as_array().unwrap(), golden["rows"].as_array().unwrap());
    assert_eq!(rows.len(), expected.len());
    // HTA writes its numbers as floats; the values are whole (µs, counts): equal exactly.
    for (row, want) in rows.iter().zip(expected) {
        let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
        assert_eq!(keys(row), keys(want));
        for (key, value) in want.as_object().unwrap() {
            match value.as_f64() {
                Some(number) => assert_eq!(row[key].as_f64(), Some(number), "{} {key}", want["name"]),
                None => assert_eq!(&row[key], value, "{} {key}", want["name"]),
            }
        }
    }
    assert_eq!(printed["trace_diff"]["control_iterations"], serde_json::json!([1009, 1010, 1011, 1012, 1013, 1014]));
}

#[test]
fn two_captures_of_one_tensorflow_program_have_the_same_ops() {
    let dir = data("compare/tf_custom_loop");
    let (first, second) = (dir.join("first"), dir.join("second"));
    let printed =
        common::json(&["compare", first.to_str().unwrap(), second.to_str().unwrap(), "--tool", "framework_op_stats"]);
    let rows = printed["table"]["rows"].as_array().unwrap();
    assert!(rows.len() > 100, "{} ops", rows.len());
    // Every op is on both sides, as often: only the times differ.
    for row in rows {
        assert!(row["status"] == "changed" || row["status"] == "same", "{}", row["key"]);
        assert_eq!(row["base_count"], row["candidate_count"], "{}", row["key"]);
    }
    assert_eq!(printed["differences"], serde_json::json!([]));
}

/// Each finding's cost per step on one side, from `proflens advise`.
fn advised(path: &str) -> (f64, std::collections::HashMap<String, f64>) {
    let advice = common::json(&["advise", path]);
    let costs = advice["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["id"].as_str().unwrap().to_string(), f["cost_ms_per_step"].as_f64().unwrap()))
        .collect();
    (advice["step_ms"].as_f64().unwrap(), costs)
}

#[test]
fn the_advisor_comparison_is_each_sides_advice_finding_by_finding() {
    let trace_diff = data("kineto/kineto-trace-diff-a100-v100");
    let pairs = [
        (recapture("base"), recapture("changed")),
        (
            trace_diff.join("control.json.gz").to_str().unwrap().to_string(),
            trace_diff.join("test.json.gz").to_str().unwrap().to_string(),
        ),
    ];
    for (b, c) in &pairs {
        let out = proflens(&["compare", b, c, "--tool", "advisor", "--format", "json"]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let comparison: Comparison = serde_json::from_slice(&out.stdout).unwrap();
        let advice = comparison.advice.as_ref().expect("an advisor comparison");
        let ((base_step, base), (candidate_step, candidate)) = (advised(b), advised(c));
        assert_eq!((advice.base_step_ms, advice.candidate_step_ms), (base_step, candidate_step), "{c}");
        let step_change = candidate_step - base_step;
        assert_eq!(advice.step_change_ms, step_change, "{c}");
        // One row per finding on either side.
        let mut ids: Vec<&String> = base.keys().chain(candidate.keys()).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(advice.rows.len(), ids.len(), "{c}");
        for r in &advice.rows {
            let (bv, cv) = (base.get(&r.id).copied(), candidate.get(&r.id).copied());
            assert_eq!((r.base_ms, r.candidate_ms), (bv, cv), "{c} {}", r.id);
            let change = cv.unwrap_or(0.0) - bv.unwrap_or(0.0);
            assert!((r.change_ms - change).abs() < 1e-12, "{c} {}: {} vs {change}", r.id, r.change_ms);
            let share = r.share_of_step_change.expect("the step time changed");
            assert!((share - change / step_change).abs() < 1e-12, "{c} {}", r.id);
            let expected = match (bv, cv) {
                (None, _) => ChangeStatus::New,
                (_, None) => ChangeStatus::Gone,
                _ if change > 0.0 => ChangeStatus::Grew,
                _ if change < 0.0 => ChangeStatus::Shrank,
                _ => ChangeStatus::Same,
            };
            assert_eq!(r.status, expected, "{c} {}", r.id);
        }
        // What made it slower first, largest first; then what got faster.
        let slower = |s: ChangeStatus| matches!(s, ChangeStatus::New | ChangeStatus::Grew);
        let first_faster = advice.rows.iter().position(|r| !slower(r.status)).unwrap_or(advice.rows.len());
        assert!(advice.rows[first_faster..].iter().all(|r| !slower(r.status)), "{c}");
        for pair in advice.rows[..first_faster].windows(2) {
            assert!(pair[0].change_ms >= pair[1].change_ms, "{c}");
        }
        // The CSV has a line per row; the report a table of them.
        let csv =
            String::from_utf8(proflens(&["compare", b, c, "--tool", "advisor", "--format", "csv"]).stdout).unwrap();
        assert!(csv.starts_with("id,title,status,"), "{csv}");
        assert_eq!(csv.lines().count(), advice.rows.len() + 1, "{csv}");
        let md = String::from_utf8(proflens(&["compare", b, c, "--tool", "advisor", "--format", "md"]).stdout).unwrap();
        assert!(md.contains("The Advisor's findings") && md.contains("| Share of step change |"), "{md}");
    }
}
