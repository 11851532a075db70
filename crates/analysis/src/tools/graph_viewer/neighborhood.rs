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
    let instrs = &computation.instructions;
    // Indexes into the computation's instructions (one map type: see
    // hlo::print's Names).
    let index: FxHashMap<i64, usize> = instrs.iter().enumerate().map(|(k, i)| (i.id, k)).collect();
    let operands = |k: usize| instrs[k].operand_ids.iter().filter_map(|o| index.get(o).copied());
    let mut users: Vec<Vec<usize>> = vec![Vec::new(); instrs.len()];
    for k in 0..instrs.len() {
        for o in operands(k) {
            if !users[o].contains(&k) {
                users[o].push(k);
            }
        }
    }
    let start_k = index[&start.id];
    // Breadth-first over operands and users.
    let mut depth: Vec<Option<u32>> = vec![None; instrs.len()];
    let mut chosen: Vec<usize> = Vec::new();
    let mut queue = VecDeque::from([(start_k, 0u32)]);
    depth[start_k] = Some(0);
    while let Some((k, d)) = queue.pop_front() {
        chosen.push(k);
        if d == width {
            continue;
        }
        for n in operands(k).chain(users[k].iter().copied()) {
            if depth[n].is_none() {
                depth[n] = Some(d + 1);
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
    // Per outer instruction: the node its value comes out of, and the nodes
    // each of its operands goes into (a fused parameter, or itself).
    let mut output_of: Vec<Option<usize>> = vec![None; instrs.len()];
    let mut inputs_of: Vec<Vec<Vec<usize>>> = vec![Vec::new(); instrs.len()];
    let mut edges: Vec<(usize, usize)> = Vec::new();
    for &k in &chosen {
        let instr = &instrs[k];
        if let Some(c) = fused(instr) {
            let cluster = clusters.len();
            clusters.push(Cluster {
                name: instr.name.clone(),
                computation: c.name.clone(),
                center: k == start_k,
                x: 0.0,
                y: 0.0,
                width: 0.0,
                height: 0.0,
            });
            let first = nodes.len();
            let inner: FxHashMap<i64, usize> =
                c.instructions.iter().enumerate().map(|(j, f)| (f.id, first + j)).collect();
            nodes.extend(c.instructions.iter().map(|f| node(f, Some(cluster))));
            for (j, f) in c.instructions.iter().enumerate() {
                edges.extend(f.operand_ids.iter().filter_map(|o| inner.get(o)).map(|&from| (from, first + j)));
            }
            let mut inputs = vec![Vec::new(); instr.operand_ids.len()];
            for (j, f) in c.instructions.iter().enumerate().filter(|(_, f)| f.opcode == "parameter") {
                if let Some(slot) = usize::try_from(f.parameter_number).ok().and_then(|p| inputs.get_mut(p)) {
                    slot.push(first + j);
                }
            }
            inputs_of[k] = inputs;
            output_of[k] = Some(inner.get(&c.root_id).copied().unwrap_or(nodes.len() - 1));
        } else {
            let mut n = node(instr, None);
            n.center = k == start_k;
            output_of[k] = Some(nodes.len());
            inputs_of[k] = vec![vec![nodes.len()]; instr.operand_ids.len()];
            nodes.push(n);
        }
    }
    for &k in &chosen {
        let mut missing = 0;
        for (slot, o) in instrs[k].operand_ids.iter().enumerate() {
            match index.get(o).and_then(|&ok| output_of[ok]) {
                Some(from) => {
                    for &to in &inputs_of[k][slot] {
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
        let Some(out) = output_of[k] else { continue };
        nodes[out].more_users = users[k].iter().filter(|&&u| output_of[u].is_none()).count();
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
