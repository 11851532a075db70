//! A layered (Sugiyama-style) drawing of a directed acyclic graph, small and
//! deterministic: layers by longest path from the sources (operands above
//! their users), long edges split by dummy points, crossings reduced by
//! barycenter sweeps, x placed toward the neighbours' mean without overlap.

/// Space between nodes of a layer and between layers, in pixels.
const GAP_X: f64 = 28.0;
const GAP_Y: f64 = 56.0;
const MARGIN: f64 = 16.0;
/// Width a long edge's bend takes in a layer.
const DUMMY_WIDTH: f64 = 8.0;
const SWEEPS: usize = 8;

/// Where a node went: its top-left corner.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Placed {
    pub x: f64,
    pub y: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    pub nodes: Vec<Placed>,
    /// Per input edge: its polyline from the source's bottom to the target's top.
    pub edges: Vec<Vec<(f64, f64)>>,
    pub width: f64,
    pub height: f64,
}

/// One slot of a layer: a real node or a bend of a long edge.
#[derive(Clone, Copy)]
struct Slot {
    width: f64,
    /// The real node, if not a bend.
    node: Option<usize>,
}

/// Layers by longest path from the sources, sources then moved down to just
/// above their first user; nodes of a cycle (not expected in HLO) go below
/// the rest.
fn layers_of(n: usize, edges: &[(usize, usize)]) -> Vec<usize> {
    let mut indegree = vec![0usize; n];
    let mut succ = vec![Vec::new(); n];
    for &(a, b) in edges {
        if a < n && b < n && a != b {
            indegree[b] += 1;
            succ[a].push(b);
        }
    }
    let mut layer = vec![0usize; n];
    let mut done = vec![false; n];
    let mut ready: Vec<usize> = (0..n).filter(|&v| indegree[v] == 0).collect();
    ready.reverse();
    while let Some(v) = ready.pop() {
        done[v] = true;
        for &w in &succ[v] {
            layer[w] = layer[w].max(layer[v] + 1);
            indegree[w] -= 1;
            if indegree[w] == 0 {
                ready.push(w);
            }
        }
    }
    // Sources (constants, parameters) sit just above their first user
    // rather than all on top.
    let mut topo_pred = vec![0usize; n];
    for &(a, b) in edges {
        if a < n && b < n && a != b {
            topo_pred[b] += 1;
        }
    }
    for v in 0..n {
        if done[v] && topo_pred[v] == 0 {
            if let Some(first) = succ[v].iter().filter(|&&w| done[w]).map(|&w| layer[w]).min() {
                layer[v] = first.saturating_sub(1).max(layer[v]);
            }
        }
    }
    let below = layer.iter().copied().max().unwrap_or(0) + 1;
    for v in 0..n {
        if !done[v] {
            layer[v] = below;
        }
    }
    layer
}

/// The positions nearest (least squares) to `wanted` that keep the order
/// and at least `GAP_X` between boxes: with `y_i = x_i - offset_i` (offset:
/// the widths and gaps before box i) this is an isotonic regression of
/// `wanted_i - offset_i`, solved by pooling adjacent violators.
fn closest_without_overlap(wanted: &[f64], widths: &[f64]) -> Vec<f64> {
    let mut offsets = Vec::with_capacity(wanted.len());
    let mut at = 0.0;
    for w in widths {
        offsets.push(at);
        at += w + GAP_X;
    }
    // Blocks of (mean target, count).
    let mut blocks: Vec<(f64, usize)> = Vec::new();
    for (t, o) in wanted.iter().zip(&offsets) {
        blocks.push((t - o, 1));
        while blocks.len() > 1 && blocks[blocks.len() - 2].0 > blocks[blocks.len() - 1].0 {
            let (m2, c2) = blocks.pop().unwrap_or((0.0, 0));
            let (m1, c1) = blocks.pop().unwrap_or((0.0, 0));
            let c = c1 + c2;
            blocks.push(((m1 * c1 as f64 + m2 * c2 as f64) / c as f64, c));
        }
    }
    let mut out = Vec::with_capacity(wanted.len());
    for (mean, count) in blocks {
        for _ in 0..count {
            out.push(mean + offsets[out.len()]);
        }
    }
    out
}

/// Lays out `sizes` (width, height per node) joined by `edges` (from, to).
pub fn layout(sizes: &[(f64, f64)], edges: &[(usize, usize)]) -> Layout {
    let n = sizes.len();
    let layer = layers_of(n, edges);
    let depth = layer.iter().copied().max().map_or(0, |m| m + 1);
    // Slots per layer, and each edge's chain of slots (layer, slot id).
    let mut slots: Vec<Slot> = (0..n).map(|v| Slot { width: sizes[v].0, node: Some(v) }).collect();
    let mut slot_layer: Vec<usize> = layer.clone();
    let mut chains: Vec<Vec<usize>> = Vec::with_capacity(edges.len());
    for &(a, b) in edges {
        let mut chain = vec![a];
        if a < n && b < n && layer[b] > layer[a] + 1 {
            for l in layer[a] + 1..layer[b] {
                slots.push(Slot { width: DUMMY_WIDTH, node: None });
                slot_layer.push(l);
                chain.push(slots.len() - 1);
            }
        }
        chain.push(b);
        chains.push(chain);
    }
    // Adjacency between consecutive layers.
    let mut up: Vec<Vec<usize>> = vec![Vec::new(); slots.len()];
    let mut down: Vec<Vec<usize>> = vec![Vec::new(); slots.len()];
    for chain in &chains {
        for w in chain.windows(2) {
            if w[0] < slots.len() && w[1] < slots.len() && slot_layer[w[1]] == slot_layer[w[0]] + 1 {
                down[w[0]].push(w[1]);
                up[w[1]].push(w[0]);
            }
        }
    }
    let mut rows: Vec<Vec<usize>> = vec![Vec::new(); depth.max(1)];
    for (s, &l) in slot_layer.iter().enumerate() {
        rows[l].push(s);
    }
    let mut position = vec![0.0f64; slots.len()];
    let set_positions = |rows: &[Vec<usize>], position: &mut Vec<f64>| {
        for row in rows {
            for (i, &s) in row.iter().enumerate() {
                position[s] = i as f64;
            }
        }
    };
    set_positions(&rows, &mut position);
    // Crossing reduction: barycenters of the neighbours in the layer above
    // (downward sweeps) or below (upward sweeps); ties keep their order.
    for sweep in 0..SWEEPS {
        let downward = sweep % 2 == 0;
        let order: Vec<usize> =
            if downward { (1..rows.len()).collect() } else { (0..rows.len().saturating_sub(1)).rev().collect() };
        for l in order {
            let neighbours = if downward { &up } else { &down };
            let mut keyed: Vec<(f64, f64, usize)> = rows[l]
                .iter()
                .map(|&s| {
                    let ns = &neighbours[s];
                    let bary = if ns.is_empty() {
                        position[s]
                    } else {
                        ns.iter().map(|&t| position[t]).sum::<f64>() / ns.len() as f64
                    };
                    (bary, position[s], s)
                })
                .collect();
            keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
            rows[l] = keyed.into_iter().map(|k| k.2).collect();
            for (i, &s) in rows[l].iter().enumerate() {
                position[s] = i as f64;
            }
        }
    }
    // x: packed first, then pulled toward the neighbours' centres, left to
    // right with at least GAP_X between boxes.
    let mut x = vec![0.0f64; slots.len()];
    for row in &rows {
        let mut at = 0.0;
        for &s in row {
            x[s] = at;
            at += slots[s].width + GAP_X;
        }
    }
    let centre = |x: &[f64], s: usize| x[s] + slots[s].width / 2.0;
    for sweep in 0..SWEEPS {
        let downward = sweep % 2 == 0;
        let (first, second) = if downward { (&up, &down) } else { (&down, &up) };
        for row in &rows {
            let wanted: Vec<f64> = row
                .iter()
                .map(|&s| {
                    let ns = if first[s].is_empty() { &second[s] } else { &first[s] };
                    if ns.is_empty() {
                        x[s]
                    } else {
                        ns.iter().map(|&t| centre(&x, t)).sum::<f64>() / ns.len() as f64 - slots[s].width / 2.0
                    }
                })
                .collect();
            let widths: Vec<f64> = row.iter().map(|&s| slots[s].width).collect();
            for (&s, placed) in row.iter().zip(closest_without_overlap(&wanted, &widths)) {
                x[s] = placed;
            }
        }
    }
    let min_x = x.iter().copied().fold(f64::INFINITY, f64::min);
    let shift = if min_x.is_finite() { MARGIN - min_x } else { MARGIN };
    let heights: Vec<f64> = rows
        .iter()
        .map(|row| row.iter().filter_map(|&s| slots[s].node).map(|v| sizes[v].1).fold(0.0, f64::max))
        .collect();
    let mut row_y = Vec::with_capacity(rows.len());
    let mut y = MARGIN;
    for h in &heights {
        row_y.push(y);
        y += h.max(DUMMY_WIDTH) + GAP_Y;
    }
    let nodes: Vec<Placed> = (0..n).map(|v| Placed { x: x[v] + shift, y: row_y[layer[v]] }).collect();
    let edges_out = chains
        .iter()
        .map(|chain| {
            chain
                .iter()
                .enumerate()
                .map(|(i, &s)| {
                    let l = slot_layer[s];
                    let cx = x[s] + shift + slots[s].width / 2.0;
                    match slots[s].node {
                        // The source's bottom, the target's top.
                        Some(v) if i == 0 => (cx, row_y[l] + sizes[v].1),
                        Some(_) => (cx, row_y[l]),
                        None => (cx, row_y[l] + heights[l] / 2.0),
                    }
                })
                .collect()
        })
        .collect();
    let width = (0..slots.len()).map(|s| x[s] + shift + slots[s].width).fold(0.0, f64::max) + MARGIN;
    Layout { nodes, edges: edges_out, width, height: y - GAP_Y + MARGIN }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Sample = (Vec<(f64, f64)>, Vec<(usize, usize)>);

    /// A deterministic tangle: a chain with skips, two roots, fan-in.
    fn sample() -> Sample {
        let sizes: Vec<(f64, f64)> = (0..12).map(|i| (60.0 + (i * 17 % 50) as f64, 36.0)).collect();
        let edges = vec![
            (0, 2),
            (1, 2),
            (2, 3),
            (0, 5),
            (3, 4),
            (4, 5),
            (1, 6),
            (6, 7),
            (5, 7),
            (2, 8),
            (8, 9),
            (9, 10),
            (0, 10),
            (10, 11),
            (7, 11),
        ];
        (sizes, edges)
    }

    #[test]
    fn no_two_nodes_overlap() {
        let (sizes, edges) = sample();
        let l = layout(&sizes, &edges);
        for a in 0..sizes.len() {
            for b in a + 1..sizes.len() {
                let (pa, pb) = (l.nodes[a], l.nodes[b]);
                let apart_x = pa.x + sizes[a].0 <= pb.x || pb.x + sizes[b].0 <= pa.x;
                let apart_y = pa.y + sizes[a].1 <= pb.y || pb.y + sizes[b].1 <= pa.y;
                assert!(apart_x || apart_y, "nodes {a} and {b} overlap: {pa:?} {pb:?}");
            }
        }
        assert!(l.nodes.iter().zip(&sizes).all(|(p, s)| p.x + s.0 <= l.width && p.y + s.1 <= l.height));
    }

    #[test]
    fn edges_go_down() {
        let (sizes, edges) = sample();
        let l = layout(&sizes, &edges);
        for (i, &(a, b)) in edges.iter().enumerate() {
            assert!(l.nodes[a].y + sizes[a].1 < l.nodes[b].y, "edge {a}->{b} does not go down");
            let points = &l.edges[i];
            assert!(points.windows(2).all(|w| w[0].1 < w[1].1), "edge {a}->{b} bends upward: {points:?}");
            assert_eq!(points.first().map(|p| p.1), Some(l.nodes[a].y + sizes[a].1));
            assert_eq!(points.last().map(|p| p.1), Some(l.nodes[b].y));
        }
    }

    #[test]
    fn same_input_same_drawing() {
        let (sizes, edges) = sample();
        assert_eq!(layout(&sizes, &edges), layout(&sizes, &edges));
    }

    #[test]
    fn boxes_keep_their_order_and_gap() {
        let placed = closest_without_overlap(&[10.0, 0.0, 50.0], &[20.0, 20.0, 20.0]);
        assert!(placed[1] - placed[0] >= 20.0 + GAP_X - 1e-9);
        assert!(placed[2] - placed[1] >= 20.0 + GAP_X - 1e-9);
        // The first two share the overlap; the third, free, stays put.
        assert_eq!(placed[2], 50.0f64.max(placed[1] + 20.0 + GAP_X));
    }

    #[test]
    fn a_cycle_does_not_hang() {
        let l = layout(&[(10.0, 10.0); 3], &[(0, 1), (1, 2), (2, 1)]);
        assert_eq!(l.nodes.len(), 3);
    }
}
