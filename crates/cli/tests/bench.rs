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

/// `bench FILE --threads 1,2,3`: a row per count, in the order asked, each
/// decoding every event, its speed-up against the first count's total.
#[test]
fn bench_threads_reports_a_row_per_count() {
    let file = data("xspace/input_bound/plugins/profile/2026_11_22_09_04_29/vm.xplane.pb");
    let report = json(&["bench", file.to_str().unwrap(), "--repeat", "1", "--threads", "1,2,3"]);
    assert!(report["events"].as_u64().expect("events") > 1000);
    let rows = report["rows"].as_array().expect("rows");
    let counts: Vec<u64> = rows.iter().map(|r| r["threads"].as_u64().expect("threads")).collect();
    assert_eq!(counts, [1, 2, 3]);
    let first = rows[0]["total_ms"].as_f64().expect("total_ms");
    for row in rows {
        let (decode, passes, total) = (row["decode_ms"].as_f64(), row["passes_ms"].as_f64(), row["total_ms"].as_f64());
        let (decode, passes, total) = (decode.expect("decode_ms"), passes.expect("passes_ms"), total.expect("total"));
        assert!(decode > 0.0 && passes > 0.0, "{row}");
        assert!((decode + passes - total).abs() < 0.01, "{row}");
        let speedup = row["speedup"].as_f64().expect("speedup");
        assert!((speedup - first / total).abs() < 0.01, "{row}");
    }
}
