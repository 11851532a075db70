//! Memory profile against XProf 2.24's goldens: the allocators, the summary
//! (peak, its time, capacity), the breakdown at the peak row by row, and the
//! sampled timeline (count and values).

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
