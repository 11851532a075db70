//! The trace viewer's events against XProf 2.24's `trace_viewer@` on every
//! XSpace fixture: per process and thread, the same number of complete events,
//! and per event name the same counts (tolerance 0), except for the
//! differences docs/deviations.md lists ("Trace viewer events (#14)"), each
//! checked here rather than skipped:
//! - XProf drops its internal host events (tsl's `IsInternalEvent`); Proflens
//!   keeps them;
//! - a thread's `ThreadpoolListener::Region` events are on a track of their
//!   own next to the thread (XProf: on the thread);
//! - Framework Ops are named by the full op name where XProf shows the op
//!   type, and Source code keeps the file's path where XProf shows, on GPUs,
//!   its base name: their counts are compared, not their names;
//! - on TPUs, XProf writes the `Async XLA Ops` (async events) into no JSON
//!   event and derives `Host Offload Ops row N` tracks of host-offload copies
//!   on every core; Proflens shows the async ops as slices and derives no
//!   host-offload tracks.
//!
//! XProf's counts are in `tests/data/goldens/<case>/trace_viewer_counts.json`,
//! made from the goldens by tests/scripts/trace_viewer_counts.py.

use proflens_analysis::hlo::gpu::GpuHlo;
use proflens_analysis::passes::grouping::group_events;
use proflens_analysis::passes::trace::derived::THREADPOOL_REGION;
use proflens_analysis::passes::trace::{event_name, track_events, Trace};
use proflens_tests::{data_dir, load, xplane_files};
use serde_json::Value;
use std::collections::BTreeMap;

/// tsl's internal host events (xplane_schema.h `IsInternalEvent`), which
/// XProf's trace viewer leaves out.
const INTERNAL_EVENTS: [&str; 13] = [
    "MemoryAllocation",
    "MemoryDeallocation",
    "PrefetchProduce",
    "PrefetchConsume",
    "ParallelInterleaveProduce",
    "ParallelInterleaveConsume",
    "ParallelInterleaveInitializedInput",
    "ParallelMapProduce",
    "ParallelMapConsume",
    "MapAndBatchProduce",
    "MapAndBatchConsume",
    "ParseExampleProduce",
    "ParseExampleConsume",
];

/// Tracks whose event names differ by design; their counts must match.
const COUNTED_ONLY: [&str; 2] = ["Framework Ops", "Source code"];

type Counts = BTreeMap<String, BTreeMap<String, u64>>;

/// Our complete events per "process\tthread" and name, as the comparison sees them.
fn ours(case: &str) -> (Counts, u64) {
    let file = xplane_files(&data_dir().join("xspace"))
        .into_iter()
        .find(|f| f.to_string_lossy().contains(&format!("/{case}/")) || fixture_of(f) == case)
        .unwrap_or_else(|| panic!("no profile for {case}"));
    let profile = load(&file).unwrap();
    let modules = proflens_format::hlo::hlo_modules(&profile);
    let grouping = group_events(&profile);
    let trace = Trace::with_hlo(&profile, &grouping, &GpuHlo::new(&modules.modules));
    let mut counts = Counts::new();
    let mut internal = 0;
    for section in &trace.sections {
        for track in &section.tracks {
            let thread = track.name.strip_suffix(&format!(" · {THREADPOOL_REGION}")).unwrap_or(&track.name);
            let key = format!("{}\t{thread}", section.name);
            for i in 0..track_events(&profile, track).len() {
                let name = event_name(&profile, &grouping, track, i);
                if INTERNAL_EVENTS.contains(&name) {
                    internal += 1;
                    continue;
                }
                *counts.entry(key.clone()).or_default().entry(name.to_string()).or_default() += 1;
            }
        }
    }
    (counts, internal)
}

/// The fixture folder name of the external profiles.
fn fixture_of(file: &std::path::Path) -> &'static str {
    match file.file_name().and_then(|n| n.to_str()).unwrap_or("") {
        "tw003.xplane.pb" => "jax-mi300x-gemm-xplane",
        "chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb" => "jax-mi300x-conv-xplane-jax06",
        "tpu_inference_2.xplane.pb" => "jax-tpu-v6e-inference-xplane",
        "34.83.195.179_6003.xplane.pb" => "tf-gpu-multiworker-bert-xplane",
        _ => "",
    }
}

/// XProf's counts.
fn theirs(case: &str) -> Counts {
    let path = data_dir().join("goldens").join(case).join("trace_viewer_counts.json");
    let json: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let mut counts = Counts::new();
    for (key, names) in json["threads"].as_object().unwrap() {
        for (name, n) in names.as_object().unwrap() {
            counts.entry(key.clone()).or_default().insert(name.clone(), n.as_u64().unwrap());
        }
    }
    counts
}

/// The tracks only one side has by design (see the module comment).
fn one_sided(key: &str) -> bool {
    key.starts_with("/device:TPU") && (key.ends_with("\tAsync XLA Ops") || key.contains("\tHost Offload Ops row "))
}

fn check(case: &str, expect_internal: bool) {
    let (ours, internal) = ours(case);
    let theirs = theirs(case);
    let keys: Vec<&String> =
        ours.keys().chain(theirs.keys()).collect::<std::collections::BTreeSet<_>>().into_iter().collect();
    let empty = BTreeMap::new();
    for key in keys {
        if one_sided(key) {
            continue;
        }
        let (o, t) = (ours.get(key).unwrap_or(&empty), theirs.get(key).unwrap_or(&empty));
        let total = |m: &BTreeMap<String, u64>| m.values().sum::<u64>();
        assert_eq!(total(o), total(t), "{case}: events on {key:?}");
        let thread = key.split_once('\t').map_or("", |(_, t)| t);
        let counted_only = COUNTED_ONLY.iter().any(|c| thread.starts_with(c));
        if !counted_only {
            assert_eq!(o, t, "{case}: event names on {key:?}");
        }
    }
    assert_eq!(internal > 0, expect_internal, "{case}: internal events kept ({internal})");
}

#[test]
fn tensorflow_and_jax_on_cpus() {
    for case in ["custom_loop", "custom_loop_xla", "input_bound", "jax_mlp", "keras_fit"] {
        check(case, case != "jax_mlp");
    }
}

#[test]
fn gpus_with_xla_annotations_and_without() {
    // AMD JAX: XLA Modules, Framework Name Scope and Source code derived from the HLO.
    check("jax-mi300x-gemm-xplane", true);
    check("jax-mi300x-conv-xplane-jax06", true);
    // TensorFlow NVIDIA: the file carries its own derived lines.
    check("tf-gpu-multiworker-bert-xplane", true);
}

#[test]
fn tpu_tracks_derived_from_the_xla_ops() {
    check("jax-tpu-v6e-inference-xplane", true);
    // The one-sided tracks are what the module comment says, and no more.
    let (ours, _) = ours("jax-tpu-v6e-inference-xplane");
    let theirs = theirs("jax-tpu-v6e-inference-xplane");
    let only = |a: &Counts, b: &Counts| -> Vec<String> {
        a.keys().filter(|k| !b.contains_key(*k)).map(|k| k.replace('\t', " / ")).collect()
    };
    assert_eq!(only(&ours, &theirs), ["/device:TPU:0 / Async XLA Ops"]);
    let offload = only(&theirs, &ours);
    assert_eq!(offload.len(), 16, "4 cores × 4 rows: {offload:?}");
    assert!(offload.iter().all(|k| k.contains(" / Host Offload Ops row ")));
}
