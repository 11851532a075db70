//! GPU kernel stats against XProf 2.24's goldens: the same kernels in the
//! same order and every cell equal (name, launch dimensions, registers,
//! shared memory, TensorCore columns, op name, occurrences), durations within
//! 1e-9 relative. XLA kernels take their op names from the HLO protos.

use proflens_analysis::hlo::gpu::GpuHlo;
use proflens_analysis::passes::kernels::kernel_stats_with_hlo;
use proflens_analysis::tools::kernel_stats::to_xprof_json;
use proflens_tests::{data_dir, load, table_rows};
use serde_json::Value;

fn check(file: &str, golden: &str) {
    let profile = load(&data_dir().join("xspace/external").join(file)).unwrap();
    let modules = proflens_format::hlo::hlo_modules(&profile).modules;
    let ours = to_xprof_json(&kernel_stats_with_hlo(&profile, &GpuHlo::new(&modules)));
    let theirs: Value =
        serde_json::from_slice(&std::fs::read(data_dir().join("goldens").join(golden)).unwrap()).unwrap();
    assert_eq!(ours["cols"], theirs["cols"], "{golden}");
    let (ours, theirs) = (table_rows(&ours), table_rows(&theirs));
    assert_eq!(ours.len(), theirs.len(), "{golden}: kernel rows");
    for (o, t) in ours.iter().zip(&theirs) {
        for (col, (a, b)) in o.iter().zip(t).enumerate() {
            match (a.as_f64(), b.as_f64()) {
                (Some(a), Some(b)) => {
                    assert!((a - b).abs() <= 1e-9 * b.abs().max(1.0), "{golden} {} column {col}: {a} vs {b}", t[1])
                }
                _ => assert_eq!(a, b, "{golden} {} column {col}", t[1]),
            }
        }
    }
}

#[test]
fn nvidia_bert_kernels_match_xprof() {
    check("34.83.195.179_6003.xplane.pb", "tf-gpu-multiworker-bert-xplane/kernel_stats.34.83.195.179_6003.json");
}

#[test]
fn amd_gemm_kernels_match_xprof() {
    check("tw003.xplane.pb", "jax-mi300x-gemm-xplane/kernel_stats.json");
}

#[test]
fn amd_conv_kernels_match_xprof() {
    check("chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb", "jax-mi300x-conv-xplane-jax06/kernel_stats.json");
}
