//! HLO stats against XProf 2.24's goldens on two AMD GPU profiles and a TPU
//! profile: the same columns, the same rows in the same order with equal
//! text cells (program, category, name, HLO text, framework op, bound-by,
//! source) and occurrences; times, percentages and rates within 1%.

use proflens_analysis::passes::xla_ops::xla_ops_of;
use proflens_analysis::tools::hlo_stats::{hlo_stats, to_csv, to_xprof_json};
use proflens_tests::{data_dir, load, table_rows};
use serde_json::Value;

fn check(file: &str, case: &str) {
    let profile = load(&data_dir().join("xspace/external").join(file)).unwrap();
    let modules = proflens_format::hlo::hlo_modules(&profile);
    let view = hlo_stats(&xla_ops_of(&profile, &modules.modules));
    let ours = to_xprof_json(&view);
    let theirs: Value =
        serde_json::from_slice(&std::fs::read(data_dir().join("goldens").join(case).join("hlo_stats.json")).unwrap())
            .unwrap();
    assert_eq!(ours["cols"], theirs["cols"], "{case}: columns");
    let (o_rows, t_rows) = (table_rows(&ours), table_rows(&theirs));
    assert_eq!(o_rows.len(), t_rows.len(), "{case}: rows");
    let ids: Vec<&str> = theirs["cols"].as_array().unwrap().iter().map(|c| c["id"].as_str().unwrap()).collect();
    for (o, t) in o_rows.iter().zip(&t_rows) {
        for (i, id) in ids.iter().enumerate() {
            let here = format!("{case} {} {id}", t[3]);
            match (&o[i], &t[i]) {
                (Value::Number(a), Value::Number(b)) => {
                    let (a, b) = (a.as_f64().unwrap(), b.as_f64().unwrap());
                    assert!((a - b).abs() <= 0.01 * b.abs() + 1e-9, "{here}: {a} vs {b}");
                }
                (a, b) => assert_eq!(a, b, "{here}"),
            }
        }
    }
    let csv = to_csv(&view);
    assert_eq!(
        csv.lines().count(),
        o_rows.len() + csv.lines().next().map_or(0, |_| 1) + count_embedded_newlines(&view)
    );
}

/// Lines that quoted CSV fields (source stacks) add.
fn count_embedded_newlines(view: &proflens_analysis::tools::hlo_stats::HloStats) -> usize {
    view.rows.iter().map(|r| r.source_stack.matches('\n').count()).sum()
}

#[test]
fn amd_gemm_hlo_stats_match_xprof() {
    check("tw003.xplane.pb", "jax-mi300x-gemm-xplane");
}

#[test]
fn amd_conv_hlo_stats_match_xprof() {
    check("chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb", "jax-mi300x-conv-xplane-jax06");
}

#[test]
fn tpu_hlo_stats_match_xprof() {
    check("tpu_inference_2.xplane.pb", "jax-tpu-v6e-inference-xplane");
}
