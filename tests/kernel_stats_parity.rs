//! GPU kernel stats against XProf 2.24's goldens: the same kernels (name,
//! launch dimensions, registers) in the same order, occurrences equal, total
//! time within 1%.

use proflens_analysis::kernel_stats::{kernel_stats, to_xprof_json};
use proflens_tests::{data_dir, load, table_rows};
use serde_json::Value;

fn check(file: &str, golden: &str, compare_op_names: bool) {
    let profile = load(&data_dir().join("xspace/external").join(file)).unwrap();
    let ours = to_xprof_json(&kernel_stats(&profile));
    let theirs: Value =
        serde_json::from_slice(&std::fs::read(data_dir().join("goldens").join(golden)).unwrap()).unwrap();
    assert_eq!(ours["cols"], theirs["cols"], "{golden}");
    let (ours, theirs) = (table_rows(&ours), table_rows(&theirs));
    assert_eq!(ours.len(), theirs.len(), "{golden}: kernel rows");
    for (o, t) in ours.iter().zip(&theirs) {
        // name, registers, shared memory, block, grid, TensorCore use, occurrences
        for col in [1, 2, 3, 4, 5, 8, 10] {
            assert_eq!(o[col], t[col], "{golden} {} column {col}", t[1]);
        }
        if compare_op_names {
            assert_eq!(o[9], t[9], "{golden} op name");
        }
        let (a, b) = (o[11].as_f64().unwrap(), t[11].as_f64().unwrap());
        assert!((a - b).abs() <= 0.01 * b, "{golden} {}: total {a} vs {b}", t[1]);
    }
}

#[test]
fn nvidia_bert_kernels_match_xprof() {
    check("34.83.195.179_6003.xplane.pb", "tf-gpu-multiworker-bert-xplane/kernel_stats.34.83.195.179_6003.json", true);
}

#[test]
fn amd_gemm_kernels_match_xprof() {
    // Op names of XLA kernels come from HLO protos (not read yet: docs/deviations.md).
    check("tw003.xplane.pb", "jax-mi300x-gemm-xplane/kernel_stats.json", false);
}

#[test]
fn amd_conv_kernels_match_xprof() {
    check(
        "chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb",
        "jax-mi300x-conv-xplane-jax06/kernel_stats.json",
        false,
    );
}
