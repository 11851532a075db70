//! The bad-input corpus (tests/data/bad, see its README) and mutated fixtures:
//! every case is a typed error with a plain-words message, never a panic.

use proflens_format::{load_xspace, Error, Limits};
use proflens_tests::data_dir;

fn decode(name: &str) -> Error {
    let bytes = std::fs::read(data_dir().join("bad").join(name)).unwrap();
    load_xspace(&bytes, &Limits::default(), &mut |_| {}).expect_err(name)
}

#[test]
fn corpus_gives_clear_errors() {
    assert_eq!(decode("empty.xplane.pb"), Error::Empty);
    assert!(matches!(decode("random.xplane.pb"), Error::NotAProfile { found } if found.contains("binary data")));
    assert!(matches!(decode("truncated.xplane.pb"), Error::Truncated { .. }));
    assert!(matches!(decode("truncated.xplane.pb.gz"), Error::Truncated { .. }));
    assert!(matches!(decode("bomb.xplane.pb.gz"), Error::GzipBomb { .. }));
    assert!(matches!(decode("trace.xplane.pb"), Error::NotAProfile { found } if found.contains("JSON")));
    assert!(
        matches!(decode("legacy_overview_page.xplane.pb"), Error::NotAProfile { found } if found.contains("legacy"))
    );
    for name in ["empty.xplane.pb", "truncated.xplane.pb", "bomb.xplane.pb.gz", "trace.xplane.pb"] {
        let message = decode(name).to_string();
        assert!(message.ends_with('.') && !message.contains('\n'), "{name}: {message}");
    }
}

#[test]
fn input_over_the_size_limit_is_refused_before_decoding() {
    let limits = Limits { max_input_bytes: 10, max_decompressed_bytes: 10 };
    let err = load_xspace(&[0u8; 11], &limits, &mut |_| {}).unwrap_err();
    assert_eq!(err, Error::TooLarge { what: "file", limit: 10 });
}

#[test]
fn inconsistent_ids_are_reported() {
    use proflens_format::proto::{x_event, XEvent, XLine, XPlane, XSpace};
    use prost::Message;
    let plane = XPlane {
        name: "/host:CPU".into(),
        lines: vec![XLine {
            name: "main".into(),
            events: vec![XEvent { metadata_id: 5, data: Some(x_event::Data::OffsetPs(0)), ..Default::default() }],
            ..Default::default()
        }],
        ..Default::default()
    };
    let bytes = XSpace { planes: vec![plane], ..Default::default() }.encode_to_vec();
    let err = load_xspace(&bytes, &Limits::default(), &mut |_| {}).unwrap_err();
    assert!(matches!(err, Error::InconsistentIds { .. }), "{err:?}");
    assert!(err.to_string().contains("event metadata 5"), "{err}");
}

/// Thousands of damaged copies of a real profile (bit flips, cuts, splices):
/// each decodes or fails with an error; none panics or hangs.
#[test]
fn mutated_fixtures_never_panic() {
    let path = data_dir().join("xspace/keras_fit/train/plugins/profile/2026_11_22_09_04_23/vm.xplane.pb");
    let original = std::fs::read(path).unwrap();
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let (mut ok, mut failed) = (0, 0);
    for round in 0..1500 {
        let mut bytes = original.clone();
        match round % 3 {
            0 => {
                for _ in 0..1 + next() % 8 {
                    let i = (next() as usize) % bytes.len();
                    bytes[i] ^= 1 << (next() % 8);
                }
            }
            1 => bytes.truncate((next() as usize) % bytes.len()),
            _ => {
                let at = (next() as usize) % bytes.len();
                let len = (next() as usize % 64).min(bytes.len() - at);
                let junk: Vec<u8> = (0..len).map(|_| next() as u8).collect();
                bytes.splice(at..at + len, junk);
            }
        }
        match load_xspace(&bytes, &Limits::default(), &mut |_| {}) {
            Ok(_) => ok += 1,
            Err(e) => {
                assert!(!e.to_string().is_empty());
                failed += 1;
            }
        }
    }
    assert!(failed > 100, "most damage is detected ({ok} decoded, {failed} failed)");
}

/// Names over the model's cap are cut (and counted in a warning), a
/// diagnostic is cut shorter still, and an unknown field is skipped: a crafted
/// gigabyte string costs the profile a megabyte, not its size again.
#[test]
fn giant_strings_are_cut_and_unknown_fields_skipped() {
    use proflens_format::proto::{x_event, XEvent, XEventMetadata, XLine, XPlane, XSpace};
    use prost::Message;
    let giant = "n".repeat(3 << 20);
    let plane = XPlane {
        name: "/host:CPU".into(),
        event_metadata: [(1, XEventMetadata { id: 1, name: giant.clone(), ..Default::default() })].into(),
        lines: vec![XLine {
            name: giant.clone(),
            events: vec![XEvent { metadata_id: 1, data: Some(x_event::Data::OffsetPs(0)), ..Default::default() }],
            ..Default::default()
        }],
        ..Default::default()
    };
    // Field 9 of a plane is not in the schema: 4 MiB of it must not matter.
    let mut plane = plane.encode_to_vec();
    plane.extend([0x4a, 0x80, 0x80, 0x80, 0x02]);
    plane.extend(vec![0u8; 4 << 20]);
    let mut bytes = XSpace { warnings: vec![giant.clone()], ..Default::default() }.encode_to_vec();
    bytes.push(0x0a);
    let mut len = plane.len();
    while len >= 0x80 {
        bytes.push(len as u8 | 0x80);
        len >>= 7;
    }
    bytes.push(len as u8);
    bytes.extend(plane);
    let profile = load_xspace(&bytes, &Limits::default(), &mut |_| {}).unwrap();
    let plane = &profile.planes[0];
    for name in [profile.strings.get(plane.event_metadata[0].name), profile.strings.get(plane.lines[0].name)] {
        assert!(name.len() <= proflens_model::MAX_STRING_BYTES && name.ends_with('…'), "{}", name.len());
    }
    assert!(profile.warnings[0].len() <= 16 << 10, "{}", profile.warnings[0].len());
    assert!(profile.warnings.last().unwrap().contains("2 names or values"), "{:?}", profile.warnings.last());

    let trace = format!(r#"{{"traceEvents":[{{"ph":"X","name":"{giant}","pid":1,"tid":1,"ts":0,"dur":1}}]}}"#);
    let profile = proflens_format::load_profile(trace.as_bytes(), &Limits::default(), &mut |_| {}).unwrap();
    assert_eq!(profile.strings.cut_strings(), 1);
}

/// Eighty thousand ops nested in one another: each op's search for its
/// eager parent, and tf.data's for its nearest iterator, used to walk the
/// whole chain (quadratic: minutes); now one stops after a bounded number of
/// ancestors and the other keeps the answer on its stack. The watchdog turns a hang
/// into a failure.
#[test]
fn deep_nesting_is_grouped_in_bounded_work() {
    const N: usize = 80_000;
    let mut trace =
        String::from(r#"{"traceEvents":[{"ph":"M","pid":1,"name":"process_name","args":{"name":"/host:CPU"}}"#);
    for i in 0..N {
        trace.push_str(&format!(
            r#",{{"ph":"X","pid":1,"tid":1,"ts":{i},"dur":{},"name":"op{i}:MatMul"}}"#,
            2 * (N - i)
        ));
    }
    trace.push_str("]}");
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let profile = proflens_format::load_profile(trace.as_bytes(), &Limits::default(), &mut |_| {}).unwrap();
        let grouping = proflens_analysis::passes::grouping::group_events(&profile);
        // tf.data's walk looks for the nearest iterator among the open events.
        let tf_data = proflens_analysis::tools::tf_data::analyze(&profile, "host");
        assert!(tf_data.pipelines.is_empty());
        done.send(grouping.planes.len()).unwrap();
    });
    let planes = finished.recv_timeout(std::time::Duration::from_secs(60)).expect("grouping finished");
    assert!(planes >= 1);
}

#[test]
fn trace_corpus_cases_read_or_say_why() {
    let load = |name: &str| {
        let bytes = std::fs::read(data_dir().join("bad").join(name)).unwrap();
        proflens_format::load_profile(&bytes, &Limits::default(), &mut |_| {})
    };
    assert_eq!(load("utf16.json").unwrap().event_count(), 1);
    let err = load("no_events.json").unwrap_err();
    assert!(matches!(&err, Error::NoEvents { detail } if detail.starts_with("of its 3 events")), "{err:?}");
}
