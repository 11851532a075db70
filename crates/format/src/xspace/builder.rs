//! A plane's metadata resolved once (ids to dense indices, stat names
//! interned), then its lines' events appended to the model's columns.

use super::event_wire::{read_event, EventData, EventIn, StatIn, StatValueIn};
use super::plane_head::{MetadataIn, PlaneHead};
use super::EVENT;
use crate::proto::{XEvent, XLine, XPlane};
use crate::{wire, Error};
use proflens_model::{EventMetadata, Events, Interner, Line, MetaIdx, Plane, StatList, Stats, StrId, Times};
use rustc_hash::FxHashMap;
use std::cell::Cell;

struct PlaneContext {
    name: String,
    stat_keys: IdIndex<StrId>,
    /// Per stat metadata id (modulo [`RECENT`]): the string value a stat
    /// of it last had. Any interned string is right to start with: a slot
    /// is only used when its string is the value.
    recent: Box<[Cell<StrId>; RECENT]>,
}

/// Slots of [`PlaneContext::recent`].
const RECENT: usize = 256;

impl PlaneContext {
    fn new(plane: &XPlane, metadata: &MetadataIn, strings: &mut Interner) -> PlaneContext {
        let stat_keys = metadata.stat_names.iter().map(|&(id, name)| (id, strings.intern(name))).collect();
        let recent = Box::new(std::array::from_fn(|_| Cell::new(StrId::default())));
        PlaneContext { stat_keys: IdIndex::new(stat_keys), name: plane.name.clone(), recent }
    }

    /// `strings.intern(s)` for the value of a stat of metadata `id`: events
    /// repeat their stats' last values (the same op, the same allocator),
    /// found here without hashing them.
    #[inline]
    fn intern_value(&self, id: i64, s: &str, strings: &mut Interner) -> StrId {
        let slot = &self.recent[(id as usize) % RECENT];
        let last = slot.get();
        if strings.get(last) == s {
            return last;
        }
        let interned = strings.intern(s);
        slot.set(interned);
        interned
    }

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
            StatValueIn::Str(s) => stats.push_str(key, self.intern_value(stat.metadata_id, s, strings)),
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
pub(super) struct PlaneBuilder {
    id: i64,
    name: StrId,
    ctx: PlaneContext,
    index: IdIndex<MetaIdx>,
    event_metadata: Vec<EventMetadata>,
    stats: StatList,
}

impl PlaneBuilder {
    /// From a plane's header prost decoded (its lines are handled by
    /// [`PlaneBuilder::push_encoded`]).
    pub(super) fn new(plane: XPlane, strings: &mut Interner) -> Result<PlaneBuilder, Error> {
        PlaneBuilder::build(&plane, &MetadataIn::of(&plane), strings)
    }

    /// From a plane's header as [`super::plane_head`] read it.
    pub(super) fn from_head(head: &PlaneHead, strings: &mut Interner) -> Result<PlaneBuilder, Error> {
        match &head.metadata {
            Some(metadata) => PlaneBuilder::build(&head.plane, metadata, strings),
            None => PlaneBuilder::build(&head.plane, &MetadataIn::of(&head.plane), strings),
        }
    }

    /// What a plane's lines need of its metadata (stat names, interned in
    /// `strings`, and the event metadata's indices), not the metadata
    /// itself: a part of a split decode builds its lines with it
    /// ([`super::split`]), and one builder the plane's metadata.
    pub(super) fn for_lines(head: &PlaneHead, strings: &mut Interner) -> PlaneBuilder {
        let of_plane;
        let metadata = match &head.metadata {
            Some(metadata) => metadata,
            None => {
                of_plane = MetadataIn::of(&head.plane);
                &of_plane
            }
        };
        PlaneBuilder {
            id: head.plane.id,
            name: StrId::default(),
            ctx: PlaneContext::new(&head.plane, metadata, strings),
            index: metadata_index(metadata),
            event_metadata: Vec::new(),
            stats: StatList::default(),
        }
    }

    fn build(plane: &XPlane, metadata: &MetadataIn, strings: &mut Interner) -> Result<PlaneBuilder, Error> {
        let name = strings.intern(&plane.name);
        let ctx = PlaneContext::new(plane, metadata, strings);
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

        let index = metadata_index(metadata);
        let mut event_metadata = Vec::with_capacity(metadata.events.len());
        for m in &metadata.events {
            let owner = || format!("event metadata {} ({})", m.id, crate::quoted(m.name));
            let mut stats = Stats::default();
            for &stat in metadata.stats_of(m) {
                ctx.push_stat(&mut stats, stat, strings, &owner)?;
            }
            stats.end_owner();
            // Children the plane does not define are dropped: they only group ops.
            let children = metadata.children_of(m).iter().filter_map(|&c| index.get(c)).collect();
            event_metadata.push(EventMetadata {
                id: m.id,
                name: strings.intern(m.name),
                display_name: (!m.display_name.is_empty()).then(|| strings.intern(m.display_name)),
                stats: StatList(stats),
                children,
            });
        }
        Ok(PlaneBuilder { id: plane.id, name, ctx, index, event_metadata, stats: StatList(plane_stats) })
    }

    /// The columns of a line of `count` events, to be filled by [`PlaneBuilder::push_event`].
    pub(super) fn start_line(&self, count: usize) -> Events {
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
    pub(super) fn push_encoded<'a>(
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
    pub(super) fn push_xevent(
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

    pub(super) fn finish(self, lines: Vec<Line>) -> Plane {
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

/// Dense metadata indices, in id order so that output is deterministic.
fn metadata_index(metadata: &MetadataIn) -> IdIndex<MetaIdx> {
    IdIndex::new(metadata.events.iter().enumerate().map(|(i, m)| (m.id, i as MetaIdx)).collect())
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

    #[inline]
    fn get(&self, id: i64) -> Option<V> {
        match self {
            IdIndex::Dense(table) => usize::try_from(id).ok().and_then(|i| table.get(i).copied().flatten()),
            IdIndex::Sparse(map) => map.get(&id).copied(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
