//! CUPTI 13.0's own activity records, dumped on an NVIDIA H200 while a
//! PyTorch training loop ran under `proflens-collect run`
//! (`PROFLENS_CUPTI_DUMP`; ../tests/data/gpu_h200, recorded by
//! tests/scripts/gpu/run_all.sh): the record layouts read them, the markers
//! pair into the loop's 12 `train N` ranges, and every kernel joins a step,
//! also those PyTorch's autograd thread launched.

use crate::cupti_records;

use cupti_records::records;
use proflens_analysis::passes::grouping::group_events;
use proflens_collector::cupti::raw::Dump;
use proflens_collector::cupti::steps;
use proflens_collector::cupti::{to_xspace, ApiCall, Capture, Record};
use prost::Message;
use std::collections::BTreeSet;

fn dump() -> Dump {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/gpu_h200/torch_cupti/cupti_records.bin");
    Dump::read(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn real_records_parse_with_sane_fields() {
    let dump = dump();
    // Records are at least as long as the leading fields the parser reads.
    for r in &dump.records {
        let kind = u32::from_ne_bytes(r[..4].try_into().unwrap());
        assert!(r.len() >= proflens_collector::cupti::activity::record_len(kind), "kind {kind}: {} bytes", r.len());
    }
    let records = records(&dump);
    let kernels: Vec<_> =
        records.iter().filter_map(|r| if let Record::Kernel(k) = r { Some(k) } else { None }).collect();
    assert!(!kernels.is_empty());
    for k in &kernels {
        assert!(!k.name.is_empty() && k.name != "(unnamed kernel)");
        assert!(k.end_ns > k.start_ns, "{}", k.name);
        assert_eq!(k.device_id, 0, "one GPU");
        assert!(k.block.iter().all(|&b| b > 0) && k.grid.iter().all(|&g| g > 0), "{}", k.name);
    }
    assert!(kernels.iter().any(|k| k.name.contains("gemm")), "cuBLAS GEMMs");
    // Every kernel was launched by a recorded runtime/driver call with its correlation id.
    let launches: BTreeSet<u32> =
        records.iter().filter_map(|r| if let Record::Api(a) = r { Some(a.correlation_id) } else { None }).collect();
    assert!(kernels.iter().all(|k| launches.contains(&k.correlation_id)));
}

#[test]
fn the_nvtx_markers_pair_into_the_train_steps() {
    let names: Vec<String> = records(&dump())
        .iter()
        .filter_map(|r| if let Record::Nvtx(n) = r { Some(n.name.clone()) } else { None })
        .collect();
    let expected: Vec<String> = (0..12).map(|i| format!("train {i}")).collect();
    assert_eq!(names, expected, "torch_train.py --steps 12");
}

#[test]
fn kernels_of_every_thread_join_their_step() {
    let records = records(&dump());
    // The backward pass launches from a thread other than the one with the NVTX ranges.
    let kernel_correlations: BTreeSet<u32> =
        records.iter().filter_map(|r| if let Record::Kernel(k) = r { Some(k.correlation_id) } else { None }).collect();
    let launching: BTreeSet<u32> = records
        .iter()
        .filter_map(|r| match r {
            Record::Api(ApiCall { correlation_id, thread_id, .. }) if kernel_correlations.contains(correlation_id) => {
                Some(*thread_id)
            }
            _ => None,
        })
        .collect();
    let nvtx_threads: BTreeSet<u32> =
        records.iter().filter_map(|r| if let Record::Nvtx(n) = r { Some(n.thread_id) } else { None }).collect();
    assert_eq!(nvtx_threads.len(), 1);
    assert!(launching.len() > 1, "launches come from {launching:?}");

    let groups = steps::group(&records);
    assert_eq!(groups.names.len(), 12);
    for (i, r) in records.iter().enumerate() {
        if let Record::Kernel(k) = r {
            assert!(groups.of(i, r).is_some(), "{} (correlation {}) is in no step", k.name, k.correlation_id);
        }
    }

    // And through the XSpace, as Proflens reads it.
    let start = records.iter().map(|r| match r {
        Record::Kernel(k) => k.start_ns,
        Record::Api(a) => a.start_ns,
        _ => u64::MAX,
    });
    let t0 = start.min().unwrap() - 1;
    let capture = Capture {
        records,
        start_walltime_ns: t0,
        start_gpu_ns: t0,
        end_gpu_ns: u64::MAX / 2,
        dropped_records: 0,
        errors: vec![],
    };
    let bytes = to_xspace(&capture, &[], "h200").encode_to_vec();
    let profile = proflens_format::load_xspace(&bytes, &Default::default(), &mut |_| {}).unwrap();
    let grouping = group_events(&profile);
    assert_eq!(grouping.names.len(), 12);
}
