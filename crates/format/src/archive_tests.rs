//! Archives made by GNU tar (tests/data/tar, synthetic), listed and their
//! members decoded where they lie.

use super::*;
use crate::source::Part;
use crate::{load_profile_source, Limits};
use std::path::Path;

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/tar").join(name)).unwrap()
}

fn events_of(tar: &dyn ByteSource, member: &Member) -> usize {
    let part = Part::new(tar, member.offset, member.len);
    load_profile_source(&member.path, &part, &Limits::default(), &mut |_| {}).unwrap().event_count()
}

#[test]
fn a_gnu_tar_gz_lists_its_two_traces() {
    let bytes = fixture("ranks.tar.gz");
    assert!(is_archive_name("ranks.tar.gz") && is_archive_name("R.TGZ") && !is_archive_name(".tar"));
    assert_eq!(packing(&bytes), Some(Packing::TarGzip));
    let tar = inflate(&bytes, u64::MAX).unwrap();
    assert_eq!(packing(&tar), Some(Packing::Tar));
    // The same bytes whether inflated in memory or read a piece at a time.
    let streamed = crate::gunzip_stream::gunzip_all(&bytes, u64::MAX, 7).unwrap();
    assert_eq!(streamed, tar);
    let listing = list(&tar).unwrap();
    let listed: Vec<(&str, &str)> = listing.members.iter().map(|m| (m.path.as_str(), m.listed.as_str())).collect();
    assert_eq!(listed, [("rank-0.json", "rank-0.json"), ("rank-1.pt.trace.json.gz", "rank-1.pt.trace.json.gz")]);
    assert!(listing.skipped.is_empty(), "{:?}", listing.skipped);
    // Members decode in place; rank 1's is a gzip inside the archive.
    let whole = |name: &str| {
        let raw = std::fs::read(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/collectives-synthetic").join(name),
        )
        .unwrap();
        crate::load_profile(&raw, &Limits::default(), &mut |_| {}).unwrap().event_count()
    };
    assert_eq!(events_of(&tar, &listing.members[0]), whole("rank-0.json"));
    assert_eq!(events_of(&tar, &listing.members[1]), whole("rank-1.json"));
    assert!(Part::new(&tar[..], listing.members[0].offset, listing.members[0].len).as_slice().is_some());
    // A limit on the inflated size holds.
    assert!(matches!(inflate(&bytes, 1000), Err(Error::TooLarge { .. })));
}

#[test]
fn a_pax_tar_lists_its_traces_and_skips_the_rest_with_a_reason() {
    let tar = fixture("ranks-pax.tar");
    assert_eq!(packing(&tar), Some(Packing::Tar));
    let listing = list(&tar).unwrap();
    let listed: Vec<&str> = listing.members.iter().map(|m| m.listed.as_str()).collect();
    assert_eq!(listed, ["ranks/rank-0.json", "ranks/rank-1.pt.trace.json.gz"]);
    // The long name comes from its pax `path` record; the directory passes silently.
    assert_eq!(listing.skipped.len(), 1);
    assert_eq!(listing.skipped[0].path, format!("ranks/notes-{}.txt", "x".repeat(110)));
    assert!(listing.skipped[0].reason.starts_with("not a profile"), "{:?}", listing.skipped);
    // Discovery makes one run of them, a host per rank.
    let found = crate::logdir::discover(listed.iter().copied(), "root");
    let hosts: Vec<&str> = found.runs[0].hosts.iter().map(|h| h.name.as_str()).collect();
    assert_eq!((found.runs.len(), found.runs[0].name.as_str(), hosts), (1, "ranks", vec!["rank-0", "rank-1"]));
}

#[test]
fn members_named_by_nothing_are_named_by_their_content() {
    let xspace = [0x0a, 0x02, 0x0a, 0x00];
    assert_eq!(listed_name("d/host0.bin", &xspace), Ok("d/host0.xplane.pb".to_string()));
    let gz = crate::inflate::gzip(br#"{"traceEvents":[]}"#);
    assert_eq!(listed_name("rank3.gz", &gz), Ok("rank3.json".to_string()));
    assert!(listed_name("r.json", b"{\"x\":1}").is_err());
    assert!(listed_name("h.proflens-summary.bin.gz", b"").unwrap_err().contains("summary"));
    assert!(listed_name("inner.tar", b"").unwrap_err().contains("archive inside"));
    assert_eq!(listed_name("vm.xplane.pb", b"anything"), Ok("vm.xplane.pb".to_string()));
}

#[test]
fn a_damaged_archive_is_a_clear_error() {
    let tar = fixture("ranks-pax.tar");
    let err = list(&&tar[..2000]).unwrap_err().to_string();
    assert!(err.starts_with("The profile is truncated (the tar archive ends inside"), "{err}");
    let gz = fixture("ranks.tar.gz");
    assert!(inflate(&&gz[..gz.len() - 10], u64::MAX).is_err());
    // A tar is no one host's profile: said so when opened as one.
    let err = crate::load_profile(&tar, &Limits::default(), &mut |_| {}).unwrap_err().to_string();
    assert!(err.contains("a tar archive"), "{err}");
}
