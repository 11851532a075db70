//! Where the iterator graph's nodes go: a tree from the iterators' parent
//! ids, and the names that fit in the boxes. Pure geometry, no web types.

use std::collections::HashMap;

use proflens_analysis::tools::tf_data::IteratorNode;

/// Node box size and spacing in the graph (SVG user units = CSS pixels).
pub(super) const NODE_W: f64 = 210.0;
pub(super) const NODE_H: f64 = 92.0;
const H_GAP: f64 = 22.0;
const LEVEL_H: f64 = 120.0;
const MARGIN: f64 = 12.0;
/// Nodes drawn at most; a pipeline's slowest call rarely has more.
const MAX_NODES: usize = 400;
/// Longest iterator name in a node box, in characters.
const NAME_CHARS: usize = 30;

/// A node placed in the drawing: index into the graph and its box's top-left corner.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Placed {
    pub node: usize,
    pub x: f64,
    pub y: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct GraphLayout {
    pub nodes: Vec<Placed>,
    /// (parent, child), indices into `nodes`.
    pub edges: Vec<(usize, usize)>,
    pub width: f64,
    pub height: f64,
    /// Nodes left out beyond [`MAX_NODES`].
    pub left_out: usize,
}

/// Lays the iterators out as a tree from their `parent_id`s: the root on
/// top, each level of inputs below, leaves side by side and every parent
/// centred over its inputs. Ids that repeat or loop are drawn once.
pub fn layout(graph: &[IteratorNode]) -> GraphLayout {
    let kept = &graph[..graph.len().min(MAX_NODES)];
    let mut index: HashMap<u64, usize> = HashMap::new();
    for (i, n) in kept.iter().enumerate() {
        index.entry(n.id).or_insert(i);
    }
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); kept.len()];
    let mut has_parent = vec![false; kept.len()];
    for (i, n) in kept.iter().enumerate() {
        if index.get(&n.id) != Some(&i) {
            continue;
        }
        if let Some(&p) = n.parent_id.and_then(|p| index.get(&p)) {
            if p != i {
                children[p].push(i);
                has_parent[i] = true;
            }
        }
    }
    let mut position: Vec<Option<(f64, usize)>> = vec![None; kept.len()];
    let mut next_slot = 0usize;
    let mut edges_by_node: Vec<(usize, usize)> = Vec::new();
    // Depth first from each root; a node already placed (a loop) is not entered again.
    fn place(
        at: usize,
        depth: usize,
        children: &[Vec<usize>],
        position: &mut [Option<(f64, usize)>],
        next_slot: &mut usize,
        edges: &mut Vec<(usize, usize)>,
    ) -> f64 {
        // Reserve the node first so that a loop back to it stops here.
        position[at] = Some((f64::NAN, depth));
        let mut xs = Vec::new();
        for &c in &children[at] {
            if position[c].is_some() {
                continue;
            }
            edges.push((at, c));
            xs.push(place(c, depth + 1, children, position, next_slot, edges));
        }
        let x = match (xs.first(), xs.last()) {
            (Some(a), Some(b)) => (a + b) / 2.0,
            _ => {
                let x = *next_slot as f64;
                *next_slot += 1;
                x
            }
        };
        position[at] = Some((x, depth));
        x
    }
    let roots: Vec<usize> = (0..kept.len()).filter(|&i| !has_parent[i] && index.get(&kept[i].id) == Some(&i)).collect();
    for r in roots {
        if position[r].is_none() {
            place(r, 0, &children, &mut position, &mut next_slot, &mut edges_by_node);
        }
    }
    // What only a loop reaches (no root above it) is placed as a root of its own.
    for i in 0..kept.len() {
        if position[i].is_none() && index.get(&kept[i].id) == Some(&i) {
            place(i, 0, &children, &mut position, &mut next_slot, &mut edges_by_node);
        }
    }
    let mut nodes = Vec::new();
    let mut slot_of_node: HashMap<usize, usize> = HashMap::new();
    let mut deepest = 0;
    for (i, p) in position.iter().enumerate() {
        if let Some((x, depth)) = *p {
            slot_of_node.insert(i, nodes.len());
            deepest = deepest.max(depth);
            nodes.push(Placed { node: i, x: MARGIN + x * (NODE_W + H_GAP), y: MARGIN + depth as f64 * LEVEL_H });
        }
    }
    let edges =
        edges_by_node.into_iter().filter_map(|(a, b)| Some((*slot_of_node.get(&a)?, *slot_of_node.get(&b)?))).collect();
    GraphLayout {
        nodes,
        edges,
        width: 2.0 * MARGIN + next_slot.max(1) as f64 * (NODE_W + H_GAP) - H_GAP,
        height: 2.0 * MARGIN + deepest as f64 * LEVEL_H + NODE_H,
        left_out: graph.len().saturating_sub(MAX_NODES),
    }
}

/// The name shown in a node: the iterator's own name, with the interleave
/// input it belongs to (`Range (input [0])`), cut to fit the box.
pub fn display_name(node: &IteratorNode) -> String {
    let parts: Vec<&str> = node.long_name.split("::").collect();
    let input = parts
        .len()
        .checked_sub(2)
        .and_then(|i| parts.get(i))
        .and_then(|p| p.find('[').map(|at| &p[at..]))
        .filter(|tag| tag.ends_with(']'));
    let name = match input {
        Some(tag) => format!("{} (input {tag})", node.name),
        None => node.name.clone(),
    };
    if name.chars().count() > NAME_CHARS {
        let cut: String = name.chars().take(NAME_CHARS - 1).collect();
        format!("{cut}…")
    } else {
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(id: u64, parent: Option<u64>, long_name: &str) -> IteratorNode {
        IteratorNode {
            id,
            parent_id: parent,
            name: long_name.rsplit("::").next().unwrap_or(long_name).to_string(),
            long_name: long_name.to_string(),
            is_async: false,
            start_ps: 0,
            duration_ps: 1,
            self_ps: 1,
            calls: 1,
            blocking: true,
        }
    }

    #[test]
    fn a_tree_is_laid_out_level_by_level_with_parents_centred() {
        let graph = vec![
            node(1, None, "Iterator::Root"),
            node(2, Some(1), "Iterator::Root::Interleave"),
            node(3, Some(2), "Iterator::Root::Interleave[0]::Range"),
            node(4, Some(2), "Iterator::Root::Interleave[1]::Range"),
        ];
        let l = layout(&graph);
        assert_eq!(l.nodes.len(), 4);
        assert_eq!(l.edges.len(), 3);
        let at =
            |n: usize| l.nodes.iter().find(|p| p.node == n).copied().unwrap_or(Placed { node: 99, x: -1.0, y: -1.0 });
        assert_eq!(at(0).y, MARGIN);
        assert_eq!(at(2).y, MARGIN + 2.0 * LEVEL_H);
        assert_eq!(at(3).x - at(2).x, NODE_W + H_GAP);
        assert_eq!(at(1).x, (at(2).x + at(3).x) / 2.0);
        assert_eq!(at(0).x, at(1).x);
        assert_eq!(l.width, 2.0 * MARGIN + 2.0 * (NODE_W + H_GAP) - H_GAP);
        assert_eq!(display_name(&graph[2]), "Range (input [0])");
        assert_eq!(display_name(&graph[1]), "Interleave");
    }

    #[test]
    fn loops_repeats_and_orphans_do_not_break_the_layout() {
        let graph = vec![
            node(1, Some(2), "Iterator::A"),
            node(2, Some(1), "Iterator::A::B"),
            node(2, Some(1), "Iterator::A::B"),
            node(3, Some(99), "Iterator::C"),
        ];
        let l = layout(&graph);
        // Ids 1 and 2 (a loop) and 3 (parent unknown) are drawn once each.
        assert_eq!(l.nodes.len(), 3);
        assert_eq!(l.edges.len(), 1);
        assert!(l.nodes.iter().all(|p| p.x.is_finite() && p.y.is_finite()));
        assert_eq!(layout(&[]).nodes.len(), 0);
    }
}
