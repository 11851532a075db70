//! Stragglers against HTA 0.5.0's `get_potential_stragglers` goldens of the
//! two-rank job (`tests/data/kineto/kineto-multirank-sampled/goldens/
//! hta_potential_stragglers{,.include_last_step}.json`, copied from the
//! external fixtures), through the tool's `--format hta` output.
//!
//! Tolerance: the ranks named, the per-rank counts, the load and parameters,
//! the iterations, each candidate row's columns (the same set as HTA's), and
//! its rank, iteration, stream, name, `ts` and `dur` (whole µs) must be
//! **equal**; `normalized_start_time` and `duration` (ratios of µs) within
//! **4 ε relative** ([`RATIO_TOLERANCE`]: pandas divides in another order;
//! one value of the `include_last_step` golden differs in its last bit).

use proflens_analysis::context::Rendered;
use proflens_analysis::tools::stragglers::{stragglers, RankSummary};
use serde_json::Value;

/// Relative tolerance of the ratios (see the module docs).
const RATIO_TOLERANCE: f64 = 4.0 * f64::EPSILON;

const CASE: &str = "kineto/kineto-multirank-sampled";

fn check(golden_file: &str, include_last: bool) {
    let dir = proflens_tests::data_dir().join(CASE);
    let golden: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("goldens").join(golden_file)).unwrap()).unwrap();
    let summaries: Vec<RankSummary> = golden["load"]["ranks"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(rank, file)| {
            let bytes = std::fs::read(dir.join(file.as_str().unwrap())).unwrap();
            let profile = proflens_format::load_profile(&bytes, &Default::default(), &mut |_| {}).unwrap();
            RankSummary::new(rank.parse().unwrap(), file.as_str().unwrap(), &profile, include_last)
        })
        .collect();
    let num_candidates = golden["params"]["num_candidates"].as_u64().unwrap() as usize;
    let got = stragglers(&summaries, num_candidates, include_last).unwrap().hta().unwrap();
    for key in ["potential_stragglers", "straggler_counts"] {
        assert_eq!(got[key], golden[key], "{golden_file}: {key}");
    }
    assert_eq!(got["load"], golden["load"], "{golden_file}: load (ranks, steps used)");
    assert_eq!(got["params"], golden["params"], "{golden_file}: params");
    assert_eq!(got["candidate_metric"]["metric"], golden["candidate_metric"]["metric"]);
    let (rows, want) =
        (got["candidate_metric"]["rows"].as_array().unwrap(), golden["candidate_metric"]["rows"].as_array().unwrap());
    assert_eq!(rows.len(), want.len(), "{golden_file}: rows");
    for (r, w) in rows.iter().zip(want) {
        let (rk, wk): (Vec<&String>, Vec<&String>) =
            (r.as_object().unwrap().keys().collect(), w.as_object().unwrap().keys().collect());
        assert_eq!(rk, wk, "{golden_file}: columns");
        for key in ["rank", "iteration", "stream", "name", "ts"] {
            assert_eq!(r[key], w[key], "{golden_file}: {key} of {w}");
        }
        assert_eq!(r["dur"].as_f64(), w["dur"].as_f64(), "{golden_file}: dur of {w}");
        for key in ["normalized_start_time", "duration"] {
            let (a, b) = (r[key].as_f64().unwrap(), w[key].as_f64().unwrap());
            assert!((a - b).abs() <= RATIO_TOLERANCE * b.abs(), "{golden_file}: {key} {a} vs {b} in {w}");
        }
    }
}

#[test]
fn default_load_matches_hta() {
    check("hta_potential_stragglers.json", false);
}

#[test]
fn with_the_last_step_matches_hta() {
    check("hta_potential_stragglers.include_last_step.json", true);
}
