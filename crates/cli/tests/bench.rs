//! `proflens bench FILE`: each shared pass's time is reported beside its run
//! count, on the same load, so that the native breakdown compares with the
//! web benchmark's (`cargo xtask bench-web`).

use crate::common;

use common::{data, json};

#[test]
fn bench_reports_each_pass_time_beside_its_runs() {
    let file = data("xspace/input_bound/plugins/profile/2026_11_22_09_04_29/vm.xplane.pb");
    let report = json(&["bench", file.to_str().unwrap(), "--repeat", "1"]);
    let runs = report["pass_runs"].as_object().expect("pass_runs");
    let times = report["pass_ms"].as_object().expect("pass_ms");
    assert_eq!(runs.keys().collect::<Vec<_>>(), times.keys().collect::<Vec<_>>());
    for (pass, ran) in runs {
        let ms = times[pass].as_f64().expect("a number");
        // A pass that did not run took no time. One that ran has a time,
        // which rounds to 0 for a pass with nothing to do (the HLO pass of a
        // profile without XLA programs takes under half a microsecond).
        match ran.as_u64() {
            Some(0) => assert_eq!(ms, 0.0, "{pass} did not run but took {ms} ms"),
            _ => assert!(ms >= 0.0, "{pass} ran but took {ms} ms"),
        }
    }
    assert!(times["decode"].as_f64().expect("decode") > 0.0, "decoding took no time");
    // The file read is timed apart from decoding.
    assert!(report["file_read_ms"].as_f64().expect("file_read_ms") >= 0.0);
    assert_eq!(runs["decode"], 1);
}
