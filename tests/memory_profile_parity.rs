//! Memory profile against XProf 2.24's goldens: the allocators, the summary
//! (peak, its time, capacity), the breakdown at the peak row by row, the
//! sampled timeline (count and values), `hloModules`, and the snapshots the
//! breakdown refers to (`memoryProfileSnapshots`), all compared exactly.
//!
//! The snapshots, and what XProf varies from run to run: a breakdown row
//! stands for `numOccurrences` allocations alike (same size, op, step,
//! region, type and shape), and its snapshot is one of them. When there is
//! one, the snapshot must equal XProf's in every field. When there are
//! several, XProf keeps an occurrence that varies between two conversions of
//! the same file (the two BERT hosts' goldens, whose events are the same,
//! keep different ones: fixtures/external/README.md), so only what makes
//! them alike is compared (the activity's kind, sizes, op, step, region,
//! type and shape); its time, address and allocator state are not.

use proflens_analysis::passes::grouping::group_events;
use proflens_analysis::tools::memory_profile::{memory_profile, to_xprof_json};
use proflens_tests::{data_dir, load, xplane_files};
use serde_json::Value;
use std::io::Read;
use std::path::Path;

fn golden(rel: &str) -> Value {
    let bytes = std::fs::read(data_dir().join("goldens").join(rel)).unwrap();
    if rel.ends_with(".gz") {
        // The test's own gzip reader: the format crate's, which other tests check.
        let raw = proflens_format::inflate::gunzip(&bytes, 1 << 30, &mut |_| {}).unwrap();
        serde_json::from_slice(&raw).unwrap()
    } else {
        let mut text = String::new();
        bytes.as_slice().read_to_string(&mut text).unwrap();
        serde_json::from_str(&text).unwrap()
    }
}

/// The activity behind an active-allocation row.
fn row_activity<'a>(allocator: &'a Value, row: &Value) -> &'a Value {
    let snapshot: i64 = row["snapshotIndex"].as_str().unwrap().parse().unwrap();
    if snapshot >= 0 {
        &allocator["memoryProfileSnapshots"][snapshot as usize]["activityMetadata"]
    } else {
        let special: usize = row["specialIndex"].as_str().unwrap().parse().unwrap();
        &allocator["specialAllocations"][special]
    }
}

fn check(what: &str, profile: &Path, golden: &Value) {
    let profile = load(profile).unwrap();
    let ours = to_xprof_json(&memory_profile(&profile, &group_events(&profile)));
    assert_eq!(ours["memoryIds"], golden["memoryIds"], "{what}");
    for key in ["hloModules", "numHosts", "version"] {
        assert_eq!(ours[key], golden[key], "{what} {key}");
    }
    for (id, theirs) in golden["memoryProfilePerAllocator"].as_object().unwrap() {
        let mine = &ours["memoryProfilePerAllocator"][id];
        assert_eq!(mine["profileSummary"], theirs["profileSummary"], "{what} {id} summary");
        let (rows, golden_rows) =
            (mine["activeAllocations"].as_array().unwrap(), theirs["activeAllocations"].as_array().unwrap());
        assert_eq!(rows.len(), golden_rows.len(), "{what} {id} rows at the peak");
        for (r, g) in rows.iter().zip(golden_rows) {
            assert_eq!(r["numOccurrences"], g["numOccurrences"], "{what} {id}");
            let (a, b) = (row_activity(mine, r), row_activity(theirs, g));
            for field in
                ["allocationBytes", "requestedBytes", "tfOpName", "regionType", "dataType", "tensorShape", "stepId"]
            {
                assert_eq!(a[field], b[field], "{what} {id} {field}");
            }
        }
        let exact = same_snapshots(&format!("{what} {id}"), mine, theirs);
        let all = theirs["memoryProfileSnapshots"].as_array().map_or(0, Vec::len);
        eprintln!("{what} {id}: {all} snapshots, {exact} compared whole, the others as alike");
        let (timeline, golden_timeline) = (
            mine["sampledTimelineSnapshots"].as_array().unwrap(),
            theirs["sampledTimelineSnapshots"].as_array().unwrap(),
        );
        assert_eq!(timeline.len(), golden_timeline.len(), "{what} {id} timeline points");
        for (t, g) in timeline.iter().zip(golden_timeline) {
            assert_eq!(t["timeOffsetPs"], g["timeOffsetPs"], "{what} {id}");
            assert_eq!(t["aggregationStats"], g["aggregationStats"], "{what} {id}");
        }
    }
}

/// The activity fields that make the allocations of one breakdown row alike.
const ALIKE: [&str; 8] = [
    "memoryActivity",
    "allocationBytes",
    "requestedBytes",
    "tfOpName",
    "stepId",
    "regionType",
    "dataType",
    "tensorShape",
];

/// The snapshots of the breakdown: as many as XProf's, each equal to XProf's
/// where its row stands for one allocation, alike where for several (see the
/// module docs). Returns how many were compared in full.
fn same_snapshots(what: &str, mine: &Value, theirs: &Value) -> usize {
    let (ours, golden) =
        (mine["memoryProfileSnapshots"].as_array().unwrap(), theirs["memoryProfileSnapshots"].as_array().unwrap());
    assert_eq!(ours.len(), golden.len(), "{what}: snapshots");
    let mut exact = 0;
    let rows =
        mine["activeAllocations"].as_array().unwrap().iter().zip(theirs["activeAllocations"].as_array().unwrap());
    for (r, g) in rows {
        assert_eq!(r["snapshotIndex"], g["snapshotIndex"], "{what}: snapshot index");
        let Ok(at) = r["snapshotIndex"].as_str().unwrap().parse::<usize>() else { continue };
        if g["numOccurrences"] == "1" {
            assert_eq!(ours[at], golden[at], "{what}: snapshot {at}");
            exact += 1;
        } else {
            for field in ALIKE {
                let (a, b) = (&ours[at]["activityMetadata"][field], &golden[at]["activityMetadata"][field]);
                assert_eq!(a, b, "{what}: snapshot {at} {field}");
            }
        }
    }
    exact
}

/// The rule above is not vacuous on BERT: XProf's own two conversions keep
/// different occurrences of a repeated allocation, and single allocations'
/// snapshots are compared whole.
#[test]
fn xprof_varies_only_repeated_allocations() {
    let (a, b) = (
        golden("tf-gpu-multiworker-bert-xplane/memory_profile.34.83.195.179_6003.json.gz"),
        golden("tf-gpu-multiworker-bert-xplane/memory_profile.34.83.195.180_6003.gpu_host_bfc.json"),
    );
    let (a, b) = (&a["memoryProfilePerAllocator"]["gpu_host_bfc"], &b["memoryProfilePerAllocator"]["gpu_host_bfc"]);
    assert_ne!(a["memoryProfileSnapshots"], b["memoryProfileSnapshots"]);
    assert_eq!(same_snapshots("bert's two hosts", a, b), 1, "single allocations on gpu_host_bfc");
}

#[test]
fn cpu_profiles_match_xprof() {
    for case in ["keras_fit", "custom_loop", "input_bound", "jax_mlp", "custom_loop_xla"] {
        let file = xplane_files(&data_dir().join("xspace").join(case)).remove(0);
        check(case, &file, &golden(&format!("{case}/memory_profile.json")));
    }
}

#[test]
fn gpu_host_matches_xprof() {
    check(
        "bert",
        &data_dir().join("xspace/external/34.83.195.179_6003.xplane.pb"),
        &golden("tf-gpu-multiworker-bert-xplane/memory_profile.34.83.195.179_6003.json.gz"),
    );
}
