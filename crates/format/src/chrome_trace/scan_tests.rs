//! The scanner's decode ([`super::scan_event`]) against serde's
//! ([`super::decode_with_serde`]) on every trace fixture: the same profile,
//! to the last stat and name, or the same kind of error.

use super::{decode, decode_with_serde};
use crate::inflate::gunzip;
use crate::stream_tests::{data, dump, files};

#[test]
fn the_scanner_decodes_every_trace_fixture_as_serde_does() {
    let mut paths = Vec::new();
    files(&data(), &[".json", ".json.gz"], &mut paths);
    // The small ones: each is decoded twice, and the tests run unoptimized
    // (the big Kineto fixtures go through the scanner in the parity tests).
    paths.retain(|p| !p.to_string_lossy().contains("goldens"));
    paths.retain(|p| std::fs::metadata(p).is_ok_and(|m| m.len() < 300_000));
    let mut scanned = 0;
    for path in &paths {
        let bytes = std::fs::read(path).unwrap();
        let bytes =
            if bytes.starts_with(&[0x1f, 0x8b]) { gunzip(&bytes, u64::MAX, &mut |_| {}).unwrap() } else { bytes };
        let text = crate::json_text(&bytes);
        scanned += usize::from(super::scan_event::document(&text).is_ok());
        let (fast, serde) = (decode(&text, &mut |_| {}), decode_with_serde(&text, &mut |_| {}));
        let what = path.display();
        match (&fast, &serde) {
            (Ok(a), Ok(b)) => assert!(dump(a) == dump(b), "{what}: the scanner's profile differs"),
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{what}"),
            (a, b) => panic!("{what}: scanner {:?}, serde {:?}", a.as_ref().err(), b.as_ref().err()),
        }
    }
    // Most fixtures are plain traces the scanner reads whole.
    assert!(scanned >= 8, "{scanned} of {} read by the scanner", paths.len());
}
