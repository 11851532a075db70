//! The forest's graph parts: nesting within a line, the other edges, and the
//! marks of a walk.
//!
//! Nearly every edge is a nesting one (an event inside another on its line),
//! and those need no edge list: a parent per node and where each node's
//! nested events end describe them in 8 bytes a node. The few other edges
//! (launch → kernel, producer → consumer, loops) are kept as sorted lists.

use std::collections::VecDeque;

/// No node (a node without nesting parent).
pub(super) const NONE: u32 = u32::MAX;

/// Nesting of the events of each line, filled line by line in node order:
/// nodes pushed while a node is open are nested in it, so its nested nodes
/// are the run from it to `end` (async events in that run, never nested,
/// are skipped).
#[derive(Default)]
pub(super) struct Nesting {
    parent: Vec<u32>,
    /// One past the last node nested in each node; an async node's own index.
    end: Vec<u32>,
    open: Vec<(u32, i64, i64)>,
}

impl Nesting {
    pub(super) fn with_capacity(nodes: usize) -> Nesting {
        Nesting { parent: Vec::with_capacity(nodes), end: Vec::with_capacity(nodes), open: Vec::new() }
    }

    /// Adds the next node of the current line, spanning `start..end` (async
    /// nodes nest in nothing and hold nothing).
    pub(super) fn push(&mut self, start: i64, end: i64, is_async: bool) {
        let node = self.parent.len() as u32;
        self.end.push(node);
        if is_async {
            self.parent.push(NONE);
            return;
        }
        let mut parent = NONE;
        while let Some(&(open, open_start, open_end)) = self.open.last() {
            if open_start <= start && end <= open_end {
                parent = open;
                break;
            }
            self.end[open as usize] = node;
            self.open.pop();
        }
        self.parent.push(parent);
        self.open.push((node, start, end));
    }

    /// Closes the current line: its open nodes hold everything to its end.
    pub(super) fn end_line(&mut self) {
        let end = self.parent.len() as u32;
        for (open, _, _) in self.open.drain(..) {
            self.end[open as usize] = end;
        }
    }

    /// One past the last node nested in `n`.
    pub(super) fn end(&self, n: u32) -> u32 {
        self.end[n as usize]
    }

    /// An async node nests in nothing and holds nothing.
    pub(super) fn is_async(&self, n: u32) -> bool {
        self.end[n as usize] == n
    }

    pub(super) fn parent(&self, n: u32) -> Option<u32> {
        Some(self.parent[n as usize]).filter(|&p| p != NONE)
    }

    /// The nodes directly nested in `n`.
    pub(super) fn children(&self, n: u32) -> impl Iterator<Item = u32> + '_ {
        let end = self.end[n as usize];
        let mut next = n + 1;
        std::iter::from_fn(move || {
            while next < end {
                let node = next;
                let node_end = self.end[node as usize];
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
    /// The lists of `from → to` edges, or of `to → from` ones when `reversed`.
    pub(super) fn new(nodes: usize, edges: &[(u32, u32)], reversed: bool) -> Adjacency {
        let ends = |&(a, b): &(u32, u32)| if reversed { (b, a) } else { (a, b) };
        // (source, insertion index) as one integer: sorted, insertion order within a source.
        let mut order: Vec<u64> =
            edges.iter().enumerate().map(|(i, edge)| u64::from(ends(edge).0) << 32 | i as u64).collect();
        order.sort_unstable();
        let mut sources = vec![0u64; nodes.div_ceil(64)];
        let mut offsets = Vec::new();
        for (i, &key) in order.iter().enumerate() {
            let from = (key >> 32) as u32;
            if i == 0 || order[i - 1] >> 32 != key >> 32 {
                sources[from as usize / 64] |= 1 << (from % 64);
                offsets.push(i as u32);
            }
        }
        offsets.push(order.len() as u32);
        let mut sources_before = Vec::with_capacity(sources.len());
        let mut count = 0;
        for word in &sources {
            sources_before.push(count);
            count += word.count_ones();
        }
        let targets = order.iter().map(|&key| ends(&edges[key as u32 as usize]).1).collect();
        Adjacency { sources, sources_before, offsets, targets }
    }

    pub(super) fn of(&self, n: u32) -> &[u32] {
        let (word, bit) = (n as usize / 64, n % 64);
        if self.sources[word] & 1 << bit == 0 {
            return &[];
        }
        let below = self.sources[word] & ((1 << bit) - 1);
        let source = (self.sources_before[word] + below.count_ones()) as usize;
        &self.targets[self.offsets[source] as usize..self.offsets[source + 1] as usize]
    }
}

/// Nodes seen by the current walk: a mark per node, so that walks need no
/// allocation (one walk per root or op, over millions of nodes). Marks are
/// 16 bits, cleared once every 65,535 walks.
pub(super) struct Visited {
    marks: Vec<u16>,
    stamp: u16,
    /// The breadth-first queue of the current walk (reused).
    pub(super) queue: VecDeque<u32>,
}

impl Visited {
    pub(super) fn new(nodes: usize) -> Visited {
        Visited { marks: vec![0; nodes], stamp: 0, queue: VecDeque::new() }
    }

    /// Starts a new walk.
    pub(super) fn next(&mut self) {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.marks.fill(0);
            self.stamp = 1;
        }
    }

    /// Marks `n`; false when the current walk had already seen it.
    pub(super) fn insert(&mut self, n: u32) -> bool {
        let mark = &mut self.marks[n as usize];
        let fresh = *mark != self.stamp;
        *mark = self.stamp;
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
}
