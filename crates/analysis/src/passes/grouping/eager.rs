//! Which ops ran eagerly: those whose nearest `EagerKernelExecute` ancestor
//! (breadth first, within [`MAX_ANCESTOR_SEARCH`]) is no function call.

use super::{Forest, Grouping, Visited, FLAG_EAGER, MAX_ANCESTOR_SEARCH};
use crate::common::schema::{EventType, StatKeys};
use proflens_model::Profile;

/// What a node's search finds: the eager execute and an upper bound of the
/// number of nodes the search looks at before it (exact but where a node
/// is its own ancestor through other edges), or nothing.
type Reach = Option<(u32, usize)>;

/// A node of the nesting chain open at the current node.
struct Link {
    node: u32,
    /// One past its last nested node.
    end: u32,
    /// Its search's answer, once asked.
    reach: Option<Reach>,
}

impl Forest {
    /// Flags eager ops. A node whose only parent is its nesting parent q is
    /// searched as itself, then q's search without it; so its answer is q's
    /// found one step further, and q's answer serves all the nodes nested
    /// in it. Only nodes with other parents need a search of their own (a
    /// search per op, millions of them, was a third of grouping).
    pub(super) fn mark_eager_ops(&self, visited: &mut Visited, profile: &Profile, keys: &StatKeys, out: &mut Grouping) {
        // Without an eager execute no op is eager, and none needs a search.
        if !self.types.contains(&EventType::EagerKernelExecute) {
            return;
        }
        // The last eager execute asked about, and whether it is no function call.
        let mut last: Option<(u32, bool)> = None;
        let mut chain: Vec<Link> = Vec::new();
        for node in 0..self.types.len() as u32 {
            // Nodes of earlier lines end before this one: they leave the chain too.
            while chain.last().is_some_and(|link| link.end <= node) {
                chain.pop();
            }
            let is_async = self.nesting.is_async(node);
            if !is_async {
                chain.push(Link { node, end: self.nesting.end(node), reach: None });
            }
            if !matches!(self.types[node as usize], EventType::TfOpRun | EventType::KernelExecute) {
                continue;
            }
            let reach = if is_async { self.search(visited, node) } else { self.chain_reach(visited, &mut chain) };
            let eager = reach.is_some_and(|(e, _)| match last {
                Some((asked, answer)) if asked == e => answer,
                _ => {
                    let answer = self.stat(profile, e, keys.is_func).and_then(|v| v.as_i64()) == Some(0);
                    last = Some((e, answer));
                    answer
                }
            });
            if eager {
                let (p, l, i) = self.locate(node);
                out.planes[p][l].flags[i] |= FLAG_EAGER;
            }
        }
    }

    /// The answer of the chain's innermost node, from the nearest answer
    /// above it (answers are kept on the chain).
    fn chain_reach(&self, visited: &mut Visited, chain: &mut [Link]) -> Reach {
        // The innermost link whose answer needs nothing above it.
        let mut top = chain.len() - 1;
        while top > 0 && chain[top].reach.is_none() && self.answers_alone(chain[top].node) {
            top -= 1;
        }
        for k in top..chain.len() {
            if chain[k].reach.is_some() {
                continue;
            }
            let node = chain[k].node;
            let reach = if self.answers_alone(node) {
                // Only the nesting parent: the parent's answer, one step further.
                match (k > 0).then(|| chain[k - 1].reach.flatten()).flatten() {
                    Some((e, seen)) if seen + 1 < MAX_ANCESTOR_SEARCH => Some((e, seen + 1)),
                    Some(_) => self.search(visited, node), // at the limit: ask exactly
                    None => None,
                }
            } else {
                self.search(visited, node)
            };
            chain[k].reach = Some(reach);
        }
        chain[chain.len() - 1].reach.flatten()
    }

    /// Whether `node`'s answer comes from its nesting parent's alone: it is
    /// no eager execute and has no other parents.
    fn answers_alone(&self, node: u32) -> bool {
        self.types[node as usize] != EventType::EagerKernelExecute && self.other_parents.of(node).is_empty()
    }

    fn search(&self, visited: &mut Visited, node: u32) -> Reach {
        let mut seen = 0;
        let found = self.find_ancestor(visited, node, true, |n| {
            seen += 1;
            self.types[n as usize] == EventType::EagerKernelExecute
        });
        found.map(|e| (e, seen - 1))
    }
}

#[cfg(test)]
mod tests {
    use super::super::{ungrouped, Forest, Visited, FLAG_EAGER};
    use crate::common::schema::{EventType, StatKeys, HOST_PLANE};
    use crate::passes::op_metrics::test_builder::{Builder, Ev, V};
    use proflens_model::{MetaIdx, Profile};

    /// xorshift: the same events every run.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    /// Nested events in `start..end`, in order, of random kinds, some
    /// producing or consuming contexts shared with other lines, some async.
    fn nested(rng: &mut Rng, metas: &[MetaIdx], (start, end): (i64, i64), depth: u32, out: &mut Vec<Ev>) {
        let meta = metas[rng.below(metas.len() as u64) as usize];
        let mut stats = vec![("is_func", V::I(rng.below(2) as i64))];
        match rng.below(10) {
            0 | 1 => stats.extend([("_pt", V::I(1)), ("_p", V::I(rng.below(200) as i64))]),
            2 | 3 => stats.extend([("_ct", V::I(1)), ("_c", V::I(rng.below(200) as i64))]),
            4 => stats.push(("_a", V::I(1))),
            _ => {}
        }
        out.push((meta, start, end - start, stats));
        let children = if depth < 6 && end - start >= 8 { rng.below(4) as i64 } else { 0 };
        let width = (end - start) / (children + 1);
        for c in 0..children {
            nested(rng, metas, (start + c * width + 1, start + (c + 1) * width), depth + 1, out);
        }
    }

    /// The search per op that the chain answers replace.
    fn searched_per_op(forest: &Forest, profile: &Profile, keys: &StatKeys) -> Vec<bool> {
        let mut visited = Visited::new(forest.types.len());
        let eager_execute = |n: u32| forest.types[n as usize] == EventType::EagerKernelExecute;
        (0..forest.types.len() as u32)
            .map(|node| {
                matches!(forest.types[node as usize], EventType::TfOpRun | EventType::KernelExecute)
                    && forest
                        .find_ancestor(&mut visited, node, true, eager_execute)
                        .is_some_and(|e| forest.stat(profile, e, keys.is_func).and_then(|v| v.as_i64()) == Some(0))
            })
            .collect()
    }

    #[test]
    fn chain_answers_equal_a_search_per_op() {
        let mut b = Builder::new();
        let p = b.plane(HOST_PLANE);
        let metas = ["EagerExecute", "a:A", "b:B", "ExecutorState::Process", "other"].map(|n| b.meta(p, n, None, &[]));
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for line in 0..4 {
            let mut events = Vec::new();
            for top in 0..40 {
                nested(&mut rng, &metas, (top * 10_000, top * 10_000 + 9_000), 0, &mut events);
            }
            b.line(p, line, "thread", events);
        }
        // A chain deeper than a search goes: ops below the limit find no eager execute.
        let deep: Vec<Ev> = (0..1100)
            .map(|d| {
                let meta = if d == 0 { metas[0] } else { metas[1] };
                // One node with another parent (the producer below), mid-chain.
                let consumes = d == 600;
                let stats =
                    if consumes { vec![("_ct", V::I(1)), ("_c", V::I(999))] } else { vec![("is_func", V::I(0))] };
                (meta, d, 10_000 - 2 * d, stats)
            })
            .collect();
        b.line(p, 9, "deep", deep);
        b.line(p, 10, "producer", vec![(metas[4], 0, 5, vec![("_pt", V::I(1)), ("_p", V::I(999))])]);
        let profile = b.build();
        let keys = StatKeys::new(&profile);
        let forest = Forest::build(&profile, &keys, false);
        let mut grouping = ungrouped(&profile);
        forest.mark_eager_ops(&mut Visited::new(forest.types.len()), &profile, &keys, &mut grouping);
        let marked: Vec<bool> =
            grouping.planes[p].iter().flat_map(|line| line.flags.iter().map(|f| f & FLAG_EAGER != 0)).collect();
        let expected = searched_per_op(&forest, &profile, &keys);
        assert_eq!(marked, expected);
        // Both answers occur, and the deep chain is cut at the limit.
        assert!(expected.iter().filter(|&&e| e).count() > 50 && expected.iter().filter(|&&e| !e).count() > 50);
        let deep_line = &grouping.planes[p][4].flags;
        assert!(deep_line[1] & FLAG_EAGER != 0 && deep_line[1099] & FLAG_EAGER == 0);
    }
}
