//! CUPTI 13.0's own activity records, dumped on an NVIDIA H100
//! (`PROFLENS_CUPTI_DUMP`; ../tests/data/gpu_h100, recorded by
//! tests/scripts/gpu/run_all.sh) while `proflens-collect run` traced:
//!
//! - the PyTorch loop of the H200 run again (a second card and reading):
//!   12 `train N` ranges, every kernel in a step;
//! - a JAX loop (10 jit'd steps), with XLA's CUDA graphs and without
//!   (`XLA_FLAGS=--xla_gpu_enable_command_buffer=`). JAX under the injection
//!   differs from PyTorch in three ways seen here: XLA's own annotations
//!   arrive as NVTX ranges of the domain `TSL` (compiler passes, one
//!   `XlaModule` per execution, one `Thunk` per kernel launch), autotuning
//!   runs many kernels while compiling, and with CUDA graphs one graph
//!   launch call carries the correlation id of all the kernels it ran.
//!
//! Counts compared here are read from the raw dump's kind field (not through
//! the parser) or follow from the recording scripts.

use crate::cupti_records;

use cupti_records::records;
use proflens_analysis::passes::grouping::group_events;
use proflens_analysis::passes::kernels::kernel_stats;
use proflens_collector::cupti::raw::Dump;
use proflens_collector::cupti::steps;
use proflens_collector::cupti::{to_xspace, Capture, Record};
use prost::Message;
use std::collections::{BTreeMap, BTreeSet};

/// `CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL`.
const KIND_CONCURRENT_KERNEL: u32 = 10;
/// `jax_train.py --steps 10` and `torch_train.py --steps 12`.
const JAX_STEPS: usize = 10;
const TORCH_STEPS: usize = 12;

fn dump(case: &str) -> Dump {
    let path = format!("{}/../tests/data/gpu_h100/{case}/cupti_records.bin.gz", env!("CARGO_MANIFEST_DIR"));
    let gz = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let bytes = proflens_format::inflate::gunzip(&gz, 1 << 30, &mut |_| {}).unwrap();
    Dump::read(&bytes).unwrap()
}

/// Records of the raw kind `kind`, counted from each record's first u32.
fn raw_count(dump: &Dump, kind: u32) -> usize {
    dump.records.iter().filter(|r| u32::from_ne_bytes(r[..4].try_into().unwrap()) == kind).count()
}

/// The records as an XSpace read back by Proflens.
fn profile(records: Vec<Record>, host: &str) -> proflens_model::Profile {
    let t0 = records
        .iter()
        .filter_map(|r| match r {
            Record::Kernel(k) => Some(k.start_ns),
            Record::Api(a) => Some(a.start_ns),
            Record::Nvtx(n) => Some(n.start_ns),
            _ => None,
        })
        .min()
        .unwrap()
        - 1;
    let capture = Capture {
        records,
        start_walltime_ns: t0,
        start_gpu_ns: t0,
        end_gpu_ns: u64::MAX / 2,
        dropped_records: 0,
        errors: vec![],
    };
    let bytes = to_xspace(&capture, &[], host).encode_to_vec();
    proflens_format::load_xspace(&bytes, &Default::default(), &mut |_| {}).unwrap()
}

/// Kernels by correlation id, and the API calls by theirs.
fn launches(records: &[Record]) -> (BTreeMap<u32, usize>, BTreeSet<u32>) {
    let mut kernels = BTreeMap::new();
    let mut calls = BTreeSet::new();
    for r in records {
        match r {
            Record::Kernel(k) => *kernels.entry(k.correlation_id).or_insert(0) += 1,
            Record::Api(a) => {
                calls.insert(a.correlation_id);
            }
            _ => {}
        }
    }
    (kernels, calls)
}

fn kernel_count(records: &[Record]) -> usize {
    records.iter().filter(|r| matches!(r, Record::Kernel(_))).count()
}

#[test]
fn jax_records_parse_and_every_kernel_has_its_launch_call() {
    for case in ["jax_run/graphs", "jax_run/nographs"] {
        let dump = dump(case);
        let records = records(&dump);
        assert_eq!(kernel_count(&records), raw_count(&dump, KIND_CONCURRENT_KERNEL), "{case}");
        let (kernels, calls) = launches(&records);
        let orphans: Vec<_> = kernels.keys().filter(|c| !calls.contains(c)).collect();
        assert!(orphans.is_empty(), "{case}: kernels of correlation ids {orphans:?} have no launch call");
        // XLA autotunes while compiling: its kernels run outside the jit'd steps.
        let names: BTreeSet<&str> = records
            .iter()
            .filter_map(|r| if let Record::Kernel(k) = r { Some(k.name.as_str()) } else { None })
            .collect();
        assert!(names.iter().any(|n| n.contains("RedzoneAllocator")), "{case}: autotuning's redzone checks");
        assert!(names.iter().any(|n| n.starts_with("gemm_fusion_dot")), "{case}: the train step's fusions");
    }
}

#[test]
fn cuda_graph_kernels_share_their_graph_launch_and_without_graphs_none_do() {
    let (graphs, calls) = launches(&records(&dump("jax_run/graphs")));
    let shared: Vec<_> = graphs.iter().filter(|(_, &n)| n > 1).collect();
    assert!(!shared.is_empty(), "with CUDA graphs, one launch runs several kernels");
    assert!(shared.iter().all(|(c, _)| calls.contains(c)));
    let (plain, _) = launches(&records(&dump("jax_run/nographs")));
    let shared: Vec<_> = plain.iter().filter(|(_, &n)| n > 1).collect();
    assert!(shared.is_empty(), "without graphs each kernel has its own launch: {shared:?}");
}

#[test]
fn xla_annotations_are_tsl_ranges_and_no_steps() {
    for case in ["jax_run/graphs", "jax_run/nographs"] {
        let records = records(&dump(case));
        let nvtx: Vec<_> =
            records.iter().filter_map(|r| if let Record::Nvtx(n) = r { Some(n) } else { None }).collect();
        assert!(!nvtx.is_empty(), "{case}: XLA's annotations reach CUPTI as NVTX");
        assert!(nvtx.iter().all(|n| n.domain.as_deref() == Some("TSL")), "{case}");
        // One XlaModule range per execution of the jit'd step.
        let executions = nvtx.iter().filter(|n| n.name.starts_with("XlaModule:#hlo_module=jit_train_step,")).count();
        assert_eq!(executions, JAX_STEPS, "{case}");
        // StepTraceAnnotation is a TraceMe, not NVTX: nothing marks steps, and
        // none of XLA's many ranges is taken for one.
        assert!(steps::group(&records).names.is_empty(), "{case}");
        let kernels = kernel_count(&records);
        let profile = profile(records, "h100");
        assert!(group_events(&profile).names.is_empty(), "{case}");
        let in_xspace: u64 = kernel_stats(&profile).iter().map(|r| r.occurrences).sum();
        assert_eq!(in_xspace as usize, kernels, "{case}: one GPU event per kernel record");
    }
}

#[test]
fn torch_on_the_h100_pairs_its_markers_and_every_kernel_joins_a_step() {
    let dump = dump("torch_cupti");
    let records = records(&dump);
    assert_eq!(kernel_count(&records), raw_count(&dump, KIND_CONCURRENT_KERNEL));
    let names: Vec<String> =
        records.iter().filter_map(|r| if let Record::Nvtx(n) = r { Some(n.name.clone()) } else { None }).collect();
    let expected: Vec<String> = (0..TORCH_STEPS).map(|i| format!("train {i}")).collect();
    assert_eq!(names, expected, "torch_train.py --steps 12");
    let groups = steps::group(&records);
    assert_eq!(groups.names.len(), TORCH_STEPS);
    for (i, r) in records.iter().enumerate() {
        if let Record::Kernel(k) = r {
            assert!(groups.of(i, r).is_some(), "{} (correlation {}) is in no step", k.name, k.correlation_id);
        }
    }
    assert_eq!(group_events(&profile(records, "h100")).names.len(), TORCH_STEPS);
}
