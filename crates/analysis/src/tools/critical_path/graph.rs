//! HTA's `CPGraph` for one window of one rank: a node at the start and the
//! end of every host call and GPU event, and the edges between them.

use super::trace::{is_host_call, Trace, BLOCKING};
use rustc_hash::FxHashMap;

/// HTA's `CPEdgeType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum EdgeType {
    /// Inside one host call or kernel (`critical_path_operator`).
    Operator,
    /// From one top-level host call's end to the next one's start on a thread.
    Dependency,
    /// From a launch's start to its kernel's start.
    LaunchDelay,
    /// From one kernel's end to the next one's start on a stream.
    KernelKernel,
    /// A kernel's end to the return of the call that waited for it (or to
    /// the start of a kernel held back by `cudaStreamWaitEvent`).
    Sync,
}

impl EdgeType {
    pub fn hta_name(self) -> &'static str {
        match self {
            EdgeType::Operator => "critical_path_operator",
            EdgeType::Dependency => "critical_path_dependency",
            EdgeType::LaunchDelay => "critical_path_kernel_launch_delay",
            EdgeType::KernelKernel => "critical_path_kernel_kernel_delay",
            EdgeType::Sync => "critical_path_sync_dependency",
        }
    }
}

/// A point in time: an event's start or end.
#[derive(Debug, Clone, Copy)]
pub(super) struct Node {
    /// Index into [`Trace::events`].
    pub event: usize,
    pub ts: i64,
    pub is_start: bool,
}

#[derive(Debug, Clone, Copy)]
pub(super) struct Edge {
    pub from: usize,
    pub to: usize,
    pub kind: EdgeType,
    /// HTA's weight: the time between the nodes for operator, launch and
    /// kernel–kernel edges (0 for a blocking call's own time), else 0;
    /// negative weights are 0 (HTA's non-strict check).
    pub weight: i64,
    /// The event HTA attributes the edge to (`edge_to_event_map`), or, where
    /// HTA has none, the event the edge is about.
    pub event: Option<usize>,
    /// The host call was a blocking one whose time HTA zeroes.
    pub blocking: bool,
}

/// The graph; an edge between the same two nodes replaces the earlier one
/// in its place (networkx's `add_edge` on a `DiGraph`).
pub(super) struct Graph {
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
    /// Per node, its outgoing edges in insertion order.
    pub out: Vec<Vec<usize>>,
    /// Per node, its incoming edges in insertion order.
    pub inc: Vec<Vec<usize>>,
    by_pair: FxHashMap<(usize, usize), usize>,
    start_of: FxHashMap<usize, usize>,
    end_of: FxHashMap<usize, usize>,
}

impl Graph {
    fn add(&mut self, from: usize, to: usize, kind: EdgeType, zero: bool, event: Option<usize>) -> usize {
        let weight = match kind {
            EdgeType::Dependency | EdgeType::Sync => 0,
            _ if zero => 0,
            _ => (self.nodes[to].ts - self.nodes[from].ts).max(0),
        };
        let edge = Edge { from, to, kind, weight, event, blocking: zero };
        if let Some(&e) = self.by_pair.get(&(from, to)) {
            self.edges[e] = edge;
            return e;
        }
        let e = self.edges.len();
        self.edges.push(edge);
        self.out[from].push(e);
        self.inc[to].push(e);
        self.by_pair.insert((from, to), e);
        e
    }

    pub fn start(&self, event: usize) -> Option<usize> {
        self.start_of.get(&event).copied()
    }

    pub fn end(&self, event: usize) -> Option<usize> {
        self.end_of.get(&event).copied()
    }
}

/// HTA's clipping for the window `[start, end]` (`critical_path_analysis`)
/// and its graph (`CPGraph._construct_graph`).
pub(super) fn build(trace: &Trace, start: i64, end: i64) -> Graph {
    let ev = &trace.events;
    let in_window = |i: usize| ev[i].ts_us >= start && ev[i].ts_us <= end && ev[i].dur_us > 0;
    // Host-side events starting in the window (and lasting), and GPU work
    // whose launch does; `Stream Wait Event`s wherever they are.
    let clipped: Vec<bool> = (0..ev.len())
        .map(|i| {
            let e = &ev[i];
            if e.stream == -1 {
                in_window(i)
            } else {
                e.name() == "Stream Wait Event" || trace.partner[i].is_some_and(in_window)
            }
        })
        .collect();
    // Nodes: host calls, and GPU events on a stream with a host call.
    let with_nodes: Vec<usize> = (0..ev.len())
        .filter(|&i| {
            clipped[i]
                && (is_host_call(&ev[i]) && ev[i].stream == -1 || ev[i].stream != -1 && trace.partner[i].is_some())
        })
        .collect();
    let mut nodes: Vec<Node> = with_nodes
        .iter()
        .flat_map(|&i| {
            [Node { event: i, ts: ev[i].ts_us, is_start: true }, Node { event: i, ts: ev[i].end_us(), is_start: false }]
        })
        .collect();
    nodes.sort_by_key(|n| n.ts);
    let mut g = Graph {
        out: vec![Vec::new(); nodes.len()],
        inc: vec![Vec::new(); nodes.len()],
        edges: Vec::new(),
        by_pair: FxHashMap::default(),
        start_of: FxHashMap::default(),
        end_of: FxHashMap::default(),
        nodes,
    };
    for (n, node) in g.nodes.iter().enumerate() {
        if node.is_start {
            g.start_of.insert(node.event, n);
        } else {
            g.end_of.insert(node.event, n);
        }
    }
    call_stacks(trace, &clipped, &mut g);
    kernels(trace, &clipped, &mut g);
    g
}

/// `_construct_graph_from_call_stacks`: per host thread, a walk of its call
/// stack (every host-side event of the window, nested by time) linking the
/// host calls' nodes in order.
fn call_stacks(trace: &Trace, clipped: &[bool], g: &mut Graph) {
    let ev = &trace.events;
    let mut threads: FxHashMap<(usize, usize), Vec<usize>> = FxHashMap::default();
    for i in 0..ev.len() {
        if clipped[i] && ev[i].stream == -1 && !ev[i].is_gpu() {
            threads.entry((ev[i].at().0, ev[i].at().1)).or_default().push(i);
        }
    }
    let mut keys: Vec<(usize, usize)> = threads.keys().copied().collect();
    keys.sort_unstable();
    for key in keys {
        let mut list = threads.remove(&key).unwrap_or_default();
        list.sort_by_key(|&i| (ev[i].ts_us, std::cmp::Reverse(ev[i].dur_us), i));
        let mut walk = Walk::default();
        // (event, parent) of the open calls.
        let mut stack: Vec<(usize, Option<usize>)> = Vec::new();
        for i in list {
            while let Some(&(top, parent)) = stack.last() {
                if ev[top].end_us() > ev[i].ts_us {
                    break;
                }
                stack.pop();
                walk.exit(trace, g, top, parent);
            }
            let parent = stack.last().map(|&(top, _)| top);
            walk.enter(g, i, parent);
            stack.push((i, parent));
        }
        while let Some((top, parent)) = stack.pop() {
            walk.exit(trace, g, top, parent);
        }
    }
}

/// The state of HTA's `enter_func` / `exit_func`.
#[derive(Default)]
struct Walk {
    last: Option<usize>,
    last_top_level: Option<usize>,
    depth: usize,
    last_parent: Option<usize>,
}

impl Walk {
    fn enter(&mut self, g: &mut Graph, event: usize, parent: Option<usize>) {
        let (Some(start), Some(_)) = (g.start(event), g.end(event)) else { return };
        if self.depth == 0 {
            if let Some(prev) = self.last_top_level {
                // The time between two top-level calls: what encloses them.
                g.add(prev, start, EdgeType::Dependency, false, parent);
            }
        }
        self.depth += 1;
        if let Some(last) = self.last {
            let owner = attribute(g, last, start, self.last_parent);
            g.add(last, start, EdgeType::Operator, false, owner);
        }
        self.last = Some(start);
        self.last_parent = parent;
    }

    fn exit(&mut self, trace: &Trace, g: &mut Graph, event: usize, parent: Option<usize>) {
        let (Some(_), Some(end)) = (g.start(event), g.end(event)) else { return };
        self.depth -= 1;
        if let Some(last) = self.last {
            let blocking = BLOCKING.contains(&trace.events[event].name());
            let owner = attribute(g, last, end, self.last_parent);
            g.add(last, end, EdgeType::Operator, blocking, owner);
        }
        if self.depth == 0 {
            self.last = None;
            self.last_top_level = Some(end);
        } else {
            self.last = Some(end);
            self.last_parent = parent;
        }
    }
}

/// HTA's `_attribute_edge` for an operator edge: from a start, that event;
/// to an end, that event; from an end to a start, the parent between them.
fn attribute(g: &Graph, from: usize, to: usize, parent: Option<usize>) -> Option<usize> {
    let (a, b) = (g.nodes[from], g.nodes[to]);
    if a.is_start {
        Some(a.event)
    } else if !b.is_start {
        Some(b.event)
    } else {
        parent
    }
}

/// `_construct_graph_from_kernels`: GPU events in start order (sync events
/// at their end), each linked to its launch or to the kernel before it on
/// its stream, and the syncs linked to the host calls that waited.
fn kernels(trace: &Trace, clipped: &[bool], g: &mut Graph) {
    let ev = &trace.events;
    let mut gpu: Vec<usize> = (0..ev.len())
        .filter(|&i| {
            let e = &ev[i];
            clipped[i]
                && (e.stream != -1 || matches!(e.name(), "Event Sync" | "Context Sync"))
                && trace.partner[i].is_some()
        })
        .collect();
    let sort_key = |i: usize| if ev[i].cat() == "cuda_sync" { ev[i].end_us() } else { ev[i].ts_us };
    gpu.sort_by_key(|&i| sort_key(i));
    // Stream → end node of its last kernel, in first-seen order (for Context Sync).
    let mut last: Vec<(i64, usize)> = Vec::new();
    // Kernel → the kernel it waits for (cudaStreamWaitEvent).
    let mut held: FxHashMap<usize, usize> = FxHashMap::default();
    let last_on = |last: &[(i64, usize)], s: i64| last.iter().find(|(t, _)| *t == s).map(|&(_, n)| n);
    for i in gpu {
        let e = &ev[i];
        let Some(runtime) = trace.partner[i] else { continue };
        if e.cat() == "cuda_sync" {
            match e.name() {
                "Stream Wait Event" | "Event Sync" => {
                    let Some(src) = trace.wait[i].1.and_then(|r| trace.recorded_kernel.get(&r).copied()) else {
                        continue;
                    };
                    if e.name() == "Stream Wait Event" {
                        if let Some(&dest) = trace.next_kernel.get(&runtime) {
                            held.insert(dest, src);
                        }
                    } else if let (Some(k_end), Some(r_end)) = (g.end(src), g.end(runtime)) {
                        g.add(k_end, r_end, EdgeType::Sync, false, Some(runtime));
                    }
                }
                "Context Sync" | "Stream Sync" => {
                    let Some(r_end) = g.end(runtime) else { continue };
                    let waited: Vec<usize> = if e.name() == "Context Sync" {
                        last.iter().map(|&(_, n)| n).collect()
                    } else {
                        last_on(&last, e.stream).into_iter().collect()
                    };
                    for k_end in waited {
                        g.add(k_end, r_end, EdgeType::Sync, false, Some(runtime));
                    }
                }
                _ => {}
            }
            continue;
        }
        let (Some(start), Some(end)) = (g.start(i), g.end(i)) else { continue };
        g.add(start, end, EdgeType::Operator, false, Some(i));
        let mut sync_end = None;
        if let Some(src) = held.remove(&i) {
            if let Some(src_end) = g.end(src) {
                g.add(src_end, start, EdgeType::Sync, false, Some(i));
                sync_end = Some(g.nodes[src_end].ts);
            }
        }
        let launch_ts = ev[runtime].ts_us;
        let prev = last_on(&last, e.stream);
        let quiet = trace.queue.get(&runtime) == Some(&1) && trace.queue.get(&i) == Some(&0);
        if quiet && prev.is_none_or(|p| g.nodes[p].ts < launch_ts) && sync_end.is_none_or(|t| t < launch_ts) {
            if let Some(r_start) = g.start(runtime) {
                g.add(r_start, start, EdgeType::LaunchDelay, false, Some(i));
            }
        } else if let Some(p) = prev {
            if sync_end.is_none_or(|t| t < g.nodes[p].ts) {
                let owner = g.nodes[p].event;
                g.add(p, start, EdgeType::KernelKernel, false, Some(owner));
            }
        }
        match last.iter_mut().find(|(s, _)| *s == e.stream) {
            Some(slot) => slot.1 = end,
            None => last.push((e.stream, end)),
        }
    }
}
