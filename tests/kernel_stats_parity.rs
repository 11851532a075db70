//! GPU kernel stats against XProf 2.24's goldens: the same columns, the same
//! kernels in the same order and every cell equal (name, launch dimensions,
//! registers, shared memory, occupancy, TensorCore columns, op name,
//! occurrences, durations): tolerance none ([`tolerance`]), durations being
//! sums and quotients of whole ns computed as XProf does. XLA kernels take their op names from the HLO protos.
//! Over all hosts, `--format xprof` lists each host's kernels apart, as
//! XProf's ALL_HOSTS golden does.

use proflens_analysis::context::{Format, Request};
use proflens_analysis::hlo::gpu::GpuHlo;
use proflens_analysis::passes::kernels::kernel_stats_with_hlo;
use proflens_analysis::registry;
use proflens_analysis::tools::kernel_stats::to_xprof_json;
use proflens_analysis::tools::kernel_stats::KernelStats;
use proflens_tests::json_diff::{diff, Mismatches, Tol};
use proflens_tests::{data_dir, host_context, load, table_rows};
use serde_json::Value;

fn check(file: &str, golden: &str) {
    let profile = load(&data_dir().join("xspace/external").join(file)).unwrap();
    let modules = proflens_format::hlo::hlo_modules(&profile).modules;
    same_table(&to_xprof_json(&kernel_stats_with_hlo(&profile, &GpuHlo::new(&modules))), golden);
}

fn same_table(ours: &Value, golden: &str) {
    let theirs: Value =
        serde_json::from_slice(&std::fs::read(data_dir().join("goldens").join(golden)).unwrap()).unwrap();
    let mut out = Mismatches::default();
    diff(&ours["cols"], &theirs["cols"], &format!("{golden} cols"), &|_| Tol::EXACT, &mut out);
    diff(&ours["p"], &theirs["p"], &format!("{golden} p"), &|_| Tol::EXACT, &mut out);
    let ids: Vec<&str> = theirs["cols"].as_array().unwrap().iter().map(|c| c["id"].as_str().unwrap()).collect();
    let (ours, theirs) = (table_rows(ours), table_rows(&theirs));
    if ours.len() != theirs.len() {
        out.push(format!("{golden}: {} kernel rows, golden {}", ours.len(), theirs.len()));
    }
    for (n, (o, t)) in ours.iter().zip(&theirs).enumerate() {
        for (col, id) in ids.iter().enumerate() {
            out.leaf(&format!("{golden} row {n} ({}) {id}", t[1]), &o[col], &t[col], tolerance(id));
        }
    }
    out.assert_none(golden);
}

/// The allowed difference of a number column (see the module docs).
fn tolerance(_column: &str) -> Tol {
    Tol::EXACT
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

/// The two BERT hosts recorded the same data (the external fixtures' README:
/// their per-host goldens are byte-identical), so the one file kept here
/// stands for both, opened as two hosts. XProf's ALL_HOSTS table has 30 rows,
/// each host's 15 apart; merged they would be 15 rows of doubled counts.
#[test]
fn nvidia_bert_all_hosts_list_each_host_s_kernels() {
    let file = data_dir().join("xspace/external/34.83.195.179_6003.xplane.pb");
    let hosts = [host_context("34.83.195.179_6003", &file), host_context("34.83.195.180_6003", &file)];
    let tool = registry::find("kernel_stats").unwrap();
    let request = Request { format: Format::Xprof, ..Request::default() };
    let output = registry::run(tool, &hosts, &request).unwrap();
    let xprof: Value = serde_json::from_str(&output.text(Format::Xprof).unwrap()).unwrap();
    assert_eq!(table_rows(&xprof).len(), 30, "XProf's rows");
    same_table(&xprof, "tf-gpu-multiworker-bert-xplane/kernel_stats.ALL_HOSTS.json");
    // The merged view: one row per kernel, both hosts' launches added up.
    let stats = output.model_as::<KernelStats>().unwrap();
    assert_eq!(stats.kernels.len(), 15);
    let one = registry::run(tool, &hosts[..1], &request).unwrap();
    let one = &one.model_as::<KernelStats>().unwrap().kernels;
    for (merged, host) in stats.kernels.iter().zip(one) {
        let doubled = (&host.name, 2 * host.occurrences, 2 * host.total_ns);
        assert_eq!((&merged.name, merged.occurrences, merged.total_ns), doubled);
    }
    let hosts_of_top: Vec<&str> = stats.host_rows[..2].iter().map(|r| r.host.as_str()).collect();
    assert_eq!(hosts_of_top, ["34.83.195.179_6003", "34.83.195.180_6003"]);
}
