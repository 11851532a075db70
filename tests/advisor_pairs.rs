//! The Advisor's predicted gains against real before/after profiles: each
//! pair in `tests/data/advisor_pairs` is one job recorded as it was
//! ("before") and with the fix applied ("after"; README.md there says what
//! changed). The "before" profile's finding must rank first, and the
//! measured gain, the average step time before less after, must lie inside
//! its predicted range. No tolerance: the range is the prediction.

use proflens_analysis::advice::Advice;
use proflens_analysis::context::Request;
use proflens_analysis::registry;
use proflens_tests::{data_dir, host_context};

/// (pair, the finding its fix answers).
const PAIRS: &[(&str, &str)] = &[
    ("input_bound", "input_bound"),
    ("host_between_steps", "host_between_steps"),
    ("eager", "eager_ops"),
    ("jax_jit", "eager_ops"),
];

fn advice(pair: &str, variant: &str) -> Advice {
    let path = data_dir().join("advisor_pairs").join(pair).join(variant).join("vm.xplane.pb");
    let host = host_context("vm", &path);
    let out = registry::run(registry::find("advisor").unwrap(), &[host], &Request::default()).expect("advisor runs");
    out.model_as::<Advice>().expect("advice").clone()
}

#[test]
fn measured_gains_lie_in_the_predicted_ranges() {
    let mut table = String::from("pair | finding | predicted ms/step | measured ms/step\n");
    let mut misses = Vec::new();
    for &(pair, id) in PAIRS {
        let (before, after) = (advice(pair, "before"), advice(pair, "after"));
        let finding = before.finding(id).unwrap_or_else(|| panic!("{pair}: no {id} finding: {:?}", before.findings));
        assert_eq!(before.findings[0].id, id, "{pair}: {id} is not the top finding");
        let measured = before.step_ms - after.step_ms;
        let g = finding.gain_ms_per_step;
        table += &format!("{pair} | {id} | {:.3}–{:.3} | {measured:.3}\n", g.low, g.high);
        if !(g.low <= measured && measured <= g.high) {
            misses.push(pair);
        }
        // The fix took the finding away, or left less of it.
        let left = after.finding(id).map_or(0.0, |f| f.cost_ms_per_step);
        assert!(left < finding.cost_ms_per_step, "{pair}: {id} did not shrink ({left} ms left)");
    }
    eprintln!("{table}");
    assert!(misses.is_empty(), "measured gains outside the predicted range: {misses:?}\n{table}");
}
