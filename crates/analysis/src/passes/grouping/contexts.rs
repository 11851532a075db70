//! Producer/consumer contexts: the ends met while events are read, and the
//! producer → consumer edges they give.
//!
//! A context is (type, id, process). Its type and process are kept as
//! indexes into tables of the values seen (few: a handful of types and
//! processes), turned into ranks before sorting so that ends sort in the
//! order of the values themselves. Sorted, the ends of each context lie
//! together (producers first, each side in node order), and contexts are
//! linked in (type, id, process) order, which is the order XProf's map of
//! contexts gives, without a hash map of lists per context.
//!
//! An end takes 12 bytes: its id, then its (type, process) class, side and
//! node packed into 32 bits; sorted, ends lie in (id, class) order, and the
//! contexts of each type are linked in turn. Profiles with more classes
//! than fit beside the node, or many types, keep 24 bytes an end instead.
//! (A million ends are common: as a tuple an end took 40 bytes, and was the
//! largest thing grouping held; 16 bytes were still a third of its peak.)

use crate::common::id_hash::IdHashMap;
use std::collections::hash_map::Entry;

/// One end in 12 bytes, sorting as (id, class, side, node): the id's high
/// and low halves, then class, side and node packed high bits first.
type NarrowEnd = [u32; 3];

/// The most types linked in turns (each turn scans every end once).
const NARROW_TYPES: usize = 8;

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

    fn context(&self) -> (u64, u64) {
        (self.high, self.low)
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

    fn consumes(&self) -> bool {
        self.side_node >> 32 != 0
    }

    fn node(&self) -> u32 {
        self.side_node as u32
    }
}

/// How a [`NarrowEnd`]'s last 32 bits are shared: the node's bits, one for
/// the side, and the rest for the class.
#[derive(Clone, Copy)]
struct Packing {
    node_bits: u32,
}

impl Packing {
    /// Room for nodes below `nodes`; none past 2^31.
    fn for_nodes(nodes: usize) -> Option<Packing> {
        let node_bits = usize::BITS - nodes.saturating_sub(1).leading_zeros();
        (node_bits < 32).then_some(Packing { node_bits })
    }

    /// How many classes fit.
    fn classes(self) -> usize {
        1 << (31 - self.node_bits)
    }

    fn pack(self, id: u64, class: u32, consumes: bool, node: u32) -> NarrowEnd {
        let rest = ((class << 1 | u32::from(consumes)) << self.node_bits) | node;
        [(id >> 32) as u32, id as u32, rest]
    }

    fn class(self, end: &NarrowEnd) -> u32 {
        end[2].checked_shr(self.node_bits + 1).unwrap_or(0)
    }

    fn with_class(self, end: NarrowEnd, class: u32) -> NarrowEnd {
        // The side and node bits (all 32 where no class fits).
        let low = end[2] & u32::MAX >> (31 - self.node_bits);
        [end[0], end[1], class.checked_shl(self.node_bits + 1).unwrap_or(0) | low]
    }

    fn consumes(self, end: &NarrowEnd) -> bool {
        end[2] >> self.node_bits & 1 != 0
    }

    fn node(self, end: &NarrowEnd) -> u32 {
        end[2] & ((1 << self.node_bits) - 1)
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

    /// The rank of each value by first-sight index, after `key` of it.
    fn ranks_by<K: Ord>(&self, key: impl Fn(&T) -> K) -> Vec<u32> {
        let mut order: Vec<u32> = (0..self.values.len() as u32).collect();
        order.sort_unstable_by_key(|&i| key(&self.values[i as usize]));
        let mut ranks = vec![0; order.len()];
        for (rank, &i) in order.iter().enumerate() {
            ranks[i as usize] = rank as u32;
        }
        ranks
    }

    fn ranks(&self) -> Vec<u32> {
        self.ranks_by(|&value| value)
    }
}

/// The context ends of a profile, gathered in node order.
pub(super) struct ContextEnds {
    /// The ends, while they fit in 12 bytes.
    narrow: Option<(Vec<NarrowEnd>, Packing)>,
    wide: Vec<WideEnd>,
    types: Table<i64>,
    processes: Table<Option<i64>>,
    /// (type, process) index pairs.
    classes: Table<(u32, u32)>,
}

impl ContextEnds {
    /// Room for `ends` ends of nodes below `nodes` (a million ends are
    /// common: grown by doubling, the list held up to twice its size, and
    /// the old room beside the new while it moved).
    pub(super) fn with_capacity(ends: usize, nodes: usize) -> ContextEnds {
        let narrow = Packing::for_nodes(nodes).map(|packing| (Vec::with_capacity(ends), packing));
        let wide = if narrow.is_some() { Vec::new() } else { Vec::with_capacity(ends) };
        ContextEnds { narrow, wide, types: Table::new(), processes: Table::new(), classes: Table::new() }
    }

    /// `node` produces (or, when `consumes`, consumes) context (`ty`, `id`, `process`).
    pub(super) fn push(&mut self, (ty, id, process): (i64, u64, Option<i64>), consumes: bool, node: u32) {
        let ty = self.types.index_of(ty);
        let process = self.processes.index_of(process);
        if let Some((ends, packing)) = &mut self.narrow {
            let class = self.classes.index_of((ty, process));
            if (class as usize) < packing.classes() && self.types.values.len() <= NARROW_TYPES {
                ends.push(packing.pack(id, class, consumes, node));
                return;
            }
            self.widen();
        }
        self.wide.push(WideEnd::new(ty, id, process, consumes, node));
    }

    /// Turns every end into a [`WideEnd`].
    fn widen(&mut self) {
        let Some((ends, packing)) = self.narrow.take() else { return };
        self.wide.reserve_exact(ends.capacity());
        for end in ends {
            let (ty, process) = self.classes.values[packing.class(&end) as usize];
            let id = u64::from(end[0]) << 32 | u64::from(end[1]);
            self.wide.push(WideEnd::new(ty, id, process, packing.consumes(&end), packing.node(&end)));
        }
    }

    /// Producer → consumer edges of every context, contexts in key order;
    /// a context with at least 64 of each side gets none (XProf's limit).
    /// `then` more edges will follow, and are given room with these.
    pub(super) fn edges_into(self, edges: &mut Vec<(u32, u32)>, then: usize) {
        let ContextEnds { narrow, mut wide, types, processes, classes } = self;
        let (type_ranks, process_ranks) = (types.ranks(), processes.ranks());
        let Some((mut ends, packing)) = narrow else {
            for end in &mut wide {
                *end = end.ranked(&type_ranks, &process_ranks);
            }
            wide.sort_unstable();
            let contexts = || {
                let sides = |context| linked_sides(context, WideEnd::consumes);
                wide.chunk_by(|a, b| a.context() == b.context()).filter_map(sides)
            };
            return link(contexts, WideEnd::node, edges, then);
        };
        let rank = |&(ty, process): &(u32, u32)| (type_ranks[ty as usize], process_ranks[process as usize]);
        let class_ranks = classes.ranks_by(rank);
        // The type (its rank) of each class, by the class's rank.
        let mut type_of_class = vec![0; classes.values.len()];
        for (class, pair) in classes.values.iter().enumerate() {
            type_of_class[class_ranks[class] as usize] = rank(pair).0;
        }
        for end in &mut ends {
            *end = packing.with_class(*end, class_ranks[packing.class(end) as usize]);
        }
        // As one integer an end compares faster than as an array (a fifth of the sort).
        ends.sort_unstable_by_key(|&[high, low, rest]| {
            u128::from(high) << 64 | u128::from(low) << 32 | u128::from(rest)
        });
        let (ends, type_of_class) = (&ends, &type_of_class);
        // Sorted by (id, class): each type's contexts, in turn, are in
        // (id, process) order, so the turns give (type, id, process) order.
        let contexts = || {
            let same = move |a: &NarrowEnd, b: &NarrowEnd| a[..2] == b[..2] && packing.class(a) == packing.class(b);
            let type_of = move |context: &[NarrowEnd]| type_of_class[packing.class(&context[0]) as usize];
            let sides = move |context| linked_sides(context, |end| packing.consumes(end));
            let of_type = move |ty| ends.chunk_by(same).filter(move |context| type_of(context) == ty).filter_map(sides);
            (0..types.values.len() as u32).flat_map(of_type)
        };
        link(contexts, |end| packing.node(end), edges, then)
    }
}

/// Adds the edges of each (producers, consumers) of `contexts`, given room
/// at once for them and `then` more.
fn link<'a, T: 'a, I: Iterator<Item = (&'a [T], &'a [T])>>(
    contexts: impl Fn() -> I,
    node: impl Fn(&T) -> u32,
    edges: &mut Vec<(u32, u32)>,
    then: usize,
) {
    let count = contexts()
        .fold(0usize, |n, (producers, consumers)| n.saturating_add(producers.len().saturating_mul(consumers.len())));
    // A hint: where the room cannot be had at once, the list grows as it goes.
    let _ = edges.try_reserve_exact(count.saturating_add(then));
    for (producers, consumers) in contexts() {
        for p in producers {
            edges.extend(consumers.iter().map(|c| (node(p), node(c))));
        }
    }
}

/// A context's producers and consumers (sorted producers first); none when
/// it is too common to link (XProf's limit: at least 64 of each side).
fn linked_sides<T>(context: &[T], consumes: impl Fn(&T) -> bool) -> Option<(&[T], &[T])> {
    let (producers, consumers) = context.split_at(context.partition_point(|end| !consumes(end)));
    (producers.len() < 64 || consumers.len() < 64).then_some((producers, consumers))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ends_sort_by_the_values_not_by_first_sight() {
        let mut ends = ContextEnds::with_capacity(0, 1 << 20);
        // Types and processes first seen in descending order.
        ends.push((9, 1, Some(5)), false, 0);
        ends.push((9, 1, Some(5)), true, 1);
        ends.push((2, 1, Some(7)), true, 2);
        ends.push((2, 1, None), false, 3);
        ends.push((2, 1, Some(7)), false, 4);
        ends.push((2, 1, None), true, 5);
        let mut edges = Vec::new();
        ends.edges_into(&mut edges, 0);
        // Context (2, 1, None) first, then (2, 1, Some(7)), then (9, 1, Some(5)).
        assert_eq!(edges, [(3, 5), (4, 2), (0, 1)]);
    }

    #[test]
    fn the_edges_are_given_room_once_at_their_count() {
        let mut ends = ContextEnds::with_capacity(0, 1 << 20);
        // 3 producers × 5 consumers of one context, 2 × 1 of another.
        for node in 0..8 {
            ends.push((1, 1, None), node >= 3, node);
        }
        for node in 8..11 {
            ends.push((1, 2, None), node >= 10, node);
        }
        let mut edges = vec![(100, 101)];
        ends.edges_into(&mut edges, 4);
        assert_eq!(edges.len(), 1 + 15 + 2);
        assert_eq!(edges.capacity(), edges.len() + 4);
    }

    #[test]
    fn ends_past_the_packed_widths_link_the_same() {
        // 40,000 types: the ends turn wide half way, and link as packed ones do.
        let ends_of = |types: i64| {
            let mut ends = ContextEnds::with_capacity(0, 1 << 20);
            for t in (0..types).rev() {
                ends.push((t, u64::MAX - 1, Some(-3)), false, t as u32 * 2);
                ends.push((t, u64::MAX - 1, Some(-3)), true, t as u32 * 2 + 1);
            }
            let wide = ends.narrow.is_none();
            let mut edges = Vec::new();
            ends.edges_into(&mut edges, 0);
            (wide, edges)
        };
        let (wide, edges) = ends_of(40_000);
        assert!(wide);
        assert_eq!(edges.len(), 40_000);
        assert_eq!((edges[0], edges[39_999]), ((0, 1), (79_998, 79_999)));
        let (wide, small) = ends_of(3);
        assert!(!wide && small == [(0, 1), (2, 3), (4, 5)]);
    }

    /// The edges of `ends` (type, id, process, consumes, node), held for
    /// `nodes` nodes; and whether they were held narrow.
    fn linked(ends: &[(i64, u64, Option<i64>, bool, u32)], nodes: usize) -> (bool, Vec<(u32, u32)>) {
        let mut contexts = ContextEnds::with_capacity(0, nodes);
        for &(ty, id, process, consumes, node) in ends {
            contexts.push((ty, id, process), consumes, node);
        }
        let narrow = contexts.narrow.is_some();
        let mut edges = Vec::new();
        contexts.edges_into(&mut edges, 0);
        (narrow, edges)
    }

    #[test]
    fn narrow_ends_link_as_wide_ones_do() {
        // xorshift: the same ends every run, ids from a small range so that
        // contexts of several types, processes and ends meet.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        let ends: Vec<_> = (0..5_000)
            .map(|node| {
                let ty = [7, -2, 3][next(3) as usize];
                let process = [None, Some(4), Some(-1)][next(3) as usize];
                (ty, u64::MAX - next(40), process, next(2) == 1, node)
            })
            .collect();
        let (narrow, edges) = linked(&ends, 5_000);
        assert!(narrow && edges.len() > 1_000);
        assert_eq!((false, edges), linked(&ends, usize::MAX));
        // Nodes below 2^28 leave room for 8 classes: a ninth turns the ends
        // wide half way, and they link the same.
        let classes: Vec<_> = (0..9).map(|c| (c / 3, 5, Some(c % 3), false, c as u32)).collect();
        let consumers = classes.iter().map(|&(ty, id, process, _, node)| (ty, id, process, true, node + 100));
        let ends: Vec<_> = classes.iter().copied().chain(consumers).collect();
        let (narrow, edges) = linked(&ends, 1 << 28);
        assert!(!narrow && edges.len() == 9);
        assert!(linked(&ends[..8].iter().chain(&ends[9..17]).copied().collect::<Vec<_>>(), 1 << 28).0);
        assert_eq!((false, edges), linked(&ends, usize::MAX));
    }

    #[test]
    fn a_context_with_64_of_each_side_gives_no_edges() {
        let mut ends = ContextEnds::with_capacity(0, 1 << 20);
        for node in 0..128 {
            ends.push((1, 1, None), node >= 64, node);
        }
        ends.push((1, 2, None), false, 200);
        ends.push((1, 2, None), true, 201);
        let mut edges = Vec::new();
        ends.edges_into(&mut edges, 0);
        assert_eq!(edges, [(200, 201)]);
    }
}
