//! Modules: time per PyTorch `nn.Module`, as a tree (module → submodules),
//! which HTA and TensorBoard do not show.
//!
//! With `with_stack=True` Kineto's Python tracer records each module's
//! `forward` as a `python_function` event named `nn.Module: <Class>_<k>`
//! (`k` numbers the instances of a class). Its rules, kept here:
//!
//! 1. A module call's parent is the innermost module call around it on the
//!    same thread; a tree node is a path of names from a root module, so
//!    calling a model twice adds to the same nodes (`occurrences`).
//! 2. Host time: the calls' durations; self time: minus the direct
//!    submodule calls.
//! 3. Kernel time: the kernels of the runtime calls (launch correlation →
//!    kernel, every kernel a `cudaGraphLaunch` replays) made inside the
//!    module on its thread; self for those made outside any submodule,
//!    total for the whole subtree.
//!
//! A trace without module events gets a plain message, never an empty tree.

mod tool;

#[cfg(test)]
mod tests;

pub use tool::ModulesTool;

use crate::passes::kineto::launch::RangesByLine;
use crate::passes::kineto::{DeviceKind, HostKind, KinetoIndex};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

/// The name prefix of Kineto's module events.
pub const MODULE_PREFIX: &str = "nn.Module: ";

/// What the page and the CLI say when a trace has no module events.
pub const NO_MODULES: &str = "This trace has no module events: profile with `with_stack=True` \
     (torch.profiler.profile(..., with_stack=True)) so that each nn.Module's forward is recorded \
     as an `nn.Module: <Name>` python_function event.";

/// One node of the module tree: a path of module instances from a root.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ModuleRow {
    /// Position in `rows` (depth-first, children in order of first call).
    pub id: usize,
    pub parent: Option<usize>,
    pub depth: usize,
    /// The instance, `BertLayer_0`.
    pub name: String,
    /// Its class, `BertLayer`.
    pub module: String,
    /// Names from the root, joined by `/`.
    pub path: String,
    pub occurrences: u64,
    pub host_total_ps: i64,
    /// Host time outside the direct submodule calls.
    pub host_self_ps: i64,
    /// Kernels launched in the module and its submodules, and their time.
    pub kernels_total: u64,
    pub kernel_total_ps: i64,
    /// Kernels launched in the module outside any submodule.
    pub kernels_self: u64,
    pub kernel_self_ps: i64,
    /// First call's start (ps from the trace's start), to order siblings.
    pub first_start_ps: i64,
}

/// The module tree of a trace, or why there is none.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Modules {
    pub rows: Vec<ModuleRow>,
    /// Set when there are no rows.
    pub message: Option<String>,
    /// Module calls seen.
    pub calls: u64,
}

/// `Class_k` → `Class`.
fn class_of(name: &str) -> &str {
    match name.rsplit_once('_') {
        Some((class, k)) if !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()) => class,
        _ => name,
    }
}

/// A node while the tree is built (ids in creation order).
struct Node {
    parent: Option<usize>,
    name: String,
    row: ModuleRow,
    children: Vec<usize>,
}

/// The module tree of one trace.
pub fn modules(index: &KinetoIndex) -> Modules {
    // Module calls per line, outermost first.
    let mut calls: Vec<(usize, i64, i64, &str)> = index
        .host
        .iter()
        .filter(|h| h.kind == HostKind::PythonFunction)
        .filter_map(|h| Some((h.line as usize, h.start_ps, h.end_ps, index.text(h.name).strip_prefix(MODULE_PREFIX)?)))
        .collect();
    if calls.is_empty() {
        return Modules { rows: Vec::new(), message: Some(NO_MODULES.to_string()), calls: 0 };
    }
    calls.sort_by_key(|&(line, s, e, _)| (line, s, std::cmp::Reverse(e)));
    let mut nodes: Vec<Node> = Vec::new();
    let mut by_path: FxHashMap<(Option<usize>, &str), usize> = FxHashMap::default();
    let mut node_of_call: Vec<usize> = Vec::with_capacity(calls.len());
    // Open calls of the current line: (call position, end).
    let mut stack: Vec<(usize, i64)> = Vec::new();
    let mut line = usize::MAX;
    for (pos, &(l, start, end, name)) in calls.iter().enumerate() {
        if l != line {
            stack.clear();
            line = l;
        }
        while stack.last().is_some_and(|&(_, e)| e <= start) {
            stack.pop();
        }
        let parent_node = stack.last().map(|&(p, _)| node_of_call[p]);
        let node = *by_path.entry((parent_node, name)).or_insert_with(|| {
            nodes.push(Node {
                parent: parent_node,
                name: name.to_string(),
                row: ModuleRow { first_start_ps: start, ..Default::default() },
                children: Vec::new(),
            });
            let id = nodes.len() - 1;
            if let Some(p) = parent_node {
                nodes[p].children.push(id);
            }
            id
        });
        let dur = end - start;
        let row = &mut nodes[node].row;
        row.occurrences += 1;
        row.host_total_ps += dur;
        row.host_self_ps += dur;
        row.first_start_ps = row.first_start_ps.min(start);
        if let Some(p) = parent_node {
            nodes[p].row.host_self_ps -= dur;
        }
        node_of_call.push(node);
        stack.push((pos, end));
    }
    attribute_kernels(index, &calls, &node_of_call, &mut nodes);
    Modules { rows: flatten(nodes), message: None, calls: calls.len() as u64 }
}

/// Each kernel's time to the innermost module call around its runtime call.
fn attribute_kernels(
    index: &KinetoIndex,
    calls: &[(usize, i64, i64, &str)],
    node_of_call: &[usize],
    nodes: &mut [Node],
) {
    let around = RangesByLine::new(calls.iter().zip(node_of_call).map(|(&(line, s, e, _), &node)| (line, s, e, node)));
    let runtime_of: FxHashMap<i64, (usize, i64)> = index
        .host
        .iter()
        .filter(|h| h.kind == HostKind::Runtime)
        .filter_map(|h| Some((h.correlation_id.get()?, (h.line as usize, h.start_ps))))
        .collect();
    let mut node_of_correlation: FxHashMap<i64, Option<usize>> = FxHashMap::default();
    for d in index.device.iter().filter(|d| d.kind == DeviceKind::Kernel) {
        let Some(c) = d.correlation_id.get() else { continue };
        let node = *node_of_correlation
            .entry(c)
            .or_insert_with(|| runtime_of.get(&c).and_then(|&(line, at)| around.innermost(line, at)));
        if let Some(n) = node {
            let row = &mut nodes[n].row;
            row.kernels_self += 1;
            row.kernel_self_ps += d.end_ps - d.start_ps;
        }
    }
}

/// The nodes depth-first, siblings by first call, with subtree totals.
fn flatten(mut nodes: Vec<Node>) -> Vec<ModuleRow> {
    // Children were created after their parents: totals bottom-up.
    for id in (0..nodes.len()).rev() {
        let (k, t) = (nodes[id].row.kernels_self, nodes[id].row.kernel_self_ps);
        nodes[id].row.kernels_total += k;
        nodes[id].row.kernel_total_ps += t;
        if let Some(p) = nodes[id].parent {
            let (k, t) = (nodes[id].row.kernels_total, nodes[id].row.kernel_total_ps);
            nodes[p].row.kernels_total += k;
            nodes[p].row.kernel_total_ps += t;
        }
    }
    let start = |nodes: &[Node], id: usize| nodes[id].row.first_start_ps;
    let mut roots: Vec<usize> = (0..nodes.len()).filter(|&i| nodes[i].parent.is_none()).collect();
    roots.sort_by_key(|&i| start(&nodes, i));
    for id in 0..nodes.len() {
        let mut children = std::mem::take(&mut nodes[id].children);
        children.sort_by_key(|&i| start(&nodes, i));
        nodes[id].children = children;
    }
    let mut rows = Vec::with_capacity(nodes.len());
    // (node, parent row, depth, parent path)
    let mut todo: Vec<(usize, Option<usize>, usize, String)> =
        roots.into_iter().rev().map(|r| (r, None, 0, String::new())).collect();
    while let Some((id, parent, depth, prefix)) = todo.pop() {
        let node = &nodes[id];
        let path = if prefix.is_empty() { node.name.clone() } else { format!("{prefix}/{}", node.name) };
        let row_id = rows.len();
        rows.push(ModuleRow {
            id: row_id,
            parent,
            depth,
            name: node.name.clone(),
            module: class_of(&node.name).to_string(),
            path: path.clone(),
            ..node.row.clone()
        });
        for &c in node.children.iter().rev() {
            todo.push((c, Some(row_id), depth + 1, path.clone()));
        }
    }
    rows
}

/// The tree as CSV, one row per node, depth-first (times in µs).
pub fn to_csv(m: &Modules) -> String {
    use crate::common::csv::csv_field;
    let mut out = String::from(
        "id,parent,depth,path,module,occurrences,host_total_us,host_self_us,kernels_total,kernel_total_us,kernels_self,kernel_self_us\n",
    );
    let us = |ps: i64| ps as f64 / 1e6;
    for r in &m.rows {
        out += &format!(
            "{},{},{},{},{},{},{},{},{},{},{},{}\n",
            r.id,
            r.parent.map_or(String::new(), |p| p.to_string()),
            r.depth,
            csv_field(&r.path),
            csv_field(&r.module),
            r.occurrences,
            us(r.host_total_ps),
            us(r.host_self_ps),
            r.kernels_total,
            us(r.kernel_total_ps),
            r.kernels_self,
            us(r.kernel_self_ps)
        );
    }
    out
}
