//! tf.data bottleneck analysis: for each input pipeline, its slowest call is
//! rebuilt as a graph of iterators (nesting on a thread, plus producer →
//! consumer links across threads); the critical path is the chain of
//! iterators the caller waited for, and the bottleneck is the one on it with
//! the most self time (XProf's xplane_to_tf_data_stats.cc, documented steps).

mod tool;

pub use tool::TfDataTool;

use crate::common::schema::{StatPicker, HOST_PLANE};
use proflens_model::Profile;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

/// A call slower than this (ps) counts as slow.
pub const SLOW_CALL_PS: i64 = 50_000_000;

/// How many of a pipeline's slowest calls keep their graph (the rank selector).
pub const RANKED_CALLS: usize = 10;

/// Transformations that run their input ahead, on other threads.
const ASYNC_ITERATORS: [&str; 8] = [
    "Prefetch",
    "ParallelInterleave",
    "ParallelMap",
    "ParseExample",
    "MapAndBatch",
    "DataService",
    "LegacyParallelInterleave",
    "ParallelBatch",
];

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IteratorNode {
    pub id: u64,
    pub parent_id: Option<u64>,
    /// Last component of the long name (`ParallelMapV2`).
    pub name: String,
    /// `Iterator::Root::Prefetch::…`.
    pub long_name: String,
    pub is_async: bool,
    pub start_ps: i64,
    pub duration_ps: i64,
    pub self_ps: i64,
    pub calls: u64,
    /// On the critical path: the caller waited for it.
    pub blocking: bool,
}

/// One call of a pipeline's root iterator, rebuilt as a graph.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RankedCall {
    /// 1 = the slowest call.
    pub rank: usize,
    pub start_ps: i64,
    pub duration_ps: i64,
    /// The iterators of the call, parents before children.
    pub graph: Vec<IteratorNode>,
    /// Id of the bottleneck iterator in `graph`.
    pub bottleneck: Option<u64>,
}

impl RankedCall {
    pub fn bottleneck_node(&self) -> Option<&IteratorNode> {
        self.bottleneck.and_then(|id| self.graph.iter().find(|n| n.id == id))
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pipeline {
    /// The host the pipeline ran on.
    pub host: String,
    /// `Host:<n>` or `Device:<n>` (feeding a device through a generator).
    pub name: String,
    pub root_id: u64,
    pub calls: u64,
    pub slow_calls: u64,
    pub min_ps: i64,
    pub average_ps: f64,
    pub max_ps: i64,
    /// The slowest calls (at most [`RANKED_CALLS`]), slowest first; never empty.
    pub ranked_calls: Vec<RankedCall>,
}

impl Pipeline {
    /// The slowest call's bottleneck: the pipeline's bottleneck.
    pub fn bottleneck(&self) -> Option<&IteratorNode> {
        self.ranked_calls.first().and_then(RankedCall::bottleneck_node)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TfDataAnalysis {
    /// Every host's pipelines, the one with the slowest call first.
    pub pipelines: Vec<Pipeline>,
    /// The host whose slowest host-fed pipeline call is the slowest of all.
    pub most_input_bound_host: Option<String>,
    pub is_input_bound: bool,
    pub summary: String,
    /// Advice for the slowest pipeline's bottleneck.
    pub suggestion: Option<String>,
}

struct Event {
    line: usize,
    start: i64,
    end: i64,
    depth: u16,
    id: Option<u64>,
    parent_id: Option<u64>,
    element_id: Option<u64>,
    name: String,
}

/// The tf.data analysis of one host's profile.
pub fn analyze(profile: &Profile, host: &str) -> TfDataAnalysis {
    summarize(host_pipelines(profile, host))
}

/// Several hosts' analyses as one: the most input-bound host's slowest
/// pipeline decides the verdict, as in XProf's cross-host step.
pub fn combine(hosts: Vec<TfDataAnalysis>) -> TfDataAnalysis {
    summarize(hosts.into_iter().flat_map(|a| a.pipelines).collect())
}

fn host_pipelines(profile: &Profile, host: &str) -> Vec<Pipeline> {
    let events = collect(profile);
    // Children of each iterator: the iterators nested right below it on its
    // thread, and across threads the producers of what its consumers took.
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); events.len()];
    let mut parent_iterator: Vec<Option<usize>> = vec![None; events.len()];
    let mut first_child_iterator: Vec<Option<usize>> = vec![None; events.len()];
    // The open events, each with the nearest iterator at or below it, so
    // that finding it costs nothing however deep the nesting.
    let mut stack: Vec<(usize, Option<usize>)> = Vec::new();
    for i in 0..events.len() {
        let e = &events[i];
        while stack
            .last()
            .is_some_and(|&(p, _)| events[p].line != e.line || events[p].end < e.end || events[p].depth >= e.depth)
        {
            stack.pop();
        }
        let nearest_iterator = stack.last().and_then(|&(_, nearest)| nearest);
        if let Some(&(p, _)) = stack.last() {
            if is_iterator(&e.name) {
                first_child_iterator[p].get_or_insert(i);
                if let Some(a) = nearest_iterator {
                    children[a].push(i);
                }
            }
            parent_iterator[i] = nearest_iterator;
        }
        stack.push((i, if is_iterator(&e.name) { Some(i) } else { nearest_iterator }));
    }
    let mut producers: FxHashMap<(u64, u64), Vec<usize>> = FxHashMap::default();
    for (i, e) in events.iter().enumerate() {
        if let (true, Some(element), Some(child)) = (e.name.ends_with("Produce"), e.element_id, first_child_iterator[i])
        {
            if let Some(parent) = events[child].parent_id {
                producers.entry((parent, element)).or_default().push(child);
            }
        }
    }
    for (i, e) in events.iter().enumerate() {
        if let (true, Some(element), Some(consumer)) = (e.name.ends_with("Consume"), e.element_id, parent_iterator[i]) {
            if let Some(id) = events[consumer].id {
                if let Some(produced) = producers.get(&(id, element)) {
                    children[consumer].extend(produced.iter().copied());
                }
            }
        }
    }

    // Pipelines: the root iterator events (`Iterator::Root`, two parts) by id.
    let device_ids: Vec<u64> =
        events.iter().filter(|e| e.name.ends_with("::Prefetch::Generator")).filter_map(|e| e.parent_id).collect();
    let mut roots: FxHashMap<u64, Vec<usize>> = FxHashMap::default();
    for (i, e) in events.iter().enumerate() {
        if e.name.matches("::").count() == 1 && is_iterator(&e.name) {
            if let Some(id) = e.id {
                roots.entry(id).or_default().push(i);
            }
        }
    }
    let mut ids: Vec<u64> = roots.keys().copied().collect();
    ids.sort_unstable();
    let mut pipelines = Vec::new();
    for (n, id) in ids.into_iter().enumerate() {
        let mut calls = roots.remove(&id).unwrap_or_default();
        calls.sort_by_key(|&i| std::cmp::Reverse(events[i].end - events[i].start));
        let durations: Vec<i64> = calls.iter().map(|&i| events[i].end - events[i].start).collect();
        let ranked_calls = calls
            .iter()
            .take(RANKED_CALLS)
            .enumerate()
            .map(|(rank, &call)| {
                let mut walk = Walk::default();
                walk.visit(&events, &children, call, true, 0);
                let graph = walk.nodes;
                let bottleneck = graph.iter().filter(|n| n.blocking).max_by_key(|n| n.self_ps).map(|n| n.id);
                let e = &events[call];
                RankedCall { rank: rank + 1, start_ps: e.start, duration_ps: e.end - e.start, graph, bottleneck }
            })
            .collect();
        let kind = if device_ids.contains(&id) { "Device" } else { "Host" };
        pipelines.push(Pipeline {
            host: host.to_string(),
            name: format!("{kind}:{n}"),
            root_id: id,
            calls: durations.len() as u64,
            slow_calls: durations.iter().filter(|&&d| d > SLOW_CALL_PS).count() as u64,
            min_ps: durations.iter().copied().min().unwrap_or(0),
            average_ps: durations.iter().sum::<i64>() as f64 / durations.len().max(1) as f64,
            max_ps: durations.iter().copied().max().unwrap_or(0),
            ranked_calls,
        });
    }
    pipelines
}

/// The verdict over a set of pipelines: sorted slowest first, the slowest
/// host-fed pipeline's host is the most input-bound one.
fn summarize(mut pipelines: Vec<Pipeline>) -> TfDataAnalysis {
    pipelines.sort_by(|a, b| b.max_ps.cmp(&a.max_ps).then_with(|| a.host.cmp(&b.host)));
    let slowest = pipelines.iter().find(|p| p.name.starts_with("Host"));
    let max_latency = slowest.map_or(0, |p| p.max_ps);
    let bottleneck_name = slowest.and_then(Pipeline::bottleneck).map(|n| n.name.clone());
    let hosts: std::collections::BTreeSet<&str> = pipelines.iter().map(|p| p.host.as_str()).collect();
    let (is_input_bound, summary) = if max_latency > SLOW_CALL_PS {
        let on_host = if hosts.len() > 1 {
            format!(" (host {})", slowest.map_or("", |p| p.host.as_str()))
        } else {
            String::new()
        };
        (true, format!(
            "Your profile has {} input pipeline(s). The slowest call of the slowest pipeline{on_host} took {:.1} µs, slower than 50 µs: the input pipeline is a likely bottleneck of the program.",
            pipelines.len(),
            max_latency as f64 / 1e6
        ))
    } else if max_latency > 0 {
        (false, "No input pipeline call is slower than 50 µs: the input pipeline is not a bottleneck.".to_string())
    } else {
        (false, "No tf.data activity was captured.".to_string())
    };
    TfDataAnalysis {
        most_input_bound_host: slowest.filter(|_| max_latency > 0).map(|p| p.host.clone()),
        is_input_bound,
        summary,
        suggestion: bottleneck_name.as_deref().map(suggestion),
        pipelines,
    }
}

/// One line per pipeline: latency statistics and its bottleneck.
pub fn pipelines_csv(a: &TfDataAnalysis) -> String {
    use crate::common::csv::csv_field;
    let mut out = String::from(
        "host,pipeline,calls,slow_calls,min_us,average_us,max_us,bottleneck,bottleneck_long_name,bottleneck_self_us\n",
    );
    for p in &a.pipelines {
        let b = p.bottleneck();
        out += &format!(
            "{},{},{},{},{},{},{},{},{},{}\n",
            csv_field(&p.host),
            csv_field(&p.name),
            p.calls,
            p.slow_calls,
            p.min_ps as f64 / 1e6,
            p.average_ps / 1e6,
            p.max_ps as f64 / 1e6,
            csv_field(b.map_or("", |n| n.name.as_str())),
            csv_field(b.map_or("", |n| n.long_name.as_str())),
            b.map_or(0.0, |n| n.self_ps as f64 / 1e6)
        );
    }
    out
}

fn is_iterator(name: &str) -> bool {
    name.starts_with("Iterator::")
}

/// One ranked call's iterator graph. Each event is visited once: producer
/// links can join branches, and a crafted file can make them a lattice that
/// a plain depth-first walk would follow exponentially often.
#[derive(Default)]
struct Walk {
    nodes: Vec<IteratorNode>,
    by_id: FxHashMap<u64, usize>,
    seen: rustc_hash::FxHashSet<usize>,
}

impl Walk {
    /// Adds `at` and (depth first) the iterators it waited for or that fed it.
    fn visit(&mut self, events: &[Event], children: &[Vec<usize>], at: usize, blocking: bool, depth: usize) {
        const MAX_DEPTH: usize = 100;
        if !self.seen.insert(at) {
            return;
        }
        let e = &events[at];
        let duration = e.end - e.start;
        // Self time: the call's time not covered by its iterator children.
        let mut spans: Vec<(i64, i64)> = children[at]
            .iter()
            .map(|&c| (events[c].start.max(e.start), events[c].end.min(e.end)))
            .filter(|s| s.1 > s.0)
            .collect();
        spans.sort_unstable();
        let mut covered = 0;
        let mut reach = i64::MIN;
        for (s, t) in spans {
            let s = s.max(reach);
            if t > s {
                covered += t - s;
            }
            reach = reach.max(t);
        }
        let name = e.name.rsplit("::").next().unwrap_or(&e.name).to_string();
        let id = e.id.unwrap_or(u64::MAX);
        match self.by_id.get(&id) {
            Some(&n) => {
                let n = &mut self.nodes[n];
                n.duration_ps += duration;
                n.self_ps += duration - covered;
                n.calls += 1;
                n.blocking |= blocking;
            }
            None => {
                self.by_id.insert(id, self.nodes.len());
                self.nodes.push(IteratorNode {
                    id,
                    parent_id: e.parent_id,
                    is_async: ASYNC_ITERATORS.iter().any(|a| name.starts_with(a)),
                    name,
                    long_name: e.name.clone(),
                    start_ps: e.start,
                    duration_ps: duration,
                    self_ps: duration - covered,
                    calls: 1,
                    blocking,
                })
            }
        }
        if depth >= MAX_DEPTH {
            return;
        }
        for &c in &children[at] {
            let overlaps = events[c].start < e.end && events[c].end > e.start;
            self.visit(events, children, c, blocking && overlaps, depth + 1);
        }
    }
}

fn suggestion(iterator: &str) -> String {
    const SOURCES: [&str; 11] = [
        "TFRecord",
        "SSTable",
        "RecordIO",
        "Spanner",
        "TFColumn",
        "TextLine",
        "FixedLengthRecord",
        "FromTensor",
        "TensorSlice",
        "Generator",
        "Range",
    ];
    let name = iterator;
    if SOURCES.iter().any(|s| name.starts_with(s)) {
        format!("{name} reads the data too slowly: read files in parallel (interleave with num_parallel_calls), use larger or more files, or cache() the data if it fits.")
    } else if name.starts_with("DataService") {
        "The tf.data service is the bottleneck: add workers or move more preprocessing to them.".to_string()
    } else if name.contains("Map") || name.contains("Interleave") {
        format!("{name} is too slow: raise num_parallel_calls (tf.data.AUTOTUNE), vectorise the function (batch before map), or move expensive work (Python in py_function) out of the pipeline.")
    } else if ["Filter", "Batch", "Unbatch"].iter().any(|s| name.starts_with(s)) {
        format!("{name} runs sequentially: make its input faster or do less work per element; parallel_batch and AUTOTUNE help batching.")
    } else {
        format!("{name} is the slowest step: consider prefetching after it and parallelising the work before it.")
    }
}

fn collect(profile: &Profile) -> Vec<Event> {
    let Some(plane) = profile.planes.iter().find(|p| profile.str(p.name) == HOST_PLANE) else { return Vec::new() };
    let key = |n: &str| profile.strings.lookup(n);
    let picker = StatPicker::new(profile, &[key("id"), key("parent_id"), key("element_id")]);
    let mut values = [None; 3];
    let mut out = Vec::new();
    for (l, line) in plane.lines.iter().enumerate() {
        let ev = &line.events;
        for i in 0..ev.len() {
            let name = profile.str(plane.event_metadata[ev.metadata[i] as usize].name);
            let wanted = is_iterator(name) || name.ends_with("Produce") || name.ends_with("Consume");
            if !wanted {
                continue;
            }
            picker.pick(profile, plane, line, i, &mut values);
            out.push(Event {
                line: l,
                start: ev.start_ps.at(i),
                end: ev.end_ps(i),
                depth: ev.depth[i],
                id: values[0].and_then(|v| v.as_id()),
                parent_id: values[1].and_then(|v| v.as_id()),
                element_id: values[2].and_then(|v| v.as_id()),
                name: name.to_string(),
            });
        }
    }
    out
}
