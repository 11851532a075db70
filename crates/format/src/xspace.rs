//! XSpace protobuf → [`Profile`].

use crate::proto::{x_stat, XLine, XPlane, XSpace, XStat};
use crate::sniff::{top_level_fields, FramingBreak};
use crate::wire;
use crate::{Error, Progress};
use proflens_model::{nesting_depths, Events, Interner, Line, Profile};

mod builder;
mod event_wire;
#[cfg(test)]
mod fast_path_tests;
mod line_walk;
mod plane_head;
pub(crate) mod split;
mod stream;
use builder::PlaneBuilder;
use plane_head::{read_plane_head, PlaneHead};
pub(crate) use stream::{decode_stream, Input, Looks};

/// Plane whose stats record the wall-clock start and stop of the capture.
pub const TASK_ENVIRONMENT_PLANE: &str = "Task Environment";

/// Line timestamps above this (ns) are wall-clock times since the Unix epoch
/// (2001 onwards) rather than offsets from the start of the capture.
const EPOCH_NS_THRESHOLD: i64 = 1_000_000_000_000_000_000;

/// Decodes raw (uncompressed) XSpace bytes. Lines and events are decoded one
/// at a time straight into the model's columns, so the decoded protobuf
/// never exists whole in memory.
pub fn decode(bytes: &[u8], progress: &mut dyn FnMut(Progress)) -> Result<Profile, Error> {
    let (head, planes) = read_heads(bytes, progress)?;
    // A second try reports only progress past the first's.
    let progress = &mut forward_only(progress);
    if let Ok(Some(profile)) = build_planes(&head, &planes, Stamps::Heads, progress) {
        return Ok(profile);
    }
    // Never `None`: only heads are checked against their lines.
    let none = || Error::Corrupt { detail: "its lines could not be read".into() };
    build_planes(&head, &planes, Stamps::Whole, progress)?.ok_or_else(none)
}

/// The space's own fields and its planes' heads, lines where they lie.
fn read_heads<'a>(bytes: &'a [u8], progress: &mut dyn FnMut(Progress)) -> Result<(XSpace, Vec<PlaneHead<'a>>), Error> {
    if let (_, Some(FramingBreak::Truncated { at })) = top_level_fields(bytes) {
        return Err(Error::Truncated {
            detail: format!("it ends inside a record that starts at byte {at} of {}", bytes.len()),
        });
    }
    progress(Progress::Parsing);
    let head: XSpace = wire::decode_except(bytes, PLANES, SPACE, "profile")?;
    let mut planes: Vec<PlaneHead> = Vec::new();
    for payload in wire::payloads(bytes, PLANES, "profile") {
        planes.push(read_plane_head(payload?)?);
    }
    Ok((head, planes))
}

/// `progress`, passed on only where it is past what was shown (a decode
/// started again does not show its progress going back).
fn forward_only(progress: &mut dyn FnMut(Progress)) -> impl FnMut(Progress) + '_ {
    let mut shown = 0.0;
    move |p: Progress| {
        if p.fraction() >= shown {
            shown = p.fraction();
            progress(p);
        }
    }
}

/// How the lines' timestamps are read before any line is built (the
/// profile's origin depends on them all).
#[derive(Clone, Copy, PartialEq)]
enum Stamps {
    /// Each line's fields up to its first event, where writers put its
    /// timestamp: the events' bytes are then read once, not twice. Each
    /// line checks, as it is built, that it states no other; on any doubt
    /// or error the file is built again with [`Stamps::Whole`], whose
    /// errors come in the order the slice decoder has always told them.
    Heads,
    /// Every line's framing, whole, before any is built.
    Whole,
}

/// The profile of the planes' heads; `Ok(None)` where a line's head did
/// not state the timestamp the line does, or could not be read (only with
/// [`Stamps::Heads`]).
fn build_planes(
    head: &XSpace,
    planes: &[PlaneHead],
    stamps: Stamps,
    progress: &mut dyn FnMut(Progress),
) -> Result<Option<Profile>, Error> {
    let (mut line_starts, mut counts) = (Vec::new(), Vec::new());
    for line in planes.iter().flat_map(|plane| &plane.lines) {
        let (timestamp_ns, count) = match stamps {
            Stamps::Heads => match line_walk::head_timestamp(line) {
                Some(timestamp_ns) => (timestamp_ns, None),
                None => return Ok(None),
            },
            Stamps::Whole => match line_walk::framing(line) {
                Some(framing) => (framing.timestamp_ns, Some(framing.events)),
                None => (line_timestamp(line)?, None),
            },
        };
        line_starts.push(timestamp_ns);
        counts.push(count);
    }
    let mut profile = new_profile(head, planes.len(), heads_window(planes), &line_starts)?;
    let origin = profile.origin_ns.map(|o| i64::try_from(o).unwrap_or(i64::MAX));
    let total_lines = line_starts.len() as u64;
    let mut lines_done = 0u64;
    let mut stated = line_starts.iter().zip(counts);
    for plane in planes {
        let mut builder = PlaneBuilder::from_head(plane, &mut profile.strings)?;
        let mut built = Vec::with_capacity(plane.lines.len());
        for line in &plane.lines {
            let (&timestamp_ns, count) = stated.next().unwrap_or((&0, None));
            let (line, read_ns) = decode_line_counted(&mut builder, line, origin, &mut profile.strings, count)?;
            if stamps == Stamps::Heads && read_ns != timestamp_ns {
                return Ok(None);
            }
            built.push(line);
            lines_done += 1;
            progress(Progress::Building { done: lines_done, total: total_lines });
        }
        profile.planes.push(builder.finish(built));
    }
    Ok(Some(profile))
}

/// One line's encoding → the model's line, and the `timestamp_ns` it
/// states. The slice walk above and the streaming one ([`stream`]) both
/// decode lines here.
fn decode_line(
    builder: &mut PlaneBuilder,
    line: &[u8],
    origin: Option<i64>,
    strings: &mut Interner,
) -> Result<(Line, i64), Error> {
    decode_line_counted(builder, line, origin, strings, None)
}

/// [`decode_line`] of a line of `count` events, where they were counted.
fn decode_line_counted(
    builder: &mut PlaneBuilder,
    line: &[u8],
    origin: Option<i64>,
    strings: &mut Interner,
    count: Option<usize>,
) -> Result<(Line, i64), Error> {
    if let Some(decoded) = line_walk::decode(builder, line, origin, strings, count) {
        return Ok(decoded);
    }
    // The line's own fields, and its events counted in the same walk, so
    // that the columns are allocated once, at their size.
    let mut count = 0;
    let header: XLine = wire::decode_except_with(line, EVENTS, LINE, "line", |field| {
        count += usize::from(matches!(field.value, wire::Value::Bytes(_)));
    })?;
    let mut events = builder.start_line(count);
    let base_ps = line_base_ps(&header, origin);
    let mut stats = Vec::new();
    for (i, payload) in wire::payloads(line, EVENTS, "line").enumerate() {
        builder.push_encoded(&mut events, &header, base_ps, i, payload?, &mut stats, strings)?;
    }
    let timestamp_ns = header.timestamp_ns;
    Ok((finish_line(header, base_ps, events, strings), timestamp_ns))
}

const PLANES: u64 = 1;
const LINES: u64 = 3;
const LINE_TIMESTAMP: u64 = 3;
const EVENTS: u64 = 4;

/// The fields decoding keeps (others are dropped unread), and caps on text:
/// names as the interner keeps them, diagnostics as outputs quote them.
mod schema {
    use crate::wire::{Kind::*, Schema};

    /// A little over the interner's cap, so that it still sees the name is
    /// too long: it marks the cut and counts it for the profile's warnings.
    const NAME: usize = proflens_model::MAX_STRING_BYTES + 4;

    const NOTE: usize = 16 << 10;
    const STAT: Schema = &[(1, Keep), (2, Keep), (3, Keep), (4, Keep), (5, Text(NAME)), (6, Keep), (7, Keep)];
    pub const EVENT: Schema = &[(1, Keep), (2, Keep), (3, Keep), (4, Message(STAT)), (5, Keep)];
    pub const LINE: Schema =
        &[(1, Keep), (10, Keep), (2, Text(NAME)), (11, Text(NAME)), (3, Keep), (9, Keep), (4, Message(EVENT))];
    const EVENT_METADATA: Schema =
        &[(1, Keep), (2, Text(NAME)), (4, Text(NAME)), (3, Keep), (5, Message(STAT)), (6, Keep)];
    const STAT_METADATA: Schema = &[(1, Keep), (2, Text(NAME)), (3, Text(NAME))];
    pub const PLANE: Schema = &[
        (1, Keep),
        (2, Text(NAME)),
        (3, Message(LINE)),
        (4, Message(&[(1, Keep), (2, Message(EVENT_METADATA))])),
        (5, Message(&[(1, Keep), (2, Message(STAT_METADATA))])),
        (6, Message(STAT)),
    ];
    pub const SPACE: Schema = &[(1, Message(PLANE)), (2, Text(NOTE)), (3, Text(NOTE)), (4, Text(NAME))];
}
use schema::{EVENT, LINE, PLANE, SPACE};

/// A line's `timestamp_ns`, read without decoding its events.
fn line_timestamp(line: &[u8]) -> Result<i64, Error> {
    let mut ts = 0;
    for field in wire::fields(line, "line") {
        let field = field?;
        if let (LINE_TIMESTAMP, wire::Value::Varint(v)) = (field.number, field.value) {
            ts = v as i64;
        }
    }
    Ok(ts)
}

/// The profile before its planes: diagnostics, host names, time origin.
/// `window`: the capture's start and stop ([`capture_window`]).
fn new_profile(
    head: &XSpace,
    planes: usize,
    window: (Option<u64>, Option<u64>),
    line_starts: &[i64],
) -> Result<Profile, Error> {
    if planes == 0 {
        return Err(if head.errors.is_empty() {
            Error::Empty
        } else {
            Error::Corrupt { detail: format!("it holds no planes; the profiler reported: {}", head.errors.join("; ")) }
        });
    }
    let (start, stop) = window;
    let earliest_epoch = line_starts.iter().copied().filter(|&t| t >= EPOCH_NS_THRESHOLD).min();
    let origin = start.map(|s| i64::try_from(s).unwrap_or(i64::MAX)).or(earliest_epoch);
    Ok(Profile {
        strings: Interner::new(),
        errors: at_most(&head.errors, "errors"),
        warnings: at_most(&head.warnings, "warnings"),
        hostnames: head.hostnames.clone(),
        origin_ns: origin.and_then(|o| u64::try_from(o).ok()),
        stop_ns: stop,
        ..Profile::default()
    })
}

/// The first [`MAX_NOTES`] diagnostics, and how many more there were: a
/// crafted file can hold millions, which every output would echo.
fn at_most(notes: &[String], what: &str) -> Vec<String> {
    const MAX_NOTES: usize = 100;
    let mut kept = notes[..notes.len().min(MAX_NOTES)].to_vec();
    if notes.len() > MAX_NOTES {
        kept.push(format!("… and {} more {what}", notes.len() - MAX_NOTES));
    }
    kept
}

/// Builds the model from an already decoded XSpace (tests, tools that write
/// XSpace themselves).
pub fn build(mut space: XSpace, progress: &mut dyn FnMut(Progress)) -> Result<Profile, Error> {
    let planes = std::mem::take(&mut space.planes);
    let line_starts: Vec<i64> = planes.iter().flat_map(|p| &p.lines).map(|l| l.timestamp_ns).collect();
    let headers: Vec<&XPlane> = planes.iter().collect();
    let mut profile = new_profile(&space, planes.len(), capture_window(&headers), &line_starts)?;
    let origin = profile.origin_ns.map(|o| i64::try_from(o).unwrap_or(i64::MAX));
    let total_lines = line_starts.len() as u64;
    let mut lines_done = 0u64;
    for mut plane in planes {
        let lines = std::mem::take(&mut plane.lines);
        let mut builder = PlaneBuilder::new(plane, &mut profile.strings)?;
        let mut built = Vec::with_capacity(lines.len());
        for mut line in lines {
            let xevents = std::mem::take(&mut line.events);
            let base_ps = line_base_ps(&line, origin);
            let mut events = builder.start_line(xevents.len());
            for (i, event) in xevents.iter().enumerate() {
                builder.push_xevent(&mut events, &line, base_ps, i, event, &mut profile.strings)?;
            }
            built.push(finish_line(line, base_ps, events, &mut profile.strings));
            lines_done += 1;
            progress(Progress::Building { done: lines_done, total: total_lines });
        }
        profile.planes.push(builder.finish(built));
    }
    Ok(profile)
}

/// [`capture_window`] of planes' heads.
fn heads_window(planes: &[PlaneHead]) -> (Option<u64>, Option<u64>) {
    let env = planes.iter().find(|p| p.plane.name == TASK_ENVIRONMENT_PLANE);
    env.map_or((None, None), |env| match &env.metadata {
        Some(metadata) => window_of(&metadata.stat_names, &env.plane.stats),
        None => capture_window(&[&env.plane]),
    })
}

/// `profile_start_time` / `profile_stop_time` of the Task Environment plane.
pub(crate) fn capture_window(planes: &[&XPlane]) -> (Option<u64>, Option<u64>) {
    let Some(env) = planes.iter().find(|p| p.name == TASK_ENVIRONMENT_PLANE) else {
        return (None, None);
    };
    let mut names: Vec<(i64, &str)> = env.stat_metadata.iter().map(|(&id, m)| (id, m.name.as_str())).collect();
    names.sort_unstable_by_key(|&(id, _)| id);
    window_of(&names, &env.stats)
}

/// The window that a Task Environment plane's stats state (`names`: its
/// stat metadata's, by id).
fn window_of(names: &[(i64, &str)], stats: &[XStat]) -> (Option<u64>, Option<u64>) {
    let stat = |name: &str| {
        let id = names.iter().find(|(_, n)| *n == name).map(|&(id, _)| id)?;
        stats.iter().find(|s| s.metadata_id == id).and_then(|s| match s.value {
            Some(x_stat::Value::Uint64Value(v)) => Some(v),
            Some(x_stat::Value::Int64Value(v)) => u64::try_from(v).ok(),
            _ => None,
        })
    };
    (stat("profile_start_time").filter(|&v| v > 0), stat("profile_stop_time").filter(|&v| v > 0))
}

/// Where a line's event offsets count from: its timestamp, in ps from the origin.
fn line_base_ps(line: &XLine, origin_ns: Option<i64>) -> i64 {
    relative_ns(line.timestamp_ns, origin_ns).saturating_mul(1000)
}

/// The line, its events sorted and nested.
fn finish_line(line: XLine, base_ps: i64, mut events: Events, strings: &mut Interner) -> Line {
    finish_events(&mut events);
    Line {
        id: line.id,
        display_id: if line.display_id != 0 { line.display_id } else { line.id },
        name: strings.intern(&line.name),
        display_name: (!line.display_name.is_empty()).then(|| strings.intern(&line.display_name)),
        timestamp_ps: base_ps,
        events,
    }
}

/// A line timestamp relative to the origin: wall-clock stamps are shifted,
/// stamps already relative to the capture start are kept.
fn relative_ns(timestamp_ns: i64, origin_ns: Option<i64>) -> i64 {
    match origin_ns {
        Some(origin) if timestamp_ns >= origin => timestamp_ns - origin,
        Some(origin) if timestamp_ns >= EPOCH_NS_THRESHOLD => timestamp_ns - origin,
        _ => timestamp_ns,
    }
}

/// A line's columns as the model keeps them: without the room their growth
/// left, sorted, with nesting depths.
pub(crate) fn finish_events(events: &mut Events) {
    events.shrink_to_fit();
    sort_events(events);
    events.depth = nesting_depths(&events.start_ps, &events.duration_ps);
}

/// Sorts a line's events by (start asc, duration desc), keeping columns aligned.
fn sort_events(events: &mut Events) {
    let keys = events.start_ps.iter().zip(&events.duration_ps).map(|(s, d)| (s, std::cmp::Reverse(d)));
    if keys.is_sorted() {
        return;
    }
    // The times as plain lists while sorting: the sort reads them n log n times.
    let (starts, durations) = (events.start_ps.to_vec(), events.duration_ps.to_vec());
    let key = |i: u32| (starts[i as usize], std::cmp::Reverse(durations[i as usize]));
    let mut order: Vec<u32> = (0..events.len() as u32).collect();
    order.sort_by_key(|&i| key(i));
    events.start_ps = order.iter().map(|&i| starts[i as usize]).collect();
    events.duration_ps = order.iter().map(|&i| durations[i as usize]).collect();
    drop((starts, durations));
    // One column is reordered at a time, so that the sort holds one copy
    // beside the events rather than a second set of them.
    fn pick<T: Copy>(column: &mut Vec<T>, order: &[u32]) {
        *column = order.iter().map(|&i| column[i as usize]).collect();
    }
    pick(&mut events.metadata, &order);
    if !events.aggregated.is_empty() {
        let mut position = vec![0u32; order.len()];
        for (new, &old) in order.iter().enumerate() {
            position[old as usize] = new as u32;
        }
        events.aggregated.iter_mut().for_each(|(i, _)| *i = position[*i as usize]);
    }
    events.stats.permute(&order);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::{x_event, XEvent, XEventMetadata, XLine, XStat, XStatMetadata};
    use prost::Message;

    fn sample_space() -> XSpace {
        let mut plane = XPlane { id: 0, name: "/host:CPU".into(), ..Default::default() };
        plane.event_metadata.insert(7, XEventMetadata { id: 7, name: "train".into(), ..Default::default() });
        plane.stat_metadata.insert(1, XStatMetadata { id: 1, name: "step_num".into(), ..Default::default() });
        plane.stat_metadata.insert(2, XStatMetadata { id: 2, name: "tf_op".into(), ..Default::default() });
        plane.stat_metadata.insert(3, XStatMetadata { id: 3, name: "a:MatMul".into(), ..Default::default() });
        let event = |offset, dur, stats| XEvent {
            metadata_id: 7,
            data: Some(x_event::Data::OffsetPs(offset)),
            duration_ps: dur,
            stats,
        };
        plane.lines.push(XLine {
            id: 5,
            name: "tf_Compute".into(),
            timestamp_ns: 10,
            events: vec![
                event(500, 10, vec![XStat { metadata_id: 2, value: Some(x_stat::Value::RefValue(3)) }]),
                event(0, 1000, vec![XStat { metadata_id: 1, value: Some(x_stat::Value::Uint64Value(4)) }]),
            ],
            ..Default::default()
        });
        XSpace { planes: vec![plane], hostnames: vec!["vm".into()], ..Default::default() }
    }

    #[test]
    fn builds_sorted_columns_with_resolved_stats() {
        let p = build(sample_space(), &mut |_| {}).unwrap();
        let line = &p.planes[0].lines[0];
        assert_eq!(line.events.start_ps, vec![10_000, 10_500]);
        assert_eq!(line.events.depth, vec![0, 1]);
        let stats = &line.events.stats;
        let first: Vec<_> =
            stats.of(0).map(|s| (p.str(s.key).to_string(), stats.value(s, &p.strings).as_i64())).collect();
        assert_eq!(first, vec![("step_num".to_string(), Some(4))]);
        let second: Vec<_> = stats.of(1).map(|s| stats.value(s, &p.strings).as_str().map(str::to_owned)).collect();
        assert_eq!(second, vec![Some("a:MatMul".to_string())]);
        assert_eq!(line.display_id, 5);
        assert_eq!(p.event_count(), 2);
    }

    #[test]
    fn missing_metadata_is_an_error() {
        let mut space = sample_space();
        space.planes[0].lines[0].events[0].metadata_id = 99;
        let err = build(space, &mut |_| {}).unwrap_err();
        assert!(matches!(&err, Error::InconsistentIds { detail } if detail.contains("event metadata 99")), "{err}");

        let mut space = sample_space();
        space.planes[0].lines[0].events[1].stats[0].metadata_id = 42;
        let err = build(space, &mut |_| {}).unwrap_err();
        assert!(err.to_string().contains("stat metadata 42"), "{err}");

        // A plane stat of unknown metadata is left out, as XProf leaves it.
        let mut space = sample_space();
        space.planes[0].stats.push(XStat { metadata_id: 42, value: Some(x_stat::Value::Int64Value(1)) });
        space.planes[0].stats.push(XStat { metadata_id: 1, value: Some(x_stat::Value::Int64Value(9)) });
        let p = build(space, &mut |_| {}).unwrap();
        let kept: Vec<_> = p.planes[0].stats.iter().map(|s| p.str(s.key).to_string()).collect();
        assert_eq!(kept, ["step_num"]);
    }

    #[test]
    fn wall_clock_lines_become_relative_to_capture_start() {
        assert_eq!(relative_ns(1_700_000_000_000_000_123, Some(1_700_000_000_000_000_000)), 123);
        assert_eq!(relative_ns(7761, Some(1_700_000_000_000_000_000)), 7761);
        assert_eq!(relative_ns(7761, None), 7761);
    }

    #[test]
    fn an_empty_space_is_an_error() {
        assert_eq!(build(XSpace::default(), &mut |_| {}).unwrap_err(), Error::Empty);
        let bytes = XSpace::default().encode_to_vec();
        assert!(bytes.is_empty());
    }
}
