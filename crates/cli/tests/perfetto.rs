//! The `proflens` binary on Perfetto protobuf traces (the SYNTHETIC ones of
//! tests/data/perfetto, written by `crates/format/src/perfetto/synthetic.rs`).

use crate::common;

use common::json;

#[test]
fn info_and_the_trace_viewer_read_a_kineto_pftrace() {
    let path = common::data("perfetto/synthetic_kineto.pftrace");
    let p = path.to_str().unwrap();
    let info = json(&["info", p]);
    let host = &info["runs"][0]["hosts"][0];
    assert_eq!(host["name"], "synthetic_kineto");
    let planes: Vec<&str> = host["planes"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(planes, ["/host:CPU", "/device:GPU:0"]);
    let trace = json(&["tool", p, "trace_viewer"]);
    // (section, track, events): the GPU's step is derived from the host's ProfilerStep#1.
    let tracks: Vec<(&str, &str, u64)> = trace["sections"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| {
            let section = s["name"].as_str().unwrap();
            s["tracks"]
                .as_array()
                .unwrap()
                .iter()
                .map(move |t| (section, t["name"].as_str().unwrap(), t["events"].as_u64().unwrap()))
        })
        .collect();
    assert_eq!(
        tracks,
        [
            ("/device:GPU:0", "Steps", 1),
            ("/device:GPU:0", "Stream #7(Compute)", 1),
            ("/host:CPU", "thread 4243 (python3)", 3)
        ]
    );
    assert_eq!(trace["events"], 5);
}

#[test]
fn an_sdk_trace_is_read_by_its_content_whatever_its_name() {
    let path = common::data("perfetto/synthetic_sdk.perfetto-trace");
    let trace = json(&["tool", path.to_str().unwrap(), "trace_viewer"]);
    assert_eq!(trace["events"], 8);
}
