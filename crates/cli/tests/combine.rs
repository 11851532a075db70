//! `--run RUN1+RUN2`: the two processes of one real capture
//! (tests/data/gpu_h100/multi/p2, written into one run folder) copied into
//! two run folders, as a multi-host JAX job writes its hosts
//! (vllm-project/tpu-inference#2521), combine into the run they were.

use crate::common::{data, json, proflens};
use serde_json::Value;
use std::path::{Path, PathBuf};

const RUN: &str = "gpu_h100/multi/p2/plugins/profile/2026_11_26_10_42_20";
const A: &str = "2026_11_26_10_42_20";
const B: &str = "2026_11_26_10_42_21";

/// A log directory with `hosts` (file names in `RUN`, or other fixtures) in run folders.
fn logdir(name: &str, runs: &[(&str, &[&str])]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("proflens-combine-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for (run, hosts) in runs {
        let folder = dir.join("plugins/profile").join(run);
        std::fs::create_dir_all(&folder).unwrap();
        for host in *hosts {
            let from = if host.contains('/') { data(host) } else { data(RUN).join(host) };
            std::fs::copy(&from, folder.join(Path::new(host).file_name().unwrap())).unwrap();
        }
    }
    dir
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn hosts_split_across_run_folders_combine_into_their_run() {
    let split = logdir("split", &[(A, &["vm.xplane.pb.gz"]), (B, &["vm_1760.xplane.pb.gz"])]);
    let info = json(&["info", s(&split)]);
    assert_eq!(info["runs"].as_array().unwrap().len(), 2);
    assert_eq!(info["combinable_runs"], serde_json::json!([format!("{A}+{B}")]));
    // Combined (in either order), the run is the one the capture wrote.
    let whole = json(&["tool", s(&data(RUN)), "overview_page"]);
    for name in [format!("{A}+{B}"), format!("{B}+{A}")] {
        let combined = json(&["tool", s(&split), "overview_page", "--run", &name]);
        assert_eq!(combined, whole, "{name}");
    }
    let one = json(&["tool", s(&split), "overview_page", "--run", &format!("{A}+{B}"), "--host", "vm_1760"]);
    assert_eq!(one, json(&["tool", s(&data(RUN)), "overview_page", "--host", "vm_1760"]));
    std::fs::remove_dir_all(&split).unwrap();
}

#[test]
fn runs_apart_in_time_are_not_combined_and_shared_host_names_are_told_apart() {
    let dir = logdir(
        "apart",
        &[
            (A, &["vm.xplane.pb.gz"]),
            (B, &["vm.xplane.pb.gz"]),
            ("2020_01_01_00_00_00", &["xspace/external/tw003.xplane.pb"]),
        ],
    );
    let info = json(&["info", s(&dir)]);
    assert_eq!(info["combinable_runs"], serde_json::json!([format!("{A}+{B}")]));
    let out = proflens(&["tool", s(&dir), "overview_page", "--run", &format!("{A}+2020_01_01_00_00_00")]);
    assert_eq!(out.status.code(), Some(1));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("the runs do not overlap in time (") && said.contains("2020_01_01_00_00_00: "), "{said}");
    let out = proflens(&["tool", s(&dir), "overview_page", "--run", &format!("{A}+nope")]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("no run 'nope' to combine"));
    // The same host in both runs: named by its run in the combined one.
    let v: Value =
        json(&["tool", s(&dir), "overview_page", "--run", &format!("{A}+{B}"), "--host", &format!("vm ({B})")]);
    assert_eq!(v, json(&["tool", s(&data(RUN)), "overview_page", "--host", "vm"]));
    std::fs::remove_dir_all(&dir).unwrap();
}
