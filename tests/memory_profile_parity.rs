//! Memory profile against XProf 2.24's goldens: the whole document, every
//! field — hosts, memory ids, version, `hloModules`, the allocators, each
//! one's summary (peak, its time, capacity), the breakdown rows at the peak,
//! the special allocations, every sampled timeline point (time, allocator
//! state and activity) — compared exactly (tolerance none: counts and bytes
//! are integers written as strings, fragmentation XProf's own quotient), and
//! the snapshots the breakdown refers to (`memoryProfileSnapshots`) as
//! below.
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
use proflens_tests::json_diff::{diff, Mismatches, Tol};
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

/// The allowed difference of a number at `path` (see the module docs).
fn tolerance(_path: &str) -> Tol {
    Tol::EXACT
}

/// `doc` without the fields named.
fn without(doc: &Value, keys: &[&str]) -> Value {
    let mut doc = doc.clone();
    if let Some(map) = doc.as_object_mut() {
        keys.iter().for_each(|k| {
            map.remove(*k);
        });
    }
    doc
}

fn check(what: &str, profile: &Path, golden: &Value) {
    let profile = load(profile).unwrap();
    let ours = to_xprof_json(&memory_profile(&profile, &group_events(&profile)));
    let mut out = Mismatches::default();
    // Everything but the allocators' snapshots: hosts, ids, modules, version, the
    // allocators, each one's summary, breakdown rows, special allocations, timeline.
    let snapshots = ["memoryProfileSnapshots"];
    let (o_alloc, g_alloc) = (&ours["memoryProfilePerAllocator"], &golden["memoryProfilePerAllocator"]);
    let key = "memoryProfilePerAllocator";
    diff(&without(&ours, &[key]), &without(golden, &[key]), what, &tolerance, &mut out);
    let (ok, gk): (Vec<&String>, Vec<&String>) =
        (o_alloc.as_object().unwrap().keys().collect(), g_alloc.as_object().unwrap().keys().collect());
    if ok != gk {
        out.push(format!("{what}: allocators {ok:?}, golden {gk:?}"));
    }
    for (id, theirs) in g_alloc.as_object().unwrap() {
        let mine = &o_alloc[id];
        diff(&without(mine, &snapshots), &without(theirs, &snapshots), &format!("{what} {id}"), &tolerance, &mut out);
        let rows =
            mine["activeAllocations"].as_array().unwrap().iter().zip(theirs["activeAllocations"].as_array().unwrap());
        for (r, g) in rows {
            let (a, b) = (row_activity(mine, r), row_activity(theirs, g));
            for field in ALIKE {
                out.leaf(&format!("{what} {id} breakdown activity {field}"), &a[field], &b[field], Tol::EXACT);
            }
        }
        let exact = same_snapshots(&format!("{what} {id}"), mine, theirs);
        let all = theirs["memoryProfileSnapshots"].as_array().map_or(0, Vec::len);
        eprintln!("{what} {id}: {all} snapshots, {exact} compared whole, the others as alike");
    }
    out.assert_none(what);
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
