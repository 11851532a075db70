//! HLO stats against XProf 2.24's goldens on two AMD GPU profiles and a TPU
//! profile: the same columns and table properties, the same rows in the same
//! order, every cell of every row.
//!
//! Tolerances: text cells (program, category, name, HLO text, framework op,
//! bound-by, source) equal; rank, occurrences and program id exact; every
//! other number (times, percentages, rates) within [`Tol::LAST_BITS`] (8 ε
//! relative: XProf's formulas evaluated in another order). One exception: on
//! the MI300X gemm profile `measured_memory_bw` and `operational_intensity`
//! within 1e-7 relative ([`COST_MODEL_BYTES`]: the HLO cost model's bytes of
//! `wrapped_broadcast` fusions).

use proflens_analysis::passes::xla_ops::xla_ops_of;
use proflens_analysis::tools::hlo_stats::{hlo_stats, to_csv, to_xprof_json};
use proflens_tests::json_diff::{diff, Mismatches, Tol};
use proflens_tests::{data_dir, load, table_rows};
use serde_json::Value;

/// The allowed difference of a number column of a fixture (see the module docs).
fn tolerance(case: &str, column: &str) -> Tol {
    match column {
        "rank" | "occurrences" | "program_id" => Tol::EXACT,
        "measured_memory_bw" | "operational_intensity" if case == "jax-mi300x-gemm-xplane" => COST_MODEL_BYTES,
        _ => Tol::LAST_BITS,
    }
}

/// The bytes of `wrapped_broadcast` fusions on the MI300X gemm profile: the
/// HLO cost model counts 4 bytes more than XProf's (docs/deviations.md,
/// "Roofline model"), ≤ 6e-8 of the bytes.
const COST_MODEL_BYTES: Tol = Tol::rel(1e-7);

fn check(file: &str, case: &str) {
    let profile = load(&data_dir().join("xspace/external").join(file)).unwrap();
    let modules = proflens_format::hlo::hlo_modules(&profile);
    let view = hlo_stats(&xla_ops_of(&profile, &modules.modules));
    let ours = to_xprof_json(&view);
    let theirs: Value =
        serde_json::from_slice(&std::fs::read(data_dir().join("goldens").join(case).join("hlo_stats.json")).unwrap())
            .unwrap();
    let mut out = Mismatches::default();
    diff(&ours["cols"], &theirs["cols"], &format!("{case} cols"), &|_| Tol::EXACT, &mut out);
    diff(&ours["p"], &theirs["p"], &format!("{case} p"), &|_| Tol::EXACT, &mut out);
    let (o_rows, t_rows) = (table_rows(&ours), table_rows(&theirs));
    if o_rows.len() != t_rows.len() {
        out.push(format!("{case}: {} rows, golden {}", o_rows.len(), t_rows.len()));
    }
    let ids: Vec<&str> = theirs["cols"].as_array().unwrap().iter().map(|c| c["id"].as_str().unwrap()).collect();
    for (n, (o, t)) in o_rows.iter().zip(&t_rows).enumerate() {
        for (i, id) in ids.iter().enumerate() {
            out.leaf(&format!("{case} row {n} ({}) {id}", t[3]), &o[i], &t[i], tolerance(case, id));
        }
    }
    out.assert_none(case);
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
