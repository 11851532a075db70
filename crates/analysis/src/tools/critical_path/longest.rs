//! The longest path through the graph by weight, as networkx's
//! `dag_longest_path` finds it (HTA's `CPGraph.critical_path`).

use super::graph::Graph;

/// The edges of the longest path, in order; `Err` when the graph has a
/// cycle (HTA's "Graph is not valid").
pub(super) fn longest_path(g: &Graph) -> Result<Vec<usize>, String> {
    let order = topological_order(g).ok_or_else(|| "the graph of this step has a cycle".to_string())?;
    // Per node: the path length ending there and the edge it came by.
    let mut dist: Vec<(i64, Option<usize>)> = vec![(0, None); g.nodes.len()];
    for &v in &order {
        // The first incoming edge (in insertion order) with the largest total.
        let mut best: Option<(i64, usize)> = None;
        for &e in &g.inc[v] {
            let d = dist[g.edges[e].from].0 + g.edges[e].weight;
            if best.is_none_or(|(b, _)| d > b) {
                best = Some((d, e));
            }
        }
        dist[v] = match best {
            Some((d, e)) if d >= 0 => (d, Some(e)),
            _ => (0, None),
        };
    }
    // The path ends at the first node in topological order with the largest total.
    let mut end = None;
    for &v in &order {
        if end.is_none_or(|u: usize| dist[v].0 > dist[u].0) {
            end = Some(v);
        }
    }
    let mut path = Vec::new();
    let mut at = end;
    while let Some(v) = at {
        let Some(e) = dist[v].1 else { break };
        path.push(e);
        at = Some(g.edges[e].from);
    }
    path.reverse();
    Ok(path)
}

/// networkx's `topological_sort` (by generations: the sources in node
/// order, then the nodes each generation frees, in edge order); `None` on
/// a cycle.
fn topological_order(g: &Graph) -> Option<Vec<usize>> {
    let mut indegree: Vec<usize> = g.inc.iter().map(Vec::len).collect();
    let mut generation: Vec<usize> = (0..g.nodes.len()).filter(|&v| indegree[v] == 0).collect();
    let mut order = Vec::with_capacity(g.nodes.len());
    while !generation.is_empty() {
        let mut next = Vec::new();
        for &u in &generation {
            for &e in &g.out[u] {
                let v = g.edges[e].to;
                indegree[v] -= 1;
                if indegree[v] == 0 {
                    next.push(v);
                }
            }
        }
        order.append(&mut generation);
        generation = next;
    }
    (order.len() == g.nodes.len()).then_some(order)
}
