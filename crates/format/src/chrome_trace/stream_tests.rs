//! Trace JSON streamed from a source against the same bytes decoded in
//! memory: the same profile (planes, lines, events, stats, names), or the
//! same kind of error, whatever the read size cuts.

use crate::inflate::{gunzip, gzip};
use crate::load_source::load_with_chunk;
use crate::stream_tests::{data, dump, files};
use crate::{load_profile_named, Error, Limits};
use proflens_model::Profile;

fn whole(name: &str, bytes: &[u8]) -> Result<Profile, Error> {
    load_profile_named(name, bytes, &Limits::default(), &mut |_| {})
}

fn streamed(name: &str, bytes: &[u8], chunk: usize) -> Result<Profile, Error> {
    load_with_chunk(name, &bytes.to_vec(), &Limits::default(), chunk, &mut |_| {})
}

/// The two results agree: equal dumps, or errors of the same kind.
fn agree(what: &str, a: &Result<Profile, Error>, b: &Result<Profile, Error>) {
    match (a, b) {
        (Ok(a), Ok(b)) => assert!(dump(a) == dump(b), "{what}: the streamed profile differs"),
        (Err(a), Err(b)) => {
            assert_eq!(std::mem::discriminant(a), std::mem::discriminant(b), "{what}: {a} / {b}");
        }
        (a, b) => panic!("{what}: in memory {:?}, streamed {:?}", a.as_ref().err(), b.as_ref().err()),
    }
}

fn trace_fixtures() -> Vec<(String, Vec<u8>)> {
    let mut paths = Vec::new();
    files(&data(), &[".json", ".json.gz"], &mut paths);
    paths.retain(|p| !p.to_string_lossy().contains("goldens"));
    paths.iter().map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(p).unwrap())).collect()
}

#[test]
fn every_trace_fixture_streams_to_the_same_model_at_any_read_size() {
    let fixtures = trace_fixtures();
    let mut traces = 0;
    for (name, bytes) in &fixtures {
        let expected = whole(name, bytes);
        traces += usize::from(expected.as_ref().is_ok_and(|p| p.event_count() > 0));
        let chunks: &[usize] = match bytes.len() {
            0..80_000 => &[1, 7, 4096, 1 << 20],
            80_000..300_000 => &[7, 4096],
            _ => &[4096, 1 << 20],
        };
        for &chunk in chunks {
            agree(&format!("{name} read {chunk} at a time"), &expected, &streamed(name, bytes, chunk));
        }
        // The other form: gzip of a raw file, the inflated text of a gzip one.
        let other =
            if bytes.starts_with(&[0x1f, 0x8b]) { gunzip(bytes, u64::MAX, &mut |_| {}).unwrap() } else { gzip(bytes) };
        agree(&format!("{name}, other form"), &expected, &streamed(name, &other, 4096));
    }
    // Kineto (7 runs), XProf's legacy trace.json.gz, the handwritten one, collectives.
    assert!(traces >= 14, "{traces} traces decoded");
}

#[test]
fn cut_or_damaged_traces_fail_alike_and_never_panic() {
    let path = data().join("chrome_trace/handwritten_training.trace.json");
    let bytes = std::fs::read(path).unwrap();
    let gz = gzip(&bytes);
    for cut in (0..bytes.len()).step_by(23) {
        let what = format!("cut at {cut}");
        let expected = whole("t.json", &bytes[..cut]);
        assert!(expected.is_err(), "{what}");
        agree(&what, &expected, &streamed("t.json", &bytes[..cut], 7));
    }
    for cut in (gz.len() / 3..gz.len()).step_by(97) {
        let streamed = streamed("t.json.gz", &gz[..cut], 64);
        assert!(matches!(streamed, Err(Error::Truncated { .. })), "{cut}: {:?}", streamed.err());
    }
    // A damaged byte anywhere: both fail alike, or both skip the same events.
    let mut damaged = bytes.clone();
    for i in (0..damaged.len()).step_by(5) {
        for garbage in [b'"', b'}', b'x', b'\\'] {
            let old = std::mem::replace(&mut damaged[i], garbage);
            agree(
                &format!("byte {i} → {}", garbage as char),
                &whole("t.json", &damaged),
                &streamed("t.json", &damaged, 13),
            );
            damaged[i] = old;
        }
    }
}

#[test]
fn the_top_level_reads_as_in_memory() {
    let cases = [
        // Top-level keys after the events (Kineto writes `baseTimeNanoseconds` last).
        r#"{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1.5,"dur":2}],"baseTimeNanoseconds":1700000000000000000}"#,
        // Events with fields of the wrong type are skipped, with a warning.
        r#"[{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":1},{"ph":"X","name":7,"pid":1,"tid":1,"ts":0}]"#,
        "\u{feff}{\"traceEvents\":[{\"ph\":\"i\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":3}]}",
        r#"{"traceEvents":[1,2,"x"]}"#,
        r#"{"traceEvents":{"a":1}}"#,
        r#"{"traceEvents":null}"#,
        r#"{"displayTimeUnit":"ns"}"#,
        r#"{"traceEvents":[],"traceEvents":[]}"#,
        r#"{"traceEvents":[{"ph":"X","ts":1}] } x"#,
        r#"{"traceEvents":[{"ph":"X","ts":1},]}"#,
        r#"{"traceEvents":[{"ph":"X","ts":1}], "deviceProperties": [}"#,
        r#"{"traceEvents":[]}"#,
        "[]",
        "  ",
        "\"text\"",
        r#"[{"name":"a","ts":1},{"ph":"X","name":"b"},{"ph":"B","ts":2,"pid":1}]"#,
        // Times as strings holding numbers (Ascend's torch_npu), and one holding none.
        r#"[{"ph":"X","name":"a","pid":1,"tid":1,"ts":"1700000000123.456","dur":"2.5"}]"#,
        r#"[{"ph":"X","name":"a","pid":1,"tid":1,"ts":"soon"},{"ph":"i","name":"b","pid":1,"tid":1,"ts":3}]"#,
        r#"[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":"long"}]"#,
        // The list form without its `]`; the object form cut inside its list stays truncated.
        r#"[{"ph":"i","name":"a","pid":1,"tid":1,"ts":3},"#,
        r#"[{"ph":"i","name":"a","pid":1,"tid":1,"ts":3},{"ph":"i","name":"b","pid":1,"tid":"#,
        r#"[{"ph":"i","name":"a","pid":1,"tid":1,"ts":3},{"ph":"i","name":7,"pid":1,"tid":1,"ts":4}"#,
        r#"[{"ph":"i","name":"a","pid":1,"tid":1,"ts":3},{"ph":"i","name":7,"pid":1,"tid"#,
        r#"[{"ph":"i","name":7},"#,
        r#"[{"ph":"i","name":"a","pid":1,"tid":1,"ts":3}, 12"#,
        r#"[{"ph":"i","name":"a","pid":1,"tid":1,"ts":3}, {"x": tr"#,
        r#"[{"ph":"i","name":"a","pid":1,"tid":1,"ts":3}, {"x": tx"#,
        r#"{"traceEvents":[{"ph":"i","name":"a","pid":1,"tid":1,"ts":3},"#,
        "[ ",
    ];
    for json in cases {
        let expected = whole("t.json", json.as_bytes());
        for chunk in [1, 5, 4096] {
            agree(&format!("{json} read {chunk} at a time"), &expected, &streamed("t.json", json.as_bytes(), chunk));
        }
    }
    let p = streamed("t.json", cases[0].as_bytes(), 3).unwrap();
    assert_eq!(p.origin_ns, Some(1_700_000_000_000_001_500));
    let p = streamed("t.json", cases[1].as_bytes(), 3).unwrap();
    assert!(p.warnings[0].contains("1 trace events were skipped"), "{:?}", p.warnings);
    let p = streamed("t.json", cases[16].as_bytes(), 3).unwrap();
    assert_eq!(p.event_count(), 1);
    assert_eq!(p.planes[0].lines[0].events.duration_ps.at(0), 2_500_000);
    let p = streamed("t.json", cases[17].as_bytes(), 3).unwrap();
    assert!(p.warnings[0].contains("\"ts\" is the string \"soon\""), "{:?}", p.warnings);
    let e = whole("t.json", cases[18].as_bytes()).unwrap_err().to_string();
    assert!(e.contains("\"dur\" is the string \"long\""), "{e}");
    assert!(matches!(whole("t.json", cases[27].as_bytes()), Err(Error::Truncated { .. })));
    assert!(matches!(whole("t.json", cases[28].as_bytes()), Err(Error::Truncated { .. })));
}

/// A synthetic list-form trace cut at every byte, as a writer that died
/// leaves it: the events complete before the cut are kept, in memory and
/// streamed alike, with a warning; none complete is truncated.
#[test]
fn an_unclosed_list_keeps_its_complete_events_at_any_cut() {
    let events = [
        r#"{"ph":"X","name":"a","pid":1,"tid":1,"ts":"1700000000123.456","dur":2}"#,
        r#"{"ph":"X","name":"b \"]}","pid":1,"tid":1,"ts":1700000000124,"dur":"1.5","args":{"l":[1,{"k":"]"}]}}"#,
        r#"{"ph":"i","name":"c","pid":1,"tid":2,"ts":1700000000125.5}"#,
    ];
    let text = format!("[\n{},\n", events.join(",\n"));
    // Where each event's closing brace ends.
    let mut ends = Vec::new();
    let mut at = 2;
    for e in events {
        ends.push(at + e.len());
        at += e.len() + 2;
    }
    for cut in 1..=text.len() {
        let bytes = &text.as_bytes()[..cut];
        let expected = whole("t.json", bytes);
        for chunk in [1, 6, 4096] {
            agree(&format!("cut at {cut}, read {chunk} at a time"), &expected, &streamed("t.json", bytes, chunk));
        }
        match ends.iter().filter(|&&end| end <= cut).count() {
            0 => assert!(matches!(expected, Err(Error::Truncated { .. })), "{cut}: {:?}", expected.err()),
            n => {
                let p = expected.unwrap();
                assert_eq!(p.event_count(), n, "cut at {cut}");
                assert!(p.warnings[0].contains("without its closing"), "{:?}", p.warnings);
            }
        }
    }
    // Gzip of the file cut after its second event: read as the raw file is.
    let raw = &text.as_bytes()[..ends[1] + 1];
    let p = streamed("t.json.gz", &gzip(raw), 64).unwrap();
    assert_eq!(p.event_count(), 2);
    // A gzip stream itself cut short is still truncated, not a cut list.
    let gz = gzip(text.as_bytes());
    assert!(matches!(streamed("t.json.gz", &gz[..gz.len() - 12], 64), Err(Error::Truncated { .. })));
}
