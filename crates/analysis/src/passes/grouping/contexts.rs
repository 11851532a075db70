//! Producer/consumer contexts: the ends met while events are read, and the
//! producer → consumer edges they give.
//!
//! A context is (type, id, process). Its type and process are kept as
//! indexes into tables of the values seen (few: a handful of types and
//! processes), turned into ranks before sorting so that ends sort in the
//! order of the values themselves. Each end is packed into one integer that
//! sorts as (type, id, process, side, node) does. Sorted, the ends of each
//! context lie together (producers first, each side in node order), which is
//! the order XProf's map of contexts gives, without a hash map of lists per
//! context. (A million ends are common: as a tuple an end took 40 bytes, and
//! was the largest thing grouping held.)

use crate::common::id_hash::IdHashMap;
use std::collections::hash_map::Entry;

/// One end in 16 bytes, high bits first: type (15 bits), id (64), process
/// (16), whether it consumes (1), node (32). Tables past those widths (no
/// real profile has 32,768 context types) turn every end into a [`WideEnd`].
type End = u128;

const TYPE_BITS: u32 = 15;
const PROCESS_BITS: u32 = 16;

fn pack(ty: u32, id: u64, process: u32, consumes: bool, node: u32) -> End {
    u128::from(ty) << 113
        | u128::from(id) << 49
        | u128::from(process) << 33
        | u128::from(consumes) << 32
        | u128::from(node)
}

/// An end in 24 bytes, for tables too large to pack: three integers that
/// sort as (type, id, process, side, node) do.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct WideEnd {
    /// Type (high half), the id's high half.
    high: u64,
    /// The id's low half, process (low half).
    low: u64,
    /// Whether it consumes (bit 32), and the node.
    side_node: u64,
}

impl WideEnd {
    fn new(ty: u32, id: u64, process: u32, consumes: bool, node: u32) -> WideEnd {
        WideEnd {
            high: u64::from(ty) << 32 | id >> 32,
            low: id << 32 | u64::from(process),
            side_node: u64::from(consumes) << 32 | u64::from(node),
        }
    }

    fn unpack(end: End) -> WideEnd {
        let field = |shift: u32, bits: u32| (end >> shift) as u64 & ((1u64 << bits) - 1);
        WideEnd::new(
            (end >> 113) as u32,
            (end >> 49) as u64,
            field(33, PROCESS_BITS) as u32,
            field(32, 1) != 0,
            end as u32,
        )
    }
}

/// What linking reads of an end, however it is held.
trait ContextEnd: Copy + Ord {
    /// Its context, as one comparable value.
    fn context(&self) -> (u64, u64);
    fn consumes(&self) -> bool;
    fn node(&self) -> u32;
    /// The same end with its type and process indexes replaced by `ranks`.
    fn ranked(self, type_ranks: &[u32], process_ranks: &[u32]) -> Self;
}

impl ContextEnd for End {
    fn context(&self) -> (u64, u64) {
        ((self >> 64) as u64, (self >> 33) as u64)
    }

    fn consumes(&self) -> bool {
        self >> 32 & 1 != 0
    }

    fn node(&self) -> u32 {
        *self as u32
    }

    fn ranked(self, type_ranks: &[u32], process_ranks: &[u32]) -> End {
        let process_mask = (1u128 << PROCESS_BITS) - 1;
        let ty = type_ranks[(self >> 113) as usize];
        let process = process_ranks[(self >> 33 & process_mask) as usize];
        let kept = self & !(u128::MAX << 113) & !(process_mask << 33);
        kept | u128::from(ty) << 113 | u128::from(process) << 33
    }
}

impl ContextEnd for WideEnd {
    fn context(&self) -> (u64, u64) {
        (self.high, self.low)
    }

    fn consumes(&self) -> bool {
        self.side_node >> 32 != 0
    }

    fn node(&self) -> u32 {
        self.side_node as u32
    }

    fn ranked(self, type_ranks: &[u32], process_ranks: &[u32]) -> WideEnd {
        let ty = type_ranks[(self.high >> 32) as usize];
        let process = process_ranks[self.low as u32 as usize];
        WideEnd {
            high: u64::from(ty) << 32 | (self.high & 0xffff_ffff),
            low: (self.low & !0xffff_ffff) | u64::from(process),
            side_node: self.side_node,
        }
    }
}

/// Distinct values, by first sight.
struct Table<T> {
    index: IdHashMap<T, u32>,
    values: Vec<T>,
    /// The last value asked for and its index: ends come in runs of one
    /// type and process, and a hash lookup per end was most of the pushes.
    last: Option<(T, u32)>,
}

impl<T: Copy + Ord + std::hash::Hash> Table<T> {
    fn new() -> Table<T> {
        Table { index: IdHashMap::default(), values: Vec::new(), last: None }
    }

    fn index_of(&mut self, value: T) -> u32 {
        if let Some((last, index)) = self.last {
            if last == value {
                return index;
            }
        }
        let index = match self.index.entry(value) {
            Entry::Occupied(e) => *e.get(),
            Entry::Vacant(e) => {
                self.values.push(value);
                *e.insert(self.values.len() as u32 - 1)
            }
        };
        self.last = Some((value, index));
        index
    }

    /// The rank of each value by first-sight index.
    fn ranks(&self) -> Vec<u32> {
        let mut order: Vec<u32> = (0..self.values.len() as u32).collect();
        order.sort_unstable_by_key(|&i| self.values[i as usize]);
        let mut ranks = vec![0; order.len()];
        for (rank, &i) in order.iter().enumerate() {
            ranks[i as usize] = rank as u32;
        }
        ranks
    }
}

/// The context ends of a profile, gathered in node order.
pub(super) struct ContextEnds {
    ends: Vec<End>,
    /// Every end, once a table outgrew its packed field.
    wide: Option<Vec<WideEnd>>,
    types: Table<i64>,
    processes: Table<Option<i64>>,
}

impl ContextEnds {
    /// Room for `ends` ends (a million are common: grown by doubling, the
    /// list held up to twice its size, and the old room beside the new
    /// while it moved).
    pub(super) fn with_capacity(ends: usize) -> ContextEnds {
        ContextEnds { ends: Vec::with_capacity(ends), wide: None, types: Table::new(), processes: Table::new() }
    }

    /// `node` produces (or, when `consumes`, consumes) context (`ty`, `id`, `process`).
    pub(super) fn push(&mut self, (ty, id, process): (i64, u64, Option<i64>), consumes: bool, node: u32) {
        let ty = self.types.index_of(ty);
        let process = self.processes.index_of(process);
        if self.wide.is_none() && (ty >> TYPE_BITS != 0 || process >> PROCESS_BITS != 0) {
            self.wide = Some(std::mem::take(&mut self.ends).into_iter().map(WideEnd::unpack).collect());
        }
        match &mut self.wide {
            Some(wide) => wide.push(WideEnd::new(ty, id, process, consumes, node)),
            None => self.ends.push(pack(ty, id, process, consumes, node)),
        }
    }

    /// Producer → consumer edges of every context, contexts in key order;
    /// a context with at least 64 of each side gets none (XProf's limit).
    pub(super) fn edges_into(self, edges: &mut Vec<(u32, u32)>) {
        let ContextEnds { ends, wide, types, processes } = self;
        let ranks = (types.ranks(), processes.ranks());
        match wide {
            Some(wide) => link(wide, &ranks, edges),
            None => link(ends, &ranks, edges),
        }
    }
}

/// Sorts `ends` (their indexes made `ranks`) and adds their edges to `edges`.
fn link<E: ContextEnd>(
    mut ends: Vec<E>,
    (type_ranks, process_ranks): &(Vec<u32>, Vec<u32>),
    edges: &mut Vec<(u32, u32)>,
) {
    for end in &mut ends {
        *end = end.ranked(type_ranks, process_ranks);
    }
    ends.sort_unstable();
    let contexts = || ends.chunk_by(|a, b| a.context() == b.context()).filter_map(linked_sides);
    let count = contexts()
        .fold(0usize, |n, (producers, consumers)| n.saturating_add(producers.len().saturating_mul(consumers.len())));
    // A hint: where the room cannot be had at once, the list grows as it goes.
    let _ = edges.try_reserve_exact(count);
    for (producers, consumers) in contexts() {
        for p in producers {
            edges.extend(consumers.iter().map(|c| (p.node(), c.node())));
        }
    }
}

/// A context's producers and consumers; none when it is too common to link
/// (XProf's limit: at least 64 of each side).
fn linked_sides<E: ContextEnd>(context: &[E]) -> Option<(&[E], &[E])> {
    let (producers, consumers) = context.split_at(context.partition_point(|end| !end.consumes()));
    (producers.len() < 64 || consumers.len() < 64).then_some((producers, consumers))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ends_sort_by_the_values_not_by_first_sight() {
        let mut ends = ContextEnds::with_capacity(0);
        // Types and processes first seen in descending order.
        ends.push((9, 1, Some(5)), false, 0);
        ends.push((9, 1, Some(5)), true, 1);
        ends.push((2, 1, Some(7)), true, 2);
        ends.push((2, 1, None), false, 3);
        ends.push((2, 1, Some(7)), false, 4);
        ends.push((2, 1, None), true, 5);
        let mut edges = Vec::new();
        ends.edges_into(&mut edges);
        // Context (2, 1, None) first, then (2, 1, Some(7)), then (9, 1, Some(5)).
        assert_eq!(edges, [(3, 5), (4, 2), (0, 1)]);
    }

    #[test]
    fn the_edges_are_given_room_once_at_their_count() {
        let mut ends = ContextEnds::with_capacity(0);
        // 3 producers × 5 consumers of one context, 2 × 1 of another.
        for node in 0..8 {
            ends.push((1, 1, None), node >= 3, node);
        }
        for node in 8..11 {
            ends.push((1, 2, None), node >= 10, node);
        }
        let mut edges = vec![(100, 101)];
        ends.edges_into(&mut edges);
        assert_eq!(edges.len(), 1 + 15 + 2);
        assert_eq!(edges.capacity(), edges.len());
    }

    #[test]
    fn ends_past_the_packed_widths_link_the_same() {
        // 40,000 types: the ends turn wide half way, and link as packed ones do.
        let ends_of = |types: i64| {
            let mut ends = ContextEnds::with_capacity(0);
            for t in (0..types).rev() {
                ends.push((t, u64::MAX - 1, Some(-3)), false, t as u32 * 2);
                ends.push((t, u64::MAX - 1, Some(-3)), true, t as u32 * 2 + 1);
            }
            let wide = ends.wide.is_some();
            let mut edges = Vec::new();
            ends.edges_into(&mut edges);
            (wide, edges)
        };
        let (wide, edges) = ends_of(40_000);
        assert!(wide);
        assert_eq!(edges.len(), 40_000);
        assert_eq!((edges[0], edges[39_999]), ((0, 1), (79_998, 79_999)));
        let (wide, small) = ends_of(3);
        assert!(!wide && small == [(0, 1), (2, 3), (4, 5)]);
    }

    #[test]
    fn a_context_with_64_of_each_side_gives_no_edges() {
        let mut ends = ContextEnds::with_capacity(0);
        for node in 0..128 {
            ends.push((1, 1, None), node >= 64, node);
        }
        ends.push((1, 2, None), false, 200);
        ends.push((1, 2, None), true, 201);
        let mut edges = Vec::new();
        ends.edges_into(&mut edges);
        assert_eq!(edges, [(200, 201)]);
    }
}
