//! Op profile (XProf's op_profile, op_profile_builder.cc): the device's XLA
//! ops as trees, by program (program → category → op) and by category
//! (category → op), each with and without the idle time.
//!
//! * Ops that XLA deduplicated (same `deduplicated_name`) sit under one
//!   `<name> and its duplicate(s)` node; a group of one is the op itself.
//! * Fusions on TPU list their fused instructions (sorted by FLOPs).
//! * Metrics of a grouping node are sums; the root and program nodes add
//!   self times and the costs of ops without nested ops.
//! * FLOPS utilisation = min(1, FLOP rate ÷ peak) × the node's share of the
//!   total time (the UI divides it back out); the rate uses the DVFS-normalised
//!   time where the device has one (TPU). HBM bandwidth utilisation = min(1,
//!   GiB/s ÷ peak GiB/s).
//! * Children are sorted by time, longest first, and beyond the program and
//!   category levels pruned to the top 100 (`num_children` keeps the count
//!   before pruning).

pub mod legacy;
mod tool;

pub use tool::{OpProfileTool, OpProfileView};

use crate::passes::xla_ops::{DeviceKind, SourceInfo, XlaOp, XlaOpDb};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// Children kept per node below the program/category levels.
pub const CHILDREN_PER_NODE: usize = 100;

/// Name and category of the idle node.
const IDLE: &str = "IDLE";

/// The tool's view model.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OpProfile {
    /// `GPU` or `TPU`.
    pub device_type: String,
    pub by_program: Node,
    pub by_program_exclude_idle: Node,
    pub by_category: Node,
    pub by_category_exclude_idle: Node,
    /// 1 where time is DVFS-normalised (TPU), else 0.
    pub agg_dvfs_time_scale_multiplier: f64,
}

impl OpProfile {
    /// XProf's answer for a profile whose device ran nothing (CPU only): the
    /// trees unset (nameless, no metrics) and the device type `CPU_ONLY`.
    pub fn without_device() -> OpProfile {
        OpProfile { device_type: "CPU_ONLY".into(), ..OpProfile::default() }
    }
}

/// A node of an op profile tree.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Node {
    pub name: String,
    pub metrics: Metrics,
    pub children: Vec<Node>,
    /// Children before pruning.
    pub num_children: usize,
    /// Set on op nodes (and deduplication groups, from their top op).
    pub xla: Option<XlaInfo>,
}

/// What an op node says about its instruction.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct XlaInfo {
    pub expression: String,
    pub provenance: String,
    pub category: String,
    pub program_id: u64,
    pub source_info: SourceInfo,
    /// XProf writes a layout message (`{"dimensions": []}`: op nodes carry
    /// none here) on a non-fusion deduplication group, copied from its top
    /// op (op_profile_builder.cc, `CopySymbolDetailsToDeduplicatedNode`).
    #[serde(default)]
    pub empty_layout: bool,
}

/// A node's metrics, as XProf fills them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Metrics {
    /// FLOPS utilisation × share of the total time (see the module docs).
    pub flops: f64,
    pub uncapped_flops: f64,
    /// HBM, SRAM read, SRAM write utilisation (0..1).
    pub bandwidth_utils: [f64; 3],
    /// Time, ps.
    pub raw_time: f64,
    pub raw_flops: f64,
    pub bf16_flops: f64,
    /// HBM, SRAM read, SRAM write bytes.
    pub raw_bytes_accessed: [f64; 3],
    pub occurrences: u64,
    pub avg_time_ps: f64,
    pub normalized_time_ps: f64,
}

/// Sums a node collects before its metrics are derived.
#[derive(Debug, Clone, Copy, Default)]
struct Sums {
    time_ps: u64,
    normalized_time_ps: u64,
    flops: u64,
    model_flops: u64,
    hbm_bytes: u64,
    occurrences: u64,
}

impl Sums {
    /// XProf's CombineOpMetrics: everything adds up.
    fn combine(&mut self, op: &Sums) {
        self.time_ps = self.time_ps.saturating_add(op.time_ps);
        self.normalized_time_ps = self.normalized_time_ps.saturating_add(op.normalized_time_ps);
        self.flops = self.flops.saturating_add(op.flops);
        self.model_flops = self.model_flops.saturating_add(op.model_flops);
        self.hbm_bytes = self.hbm_bytes.saturating_add(op.hbm_bytes);
        self.occurrences = self.occurrences.saturating_add(op.occurrences);
    }
}

/// A tree under construction: nodes in an arena, children as indices.
#[derive(Default)]
struct Tree {
    nodes: Vec<Draft>,
}

#[derive(Default)]
struct Draft {
    name: String,
    sums: Sums,
    /// Set when the node was given metrics (fused children are not).
    measured: bool,
    children: Vec<usize>,
    xla: Option<XlaInfo>,
    /// Fused children: raw FLOPs only.
    fused_flops: Option<(u64, u64)>,
    is_fusion: bool,
}

impl Tree {
    fn add(&mut self, parent: Option<usize>, name: &str) -> usize {
        self.nodes.push(Draft { name: name.to_string(), measured: true, ..Draft::default() });
        let id = self.nodes.len() - 1;
        if let Some(p) = parent {
            self.nodes[p].children.push(id);
        }
        id
    }
}

/// How the tree groups ops below the root.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Grouping {
    Program,
    Category,
}

fn op_sums(op: &XlaOp, device: DeviceKind) -> Sums {
    Sums {
        time_ps: op.time_ps,
        normalized_time_ps: if device == DeviceKind::Tpu { op.time_ps } else { 0 },
        flops: op.flops,
        model_flops: op.model_flops,
        hbm_bytes: op.hbm_bytes,
        occurrences: op.occurrences,
    }
}

fn xla_info(op: &XlaOp) -> XlaInfo {
    XlaInfo {
        expression: op.expression.clone(),
        provenance: op.provenance.clone(),
        category: op.category.clone(),
        program_id: op.program_id,
        source_info: op.source.clone(),
        empty_layout: false,
    }
}

fn is_fusion(category: &str) -> bool {
    category.contains("fusion")
}

/// Builds the op profile of a device's XLA ops. `program_names` maps
/// program ids to module names.
pub fn op_profile(db: &XlaOpDb, program_names: &FxHashMap<u64, String>) -> OpProfile {
    let tree = |grouping, with_idle| build_tree(db, program_names, grouping, with_idle);
    OpProfile {
        device_type: db.device.label().to_string(),
        by_program: tree(Grouping::Program, true),
        by_program_exclude_idle: tree(Grouping::Program, false),
        by_category: tree(Grouping::Category, true),
        by_category_exclude_idle: tree(Grouping::Category, false),
        agg_dvfs_time_scale_multiplier: if db.device == DeviceKind::Tpu { 1.0 } else { 0.0 },
    }
}

fn build_tree(db: &XlaOpDb, program_names: &FxHashMap<u64, String>, grouping: Grouping, with_idle: bool) -> Node {
    let mut tree = Tree::default();
    let root = tree.add(None, if grouping == Grouping::Program { "by_program" } else { "by_category" });
    let mut programs: FxHashMap<u64, usize> = FxHashMap::default();
    let mut categories: FxHashMap<(Option<usize>, String), usize> = FxHashMap::default();
    let mut dedup_groups: FxHashMap<(usize, String), usize> = FxHashMap::default();
    // XProf's UpdateNodeMetrics: self time always, costs only of ops without nested ops.
    let update = |sums: &mut Sums, op: &XlaOp, s: &Sums| {
        sums.time_ps = sums.time_ps.saturating_add(op.self_time_ps);
        sums.normalized_time_ps = sums.normalized_time_ps.saturating_add(s.normalized_time_ps);
        if op.time_ps == op.self_time_ps {
            sums.flops = sums.flops.saturating_add(s.flops);
            sums.model_flops = sums.model_flops.saturating_add(s.model_flops);
            sums.hbm_bytes = sums.hbm_bytes.saturating_add(s.hbm_bytes);
        }
    };
    for op in &db.ops {
        let s = op_sums(op, db.device);
        update(&mut tree.nodes[root].sums, op, &s);
        let mut parent = root;
        let mut program = None;
        if grouping == Grouping::Program {
            let p = *programs.entry(op.program_id).or_insert_with(|| {
                let name = program_names
                    .get(&op.program_id)
                    .map_or_else(|| "main".to_string(), |n| format!("{n}({})", op.program_id));
                tree.add(Some(root), &name)
            });
            update(&mut tree.nodes[p].sums, op, &s);
            parent = p;
            program = Some(p);
        }
        if op.time_ps > op.self_time_ps {
            continue;
        }
        let category =
            *categories.entry((program, op.category.clone())).or_insert_with(|| tree.add(Some(parent), &op.category));
        let key = if op.deduplicated_name.is_empty() { op.name.clone() } else { op.deduplicated_name.clone() };
        let group = *dedup_groups.entry((category, key.clone())).or_insert_with(|| {
            let g = tree.add(Some(category), &key);
            tree.nodes[g].xla = None;
            g
        });
        let leaf = add_op_node(&mut tree, group, op);
        for node in [category, group, leaf] {
            tree.nodes[node].sums.combine(&s);
        }
    }
    if with_idle {
        let idle = tree.add(Some(root), IDLE);
        tree.nodes[idle].xla = Some(XlaInfo { category: IDLE.into(), ..XlaInfo::default() });
        let s = Sums { time_ps: db.idle_time_ps, ..Sums::default() };
        tree.nodes[idle].sums.combine(&s);
        tree.nodes[root].sums.time_ps = tree.nodes[root].sums.time_ps.saturating_add(db.idle_time_ps);
    }
    let total_time_ps = if with_idle { db.total_time_ps } else { db.total_time_ps.saturating_sub(db.idle_time_ps) };
    tree.nodes[root].sums.time_ps = total_time_ps;
    let level = if grouping == Grouping::Program { 2 } else { 1 };
    let mut out = finish(&tree, root, db, total_time_ps, level);
    finalize_dedup_groups(&mut out);
    out
}

fn add_op_node(tree: &mut Tree, parent: usize, op: &XlaOp) -> usize {
    let leaf = tree.add(Some(parent), &op.name);
    tree.nodes[leaf].xla = Some(xla_info(op));
    tree.nodes[leaf].is_fusion = is_fusion(&op.category);
    for child in &op.children {
        let c = tree.add(Some(leaf), &child.name);
        let node = &mut tree.nodes[c];
        node.measured = false;
        node.fused_flops = Some((child.model_flops, child.flops));
        node.xla = Some(xla_info(child));
        node.is_fusion = is_fusion(&child.category);
    }
    leaf
}

fn metrics(sums: &Sums, db: &XlaOpDb, total_time_ps: u64) -> Metrics {
    let safe = |a: f64, b: f64| if b > 0.0 { a / b } else { 0.0 };
    let time = sums.time_ps as f64;
    let rate_time = if sums.normalized_time_ps > 0 { sums.normalized_time_ps as f64 } else { time };
    // FLOPs per ps = TFLOP/s; peaks are GFLOP/s.
    let uncapped = safe(sums.flops as f64 * 1000.0 / rate_time.max(f64::MIN_POSITIVE), db.peak_gflops);
    let uncapped = if rate_time > 0.0 { uncapped } else { 0.0 };
    let fraction = safe(time, total_time_ps as f64);
    // Bytes per ps × 1e12 = bytes/s.
    let gib_per_s = safe(sums.hbm_bytes as f64, time) * 1e12 / (1u64 << 30) as f64;
    let hbm_util = safe(gib_per_s, db.peak_hbm_gibps).min(1.0);
    Metrics {
        flops: uncapped.min(1.0) * fraction,
        uncapped_flops: uncapped * fraction,
        bandwidth_utils: [hbm_util, 0.0, 0.0],
        raw_time: time,
        raw_flops: sums.model_flops as f64,
        bf16_flops: sums.flops as f64,
        raw_bytes_accessed: [sums.hbm_bytes as f64, 0.0, 0.0],
        occurrences: sums.occurrences,
        avg_time_ps: safe(time, sums.occurrences as f64),
        normalized_time_ps: sums.normalized_time_ps as f64,
    }
}

/// Derives metrics, sorts and prunes children (XProf's Finalize).
fn finish(tree: &Tree, id: usize, db: &XlaOpDb, total_time_ps: u64, level: i32) -> Node {
    let draft = &tree.nodes[id];
    let mut children: Vec<Node> =
        draft.children.iter().map(|&c| finish(tree, c, db, total_time_ps, level - 1)).collect();
    let num_children = children.len();
    if draft.is_fusion {
        children.sort_by(|a, b| b.metrics.raw_flops.total_cmp(&a.metrics.raw_flops));
    } else {
        children.sort_by(|a, b| b.metrics.raw_time.total_cmp(&a.metrics.raw_time));
    }
    if level <= 0 {
        children.truncate(CHILDREN_PER_NODE);
    }
    let metrics = match (draft.measured, draft.fused_flops) {
        (false, Some((model_flops, flops))) => {
            Metrics { raw_flops: model_flops as f64, bf16_flops: flops as f64, occurrences: 1, ..Metrics::default() }
        }
        _ => metrics(&draft.sums, db, total_time_ps),
    };
    Node { name: draft.name.clone(), metrics, children, num_children, xla: draft.xla.clone() }
}

/// A node without XLA info whose children all have it is a deduplication
/// group: one child replaces it, several name it after the top child.
fn finalize_dedup_groups(node: &mut Node) {
    let is_group = !node.children.is_empty() && node.xla.is_none() && node.children.iter().all(|c| c.xla.is_some());
    if !is_group {
        node.children.iter_mut().for_each(finalize_dedup_groups);
        return;
    }
    if node.children.len() == 1 {
        *node = node.children.remove(0);
        return;
    }
    let top = &node.children[0];
    let Some(top_xla) = &top.xla else { return };
    node.name = format!("{} and its duplicate(s)", top.name);
    let fusion = is_fusion(&top_xla.category);
    node.xla = Some(XlaInfo {
        expression: top_xla.expression.clone(),
        provenance: if fusion { String::new() } else { top_xla.provenance.clone() },
        category: top_xla.category.clone(),
        program_id: top_xla.program_id,
        source_info: top_xla.source_info.clone(),
        empty_layout: !fusion,
    });
}

/// XProf 2.24's JSON: `group_by_category` picks the `byCategory` trees
/// (XProf's `group_by=category` parameter), else the `byProgram` ones.
pub fn to_xprof_json(profile: &OpProfile, group_by_category: bool) -> Value {
    let (key, tree, exclude_key, exclude) = if group_by_category {
        ("byCategory", &profile.by_category, "byCategoryExcludeIdle", &profile.by_category_exclude_idle)
    } else {
        ("byProgram", &profile.by_program, "byProgramExcludeIdle", &profile.by_program_exclude_idle)
    };
    json!({
        key: node_json(tree),
        "deviceType": profile.device_type,
        exclude_key: node_json(exclude),
        "aggDvfsTimeScaleMultiplier": number(profile.agg_dvfs_time_scale_multiplier),
    })
}

fn number(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        json!(x as i64)
    } else {
        json!(x)
    }
}

fn node_json(node: &Node) -> Value {
    // A tree XProf never built (no device ops): proto3 JSON of an empty node.
    if node.name.is_empty() && node.children.is_empty() {
        return json!({ "name": "", "children": [], "numChildren": 0 });
    }
    let m = &node.metrics;
    let mut out = json!({
        "name": node.name,
        "metrics": {
            "flops": number(m.flops),
            "bandwidthUtils": m.bandwidth_utils.iter().map(|&x| number(x)).collect::<Vec<_>>(),
            "rawTime": number(m.raw_time),
            "rawFlops": number(m.raw_flops),
            "rawBytesAccessedArray": m.raw_bytes_accessed.iter().map(|&x| number(x)).collect::<Vec<_>>(),
            "occurrences": m.occurrences,
            "avgTimePs": number(m.avg_time_ps),
            "bf16Flops": number(m.bf16_flops),
            "uncappedFlops": number(m.uncapped_flops),
            "normalizedTimePs": number(m.normalized_time_ps),
        },
        "children": node.children.iter().map(node_json).collect::<Vec<_>>(),
    });
    if let Some(x) = &node.xla {
        out["xla"] = json!({
            "op": "",
            "expression": x.expression,
            "provenance": x.provenance,
            "category": x.category,
            "computationPrimitiveSize": 0,
            "fingerprint": "0",
            "programId": x.program_id.to_string(),
            "sourceInfo": {
                "fileName": x.source_info.file_name,
                "lineNumber": x.source_info.line_number,
                "stackFrame": x.source_info.stack_frame,
            },
            "xprofKernelMetadata": "",
        });
        if x.empty_layout {
            out["xla"]["layout"] = json!({ "dimensions": [] });
        }
    }
    out["numChildren"] = json!(node.num_children);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(name: &str, dedup: &str, time_ps: u64) -> XlaOp {
        XlaOp {
            program_id: 7,
            name: name.into(),
            category: "loop fusion".into(),
            deduplicated_name: dedup.into(),
            occurrences: 1,
            time_ps,
            self_time_ps: time_ps,
            flops: time_ps,
            model_flops: time_ps,
            ..XlaOp::default()
        }
    }

    fn db(ops: Vec<XlaOp>) -> XlaOpDb {
        let busy: u64 = ops.iter().map(|o| o.time_ps).sum();
        XlaOpDb {
            device: DeviceKind::Gpu,
            ops,
            total_time_ps: busy + 10,
            idle_time_ps: 10,
            peak_gflops: 1000.0,
            peak_hbm_gibps: 100.0,
        }
    }

    #[test]
    fn duplicates_group_and_singletons_collapse() {
        let names: FxHashMap<u64, String> = [(7, "jit_f".to_string())].into_iter().collect();
        let profile = op_profile(&db(vec![op("f.1", "", 30), op("f.2", "f.1", 50), op("g", "", 10)]), &names);
        let program = &profile.by_program.children[0];
        assert_eq!(program.name, "jit_f(7)");
        let category = &program.children[0];
        let group = &category.children[0];
        assert_eq!(group.name, "f.2 and its duplicate(s)");
        assert_eq!((group.metrics.raw_time, group.metrics.occurrences, group.num_children), (80.0, 2, 2));
        assert_eq!(category.children[1].name, "g");
        assert!(category.children[1].xla.is_some());
        // A fusion group carries no layout; a non-fusion group XProf's
        // (empty) one, copied from its top op; ops none.
        let layout = |n: &Node| node_json(n)["xla"].get("layout").cloned();
        assert_eq!(layout(group), None);
        let mut calls = vec![op("c.1", "", 30), op("c.2", "c.1", 50)];
        calls.iter_mut().for_each(|o| o.category = "custom-call".into());
        let calls = op_profile(&db(calls), &names);
        let call_group = &calls.by_program.children[0].children[0].children[0];
        assert_eq!(call_group.name, "c.2 and its duplicate(s)");
        assert_eq!(layout(call_group), Some(json!({ "dimensions": [] })));
        assert_eq!(layout(&call_group.children[0]), None);
        // The idle node is in the tree with idle only.
        assert_eq!(profile.by_program.children.last().map(|n| n.name.as_str()), Some("IDLE"));
        assert!(profile.by_program_exclude_idle.children.iter().all(|n| n.name != "IDLE"));
        // FLOPS utilisation: 1 FLOP/ps = 1000 GFLOP/s = the peak, times the share of time.
        let total = 100.0;
        assert!((profile.by_program.metrics.flops - 90.0 / total).abs() < 1e-12);
    }

    #[test]
    fn children_beyond_the_category_level_are_pruned_to_100() {
        let ops = (0..150).map(|i| op(&format!("f.{i}"), "", 1 + i)).collect();
        let profile = op_profile(&db(ops), &FxHashMap::default());
        let category = &profile.by_category.children[0];
        assert_eq!((category.children.len(), category.num_children), (100, 150));
        assert_eq!(category.children[0].name, "f.149");
    }
}
