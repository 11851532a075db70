//! The streaming decode against the slice decode, on every fixture: the
//! same profile, or the same error, whatever the read size.

use crate::inflate::gzip;
use crate::load_source::load_with_chunk;
use crate::{load_profile_named, Limits};
use proflens_model::{Profile, StatList, StrId};
use std::path::{Path, PathBuf};

pub(crate) fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data")
}

/// Every file under `dir` whose name ends with one of `ends`.
pub(crate) fn files(dir: &Path, ends: &[&str], out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            files(&path, ends, out);
        } else if ends.iter().any(|e| path.to_string_lossy().ends_with(e)) {
            out.push(path);
        }
    }
}

/// The slice decode's result and the streaming one's, as text.
fn both(name: &str, bytes: &[u8], chunk: usize) -> (String, String) {
    let limits = Limits::default();
    let slice = load_profile_named(name, bytes, &limits, &mut |_| {});
    let mut steps = Vec::new();
    let stream = load_with_chunk(name, &bytes.to_vec(), &limits, chunk, &mut |p| steps.push(p.fraction()));
    assert!(steps.windows(2).all(|w| w[0] <= w[1]), "{name}: progress goes forward");
    let text = |r: Result<proflens_model::Profile, crate::Error>| match r {
        Ok(p) => dump(&p),
        Err(e) => format!("error: {e}"),
    };
    (text(slice), text(stream))
}

/// The whole profile as text, every string resolved: the interner's order
/// follows the metadata maps' (hash) order, which differs from one decode
/// to the next.
pub(crate) fn dump(p: &Profile) -> String {
    use std::fmt::Write;
    let mut out = format!(
        "Profile {:?} {:?} {:?} {:?} {:?} {:?} {} planes\n",
        p.errors,
        p.warnings,
        p.hostnames,
        p.origin_ns,
        p.stop_ns,
        p.origin,
        p.planes.len()
    );
    let s = |id: StrId| p.str(id).to_string();
    let list = |stats: &StatList| -> Vec<(String, String)> {
        stats.iter().map(|st| (s(st.key), format!("{:?}", stats.value(st, &p.strings)))).collect()
    };
    for plane in &p.planes {
        writeln!(out, "plane {} {} {:?} counters {:?}", plane.id, s(plane.name), list(&plane.stats), plane.counters)
            .unwrap();
        for m in &plane.event_metadata {
            let display = m.display_name.map(s);
            writeln!(out, " meta {} {} {display:?} {:?} {:?}", m.id, s(m.name), list(&m.stats), m.children).unwrap();
        }
        for line in &plane.lines {
            let e = &line.events;
            let display = line.display_name.map(s);
            writeln!(out, " line {} {} {} {display:?} {}", line.id, line.display_id, s(line.name), line.timestamp_ps)
                .unwrap();
            writeln!(out, "  {:?} {:?} {:?} {:?} {:?}", e.start_ps, e.duration_ps, e.metadata, e.depth, e.aggregated)
                .unwrap();
            for i in 0..e.stats.owners() {
                let stats: Vec<_> =
                    e.stats.of(i).map(|st| (s(st.key), format!("{:?}", e.stats.value(st, &p.strings)))).collect();
                writeln!(out, "  {i} {stats:?}").unwrap();
            }
        }
    }
    out
}

#[test]
fn every_fixture_decodes_the_same_streamed_in_any_read_size() {
    let mut paths = Vec::new();
    files(&data(), &[".xplane.pb", ".xplane.pb.gz", ".trace", ".json", ".json.gz"], &mut paths);
    assert!(paths.len() > 20, "{paths:?}");
    for path in &paths {
        let bytes = std::fs::read(path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let chunks: &[usize] = if bytes.len() < 1 << 20 { &[7, 4096] } else { &[4096] };
        for &chunk in chunks {
            let (slice, stream) = both(&name, &bytes, chunk);
            assert!(slice == stream, "{}, read {chunk} at a time:\n{:.300}\n{:.300}", path.display(), slice, stream);
        }
    }
}

#[test]
fn gzip_xspace_streams_to_the_same_profile() {
    let mut paths = Vec::new();
    files(&data().join("xspace"), &[".xplane.pb"], &mut paths);
    for path in paths.iter().take(4) {
        let gz = gzip(&std::fs::read(path).unwrap());
        for chunk in [7, 4096] {
            let (slice, stream) = both("vm.xplane.pb.gz", &gz, chunk);
            assert!(slice.starts_with("Profile"), "{slice:.200}");
            assert!(slice == stream, "{}, read {chunk} at a time", path.display());
        }
    }
}

/// A file cut anywhere (inside a plane, a line, an event, a varint, the
/// gzip trailer) gives the slice decoder's error, word for word.
#[test]
fn cut_files_give_the_same_errors() {
    let path = data().join("xspace/keras_fit/train/plugins/profile/2026_11_22_09_04_23/vm.xplane.pb");
    let bytes = std::fs::read(path).unwrap();
    let gz = gzip(&bytes);
    let mut seed = 11u64;
    let mut cuts: Vec<usize> = vec![0, 1, 2, 3, 10, 100, bytes.len() - 1];
    for _ in 0..40 {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        cuts.push((seed >> 33) as usize % bytes.len());
    }
    for cut in cuts {
        for (name, file) in [("vm.xplane.pb", &bytes), ("vm.xplane.pb.gz", &gz)] {
            if cut >= file.len() {
                continue;
            }
            let piece = file[..cut.min(file.len())].to_vec();
            let (slice, stream) = both(name, &piece, 4096);
            assert!(slice.starts_with("error"), "{name} cut at {cut}: {slice:.200}");
            assert_eq!(slice, stream, "{name} cut at {cut}");
        }
    }
}

/// Bytes changed at random: never a panic, and the slice decoder's answer.
#[test]
fn damaged_files_give_the_same_answer() {
    let path = data().join("xspace/external/tw003.xplane.pb");
    let bytes = std::fs::read(path).unwrap();
    let mut seed = 5u64;
    for _ in 0..60 {
        let mut damaged = bytes.clone();
        for _ in 0..3 {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let at = (seed >> 33) as usize % damaged.len();
            damaged[at] = (seed >> 20) as u8;
        }
        let (slice, stream) = both("vm.xplane.pb", &damaged, 4096);
        if slice.starts_with("error") || stream.starts_with("error") {
            assert_eq!(slice, stream);
        } else {
            assert!(slice == stream, "damaged file decodes differently");
        }
    }
}

/// A line stating its timestamp again after its events (protobuf keeps
/// the last): the streaming decode, which reads only lines' heads first,
/// notices and decodes again, so the profile is still the slice decoder's.
#[test]
fn a_timestamp_after_the_events_is_the_one_kept() {
    use crate::proto::{x_event, XEvent, XEventMetadata, XLine, XPlane, XSpace};
    use prost::Message;
    fn field(out: &mut Vec<u8>, number: u64, payload: &[u8]) {
        prost::encoding::encode_key(number as u32, prost::encoding::WireType::LengthDelimited, out);
        prost::encoding::encode_varint(payload.len() as u64, out);
        out.extend_from_slice(payload);
    }
    const EPOCH_NS: i64 = 1_700_000_000_000_000_000;
    let event = XEvent { metadata_id: 1, data: Some(x_event::Data::OffsetPs(5)), duration_ps: 9, stats: vec![] };
    let mut lines = Vec::new();
    for (id, ts) in [(1, EPOCH_NS + 500), (2, EPOCH_NS + 900)] {
        let mut line = XLine { id, timestamp_ns: ts, events: vec![event.clone()], ..XLine::default() }.encode_to_vec();
        if id == 1 {
            // timestamp_ns = EPOCH_NS + 100, after the events: the earliest line, so the origin.
            prost::encoding::encode_key(3, prost::encoding::WireType::Varint, &mut line);
            prost::encoding::encode_varint((EPOCH_NS + 100) as u64, &mut line);
        }
        lines.push(line);
    }
    let mut plane = XPlane { id: 1, name: "/host:CPU".into(), ..XPlane::default() };
    plane.event_metadata.insert(1, XEventMetadata { id: 1, name: "op".into(), ..XEventMetadata::default() });
    let mut plane_bytes = Vec::new();
    for line in &lines {
        field(&mut plane_bytes, 3, line);
    }
    plane_bytes.extend(plane.encode_to_vec());
    let mut bytes = Vec::new();
    field(&mut bytes, 1, &plane_bytes);
    bytes.extend(XSpace { hostnames: vec!["vm".into()], ..XSpace::default() }.encode_to_vec());
    for chunk in [1, 7, 4096] {
        let (slice, stream) = both("vm.xplane.pb", &bytes, chunk);
        assert!(slice.contains(&format!("Some({})", EPOCH_NS + 100)), "{slice:.300}");
        assert_eq!(slice, stream, "read {chunk} at a time");
    }
}
