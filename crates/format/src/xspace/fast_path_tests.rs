//! The fast readers ([`super::plane_head`], [`super::line_walk`]) against
//! prost: every file they read gives the profile that prost's decode of it
//! builds, including where protobuf's merge rules (the last value of a
//! field or map key wins) decide it, and where they hand over to prost.
//! The inputs are SYNTHETIC, written here with prost.

use super::{build, decode};
use crate::proto::{x_event, x_stat, XEvent, XEventMetadata, XLine, XPlane, XSpace, XStat, XStatMetadata};
use crate::stream_tests::dump;
use prost::Message;

fn stat(id: i64, value: x_stat::Value) -> XStat {
    XStat { metadata_id: id, value: Some(value) }
}

fn event(metadata_id: i64, offset: i64, stats: Vec<XStat>) -> XEvent {
    XEvent { metadata_id, data: Some(x_event::Data::OffsetPs(offset)), duration_ps: 10, stats }
}

/// A plane with every kind of metadata the reader takes apart.
fn plane(name: &str, op: &str) -> XPlane {
    let mut plane = XPlane { id: 3, name: name.into(), ..Default::default() };
    for (id, name) in [(1, "step_num"), (2, "tf_op"), (3, "a:MatMul"), (4, "long_name")] {
        plane.stat_metadata.insert(id, XStatMetadata { id, name: name.into(), description: "d".into() });
    }
    let meta = |id: i64, name: &str, children: Vec<i64>| XEventMetadata {
        id,
        name: name.into(),
        display_name: format!("{name} shown"),
        metadata: vec![1, 2, 3],
        stats: vec![stat(2, x_stat::Value::RefValue(3)), stat(4, x_stat::Value::StrValue(op.into()))],
        child_id: children,
    };
    plane.event_metadata.insert(7, meta(7, "train", vec![8, 99]));
    plane.event_metadata.insert(8, meta(8, "step", vec![]));
    plane.stats.push(stat(1, x_stat::Value::Int64Value(-4)));
    let events = (0..100)
        .map(|i| {
            let text = x_stat::Value::StrValue(format!("op{}", i % 3));
            event(7 + i % 2, 1000 - i * 7, vec![stat(1, x_stat::Value::Uint64Value(1 << (i % 64))), stat(4, text)])
        })
        .collect();
    plane.lines.push(XLine { id: 5, name: "tf_Compute".into(), timestamp_ns: 10, events, ..Default::default() });
    plane
}

/// The slice decoder's profile of `bytes` against the one built from prost's decode of them.
fn assert_as_prost(bytes: &[u8]) {
    let expected = dump(&build(XSpace::decode(bytes).unwrap(), &mut |_| {}).unwrap());
    assert_eq!(dump(&decode(bytes, &mut |_| {}).unwrap()), expected);
}

fn space_of(planes: Vec<XPlane>) -> Vec<u8> {
    XSpace { planes, hostnames: vec!["vm".into()], ..Default::default() }.encode_to_vec()
}

#[test]
fn metadata_read_in_place_is_what_prost_reads() {
    assert_as_prost(&space_of(vec![plane("/host:CPU", "a"), plane("/device:GPU:0", "b")]));
}

#[test]
fn a_map_key_stated_twice_keeps_its_last_value() {
    // Two encodings of one plane, one after the other, are one plane merged:
    // its maps hold the second plane's value of each key both state.
    let mut merged = plane("/host:CPU", "first").encode_to_vec();
    let mut second = plane("/host:CPU", "second");
    second.lines.clear();
    second.event_metadata.get_mut(&7).unwrap().name = "eval".into();
    second.stat_metadata.get_mut(&2).unwrap().name = "tf_op2".into();
    merged.extend(second.encode_to_vec());
    let mut bytes = Vec::new();
    prost::encoding::bytes::encode(1, &merged, &mut bytes);
    assert_as_prost(&bytes);
    let profile = decode(&bytes, &mut |_| {}).unwrap();
    let names: Vec<_> = profile.planes[0].event_metadata.iter().map(|m| profile.str(m.name)).collect();
    assert_eq!(names, ["eval", "step"]);
}

#[test]
fn a_timestamp_stated_after_the_events_moves_them() {
    // The line's timestamp stated again after its events (writers put it
    // first): the events count from the last one, as prost reads the line.
    let mut p = plane("/host:CPU", "a");
    let mut line = p.lines.pop().unwrap().encode_to_vec();
    prost::encoding::int64::encode(3, &5_000, &mut line);
    let mut plane_bytes = p.encode_to_vec();
    prost::encoding::bytes::encode(3, &line, &mut plane_bytes);
    let mut bytes = Vec::new();
    prost::encoding::bytes::encode(1, &plane_bytes, &mut bytes);
    assert_as_prost(&bytes);
    let profile = decode(&bytes, &mut |_| {}).unwrap();
    assert_eq!(profile.planes[0].lines[0].timestamp_ps, 5_000_000);
}

#[test]
fn packed_and_unpacked_children_are_read_alike() {
    // prost writes `child_id` packed; an unpacked list (proto2 writers) is the same list.
    let mut p = plane("/host:CPU", "a");
    p.event_metadata.get_mut(&7).unwrap().child_id.clear();
    let mut entry_value = p.event_metadata[&7].encode_to_vec();
    for child in [8i64, 7] {
        prost::encoding::int64::encode(6, &child, &mut entry_value);
    }
    let mut entry = Vec::new();
    prost::encoding::int64::encode(1, &7, &mut entry);
    prost::encoding::bytes::encode(2, &entry_value, &mut entry);
    let mut plane_bytes = p.encode_to_vec();
    prost::encoding::bytes::encode(4, &entry, &mut plane_bytes);
    let mut bytes = Vec::new();
    prost::encoding::bytes::encode(1, &plane_bytes, &mut bytes);
    assert_as_prost(&bytes);
    let profile = decode(&bytes, &mut |_| {}).unwrap();
    assert_eq!(profile.planes[0].event_metadata[0].children, [1, 0]);
}

#[test]
fn unusual_metadata_is_left_to_prost_with_its_errors() {
    // A stat metadata's description that is not UTF-8: prost refuses the file.
    let p = plane("/host:CPU", "a");
    let mut value = Vec::new();
    prost::encoding::int64::encode(1, &9, &mut value);
    prost::encoding::bytes::encode(3, &vec![0xff, 0xfe], &mut value);
    let mut entry = Vec::new();
    prost::encoding::int64::encode(1, &9, &mut entry);
    prost::encoding::bytes::encode(2, &value, &mut entry);
    let mut plane_bytes = p.encode_to_vec();
    prost::encoding::bytes::encode(5, &entry, &mut plane_bytes);
    let mut bytes = Vec::new();
    prost::encoding::bytes::encode(1, &plane_bytes, &mut bytes);
    assert!(XSpace::decode(bytes.as_slice()).is_err());
    let err = decode(&bytes, &mut |_| {}).unwrap_err();
    assert!(err.to_string().contains("does not decode"), "{err}");
}
