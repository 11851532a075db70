//! Producer/consumer contexts: the ends met while events are read, and the
//! producer → consumer edges they give.

use crate::common::id_hash::IdHashMap;
use std::collections::hash_map::Entry;

/// One end of a context, in 24 bytes: a context is (type, id, process), and
/// its type and process are kept as indexes into tables of the values seen
/// (few: a handful of types and processes), turned into ranks before sorting
/// so that ends sort in the order of the values themselves. The fields are
/// packed into three integers that sort as (type, id, process, side, node)
/// do: one comparison of integers each (the fields in turn sorted at half
/// the speed in wasm). Sorted, the ends of each context lie together
/// (producers first, each side in node order), which is the order XProf's
/// map of contexts gives, without a hash map of lists per context. (A
/// million ends are common: the tuple itself took 40 bytes, and was the
/// largest thing grouping held.)
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct End {
    /// Type (high half), the id's high half.
    high: u64,
    /// The id's low half, process (low half).
    low: u64,
    /// Whether it consumes (bit 32), and the node.
    side_node: u64,
}

impl End {
    fn new(ty: u32, id: u64, process: u32, consumes: bool, node: u32) -> End {
        End {
            high: u64::from(ty) << 32 | id >> 32,
            low: id << 32 | u64::from(process),
            side_node: u64::from(consumes) << 32 | u64::from(node),
        }
    }

    fn ty(&self) -> u32 {
        (self.high >> 32) as u32
    }

    fn process(&self) -> u32 {
        self.low as u32
    }

    fn consumes(&self) -> bool {
        self.side_node >> 32 != 0
    }

    fn node(&self) -> u32 {
        self.side_node as u32
    }

    /// Its context, as (type, id, process) packed.
    fn context(&self) -> (u64, u64) {
        (self.high, self.low)
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
    types: Table<i64>,
    processes: Table<Option<i64>>,
}

impl ContextEnds {
    /// Room for `ends` ends (a million are common: grown by doubling, the
    /// list held up to twice its size, and the old room beside the new
    /// while it moved).
    pub(super) fn with_capacity(ends: usize) -> ContextEnds {
        ContextEnds { ends: Vec::with_capacity(ends), types: Table::new(), processes: Table::new() }
    }

    /// `node` produces (or, when `consumes`, consumes) context (`ty`, `id`, `process`).
    pub(super) fn push(&mut self, (ty, id, process): (i64, u64, Option<i64>), consumes: bool, node: u32) {
        let ty = self.types.index_of(ty);
        let process = self.processes.index_of(process);
        self.ends.push(End::new(ty, id, process, consumes, node));
    }

    /// Producer → consumer edges of every context, contexts in key order;
    /// a context with at least 64 of each side gets none (XProf's limit).
    pub(super) fn edges_into(self, edges: &mut Vec<(u32, u32)>) {
        let ContextEnds { mut ends, types, processes } = self;
        let (type_ranks, process_ranks) = (types.ranks(), processes.ranks());
        for end in &mut ends {
            let ty = type_ranks[end.ty() as usize];
            let process = process_ranks[end.process() as usize];
            end.high = u64::from(ty) << 32 | (end.high & 0xffff_ffff);
            end.low = (end.low & !0xffff_ffff) | u64::from(process);
        }
        ends.sort_unstable();
        let contexts = || ends.chunk_by(|a, b| a.context() == b.context()).filter_map(linked_sides);
        let count = contexts().fold(0usize, |n, (producers, consumers)| {
            n.saturating_add(producers.len().saturating_mul(consumers.len()))
        });
        // A hint: where the room cannot be had at once, the list grows as it goes.
        let _ = edges.try_reserve_exact(count);
        for (producers, consumers) in contexts() {
            for p in producers {
                edges.extend(consumers.iter().map(|c| (p.node(), c.node())));
            }
        }
    }
}

/// A context's producers and consumers; none when it is too common to link
/// (XProf's limit: at least 64 of each side).
fn linked_sides(context: &[End]) -> Option<(&[End], &[End])> {
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
