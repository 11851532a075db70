//! The flame graph of a selected range: time per call stack, where a stack is
//! the names of nested events on one track from depth 0 down, and identical
//! stacks merge across the selected tracks. Times are clipped to the range.
//!
//! The tree is capped: a frame narrower than [`FOLD_FRACTION`] of the whole
//! goes, with everything under it, into one "other" frame per parent, so
//! the answer stays small however many events the range holds.

use std::collections::HashMap;

use super::range_stats::overlapping;
use super::{event_name, track_events, Trace};
use crate::passes::grouping::Grouping;
use proflens_model::Profile;
use serde::{Deserialize, Serialize};

/// Frames narrower than this fraction of the root fold into "other" (0.1 %).
pub const FOLD_FRACTION: f64 = 0.001;
/// Most frames an answer carries; children past it fold into "other" too.
pub const MAX_FRAMES: usize = 20_000;
/// The root frame's name.
pub const ROOT: &str = "All selected tracks";

/// One frame; `frames[0]` is the root, the rest in depth-first order with
/// each parent's children widest first.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FlameFrame {
    /// Index into [`FlameGraph::names`].
    pub name: u32,
    /// Index of the parent frame (the root's is 0).
    pub parent: u32,
    pub depth: u16,
    pub total_ps: i64,
    pub self_ps: i64,
    /// An "other" frame: this many frames (with their subtrees) folded.
    pub folded: u32,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FlameGraph {
    pub start_ps: i64,
    pub end_ps: i64,
    pub names: Vec<String>,
    pub frames: Vec<FlameFrame>,
}

/// A frame while the tree is built.
struct Node {
    name: String,
    total_ps: i64,
    children: HashMap<String, usize>,
}

impl Node {
    fn new(name: &str) -> Node {
        Node { name: name.to_string(), total_ps: 0, children: HashMap::new() }
    }
}

/// The flame graph of `[start_ps, end_ps]` over `tracks` (numbered across sections).
pub fn flame(
    profile: &Profile,
    grouping: &Grouping,
    trace: &Trace,
    tracks: &[u32],
    start_ps: i64,
    end_ps: i64,
) -> FlameGraph {
    let mut builder = FlameBuilder::new(start_ps, end_ps);
    builder.add(profile, grouping, trace, tracks, 0);
    builder.finish()
}

/// A flame graph's tree grown a timeline at a time (one host, or every host
/// of a run, each on its own clock): identical stacks merge across them.
pub struct FlameBuilder {
    start_ps: i64,
    end_ps: i64,
    nodes: Vec<Node>,
}

impl FlameBuilder {
    pub fn new(start_ps: i64, end_ps: i64) -> FlameBuilder {
        let (start_ps, end_ps) = (start_ps.min(end_ps), start_ps.max(end_ps));
        FlameBuilder { start_ps, end_ps, nodes: vec![Node::new(ROOT)] }
    }

    /// Adds `tracks` of one timeline whose clock is `offset_ps` behind the range's.
    pub fn add(&mut self, profile: &Profile, grouping: &Grouping, trace: &Trace, tracks: &[u32], offset_ps: i64) {
        let (start_ps, end_ps) = (self.start_ps.saturating_sub(offset_ps), self.end_ps.saturating_sub(offset_ps));
        let all: Vec<_> = trace.sections.iter().flat_map(|s| &s.tracks).collect();
        let nodes = &mut self.nodes;
        for &t in tracks {
            let Some(track) = all.get(t as usize) else { continue };
            let events = track_events(profile, track);
            // The node of the open event at each depth.
            let mut stack: Vec<usize> = Vec::new();
            for o in overlapping(events, start_ps, end_ps) {
                let name = event_name(profile, grouping, track, o.index);
                stack.truncate(o.depth as usize);
                let parent = stack.last().copied().unwrap_or(0);
                let node = match nodes[parent].children.get(name) {
                    Some(&node) => node,
                    None => {
                        nodes.push(Node::new(name));
                        let node = nodes.len() - 1;
                        nodes[parent].children.insert(name.to_string(), node);
                        node
                    }
                };
                nodes[node].total_ps = nodes[node].total_ps.saturating_add(o.clipped_ps);
                if o.depth == 0 {
                    nodes[0].total_ps = nodes[0].total_ps.saturating_add(o.clipped_ps);
                }
                stack.push(node);
            }
        }
    }

    pub fn finish(self) -> FlameGraph {
        let mut out = FlameGraph { start_ps: self.start_ps, end_ps: self.end_ps, ..FlameGraph::default() };
        let mut names: HashMap<&str, u32> = HashMap::new();
        let threshold = self.nodes[0].total_ps as f64 * FOLD_FRACTION;
        emit(&self.nodes, 0, 0, 0, threshold, &mut names, &mut out);
        out
    }
}

fn intern<'a>(name: &'a str, names: &mut HashMap<&'a str, u32>, out: &mut Vec<String>) -> u32 {
    *names.entry(name).or_insert_with(|| {
        out.push(name.to_string());
        out.len() as u32 - 1
    })
}

/// Writes node `n` and, widest first, its children (the narrow ones as one "other").
fn emit<'a>(
    nodes: &'a [Node],
    n: usize,
    parent: u32,
    depth: u16,
    threshold: f64,
    names: &mut HashMap<&'a str, u32>,
    out: &mut FlameGraph,
) {
    let node = &nodes[n];
    let children_ps: i64 = node.children.values().map(|&c| nodes[c].total_ps).fold(0, i64::saturating_add);
    let me = out.frames.len() as u32;
    out.frames.push(FlameFrame {
        name: intern(&node.name, names, &mut out.names),
        parent,
        depth,
        total_ps: node.total_ps,
        self_ps: node.total_ps.saturating_sub(children_ps).max(0),
        folded: 0,
    });
    let mut children: Vec<usize> = node.children.values().copied().collect();
    children
        .sort_by(|&a, &b| nodes[b].total_ps.cmp(&nodes[a].total_ps).then_with(|| nodes[a].name.cmp(&nodes[b].name)));
    let (mut other_ps, mut other_n) = (0i64, 0u32);
    for c in children {
        if (nodes[c].total_ps as f64) < threshold || nodes[c].total_ps == 0 || out.frames.len() >= MAX_FRAMES {
            other_ps = other_ps.saturating_add(nodes[c].total_ps);
            other_n += 1;
        } else {
            emit(nodes, c, me, depth.saturating_add(1), threshold, names, out);
        }
    }
    if other_n > 0 {
        out.frames.push(FlameFrame {
            name: intern("other", names, &mut out.names),
            parent: me,
            depth: depth.saturating_add(1),
            total_ps: other_ps,
            self_ps: other_ps,
            folded: other_n,
        });
    }
}

#[cfg(test)]
#[path = "flame_tests.rs"]
mod tests;
