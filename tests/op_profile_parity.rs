//! Op profile against XProf 2.24's goldens (op_profile.json = by program,
//! op_profile.by_category.json = by category), on two AMD GPU profiles and a
//! TPU profile.
//!
//! Tolerances: the same nodes (names, categories) in the same order at every
//! level; times within 1%; occurrences equal; FLOPS utilisation (`flops`)
//! within 0.01 (1 point) and raw FLOPs within 1%; HBM bytes within 1% where
//! XProf reports them (GPU bytes come from our cost model: docs/deviations.md).

use proflens_analysis::passes::xla_ops::{program_names, xla_ops_of};
use proflens_analysis::tools::op_profile::{op_profile, to_xprof_json};
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

/// Compares two trees node by node; `check_exprs` also compares the HLO text.
fn compare(o: &Value, t: &Value, path: &str, check_exprs: bool, mismatched_exprs: &mut Vec<String>) {
    let name = t["name"].as_str().unwrap();
    let here = format!("{path}/{name}");
    assert_eq!(o["name"], t["name"], "{path}: node name");
    let (om, tm) = (&o["metrics"], &t["metrics"]);
    let num = |v: &Value, k: &str| v[k].as_f64().unwrap_or(0.0);
    assert!(
        close(num(om, "rawTime"), num(tm, "rawTime"), 0.01, 0.0),
        "{here}: time {} vs {}",
        om["rawTime"],
        tm["rawTime"]
    );
    assert_eq!(om["occurrences"], tm["occurrences"], "{here}: occurrences");
    assert!(
        close(num(om, "rawFlops"), num(tm, "rawFlops"), 0.01, 0.0),
        "{here}: raw flops {} vs {}",
        om["rawFlops"],
        tm["rawFlops"]
    );
    assert!(
        (num(om, "flops") - num(tm, "flops")).abs() <= 0.01,
        "{here}: flops util {} vs {}",
        om["flops"],
        tm["flops"]
    );
    let bytes = |v: &Value| v["rawBytesAccessedArray"][0].as_f64().unwrap_or(0.0);
    assert!(close(bytes(om), bytes(tm), 0.01, 1.0), "{here}: HBM bytes {} vs {}", bytes(om), bytes(tm));
    let bw = |v: &Value| v["bandwidthUtils"][0].as_f64().unwrap_or(0.0);
    assert!((bw(om) - bw(tm)).abs() <= 0.01, "{here}: HBM util {} vs {}", bw(om), bw(tm));
    assert_eq!(o["numChildren"], t["numChildren"], "{here}: numChildren");
    match (o.get("xla"), t.get("xla")) {
        (Some(ox), Some(tx)) => {
            assert_eq!(ox["category"], tx["category"], "{here}: category");
            assert_eq!(ox["programId"], tx["programId"], "{here}: program id");
            if check_exprs {
                assert_eq!(ox["provenance"], tx["provenance"], "{here}: provenance");
                assert_eq!(ox["sourceInfo"], tx["sourceInfo"], "{here}: source info");
            }
            if ox["expression"] != tx["expression"] {
                mismatched_exprs.push(format!("{here}:\n  ours   {}\n  xprof  {}", ox["expression"], tx["expression"]));
            }
        }
        (None, None) => {}
        (a, b) => panic!("{here}: xla {a:?} vs {b:?}"),
    }
    let (oc, tc) = (o["children"].as_array().unwrap(), t["children"].as_array().unwrap());
    assert_eq!(oc.len(), tc.len(), "{here}: children");
    for (a, b) in oc.iter().zip(tc) {
        compare(a, b, &here, check_exprs, mismatched_exprs);
    }
}

/// `allowed_expr_mismatches`: HLO texts we knowingly print differently
/// (constants' literal values are not in our HLO subset).
fn check(file: &str, case: &str, check_exprs: bool, allowed_expr_mismatches: usize) {
    for (by_category, golden_file, keys) in [
        (false, "op_profile.json", ["byProgram", "byProgramExcludeIdle"]),
        (true, "op_profile.by_category.json", ["byCategory", "byCategoryExcludeIdle"]),
    ] {
        let (o, t) = (ours(file, by_category), golden(&format!("{case}/{golden_file}")));
        assert_eq!(o["deviceType"], t["deviceType"]);
        assert_eq!(o["aggDvfsTimeScaleMultiplier"], t["aggDvfsTimeScaleMultiplier"]);
        let mut mismatched = Vec::new();
        for key in keys {
            compare(&o[key], &t[key], key, check_exprs, &mut mismatched);
        }
        assert!(
            mismatched.len() <= allowed_expr_mismatches,
            "{case} {golden_file}: {} HLO texts differ:\n{}",
            mismatched.len(),
            mismatched.join("\n")
        );
    }
}

#[test]
fn amd_gemm_op_profile_matches_xprof() {
    check("tw003.xplane.pb", "jax-mi300x-gemm-xplane", true, 0);
}

#[test]
fn amd_conv_op_profile_matches_xprof() {
    check("chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb", "jax-mi300x-conv-xplane-jax06", true, 0);
}

#[test]
fn tpu_op_profile_matches_xprof() {
    check("tpu_inference_2.xplane.pb", "jax-tpu-v6e-inference-xplane", true, 0);
}
