//! The forest's graph parts: nesting within a line, the other edges, and the
//! marks of a walk.
//!
//! Nearly every edge is a nesting one (an event inside another on its line),
//! and those need no edge list: a parent per node and where each node's
//! nested events end describe them in about 4 bytes a node. The few other
//! edges (launch → kernel, producer → consumer, loops) are kept as sorted
//! lists.

use crate::common::id_hash::IdHashMap;
use std::collections::VecDeque;

/// Per node, a node at most as far as [`Distances::FAR`] from it, as that
/// distance in 2 bytes; the few farther (the parent of an event deep in a
/// long step, the end of a long step) in a map. Nesting links lie close:
/// a step holds hundreds of events, and 4 bytes a link were 16 MiB of a
/// 2M-event host's grouping.
#[derive(Default)]
struct Distances {
    near: Vec<u16>,
    far: IdHashMap<u32, u32>,
}

impl Distances {
    /// Marks a distance kept in `far`.
    const FAR: u16 = u16::MAX;

    fn with_capacity(nodes: usize) -> Distances {
        Distances { near: Vec::with_capacity(nodes), far: IdHashMap::default() }
    }

    /// The distance of the next node (nodes are pushed in order).
    fn push(&mut self, distance: u32) {
        match u16::try_from(distance) {
            Ok(near) if near != Distances::FAR => self.near.push(near),
            _ => {
                self.far.insert(self.near.len() as u32, distance);
                self.near.push(Distances::FAR);
            }
        }
    }

    fn set(&mut self, node: u32, distance: u32) {
        if distance < u32::from(Distances::FAR) {
            // Only a distance kept far has an entry to take back (a hash
            // lookup per node and link was a tenth of building the forest).
            let was = std::mem::replace(&mut self.near[node as usize], distance as u16);
            if was == Distances::FAR {
                self.far.remove(&node);
            }
        } else {
            self.near[node as usize] = Distances::FAR;
            self.far.insert(node, distance);
        }
    }

    fn get(&self, node: u32) -> u32 {
        match self.near[node as usize] {
            Distances::FAR => self.far[&node],
            near => u32::from(near),
        }
    }
}

/// Nesting of the events of each line, filled line by line in node order:
/// nodes pushed while a node is open are nested in it, so its nested nodes
/// are the run from it to `end` (async events in that run, never nested,
/// are skipped).
#[derive(Default)]
pub(super) struct Nesting {
    /// How far back each node's parent is; 0: it has none.
    parent: Distances,
    /// How far past each node the nodes nested in it end; 0 for an async node.
    end: Distances,
    open: Vec<(u32, i64, i64)>,
}

impl Nesting {
    pub(super) fn with_capacity(nodes: usize) -> Nesting {
        Nesting { parent: Distances::with_capacity(nodes), end: Distances::with_capacity(nodes), open: Vec::new() }
    }

    /// Adds the next node of the current line, spanning `start..end` (async
    /// nodes nest in nothing and hold nothing).
    pub(super) fn push(&mut self, start: i64, end: i64, is_async: bool) {
        let node = self.parent.near.len() as u32;
        self.end.push(0);
        if is_async {
            self.parent.push(0);
            return;
        }
        let mut parent = node;
        while let Some(&(open, open_start, open_end)) = self.open.last() {
            if open_start <= start && end <= open_end {
                parent = open;
                break;
            }
            self.end.set(open, node - open);
            self.open.pop();
        }
        self.parent.push(node - parent);
        self.open.push((node, start, end));
    }

    /// Closes the current line: its open nodes hold everything to its end.
    pub(super) fn end_line(&mut self) {
        let end = self.parent.near.len() as u32;
        for (open, _, _) in self.open.drain(..) {
            self.end.set(open, end - open);
        }
    }

    /// One past the last node nested in `n`.
    pub(super) fn end(&self, n: u32) -> u32 {
        n + self.end.get(n)
    }

    /// An async node nests in nothing and holds nothing.
    pub(super) fn is_async(&self, n: u32) -> bool {
        self.end(n) == n
    }

    pub(super) fn parent(&self, n: u32) -> Option<u32> {
        Some(self.parent.get(n)).filter(|&back| back != 0).map(|back| n - back)
    }

    /// The nodes directly nested in `n`.
    pub(super) fn children(&self, n: u32) -> impl Iterator<Item = u32> + '_ {
        let end = self.end(n);
        let mut next = n + 1;
        std::iter::from_fn(move || {
            while next < end {
                let node = next;
                let node_end = self.end(node);
                if node_end == node {
                    next += 1; // async: nested in nothing
                    continue;
                }
                next = node_end;
                return Some(node);
            }
            None
        })
    }
}

/// Edges by their source node, in insertion order per node: adjacency lists
/// for the few nodes that are sources, found in constant time through a bit
/// per node and the count of sources before each word of bits.
pub(super) struct Adjacency {
    sources: Vec<u64>,
    sources_before: Vec<u32>,
    /// Where each source's targets start in `targets` (one more at the end).
    offsets: Vec<u32>,
    targets: Vec<u32>,
}

impl Adjacency {
    /// The lists of `from → to` edges, or of `to → from` ones when `reversed`:
    /// each source's edges counted, then placed in order (no sorted copy of
    /// the edges, which was the most grouping held at the time).
    pub(super) fn new(nodes: usize, edges: &[(u32, u32)], reversed: bool) -> Adjacency {
        let ends = |&(a, b): &(u32, u32)| if reversed { (b, a) } else { (a, b) };
        let mut sources = vec![0u64; nodes.div_ceil(64)];
        for edge in edges {
            let from = ends(edge).0;
            sources[from as usize / 64] |= 1 << (from % 64);
        }
        let mut sources_before = Vec::with_capacity(sources.len());
        let mut count = 0;
        for word in &sources {
            sources_before.push(count);
            count += word.count_ones();
        }
        let mut adjacency =
            Adjacency { sources, sources_before, offsets: vec![0; count as usize + 1], targets: Vec::new() };
        for edge in edges {
            let source = adjacency.source(ends(edge).0);
            adjacency.offsets[source + 1] += 1;
        }
        for s in 1..adjacency.offsets.len() {
            adjacency.offsets[s] += adjacency.offsets[s - 1];
        }
        // Where each source's next target goes.
        let mut next = adjacency.offsets.clone();
        let mut targets = vec![0; edges.len()];
        for edge in edges {
            let (from, to) = ends(edge);
            let at = &mut next[adjacency.source(from)];
            targets[*at as usize] = to;
            *at += 1;
        }
        adjacency.targets = targets;
        adjacency
    }

    /// The rank of `n` among the sources (`n` is one).
    fn source(&self, n: u32) -> usize {
        let (word, bit) = (n as usize / 64, n % 64);
        let below = self.sources[word] & ((1 << bit) - 1);
        (self.sources_before[word] + below.count_ones()) as usize
    }

    pub(super) fn of(&self, n: u32) -> &[u32] {
        if self.sources[n as usize / 64] & 1 << (n % 64) == 0 {
            return &[];
        }
        let source = self.source(n);
        &self.targets[self.offsets[source] as usize..self.offsets[source + 1] as usize]
    }
}

/// Nodes seen by the current walk: a bit per node, and the nodes marked,
/// to clear them when the next walk starts (walks are short: at most
/// [`super::MAX_ANCESTOR_SEARCH`] nodes searched, one walk per root or op).
pub(super) struct Visited {
    marks: Vec<u64>,
    marked: Vec<u32>,
    /// The breadth-first queue of the current walk (reused).
    pub(super) queue: VecDeque<u32>,
}

impl Visited {
    pub(super) fn new(nodes: usize) -> Visited {
        Visited { marks: vec![0; nodes.div_ceil(64)], marked: Vec::new(), queue: VecDeque::new() }
    }

    /// Starts a new walk.
    pub(super) fn next(&mut self) {
        for n in self.marked.drain(..) {
            self.marks[n as usize / 64] &= !(1 << (n % 64));
        }
    }

    /// Marks `n`; false when the current walk had already seen it.
    pub(super) fn insert(&mut self, n: u32) -> bool {
        let (word, bit) = (&mut self.marks[n as usize / 64], 1u64 << (n % 64));
        let fresh = *word & bit == 0;
        if fresh {
            *word |= bit;
            self.marked.push(n);
        }
        fresh
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adjacency_keeps_insertion_order() {
        let edges = [(0, 2), (1, 0), (0, 1)];
        let forward = Adjacency::new(3, &edges, false);
        assert_eq!(forward.of(0), [2, 1]);
        assert!(forward.of(1) == [0] && forward.of(2).is_empty());
        assert_eq!(Adjacency::new(3, &edges, true).of(0), [1]);
        // Sources past the first word of bits.
        let far = Adjacency::new(200, &[(199, 3), (70, 1), (130, 2), (70, 5)], false);
        assert!(far.of(70) == [1, 5] && far.of(130) == [2] && far.of(199) == [3] && far.of(71).is_empty());
    }

    #[test]
    fn nesting_skips_async_nodes_and_closes_lines() {
        let mut nesting = Nesting::with_capacity(6);
        // Line 1: 0 holds 1 (holding 2), an async 3 inside 0's time, and 4.
        for (start, end, is_async) in
            [(0, 100, false), (10, 50, false), (20, 30, false), (40, 45, true), (60, 70, false)]
        {
            nesting.push(start, end, is_async);
        }
        nesting.end_line();
        // Line 2: one node at the same times as node 0, nested in nothing.
        nesting.push(0, 100, false);
        nesting.end_line();
        assert_eq!(nesting.children(0).collect::<Vec<_>>(), [1, 4]);
        assert_eq!(nesting.children(1).collect::<Vec<_>>(), [2]);
        assert_eq!(nesting.parent(2), Some(1));
        assert_eq!((nesting.parent(3), nesting.children(3).count()), (None, 0));
        assert_eq!((nesting.parent(5), nesting.parent(4)), (None, Some(0)));
    }

    #[test]
    fn links_farther_than_two_bytes_are_exact() {
        // One long node holding 70,000 leaves, then one more line's node.
        let mut nesting = Nesting::with_capacity(70_002);
        nesting.push(0, 1_000_000, false);
        for i in 0..70_000 {
            nesting.push(10 + i, 11 + i, i == 5);
        }
        nesting.end_line();
        nesting.push(0, 10, false);
        nesting.end_line();
        assert_eq!((nesting.end(0), nesting.end(70_001)), (70_001, 70_002));
        assert_eq!((nesting.parent(70_000), nesting.parent(65_535), nesting.parent(6)), (Some(0), Some(0), None));
        assert_eq!(nesting.children(0).count(), 69_999);
        assert_eq!(nesting.children(0).last(), Some(70_000));
        // A far end set, then brought near, leaves nothing in the map.
        let mut distances = Distances::with_capacity(1);
        distances.push(70_000);
        distances.set(0, 3);
        assert!(distances.get(0) == 3 && distances.far.is_empty());
    }

    #[test]
    fn walks_see_each_node_once_and_start_clean() {
        let mut visited = Visited::new(130);
        visited.next();
        assert!(visited.insert(129) && visited.insert(0) && !visited.insert(129));
        visited.next();
        assert!(visited.insert(129) && !visited.insert(129) && visited.insert(64));
    }
}
