//! Op profile against XProf 2.24's goldens (op_profile.json = by program,
//! op_profile.by_category.json = by category), on two AMD GPU profiles and a
//! TPU profile.
//!
//! Compared: the whole document, every field of every node at every level
//! (device type, DVFS multiplier, node names in order, `numChildren`, every
//! metric — times, FLOPs, bytes and bandwidth arrays, utilisations,
//! occurrences, averages — and every XLA field: category, expression,
//! provenance, program id, source info, layout, fingerprint, kernel
//! metadata). Strings and key sets equal; every number within
//! [`Tol::LAST_BITS`] (8 ε relative: XProf's formulas evaluated in another
//! order; whole counts are exact below 5e14).

use proflens_analysis::passes::xla_ops::{program_names, xla_ops_of};
use proflens_analysis::tools::op_profile::{op_profile, to_xprof_json};
use proflens_tests::json_diff::{diff, Mismatches, Tol};
use proflens_tests::{data_dir, load};
use serde_json::Value;

fn ours(file: &str, by_category: bool) -> Value {
    let profile = load(&data_dir().join("xspace/external").join(file)).unwrap();
    let modules = proflens_format::hlo::hlo_modules(&profile);
    assert!(modules.errors.is_empty(), "{:?}", modules.errors);
    let db = xla_ops_of(&profile, &modules.modules);
    to_xprof_json(&op_profile(&db, &program_names(&modules.modules)), by_category)
}

fn golden(path: &str) -> Value {
    serde_json::from_slice(&std::fs::read(data_dir().join("goldens").join(path)).unwrap()).unwrap()
}

fn close(a: f64, b: f64, rel: f64, abs: f64) -> bool {
    (a - b).abs() <= rel * b.abs() + abs
}

/// The allowed difference of a number at `path` (see the module docs).
fn tolerance(_path: &str) -> Tol {
    Tol::LAST_BITS
}

/// Both documents of a fixture (by program, by category): every field of every node.
fn check(file: &str, case: &str) {
    for (by_category, golden_file) in [(false, "op_profile.json"), (true, "op_profile.by_category.json")] {
        let (o, t) = (ours(file, by_category), golden(&format!("{case}/{golden_file}")));
        let mut out = Mismatches::default();
        diff(&o, &t, &format!("{case} {golden_file}"), &tolerance, &mut out);
        out.assert_none(&format!("{case} {golden_file}"));
    }
}

#[test]
fn amd_gemm_op_profile_matches_xprof() {
    check("tw003.xplane.pb", "jax-mi300x-gemm-xplane");
}

#[test]
fn amd_conv_op_profile_matches_xprof() {
    check("chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb", "jax-mi300x-conv-xplane-jax06");
}

#[test]
fn tpu_op_profile_matches_xprof() {
    check("tpu_inference_2.xplane.pb", "jax-tpu-v6e-inference-xplane");
}

/// `tree` as XProf's combiner makes it of two identical hosts: counts, times,
/// FLOPs and bytes doubled; rates, utilisations and averages unchanged. A
/// fusion's fused instructions (no time of their own, under an op node) are
/// copied from the first host, so they stay as they are.
fn doubled(tree: &Value) -> Value {
    let mut out = tree.clone();
    let fused = |c: &Value| c["metrics"]["rawTime"].as_f64() == Some(0.0) && tree.get("xla").is_some();
    if let Some(m) = out.get_mut("metrics").and_then(Value::as_object_mut) {
        for key in ["rawTime", "rawFlops", "bf16Flops", "occurrences", "normalizedTimePs"] {
            let twice = match m.get(key) {
                Some(Value::Number(n)) if n.is_u64() => serde_json::json!(2 * n.as_u64().unwrap_or(0)),
                Some(Value::Number(n)) => serde_json::json!(2.0 * n.as_f64().unwrap_or(0.0)),
                _ => continue,
            };
            m.insert(key.into(), twice);
        }
        if let Some(bytes) = m.get_mut("rawBytesAccessedArray").and_then(Value::as_array_mut) {
            bytes.iter_mut().for_each(|b| *b = serde_json::json!(2.0 * b.as_f64().unwrap_or(0.0)));
        }
    }
    if let Some(children) = out.get_mut("children").and_then(Value::as_array_mut) {
        children.iter_mut().filter(|c| !fused(c)).for_each(|c| *c = doubled(c));
    }
    out
}

/// Every number within 1e-9 relative, everything else equal.
fn same_values(a: &Value, b: &Value, here: &str) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            assert_eq!(x.keys().collect::<Vec<_>>(), y.keys().collect::<Vec<_>>(), "{here}");
            x.iter().for_each(|(k, v)| same_values(v, &y[k], &format!("{here}/{k}")));
        }
        (Value::Array(x), Value::Array(y)) => {
            assert_eq!(x.len(), y.len(), "{here}");
            x.iter().zip(y).enumerate().for_each(|(i, (v, w))| same_values(v, w, &format!("{here}[{i}]")));
        }
        (x, y) => match (x.as_f64(), y.as_f64()) {
            (Some(p), Some(q)) => assert!(close(p, q, 1e-9, 1e-12), "{here}: {p} vs {q}"),
            _ => assert_eq!(x, y, "{here}"),
        },
    }
}

/// All hosts (the CLI without `--host`, the page's "All hosts"): the one
/// profile opened as two hosts gives XProf's combined op stats of two
/// identical hosts, i.e. the one-host tree with counts, times, FLOPs and
/// bytes doubled (within 1e-9 relative of our own one-host tree: a doubled
/// sum's last bits), and so the golden doubled within the tolerance above. XProf keeps no all-hosts
/// op profile golden; this is what its OpMetricsDbCombiner gives.
#[test]
fn two_identical_hosts_combine_to_doubled_trees() {
    use proflens_analysis::context::{Format, GroupBy, Request};
    use proflens_analysis::registry;
    for (file, case) in
        [("tw003.xplane.pb", "jax-mi300x-gemm-xplane"), ("tpu_inference_2.xplane.pb", "jax-tpu-v6e-inference-xplane")]
    {
        let path = data_dir().join("xspace/external").join(file);
        let hosts = [proflens_tests::host_context("a", &path), proflens_tests::host_context("b", &path)];
        let tool = registry::find("op_profile").unwrap();
        for (group_by, golden_file, keys) in [
            (GroupBy::Program, "op_profile.json", ["byProgram", "byProgramExcludeIdle"]),
            (GroupBy::Category, "op_profile.by_category.json", ["byCategory", "byCategoryExcludeIdle"]),
        ] {
            let request = Request { format: Format::Xprof, group_by, ..Request::default() };
            let text = |hosts: &[_]| registry::run(tool, hosts, &request).unwrap().text(Format::Xprof).unwrap();
            let both: Value = serde_json::from_str(&text(&hosts)).unwrap();
            let one: Value = serde_json::from_str(&text(&hosts[..1])).unwrap();
            let t = golden(&format!("{case}/{golden_file}"));
            assert_eq!(both["deviceType"], t["deviceType"]);
            for key in keys {
                same_values(&both[key], &doubled(&one[key]), &format!("{case} {key}"));
                let mut out = Mismatches::default();
                diff(&both[key], &doubled(&t[key]), &format!("{case} {key} doubled golden"), &tolerance, &mut out);
                out.assert_none(&format!("{case} {key}: two hosts against the golden doubled"));
            }
        }
    }
}
