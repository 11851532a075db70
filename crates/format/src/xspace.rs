//! XSpace protobuf → [`Profile`].

use crate::proto::{x_stat, XEvent, XLine, XPlane, XSpace};
use crate::sniff::{top_level_fields, FramingBreak};
use crate::wire;
use crate::{Error, Progress};
use proflens_model::{
    nesting_depths, EventMetadata, Events, Interner, Line, MetaIdx, Plane, Profile, StatList, Stats, StrId, Times,
};
use rustc_hash::FxHashMap;

mod event_wire;
mod stream;
use event_wire::{read_event, EventData, EventIn, StatIn, StatValueIn};
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
    if let (_, Some(FramingBreak::Truncated { at })) = top_level_fields(bytes) {
        return Err(Error::Truncated {
            detail: format!("it ends inside a record that starts at byte {at} of {}", bytes.len()),
        });
    }
    progress(Progress::Parsing);
    let head: XSpace = wire::decode_except(bytes, PLANES, SPACE, "profile")?;
    let mut planes = Vec::new();
    for payload in wire::payloads(bytes, PLANES, "profile") {
        let payload = payload?;
        let header: XPlane = wire::decode_except(payload, LINES, PLANE, "plane")?;
        let lines: Vec<&[u8]> = wire::payloads(payload, LINES, "plane").collect::<Result<_, _>>()?;
        planes.push((header, lines));
    }
    let headers: Vec<&XPlane> = planes.iter().map(|(h, _)| h).collect();
    let mut line_starts = Vec::new();
    for (_, lines) in &planes {
        for line in lines {
            line_starts.push(line_timestamp(line)?);
        }
    }
    let mut profile = new_profile(head, &headers, &line_starts)?;
    let origin = profile.origin_ns.map(|o| i64::try_from(o).unwrap_or(i64::MAX));
    let total_lines = line_starts.len() as u64;
    let mut lines_done = 0u64;
    for (header, lines) in planes {
        let mut builder = PlaneBuilder::new(header, &mut profile.strings)?;
        let mut built = Vec::with_capacity(lines.len());
        for line in lines {
            built.push(decode_line(&mut builder, line, origin, &mut profile.strings)?.0);
            lines_done += 1;
            progress(Progress::Building { done: lines_done, total: total_lines });
        }
        profile.planes.push(builder.finish(built));
    }
    Ok(profile)
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
    let header: XLine = wire::decode_except(line, EVENTS, LINE, "line")?;
    // Counted first, so that the columns are allocated once, at their size.
    let count = wire::payloads(line, EVENTS, "line").count();
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
fn new_profile(head: XSpace, planes: &[&XPlane], line_starts: &[i64]) -> Result<Profile, Error> {
    if planes.is_empty() {
        return Err(if head.errors.is_empty() {
            Error::Empty
        } else {
            Error::Corrupt { detail: format!("it holds no planes; the profiler reported: {}", head.errors.join("; ")) }
        });
    }
    let (start, stop) = capture_window(planes);
    let earliest_epoch = line_starts.iter().copied().filter(|&t| t >= EPOCH_NS_THRESHOLD).min();
    let origin = start.map(|s| i64::try_from(s).unwrap_or(i64::MAX)).or(earliest_epoch);
    Ok(Profile {
        strings: Interner::new(),
        errors: at_most(head.errors, "errors"),
        warnings: at_most(head.warnings, "warnings"),
        hostnames: head.hostnames,
        origin_ns: origin.and_then(|o| u64::try_from(o).ok()),
        stop_ns: stop,
        ..Profile::default()
    })
}

/// The first [`MAX_NOTES`] diagnostics, and how many more there were: a
/// crafted file can hold millions, which every output would echo.
fn at_most(mut notes: Vec<String>, what: &str) -> Vec<String> {
    const MAX_NOTES: usize = 100;
    if notes.len() > MAX_NOTES {
        let more = notes.len() - MAX_NOTES;
        notes.truncate(MAX_NOTES);
        notes.push(format!("… and {more} more {what}"));
    }
    notes
}

/// Builds the model from an already decoded XSpace (tests, tools that write
/// XSpace themselves).
pub fn build(mut space: XSpace, progress: &mut dyn FnMut(Progress)) -> Result<Profile, Error> {
    let planes = std::mem::take(&mut space.planes);
    let line_starts: Vec<i64> = planes.iter().flat_map(|p| &p.lines).map(|l| l.timestamp_ns).collect();
    let headers: Vec<&XPlane> = planes.iter().collect();
    let mut profile = new_profile(space, &headers, &line_starts)?;
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

/// `profile_start_time` / `profile_stop_time` of the Task Environment plane.
pub(crate) fn capture_window(planes: &[&XPlane]) -> (Option<u64>, Option<u64>) {
    let Some(env) = planes.iter().find(|p| p.name == TASK_ENVIRONMENT_PLANE) else {
        return (None, None);
    };
    let stat = |name: &str| {
        let id = env.stat_metadata.iter().find(|(_, m)| m.name == name).map(|(&id, _)| id)?;
        env.stats.iter().find(|s| s.metadata_id == id).and_then(|s| match s.value {
            Some(x_stat::Value::Uint64Value(v)) => Some(v),
            Some(x_stat::Value::Int64Value(v)) => u64::try_from(v).ok(),
            _ => None,
        })
    };
    (stat("profile_start_time").filter(|&v| v > 0), stat("profile_stop_time").filter(|&v| v > 0))
}

struct PlaneContext {
    name: String,
    stat_keys: IdIndex<StrId>,
}

impl PlaneContext {
    fn stat_key(&self, id: i64, owner: &dyn Fn() -> String) -> Result<StrId, Error> {
        self.stat_keys.get(id).ok_or_else(|| Error::InconsistentIds {
            detail: format!(
                "{} on plane {} refers to stat metadata {id}, which the plane does not define",
                owner(),
                crate::quoted(&self.name)
            ),
        })
    }

    fn push_stat(
        &self,
        stats: &mut Stats,
        stat: StatIn,
        strings: &mut Interner,
        owner: &dyn Fn() -> String,
    ) -> Result<(), Error> {
        let Some(value) = stat.value else {
            return Ok(());
        };
        let key = self.stat_key(stat.metadata_id, owner)?;
        match value {
            StatValueIn::Double(v) => stats.push_double(key, v),
            StatValueIn::Uint(v) => stats.push_uint(key, v),
            StatValueIn::Int(v) => stats.push_int(key, v),
            StatValueIn::Str(s) => stats.push_str(key, strings.intern(s)),
            StatValueIn::Bytes(b) => stats.push_bytes(key, b.to_vec()),
            StatValueIn::Ref(id) => {
                let id = i64::try_from(id).unwrap_or(-1);
                stats.push_str(key, self.stat_key(id, owner)?);
            }
        }
        Ok(())
    }
}

/// One plane's metadata, then its lines one at a time.
struct PlaneBuilder {
    id: i64,
    name: StrId,
    ctx: PlaneContext,
    index: IdIndex<MetaIdx>,
    event_metadata: Vec<EventMetadata>,
    stats: StatList,
}

impl PlaneBuilder {
    /// From the plane's header (its lines are handled by [`PlaneBuilder::line`]).
    fn new(plane: XPlane, strings: &mut Interner) -> Result<PlaneBuilder, Error> {
        let name = strings.intern(&plane.name);
        let ctx = PlaneContext {
            stat_keys: IdIndex::new(plane.stat_metadata.iter().map(|(&id, m)| (id, strings.intern(&m.name))).collect()),
            name: plane.name,
        };
        let mut plane_stats = Stats::default();
        // A plane stat naming metadata the plane lacks is left out (XProf's
        // XPlaneVisitor reads it as nameless). JAX 0.11's GPU profiles have such
        // stats on `/host:__ScopeRangeCallStack__`: their ids look like the
        // kernels' `scope_range_id` values (2^48 + n), not stat metadata
        // (tests/data/gpu_h200). Nothing in Proflens reads that plane yet.
        for stat in plane.stats.iter().filter(|s| ctx.stat_keys.get(s.metadata_id).is_some()) {
            ctx.push_stat(&mut plane_stats, stat.into(), strings, &|| "a plane stat".to_string())?;
        }
        plane_stats.end_owner();

        // Dense metadata indices, in id order so output is deterministic.
        let mut metadata: Vec<_> = plane.event_metadata.into_iter().collect();
        metadata.sort_unstable_by_key(|(id, _)| *id);
        let index = IdIndex::new(metadata.iter().enumerate().map(|(i, (id, _))| (*id, i as MetaIdx)).collect());
        let mut event_metadata = Vec::with_capacity(metadata.len());
        for (id, m) in metadata {
            let owner = || format!("event metadata {id} ({})", crate::quoted(&m.name));
            let mut stats = Stats::default();
            for stat in &m.stats {
                ctx.push_stat(&mut stats, stat.into(), strings, &owner)?;
            }
            stats.end_owner();
            // Children the plane does not define are dropped: they only group ops.
            let children = m.child_id.iter().filter_map(|&c| index.get(c)).collect();
            event_metadata.push(EventMetadata {
                id,
                name: strings.intern(&m.name),
                display_name: (!m.display_name.is_empty()).then(|| strings.intern(&m.display_name)),
                stats: StatList(stats),
                children,
            });
        }
        Ok(PlaneBuilder { id: plane.id, name, ctx, index, event_metadata, stats: StatList(plane_stats) })
    }

    /// The columns of a line of `count` events, to be filled by [`PlaneBuilder::push_event`].
    fn start_line(&self, count: usize) -> Events {
        Events {
            start_ps: Times::with_capacity(count),
            duration_ps: Times::with_capacity(count),
            metadata: Vec::with_capacity(count),
            ..Events::default()
        }
    }

    /// Appends event `i` of `line` (its stats in `stats`) to `events`.
    #[allow(clippy::too_many_arguments)]
    fn push_event(
        &mut self,
        events: &mut Events,
        line: &XLine,
        base_ps: i64,
        i: usize,
        event: EventIn,
        stats: &[StatIn],
        strings: &mut Interner,
    ) -> Result<(), Error> {
        let owner = || format!("event {i} of line {}", crate::quoted(&line.name));
        let meta = self.index.get(event.metadata_id).ok_or_else(|| Error::InconsistentIds {
            detail: format!(
                "{} on plane {} refers to event metadata {}, which the plane does not define",
                owner(),
                crate::quoted(&self.ctx.name),
                event.metadata_id
            ),
        })?;
        let offset = match event.data {
            Some(EventData::OffsetPs(o)) => o,
            Some(EventData::NumOccurrences(count)) => {
                events.aggregated.push((i as u32, count));
                0
            }
            None => 0,
        };
        events.start_ps.push(base_ps.saturating_add(offset));
        events.duration_ps.push(event.duration_ps.max(0));
        events.metadata.push(meta);
        for &stat in stats {
            self.ctx.push_stat(&mut events.stats, stat, strings, &owner)?;
        }
        events.stats.end_owner();
        Ok(())
    }

    /// Appends event `i` of `line` from its encoding (`stats`: room for its stats).
    #[allow(clippy::too_many_arguments)]
    fn push_encoded<'a>(
        &mut self,
        events: &mut Events,
        line: &XLine,
        base_ps: i64,
        i: usize,
        payload: &'a [u8],
        stats: &mut Vec<StatIn<'a>>,
        strings: &mut Interner,
    ) -> Result<(), Error> {
        // Big events go through prost, which prunes their text first.
        match (payload.len() <= wire::PRUNE_ABOVE).then(|| read_event(payload, stats)).flatten() {
            Some(event) => self.push_event(events, line, base_ps, i, event, stats, strings),
            None => {
                let event: XEvent = wire::decode_pruned(payload, EVENT)?;
                self.push_xevent(events, line, base_ps, i, &event, strings)
            }
        }
    }

    /// [`PlaneBuilder::push_event`] for an event prost decoded.
    fn push_xevent(
        &mut self,
        events: &mut Events,
        line: &XLine,
        base_ps: i64,
        i: usize,
        event: &XEvent,
        strings: &mut Interner,
    ) -> Result<(), Error> {
        let stats: Vec<StatIn> = event.stats.iter().map(StatIn::from).collect();
        self.push_event(events, line, base_ps, i, EventIn::from(event), &stats, strings)
    }

    fn finish(self, lines: Vec<Line>) -> Plane {
        Plane {
            id: self.id,
            name: self.name,
            lines,
            event_metadata: self.event_metadata,
            stats: self.stats,
            counters: Vec::new(),
        }
    }
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

/// A plane's metadata ids → what they stand for. Writers number metadata
/// 1..N, so a table indexed by id replaces a hash lookup per event and per
/// stat; ids spread wider than the table allows stay in a hash map.
enum IdIndex<V> {
    Dense(Vec<Option<V>>),
    Sparse(FxHashMap<i64, V>),
}

impl<V: Copy> IdIndex<V> {
    fn new(entries: Vec<(i64, V)>) -> IdIndex<V> {
        // A table at most a few times the entries: ids 0..=max in it.
        let limit = entries.len().saturating_mul(4).saturating_add(1024);
        let max = entries.iter().map(|&(id, _)| id).max().unwrap_or(0);
        let dense = entries.iter().all(|&(id, _)| id >= 0) && usize::try_from(max).is_ok_and(|m| m < limit);
        if !dense {
            return IdIndex::Sparse(entries.into_iter().collect());
        }
        let mut table = vec![None; usize::try_from(max).map_or(0, |m| m + 1)];
        for (id, value) in entries {
            table[id as usize] = Some(value);
        }
        IdIndex::Dense(table)
    }

    fn get(&self, id: i64) -> Option<V> {
        match self {
            IdIndex::Dense(table) => usize::try_from(id).ok().and_then(|i| table.get(i).copied().flatten()),
            IdIndex::Sparse(map) => map.get(&id).copied(),
        }
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
    fn id_index_finds_dense_and_sparse_ids() {
        let dense = IdIndex::new(vec![(1, 10u32), (3, 30)]);
        assert!(matches!(dense, IdIndex::Dense(_)));
        assert_eq!(
            (dense.get(1), dense.get(2), dense.get(3), dense.get(-1), dense.get(99)),
            (Some(10), None, Some(30), None, None)
        );
        let sparse = IdIndex::new(vec![(-7, 1u32), (1 << 40, 2)]);
        assert!(matches!(sparse, IdIndex::Sparse(_)));
        assert_eq!((sparse.get(-7), sparse.get(1 << 40), sparse.get(0)), (Some(1), Some(2), None));
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
