//! Circles in a small directed graph of sibling modules.
//!
//! The graphs are tiny (a module's children, a few dozen at most), so plain
//! reachability per node is simpler than Tarjan and as fast as needed.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// Node -> the nodes it has an edge to.
pub type Graph = BTreeMap<String, BTreeSet<String>>;

/// Every strongly connected component with more than one member, each sorted, in order.
pub fn circles(graph: &Graph) -> Vec<Vec<String>> {
    let reach: BTreeMap<&String, BTreeSet<&String>> = graph.keys().map(|n| (n, reachable(graph, n))).collect();
    let mut seen = BTreeSet::new();
    let mut found = Vec::new();
    for (node, from_node) in &reach {
        if seen.contains(node) {
            continue;
        }
        let members: Vec<String> = from_node
            .iter()
            .filter(|m| reach.get(*m).is_some_and(|r| r.contains(node)))
            .map(|m| m.to_string())
            .collect();
        seen.extend(from_node.iter().filter(|m| members.contains(m)).copied());
        if members.len() > 1 {
            found.push(members);
        }
    }
    found
}

/// Nodes reachable from `start`, itself included.
fn reachable<'a>(graph: &'a Graph, start: &'a String) -> BTreeSet<&'a String> {
    let mut seen = BTreeSet::from([start]);
    let mut stack = vec![start];
    while let Some(node) = stack.pop() {
        for next in graph.get(node).into_iter().flatten() {
            if seen.insert(next) {
                stack.push(next);
            }
        }
    }
    seen
}

/// A closed walk through every member of a component, starting and ending at its first member,
/// built from shortest paths so that it reads as a circle (`a -> b -> c -> a`), revisiting a
/// member only where the component is not one simple circle.
pub fn closed_walk(graph: &Graph, members: &[String]) -> Vec<String> {
    let inside: BTreeSet<&String> = members.iter().collect();
    let start = &members[0];
    let mut walk = vec![start.clone()];
    let mut visited = BTreeSet::from([start]);
    while visited.len() < inside.len() {
        let current = walk.last().expect("walk starts with a member").clone();
        let Some(path) = shortest_path(graph, &inside, &current, |n| !visited.contains(n)) else { break };
        for node in path {
            visited.insert(inside.get(&node).expect("paths stay inside"));
            walk.push(node);
        }
    }
    let current = walk.last().expect("walk starts with a member").clone();
    walk.extend(shortest_path(graph, &inside, &current, |n| n == start).unwrap_or_default());
    walk
}

/// The nodes after `from` on a shortest path inside `inside` to the nearest node that is `goal`.
fn shortest_path(
    graph: &Graph,
    inside: &BTreeSet<&String>,
    from: &String,
    goal: impl Fn(&String) -> bool,
) -> Option<Vec<String>> {
    let mut came_from: BTreeMap<&String, &String> = BTreeMap::new();
    let mut queue = VecDeque::from([from]);
    while let Some(node) = queue.pop_front() {
        for next in graph.get(node).into_iter().flatten().filter(|n| inside.contains(n)) {
            if came_from.contains_key(next) {
                continue;
            }
            came_from.insert(next, node);
            if goal(next) {
                let mut path = vec![next.clone()];
                let mut at = next;
                while let Some(&prev) = came_from.get(at).filter(|&&p| p != from) {
                    path.push(prev.clone());
                    at = prev;
                }
                path.reverse();
                return Some(path);
            }
            queue.push_back(next);
        }
    }
    None
}
