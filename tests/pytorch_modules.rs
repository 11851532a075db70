//! Issue #18 item 6, "beyond HTA": the module view, operators grouped by
//! input shape, CUDA graph launches and the AMD matrix-core rule, on the
//! real Kineto fixtures. HTA has no such analyses, so there are no goldens:
//! every number here was computed straight from the trace JSON by an
//! independent script,
//!
//!     python3 tests/scripts/pytorch_facts.py tests/data/kineto/<case>/<trace>.json.gz
//!
//! and copied from its output. Tolerance: counts exact; times, which the
//! traces give as float µs with ns decimals, within 2 ns per value (the
//! importer's float → ps conversion), exact on integer-µs traces.

use proflens_analysis::passes::kineto::KinetoIndex;
use proflens_analysis::passes::tensor_core::GpuVendor;
use proflens_analysis::tools::framework_op_stats::pytorch as operators;
use proflens_analysis::tools::kernel_stats::pytorch as torch_kernels;
use proflens_analysis::tools::modules::{modules, NO_MODULES};

fn index(case: &str, file: &str) -> KinetoIndex {
    let path = proflens_tests::data_dir().join("kineto").join(case).join(file);
    let bytes = std::fs::read(path).unwrap();
    KinetoIndex::new(&proflens_format::load_profile(&bytes, &Default::default(), &mut |_| {}).unwrap())
}

const BERT: &str = "gaunernst_bert-small-uncased__1016001.json.gz";

fn close_us(ps: i64, us: f64, what: &str) {
    let got = ps as f64 / 1e6;
    assert!((got - us).abs() <= 0.002, "{what}: {got} µs, the script says {us}");
}

/// (path, occurrences, host µs, kernels, kernel µs) as the script prints
/// its four paths with the most kernel time.
type ModuleFact = (&'static str, u64, f64, u64, f64);

fn check_modules(index: &KinetoIndex, calls: u64, paths: usize, facts: &[ModuleFact]) {
    let m = modules(index);
    assert_eq!(m.message, None);
    assert_eq!((m.calls, m.rows.len()), (calls, paths));
    for &(path, occurrences, host_us, kernels, kernel_us) in facts {
        let row = m.rows.iter().find(|r| r.path == path).unwrap_or_else(|| panic!("no module {path}"));
        assert_eq!((row.occurrences, row.kernels_total), (occurrences, kernels), "{path}");
        close_us(row.host_total_ps, host_us, path);
        close_us(row.kernel_total_ps, kernel_us, path);
    }
}

#[test]
fn bert_on_h100_modules_match_the_trace() {
    check_modules(
        &index("kineto-h100-hf-inference", BERT),
        84,
        84,
        &[
            ("BertLMHeadModel_0", 1, 4216.941, 60, 307.197),
            ("BertLMHeadModel_0/BertModel_0", 1, 3910.787, 56, 255.101),
            ("BertLMHeadModel_0/BertModel_0/BertEncoder_0", 1, 3230.337, 48, 233.182),
            ("BertLMHeadModel_0/BertModel_0/BertEncoder_0/BertLayer_0", 1, 984.904, 12, 58.845),
        ],
    );
}

#[test]
fn bert_on_mi300x_modules_match_the_trace() {
    check_modules(
        &index("kineto-mi300x-hf-inference", BERT),
        84,
        84,
        &[
            ("BertLMHeadModel_0", 1, 3786.081, 60, 388.344),
            ("BertLMHeadModel_0/BertModel_0", 1, 3484.547, 56, 350.423),
            ("BertLMHeadModel_0/BertModel_0/BertEncoder_0", 1, 2869.448, 48, 323.971),
            ("BertLMHeadModel_0/BertModel_0/BertEncoder_0/BertLayer_0", 1, 980.236, 12, 85.301),
        ],
    );
}

#[test]
fn a_trace_without_module_events_says_how_to_get_them() {
    let m = modules(&index("kineto-trace-diff-a100-v100", "test.json.gz"));
    assert!(m.rows.is_empty());
    assert_eq!(m.message.as_deref(), Some(NO_MODULES));
}

/// Distinct (op, Input Dims) pairs and the two with the most calls.
fn check_shapes(index: &KinetoIndex, distinct: usize, top: [(&str, &str, u64); 2]) {
    let rows = operators::operator_stats(index);
    let with_dims = rows.iter().flat_map(|r| r.by_input_shape.iter().filter(|s| !s.input_dims.is_empty()));
    assert_eq!(with_dims.count(), distinct);
    for (name, dims, calls) in top {
        let row = rows.iter().find(|r| r.name == name).unwrap();
        let shape = row.by_input_shape.iter().find(|s| s.input_dims == dims).unwrap();
        assert_eq!(shape.calls, calls, "{name} {dims}");
    }
}

#[test]
fn operators_group_by_input_shape_as_the_trace_records_them() {
    check_shapes(
        &index("kineto-h100-hf-inference", BERT),
        65,
        [("aten::empty", "[[],[],[],[],[],[]]", 75), ("aten::view", "[[1,141,512],[]]", 34)],
    );
    check_shapes(
        &index("kineto-trace-diff-a100-v100", "test.json.gz"),
        1259,
        [("aten::empty_strided", "[[],[],[],[],[],[]]", 2886), ("aten::add_", "[[],[],[]]", 1566)],
    );
}

#[test]
fn cuda_graph_replays_count_for_the_compiled_function() {
    // 12 cudaGraphLaunch calls replay 4,464 kernels (265,747 µs); their
    // External id names no op, so only the op around the launch owns them.
    let index = index("kineto-trace-diff-a100-v100", "test.json.gz");
    let rows = operators::operator_stats(&index);
    let row = |n: &str| rows.iter().find(|r| r.name == n).unwrap();
    assert_eq!(row("CompiledFunction").device_self_ps, 95_694_000_000);
    assert_eq!(row("CompiledFunctionBackward").device_self_ps, 171_432_000_000);
    let kernels = torch_kernels::kernel_stats(&index);
    let compiled: u64 =
        kernels.iter().filter(|k| k.op_name.starts_with("CompiledFunction")).map(|k| k.occurrences).sum();
    assert_eq!(compiled, 4_464);
}

#[test]
fn each_vendor_s_matrix_unit_rule() {
    // MI300X: 30 of 60 kernels use the matrix cores by XProf's rule: 26
    // Tensile `_MI16x16x1` tiles and 4 `attn_fwd` attention kernels; the
    // H100 trace: 9 of 60 match NVIDIA's TensorCore patterns.
    for (case, vendor, matrix) in
        [("kineto-mi300x-hf-inference", GpuVendor::Amd, 30), ("kineto-h100-hf-inference", GpuVendor::Nvidia, 9)]
    {
        let index = index(case, BERT);
        assert_eq!(index.vendor, vendor, "{case}");
        let rows = torch_kernels::kernel_stats(&index);
        assert_eq!(rows.iter().map(|r| r.occurrences).sum::<u64>(), 60, "{case}");
        let tc: u64 = rows.iter().filter(|r| r.uses_tensor_core).map(|r| r.occurrences).sum();
        assert_eq!(tc, matrix, "{case}");
    }
}
