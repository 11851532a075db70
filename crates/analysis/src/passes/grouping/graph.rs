//! The forest's graph parts: adjacency lists and the marks of a walk.

use std::collections::VecDeque;

/// Nodes seen by the current walk: a mark per node, so that walks need no
/// allocation (one walk per root or op, over millions of nodes).
pub(super) struct Visited {
    marks: Vec<u32>,
    stamp: u32,
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

/// Adjacency lists in compressed form, keeping insertion order per node.
pub(super) struct Csr {
    offsets: Vec<u32>,
    targets: Vec<u32>,
}

impl Csr {
    /// The lists of `from → to` edges, or of `to → from` ones when `reversed`.
    pub(super) fn new(nodes: usize, edges: &[(u32, u32)], reversed: bool) -> Csr {
        let ends = |&(a, b): &(u32, u32)| if reversed { (b, a) } else { (a, b) };
        let mut offsets = vec![0u32; nodes + 1];
        for edge in edges {
            offsets[ends(edge).0 as usize + 1] += 1;
        }
        for i in 0..nodes {
            offsets[i + 1] += offsets[i];
        }
        let mut fill = offsets.clone();
        let mut targets = vec![0u32; edges.len()];
        for edge in edges {
            let (from, to) = ends(edge);
            targets[fill[from as usize] as usize] = to;
            fill[from as usize] += 1;
        }
        Csr { offsets, targets }
    }

    pub(super) fn of(&self, n: u32) -> &[u32] {
        &self.targets[self.offsets[n as usize] as usize..self.offsets[n as usize + 1] as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csr_keeps_insertion_order() {
        let csr = Csr::new(3, &[(0, 2), (1, 0), (0, 1)], false);
        assert_eq!(csr.of(0), &[2, 1]);
        assert!(csr.of(1) == [0] && csr.of(2).is_empty());
        assert_eq!(Csr::new(3, &[(0, 2), (1, 0), (0, 1)], true).targets, [1, 0, 0]);
    }
}
