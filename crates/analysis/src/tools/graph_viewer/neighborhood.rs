//! The HLO graph around one instruction: every instruction of its
//! computation within `width` hops over operands and users (XLA's
//! RenderGraphNeighborhoodAround), fusions drawn as a cluster of their fused
//! instructions unless merged, then laid out.

use super::layout::layout;
use super::{Cluster, Graph, GraphEdge, GraphNode};
use crate::hlo::text::shape_text;
use proflens_model::hlo::{HloComputation, HloInstruction, HloModule};
use rustc_hash::FxHashMap;
use std::collections::VecDeque;

/// Fusions larger than this stay one node even when fusions are expanded.
const MAX_EXPANDED_FUSION: usize = 60;
const NODE_HEIGHT: f64 = 38.0;
/// Room above the first layer for a cluster's title.
const TOP: f64 = 20.0;

/// XProf's colour group of an opcode (its graph viewer's node styles).
pub fn category(opcode: &str) -> &'static str {
    match opcode {
        "async-start" | "async-update" | "async-done" => "async",
        "all-gather"
        | "all-gather-start"
        | "all-gather-done"
        | "all-reduce"
        | "reduce-scatter"
        | "all-reduce-start"
        | "all-reduce-done"
        | "all-to-all"
        | "collective-broadcast"
        | "collective-permute"
        | "collective-permute-start"
        | "collective-permute-done"
        | "infeed"
        | "outfeed"
        | "partition-id"
        | "recv"
        | "recv-done"
        | "send"
        | "send-done"
        | "replica-id" => "collective",
        "convolution" | "dot" | "fft" | "triangular-solve" | "cholesky" => "matmul",
        "call" | "conditional" | "custom-call" | "while" => "control",
        "domain" | "fusion" | "map" | "get-dimension-size" | "set-dimension-size" => "fusion",
        "concatenate" | "dynamic-slice" | "reshape" | "dynamic-reshape" | "reverse" | "transpose" | "copy"
        | "copy-start" | "copy-done" => "layout",
        "parameter" => "parameter",
        "batch-norm-grad"
        | "batch-norm-inference"
        | "batch-norm-training"
        | "reduce"
        | "reduce-window"
        | "scatter"
        | "select-and-scatter"
        | "gather" => "reduction",
        "broadcast" | "dynamic-update-slice" => "broadcast",
        _ => "other",
    }
}

/// The computation and instruction called `name`.
pub fn find<'a>(module: &'a HloModule, name: &str) -> Option<(&'a HloComputation, &'a HloInstruction)> {
    module.instructions().find(|(_, i)| i.name == name)
}

fn node(instr: &HloInstruction, cluster: Option<usize>) -> GraphNode {
    let shape = shape_text(&instr.shape);
    let chars = instr.name.chars().count().max(instr.opcode.chars().count() + 1 + shape.chars().count().min(40));
    GraphNode {
        name: instr.name.clone(),
        opcode: instr.opcode.clone(),
        shape,
        category: category(&instr.opcode).to_string(),
        cluster,
        center: false,
        more_operands: 0,
        more_users: 0,
        x: 0.0,
        y: 0.0,
        width: (chars as f64 * 6.6 + 18.0).clamp(70.0, 330.0),
        height: NODE_HEIGHT,
    }
}

/// The graph around `center` (an instruction of `module`) within `width`
/// hops; fusions expanded into clusters unless `merge_fusion`.
pub fn neighborhood(module: &HloModule, center: &str, width: u32, merge_fusion: bool) -> Option<Graph> {
    let (computation, start) = find(module, center)?;
    let by_id: FxHashMap<i64, &HloInstruction> = computation.instructions.iter().map(|i| (i.id, i)).collect();
    let mut users: FxHashMap<i64, Vec<i64>> = FxHashMap::default();
    for i in &computation.instructions {
        for &o in &i.operand_ids {
            let list = users.entry(o).or_default();
            if !list.contains(&i.id) {
                list.push(i.id);
            }
        }
    }
    // Breadth-first over operands and users, in the order the text lists them.
    let mut depth: FxHashMap<i64, u32> = FxHashMap::default();
    let mut chosen: Vec<i64> = Vec::new();
    let mut queue = VecDeque::from([(start.id, 0u32)]);
    depth.insert(start.id, 0);
    while let Some((id, d)) = queue.pop_front() {
        chosen.push(id);
        if d == width {
            continue;
        }
        let Some(instr) = by_id.get(&id) else { continue };
        let next = instr.operand_ids.iter().chain(users.get(&id).into_iter().flatten());
        for &n in next {
            if by_id.contains_key(&n) && !depth.contains_key(&n) {
                depth.insert(n, d + 1);
                queue.push_back((n, d + 1));
            }
        }
    }
    let fused = |instr: &HloInstruction| -> Option<&HloComputation> {
        if merge_fusion || instr.opcode != "fusion" {
            return None;
        }
        let c = module.computation(*instr.called_computation_ids.first()?)?;
        (c.instructions.len() <= MAX_EXPANDED_FUSION).then_some(c)
    };
    let mut nodes: Vec<GraphNode> = Vec::new();
    let mut clusters: Vec<Cluster> = Vec::new();
    // Outer instruction id → the node its value comes out of, and the node
    // each of its operands goes into (a fused parameter, or itself).
    let mut output_of: FxHashMap<i64, usize> = FxHashMap::default();
    let mut inputs_of: FxHashMap<i64, Vec<Vec<usize>>> = FxHashMap::default();
    let mut edges: Vec<(usize, usize)> = Vec::new();
    for &id in &chosen {
        let instr = by_id[&id];
        if let Some(c) = fused(instr) {
            let cluster = clusters.len();
            clusters.push(Cluster {
                name: instr.name.clone(),
                computation: c.name.clone(),
                center: id == start.id,
                x: 0.0,
                y: 0.0,
                width: 0.0,
                height: 0.0,
            });
            let mut inner: FxHashMap<i64, usize> = FxHashMap::default();
            for f in &c.instructions {
                inner.insert(f.id, nodes.len());
                nodes.push(node(f, Some(cluster)));
            }
            for f in &c.instructions {
                for o in &f.operand_ids {
                    if let Some(&from) = inner.get(o) {
                        edges.push((from, inner[&f.id]));
                    }
                }
            }
            let mut inputs = vec![Vec::new(); instr.operand_ids.len()];
            for f in c.instructions.iter().filter(|f| f.opcode == "parameter") {
                if let Some(slot) = usize::try_from(f.parameter_number).ok().and_then(|k| inputs.get_mut(k)) {
                    slot.push(inner[&f.id]);
                }
            }
            inputs_of.insert(id, inputs);
            let root = inner.get(&c.root_id).copied().unwrap_or(nodes.len() - 1);
            output_of.insert(id, root);
        } else {
            let mut n = node(instr, None);
            n.center = id == start.id;
            output_of.insert(id, nodes.len());
            inputs_of.insert(id, vec![vec![nodes.len()]; instr.operand_ids.len()]);
            nodes.push(n);
        }
    }
    for &id in &chosen {
        let instr = by_id[&id];
        let mut missing = 0;
        for (k, o) in instr.operand_ids.iter().enumerate() {
            match output_of.get(o) {
                Some(&from) => {
                    for &to in &inputs_of[&id][k] {
                        if !edges.contains(&(from, to)) {
                            edges.push((from, to));
                        }
                    }
                }
                None => missing += 1,
            }
        }
        // What the drawing leaves out, counted on the node the value leaves
        // (itself, or a fusion's root).
        let out = output_of[&id];
        nodes[out].more_users = users.get(&id).map_or(0, |u| u.iter().filter(|u| !output_of.contains_key(u)).count());
        nodes[out].more_operands = missing;
    }
    let sizes: Vec<(f64, f64)> = nodes.iter().map(|n| (n.width, n.height)).collect();
    let laid = layout(&sizes, &edges);
    for (n, p) in nodes.iter_mut().zip(&laid.nodes) {
        n.x = p.x;
        n.y = p.y + TOP;
    }
    for (i, c) in clusters.iter_mut().enumerate() {
        let members = nodes.iter().filter(|n| n.cluster == Some(i));
        let (mut x0, mut y0, mut x1, mut y1) = (f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY);
        for n in members {
            x0 = x0.min(n.x);
            y0 = y0.min(n.y);
            x1 = x1.max(n.x + n.width);
            y1 = y1.max(n.y + n.height);
        }
        if x0.is_finite() {
            (c.x, c.y, c.width, c.height) = (x0 - 8.0, y0 - 18.0, x1 - x0 + 16.0, y1 - y0 + 26.0);
        }
    }
    let edges = edges
        .iter()
        .zip(laid.edges)
        .map(|(&(from, to), points)| GraphEdge {
            from,
            to,
            points: points.into_iter().map(|(x, y)| (x, y + TOP)).collect(),
        })
        .collect();
    Some(Graph { nodes, edges, clusters, width: laid.width, height: laid.height + TOP })
}
