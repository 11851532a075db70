//! One XSpace decoded in parts (`load_parts::decode_parts`, one thread a part)
//! must be the profile one decoder builds: every plane, line, column and
//! string id, and the same error for a damaged file. Every XSpace below
//! tests/data, cut into 1, 2, 3 and 7 parts (7 is more parts than some
//! fixtures have lines), and a synthetic file whose parts share strings.

use proflens_format::load_parts::{decode_parts, decode_split};
use proflens_format::proto::{x_event, x_stat, XEvent, XEventMetadata, XLine, XPlane, XSpace, XStat, XStatMetadata};
use proflens_format::xspace::decode;
use proflens_model::Profile;
use proflens_tests::data_dir;
use prost::Message;
use std::path::{Path, PathBuf};

const PARTS: [usize; 4] = [1, 2, 3, 7];

/// Where two profiles first differ, for the failure message.
fn first_difference(one: &Profile, split: &Profile) -> String {
    if one.strings != split.strings {
        let n = one.strings.len().max(split.strings.len());
        let at = (0..n).find(|&i| {
            let id = proflens_model::StrId(i as u32);
            one.strings.get(id) != split.strings.get(id)
        });
        return format!("strings (first at id {at:?}; {} vs {})", one.strings.len(), split.strings.len());
    }
    if one.planes.len() != split.planes.len() {
        return format!("{} planes vs {}", one.planes.len(), split.planes.len());
    }
    for (p, (a, b)) in one.planes.iter().zip(&split.planes).enumerate() {
        if a.lines.len() != b.lines.len() {
            return format!("plane {p}: {} lines vs {}", a.lines.len(), b.lines.len());
        }
        if let Some(l) = a.lines.iter().zip(&b.lines).position(|(x, y)| x != y) {
            return format!("plane {p} line {l}");
        }
        if a != b {
            return format!("plane {p}'s metadata or stats");
        }
    }
    "the profile's notes, hosts or times".into()
}

/// `bytes` decoded whole and in each of [`PARTS`]: the same profile or
/// error. Also that the split itself ([`decode_split`], which leaves what it
/// doubts to one decoder) built it: whether it did for every count of parts.
fn check(what: &str, bytes: &[u8]) -> bool {
    let one = decode(bytes, &mut |_| {});
    let mut split_every_time = true;
    for parts in PARTS {
        let split = decode_parts(bytes, parts, &mut |_| {});
        match (&one, &split) {
            (Ok(a), Ok(b)) => assert!(a == b, "{what} in {parts} parts differs at {}", first_difference(a, b)),
            (Err(a), Err(b)) => assert_eq!(a, b, "{what} in {parts} parts"),
            (a, b) => panic!("{what} in {parts} parts: {:?} vs {:?}", a.as_ref().err(), b.as_ref().err()),
        }
        match (&one, decode_split(bytes, parts, &mut |_| {})) {
            (Ok(a), Some(b)) => {
                assert!(*a == b, "{what} split in {parts} parts differs at {}", first_difference(a, &b))
            }
            (Err(e), Some(_)) => panic!("{what} in {parts} parts: split where one decoder fails ({e})"),
            (_, None) => split_every_time = false,
        }
    }
    split_every_time
}

/// Every XSpace (raw or gzip) below `dir`, raw.
fn xspaces(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            let name = path.to_string_lossy().into_owned();
            if path.is_dir() {
                stack.push(path);
            } else if name.ends_with(".xplane.pb") {
                files.push((path.clone(), std::fs::read(&path).unwrap()));
            } else if name.ends_with(".xplane.pb.gz") {
                // A gzip that does not inflate within 64 MiB (the bomb) is bad_input's to test.
                let raw = proflens_format::inflate::gunzip(&std::fs::read(&path).unwrap(), 64 << 20, &mut |_| {});
                if let Ok(raw) = raw {
                    files.push((path, raw));
                }
            }
        }
    }
    files.sort();
    files
}

/// Every XSpace below `dir` checked; the healthy ones must have been split.
fn check_dir(dir: &str) {
    let files = xspaces(&data_dir().join(dir));
    assert!(!files.is_empty(), "no XSpace below {dir}");
    for (path, bytes) in files {
        let split = check(&path.display().to_string(), &bytes);
        let healthy = decode(&bytes, &mut |_| {}).is_ok();
        assert!(split || !healthy, "{} was left to one decoder", path.display());
    }
}

#[test]
fn xspace_fixtures_decode_alike_in_parts() {
    check_dir("xspace");
}

#[test]
fn gpu_fixtures_decode_alike_in_parts() {
    check_dir("gpu_h100");
    check_dir("gpu_h200");
}

#[test]
fn advisor_and_compare_fixtures_decode_alike_in_parts() {
    check_dir("advisor_pairs");
    check_dir("compare");
}

#[test]
fn damaged_files_fail_alike_in_parts() {
    check_dir("bad");
}

/// Synthetic: two planes whose lines name strings first met in later lines
/// (a stat's text, a referenced stat name, line names), a line of the
/// second plane whose event names metadata its plane lacks, and names
/// past the model's cap in lines and in metadata.
fn synthetic(damaged: bool) -> Vec<u8> {
    let stat = |id, value| XStat { metadata_id: id, value: Some(value) };
    let mut planes = Vec::new();
    for (p, name) in ["/host:CPU", "/device:GPU:0"].into_iter().enumerate() {
        let mut plane = XPlane { id: p as i64, name: name.into(), ..Default::default() };
        for (id, n) in [(1, "tf_op"), (2, "step_num"), (3, "shared text"), (4, "kernel_details")] {
            plane.stat_metadata.insert(id, XStatMetadata { id, name: n.into(), ..Default::default() });
        }
        for (id, n) in [(10, "MatMul"), (11, "Conv2D"), (12, "step")] {
            plane.event_metadata.insert(id, XEventMetadata { id, name: n.into(), ..Default::default() });
        }
        // Metadata too has a name past the cap: its cut is counted where the metadata is built.
        let long = format!("{name} {}", "y".repeat(proflens_model::MAX_STRING_BYTES));
        plane.event_metadata.insert(13, XEventMetadata { id: 13, name: long, ..Default::default() });
        for l in 0..5i64 {
            let events = (0..4i64)
                .map(|e| XEvent {
                    metadata_id: 10 + (l + e) % 3,
                    data: Some(x_event::Data::OffsetPs(e * 100)),
                    duration_ps: 50 + e,
                    stats: vec![
                        stat(1, x_stat::Value::StrValue(format!("op {}", (l * 7 + e) % 5))),
                        stat(2, x_stat::Value::Int64Value(l * 10 + e)),
                        stat(4, x_stat::Value::RefValue(1 + (e as u64) % 3)),
                    ],
                })
                .collect();
            plane.lines.push(XLine {
                id: l,
                name: format!("line {}", (l + p as i64) % 3),
                display_name: if l == 3 { "x".repeat(proflens_model::MAX_STRING_BYTES + 10) } else { String::new() },
                timestamp_ns: 1000 * l,
                events,
                ..Default::default()
            });
        }
        planes.push(plane);
    }
    if damaged {
        planes[1].lines[2].events[1].metadata_id = 99;
    }
    XSpace { planes, hostnames: vec!["synthetic".into()], ..Default::default() }.encode_to_vec()
}

#[test]
fn parts_that_share_strings_merge_to_one_decoders_ids() {
    let bytes = synthetic(false);
    let one = decode(&bytes, &mut |_| {}).unwrap();
    assert_eq!(one.strings.cut_strings(), 4, "the long display name and metadata name, once a plane");
    assert!(check("synthetic", &bytes), "the synthetic file was split");
    for parts in 2..=10 {
        assert!(decode_parts(&bytes, parts, &mut |_| {}).unwrap() == one, "{parts} parts");
    }
    let damaged = synthetic(true);
    let error = decode(&damaged, &mut |_| {}).unwrap_err();
    assert!(error.to_string().contains("event metadata 99"), "{error}");
    check("damaged synthetic", &damaged);
}
