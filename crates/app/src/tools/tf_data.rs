//! "tf.data bottleneck analysis": whether the input pipelines are slow, the
//! concrete advice for the slowest one, every pipeline with its latency and
//! bottleneck iterator, and the iterators of a pipeline's slowest call drawn
//! as a graph (inline SVG) with the critical path in bold and the bottleneck
//! outlined in red.

use std::collections::HashMap;
use std::sync::Arc;

use leptos::prelude::*;
use proflens_analysis::tools::tf_data::{self, IteratorNode, Pipeline, RankedCall, TfDataAnalysis};

use crate::download;
use crate::fmt;
use crate::table::{Column, Direction, SortValue, SortableTable};
use crate::tools::measure::{self, ps_as_us};
use crate::tools::{Tool, ToolTitle};

/// Node box size and spacing in the graph (SVG user units = CSS pixels).
const NODE_W: f64 = 210.0;
const NODE_H: f64 = 92.0;
const H_GAP: f64 = 22.0;
const LEVEL_H: f64 = 120.0;
const MARGIN: f64 = 12.0;
/// Nodes drawn at most; a pipeline's slowest call rarely has more.
const MAX_NODES: usize = 400;
/// Longest iterator name in a node box, in characters.
const NAME_CHARS: usize = 30;

#[component]
pub fn TfDataView(run: String, host: String, analysis: TfDataAnalysis) -> impl IntoView {
    let analysis = Arc::new(analysis);
    let verdict_class = if analysis.is_input_bound { "verdict input-bound" } else { "verdict" };
    let suggestion = analysis.suggestion.clone().map(|s| {
        view! {
            <p id="tfdata-suggestion" class="suggestion">
                <strong>"What to try: "</strong>
                {s}
            </p>
        }
    });
    let summary = view! {
        <section id="tfdata-summary" class="panel" aria-labelledby="tfdata-summary-title">
            <h3 id="tfdata-summary-title">"Summary"</h3>
            <p id="tfdata-verdict" class=verdict_class data-input-bound=analysis.is_input_bound.to_string()>
                {analysis.summary.clone()}
            </p>
            {suggestion}
        </section>
    };
    let body = if analysis.pipelines.is_empty() {
        view! {
            <p id="no-pipelines" class="empty">
                "No tf.data iterator events (Iterator::…) were recorded on the host, so there is no pipeline to show."
            </p>
        }
        .into_any()
    } else {
        view! { <Pipelines analysis=analysis.clone()/> }.into_any()
    };
    view! {
        <section
            id="tool-tf_data_bottleneck_analysis"
            class="tool"
            aria-labelledby="tool-tf_data_bottleneck_analysis-title"
        >
            <ToolTitle tool=Tool::TfDataBottleneckAnalysis run=run host=host/>
            {summary}
            {body}
            <NameHelp/>
        </section>
    }
}

/// One row of the pipelines table.
pub struct PipelineRow {
    pub host: String,
    pub name: String,
    pub calls: u64,
    pub slow_calls: u64,
    pub min_ps: f64,
    pub average_ps: f64,
    pub max_ps: f64,
    pub bottleneck: String,
    pub bottleneck_long_name: String,
}

impl PipelineRow {
    fn of(p: &Pipeline) -> PipelineRow {
        let b = p.bottleneck();
        PipelineRow {
            host: p.host.clone(),
            name: p.name.clone(),
            calls: p.calls,
            slow_calls: p.slow_calls,
            min_ps: p.min_ps as f64,
            average_ps: p.average_ps,
            max_ps: p.max_ps as f64,
            bottleneck: b.map(|n| n.name.clone()).unwrap_or_default(),
            bottleneck_long_name: b.map(|n| n.long_name.clone()).unwrap_or_default(),
        }
    }
}

#[component]
fn Pipelines(analysis: Arc<TfDataAnalysis>) -> impl IntoView {
    let rows: Arc<Vec<PipelineRow>> = Arc::new(analysis.pipelines.iter().map(PipelineRow::of).collect());
    let table_rows = Signal::derive(move || rows.clone());
    let stored = StoredValue::new(analysis.clone());
    // The graph's selectors: host → pipeline (index into `pipelines`) → rank
    // (index into its ranked calls). Choosing a host or a pipeline starts
    // again from that choice's slowest call.
    let mut hosts: Vec<String> = Vec::new();
    for p in &analysis.pipelines {
        if !hosts.contains(&p.host) {
            hosts.push(p.host.clone());
        }
    }
    let host = RwSignal::new(hosts.first().cloned().unwrap_or_default());
    let selected = RwSignal::new(0usize);
    let rank = RwSignal::new(0usize);
    let choose_host = move |h: String| {
        let first = stored.with_value(|a| a.pipelines.iter().position(|p| p.host == h)).unwrap_or(0);
        host.set(h);
        selected.set(first);
        rank.set(0);
    };
    let host_picker = (hosts.len() > 1).then(|| {
        let options = hosts
            .iter()
            .map(|h| {
                let value = h.clone();
                let is = h.clone();
                view! { <option value=value prop:selected=move || host.with(|c| *c == is)>{h.clone()}</option> }
            })
            .collect_view();
        view! {
            <label for="tfdata-host">"Host"</label>
            <select id="tfdata-host" on:change=move |ev| choose_host(event_target_value(&ev))>
                {options}
            </select>
        }
    });
    let pipeline_options = move || {
        let h = host.get();
        stored.with_value(|a| {
            a.pipelines
                .iter()
                .enumerate()
                .filter(|(_, p)| p.host == h)
                .map(|(i, p)| {
                    view! {
                        <option value=i.to_string() prop:selected=move || selected.get() == i>
                            {format!("{} — slowest call {}", p.name, ps_as_us(p.max_ps as f64))}
                        </option>
                    }
                })
                .collect_view()
        })
    };
    let rank_options = move || {
        let index = selected.get();
        stored.with_value(|a| {
            a.pipelines.get(index).map(|p| {
                p.ranked_calls
                    .iter()
                    .enumerate()
                    .map(|(i, c)| {
                        view! {
                            <option value=i.to_string() prop:selected=move || rank.get() == i>
                                {format!("#{} — {}", c.rank, ps_as_us(c.duration_ps as f64))}
                            </option>
                        }
                    })
                    .collect_view()
            })
        })
    };
    let problem = RwSignal::new(None::<String>);
    let export = move |_| {
        let csv = stored.with_value(|a| tf_data::pipelines_csv(a));
        problem.set(download::save_text("tf_data_pipelines.csv", "text/csv;charset=utf-8", &csv).err());
    };
    let graph = move || {
        let (index, r) = (selected.get(), rank.get());
        let (pipeline, call) = stored.with_value(|a| {
            let p = a.pipelines.get(index)?;
            Some((format!("{} on {}", p.name, p.host), p.ranked_calls.get(r)?.clone()))
        })?;
        Some(view! { <PipelineGraph pipeline=pipeline call=call/> })
    };
    let count = analysis.pipelines.len();
    view! {
        <section class="panel" aria-labelledby="tfdata-pipelines-title">
            <h3 id="tfdata-pipelines-title">"Input pipelines"</h3>
            <div class="table-scroll">
                <SortableTable
                    id="tfdata-pipelines"
                    caption=format!(
                        "{}, slowest first; a call is slow above 50 µs — select a heading to sort",
                        fmt::plural(count, "pipeline", "pipelines"),
                    )
                    columns=pipeline_columns()
                    rows=table_rows
                    sort=(6, Direction::Descending)
                    cell_title=pipeline_title
                />
            </div>
            <p class="actions">
                <button id="export-tfdata" type="button" class="button small" on:click=export>
                    "Export pipelines (CSV)"
                </button>
            </p>
            {move || problem.get().map(|p| view! { <p class="error">{p}</p> })}
        </section>
        <section class="panel" aria-labelledby="tfdata-graph-title">
            <h3 id="tfdata-graph-title">"Iterators of one call"</h3>
            <div class="toolbar">
                {host_picker}
                <label for="tfdata-pipeline">"Pipeline"</label>
                <select
                    id="tfdata-pipeline"
                    on:change=move |ev| {
                        selected.set(event_target_value(&ev).parse().unwrap_or(0));
                        rank.set(0);
                    }
                >
                    {pipeline_options}
                </select>
                <label for="tfdata-rank" title="The pipeline's calls, slowest first">
                    "Call (slowest first)"
                </label>
                <select id="tfdata-rank" on:change=move |ev| rank.set(event_target_value(&ev).parse().unwrap_or(0))>
                    {rank_options}
                </select>
            </div>
            {graph}
        </section>
    }
}

fn pipeline_title(row: &PipelineRow, column: &'static str) -> Option<String> {
    (column == "bottleneck" && !row.bottleneck_long_name.is_empty()).then(|| row.bottleneck_long_name.clone())
}

fn pipeline_columns() -> Vec<Column<PipelineRow>> {
    vec![
        Column {
            id: "host",
            label: "Host",
            title: "",
            numeric: false,
            value: |r| SortValue::Text(&r.host),
            cell: |r| r.host.clone(),
        },
        Column {
            id: "pipeline",
            label: "Pipeline",
            title: "Host: fed by the host; Device: feeds a device through a generator",
            numeric: false,
            value: |r| SortValue::Text(&r.name),
            cell: |r| r.name.clone(),
        },
        Column {
            id: "calls",
            label: "Calls",
            title: "GetNext calls of the pipeline's root iterator",
            numeric: true,
            value: |r| SortValue::Number(r.calls as f64),
            cell: |r| fmt::count(r.calls),
        },
        Column {
            id: "slow-calls",
            label: "Slow calls (>50 µs)",
            title: "",
            numeric: true,
            value: |r| SortValue::Number(r.slow_calls as f64),
            cell: |r| fmt::count(r.slow_calls),
        },
        Column {
            id: "min",
            label: "Min. latency (µs)",
            title: "",
            numeric: true,
            value: |r| SortValue::Number(r.min_ps / 1e6),
            cell: |r| measure::us(r.min_ps / 1e6),
        },
        Column {
            id: "avg",
            label: "Avg. latency (µs)",
            title: "",
            numeric: true,
            value: |r| SortValue::Number(r.average_ps / 1e6),
            cell: |r| measure::us(r.average_ps / 1e6),
        },
        Column {
            id: "max",
            label: "Max. latency (µs)",
            title: "",
            numeric: true,
            value: |r| SortValue::Number(r.max_ps / 1e6),
            cell: |r| measure::us(r.max_ps / 1e6),
        },
        Column {
            id: "bottleneck",
            label: "Bottleneck iterator",
            title: "The iterator on the critical path of the slowest call with the most self time",
            numeric: false,
            value: |r| SortValue::Text(&r.bottleneck),
            cell: |r| if r.bottleneck.is_empty() { "—".to_string() } else { r.bottleneck.clone() },
        },
    ]
}

/// A node placed in the drawing: index into the graph and its box's top-left corner.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Placed {
    pub node: usize,
    pub x: f64,
    pub y: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct GraphLayout {
    pub nodes: Vec<Placed>,
    /// (parent, child), indices into `nodes`.
    pub edges: Vec<(usize, usize)>,
    pub width: f64,
    pub height: f64,
    /// Nodes left out beyond [`MAX_NODES`].
    pub left_out: usize,
}

/// Lays the iterators out as a tree from their `parent_id`s: the root on
/// top, each level of inputs below, leaves side by side and every parent
/// centred over its inputs. Ids that repeat or loop are drawn once.
pub fn layout(graph: &[IteratorNode]) -> GraphLayout {
    let kept = &graph[..graph.len().min(MAX_NODES)];
    let mut index: HashMap<u64, usize> = HashMap::new();
    for (i, n) in kept.iter().enumerate() {
        index.entry(n.id).or_insert(i);
    }
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); kept.len()];
    let mut has_parent = vec![false; kept.len()];
    for (i, n) in kept.iter().enumerate() {
        if index.get(&n.id) != Some(&i) {
            continue;
        }
        if let Some(&p) = n.parent_id.and_then(|p| index.get(&p)) {
            if p != i {
                children[p].push(i);
                has_parent[i] = true;
            }
        }
    }
    let mut position: Vec<Option<(f64, usize)>> = vec![None; kept.len()];
    let mut next_slot = 0usize;
    let mut edges_by_node: Vec<(usize, usize)> = Vec::new();
    // Depth first from each root; a node already placed (a loop) is not entered again.
    fn place(
        at: usize,
        depth: usize,
        children: &[Vec<usize>],
        position: &mut [Option<(f64, usize)>],
        next_slot: &mut usize,
        edges: &mut Vec<(usize, usize)>,
    ) -> f64 {
        // Reserve the node first so that a loop back to it stops here.
        position[at] = Some((f64::NAN, depth));
        let mut xs = Vec::new();
        for &c in &children[at] {
            if position[c].is_some() {
                continue;
            }
            edges.push((at, c));
            xs.push(place(c, depth + 1, children, position, next_slot, edges));
        }
        let x = match (xs.first(), xs.last()) {
            (Some(a), Some(b)) => (a + b) / 2.0,
            _ => {
                let x = *next_slot as f64;
                *next_slot += 1;
                x
            }
        };
        position[at] = Some((x, depth));
        x
    }
    let roots: Vec<usize> = (0..kept.len()).filter(|&i| !has_parent[i] && index.get(&kept[i].id) == Some(&i)).collect();
    for r in roots {
        if position[r].is_none() {
            place(r, 0, &children, &mut position, &mut next_slot, &mut edges_by_node);
        }
    }
    // What only a loop reaches (no root above it) is placed as a root of its own.
    for i in 0..kept.len() {
        if position[i].is_none() && index.get(&kept[i].id) == Some(&i) {
            place(i, 0, &children, &mut position, &mut next_slot, &mut edges_by_node);
        }
    }
    let mut nodes = Vec::new();
    let mut slot_of_node: HashMap<usize, usize> = HashMap::new();
    let mut deepest = 0;
    for (i, p) in position.iter().enumerate() {
        if let Some((x, depth)) = *p {
            slot_of_node.insert(i, nodes.len());
            deepest = deepest.max(depth);
            nodes.push(Placed { node: i, x: MARGIN + x * (NODE_W + H_GAP), y: MARGIN + depth as f64 * LEVEL_H });
        }
    }
    let edges =
        edges_by_node.into_iter().filter_map(|(a, b)| Some((*slot_of_node.get(&a)?, *slot_of_node.get(&b)?))).collect();
    GraphLayout {
        nodes,
        edges,
        width: 2.0 * MARGIN + next_slot.max(1) as f64 * (NODE_W + H_GAP) - H_GAP,
        height: 2.0 * MARGIN + deepest as f64 * LEVEL_H + NODE_H,
        left_out: graph.len().saturating_sub(MAX_NODES),
    }
}

/// The name shown in a node: the iterator's own name, with the interleave
/// input it belongs to (`Range (input [0])`), cut to fit the box.
pub fn display_name(node: &IteratorNode) -> String {
    let parts: Vec<&str> = node.long_name.split("::").collect();
    let input = parts
        .len()
        .checked_sub(2)
        .and_then(|i| parts.get(i))
        .and_then(|p| p.find('[').map(|at| &p[at..]))
        .filter(|tag| tag.ends_with(']'));
    let name = match input {
        Some(tag) => format!("{} (input {tag})", node.name),
        None => node.name.clone(),
    };
    if name.chars().count() > NAME_CHARS {
        let cut: String = name.chars().take(NAME_CHARS - 1).collect();
        format!("{cut}…")
    } else {
        name
    }
}

/// Microseconds with a sign for offsets: `+1,234.5 µs`, `-20.0 µs`.
fn signed_us(ps: i64) -> String {
    let text = ps_as_us(ps as f64);
    if ps >= 0 {
        format!("+{text}")
    } else {
        text
    }
}

#[component]
fn PipelineGraph(pipeline: String, call: RankedCall) -> impl IntoView {
    let placed = layout(&call.graph);
    let origin = call.start_ps;
    let edges = placed
        .edges
        .iter()
        .filter_map(|&(a, b)| {
            let (pa, pb) = (placed.nodes.get(a)?, placed.nodes.get(b)?);
            let (na, nb) = (call.graph.get(pa.node)?, call.graph.get(pb.node)?);
            let (x1, y1) = (pa.x + NODE_W / 2.0, pa.y + NODE_H);
            let (x2, y2) = (pb.x + NODE_W / 2.0, pb.y);
            let mid = (y1 + y2) / 2.0;
            let d = format!("M{x1:.1},{y1:.1} C{x1:.1},{mid:.1} {x2:.1},{mid:.1} {x2:.1},{y2:.1}");
            let class = if na.blocking && nb.blocking { "edge blocking" } else { "edge" };
            Some(view! { <path class=class d=d></path> })
        })
        .collect_view();
    let nodes = placed
        .nodes
        .iter()
        .filter_map(|p| {
            let n = call.graph.get(p.node)?;
            let mut class = String::from("node");
            if n.blocking {
                class.push_str(" blocking");
            }
            if n.is_async {
                class.push_str(" async");
            }
            if Some(n.id) == call.bottleneck {
                class.push_str(" bottleneck");
            }
            let lines = [
                format!("start {}", signed_us(n.start_ps.saturating_sub(origin))),
                format!("total {}", ps_as_us(n.duration_ps as f64)),
                format!("self {}", ps_as_us(n.self_ps as f64)),
                format!("calls {}", fmt::count(n.calls)),
            ];
            let (x, y) = (p.x, p.y);
            let texts = lines
                .into_iter()
                .enumerate()
                .map(|(i, line)| {
                    view! {
                        <text class="detail" x=format!("{:.1}", x + 10.0) y=format!("{:.1}", y + 40.0 + 15.0 * i as f64)>
                            {line}
                        </text>
                    }
                })
                .collect_view();
            let hover = format!(
                "{}\n{}{}",
                n.long_name,
                if n.blocking { "On the critical path (the caller waited for it)" } else { "Not blocking the caller" },
                if n.is_async { "; runs ahead on other threads" } else { "" }
            );
            Some(view! {
                <g class=class data-id=n.id.to_string() data-name=n.name.clone()>
                    <title>{hover}</title>
                    <rect x=format!("{x:.1}") y=format!("{y:.1}") width=NODE_W.to_string() height=NODE_H.to_string() rx="6"></rect>
                    <text class="name" x=format!("{:.1}", x + 10.0) y=format!("{:.1}", y + 20.0)>
                        {display_name(n)}
                    </text>
                    {texts}
                </g>
            })
        })
        .collect_view();
    let bottleneck = call.bottleneck_node().map(|b| {
        view! {
            <p id="tfdata-bottleneck" class="note">
                "Bottleneck: "
                <strong class="bottleneck-name">{b.name.clone()}</strong>
                {format!(
                    " — {} of self time over {}; call #{} of the pipeline took {}.",
                    ps_as_us(b.self_ps as f64),
                    fmt::plural(b.calls as usize, "call", "calls"),
                    call.rank,
                    ps_as_us(call.duration_ps as f64),
                )}
                " "
                <code class="long-name">{b.long_name.clone()}</code>
            </p>
        }
    });
    let left_out = (placed.left_out > 0).then(|| {
        view! {
            <p class="note">
                {format!("{} more iterators are not drawn.", fmt::count(placed.left_out as u64))}
            </p>
        }
    });
    let (width, height) = (placed.width, placed.height);
    let label = format!(
        "Iterators of call #{} of pipeline {}: {} nodes; the critical path is bold, the bottleneck outlined in red.",
        call.rank,
        pipeline,
        placed.nodes.len()
    );
    view! {
        {bottleneck}
        <div class="tfdata-graph-wrap">
            <svg
                id="tfdata-graph"
                class="tfdata-graph"
                role="img"
                aria-label=label
                width=format!("{width:.0}")
                height=format!("{height:.0}")
                viewBox=format!("0 0 {width:.0} {height:.0}")
            >
                <g class="edges">{edges}</g>
                <g class="nodes">{nodes}</g>
            </svg>
        </div>
        {left_out}
        <ul class="legend tfdata-legend" aria-label="How to read the graph">
            <li>
                <span class="swatch key-blocking"></span>
                "Critical path: the caller waited for it"
            </li>
            <li>
                <span class="swatch key-bottleneck"></span>
                "Bottleneck: most self time on the critical path"
            </li>
            <li>
                <span class="swatch key-other"></span>
                "Not blocking (ran ahead, in parallel)"
            </li>
        </ul>
    }
}

/// How to read iterator names.
#[component]
fn NameHelp() -> impl IntoView {
    view! {
        <details id="tfdata-names" class="panel name-help">
            <summary>"How to read iterator names"</summary>
            <p>
                "An iterator's long name, such as "
                <code>"Iterator::Root::Prefetch::MapAndBatch::ParallelMapV2"</code>
                ", is the chain of transformations from the one your program calls (the root) to this one. "
                "Read it right to left to follow the data: ParallelMapV2 feeds MapAndBatch, which feeds Prefetch, "
                "which feeds the root that the training loop takes elements from. The graph draws the same chain "
                "top to bottom, with the inputs of each iterator below it."
            </p>
            <p>
                "A number in brackets marks one input of an interleave: in "
                <code>"ParallelInterleaveV4[3]::Range"</code>
                " the Range iterator is the fourth input dataset (counting from 0) that the interleave reads from."
            </p>
            <p>
                "Start is when an iterator's first call began, from the start of the pipeline's slowest call "
                "(negative: it began earlier, running ahead); total is the time of its calls, self the part not "
                "spent waiting for its inputs. Iterators such as Prefetch, ParallelMap, ParallelInterleave and "
                "MapAndBatch run their inputs ahead on other threads, so their inputs block the caller only when "
                "the work is not ready in time."
            </p>
        </details>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(id: u64, parent: Option<u64>, long_name: &str) -> IteratorNode {
        IteratorNode {
            id,
            parent_id: parent,
            name: long_name.rsplit("::").next().unwrap_or(long_name).to_string(),
            long_name: long_name.to_string(),
            is_async: false,
            start_ps: 0,
            duration_ps: 1,
            self_ps: 1,
            calls: 1,
            blocking: true,
        }
    }

    #[test]
    fn a_tree_is_laid_out_level_by_level_with_parents_centred() {
        let graph = vec![
            node(1, None, "Iterator::Root"),
            node(2, Some(1), "Iterator::Root::Interleave"),
            node(3, Some(2), "Iterator::Root::Interleave[0]::Range"),
            node(4, Some(2), "Iterator::Root::Interleave[1]::Range"),
        ];
        let l = layout(&graph);
        assert_eq!(l.nodes.len(), 4);
        assert_eq!(l.edges.len(), 3);
        let at =
            |n: usize| l.nodes.iter().find(|p| p.node == n).copied().unwrap_or(Placed { node: 99, x: -1.0, y: -1.0 });
        assert_eq!(at(0).y, MARGIN);
        assert_eq!(at(2).y, MARGIN + 2.0 * LEVEL_H);
        assert_eq!(at(3).x - at(2).x, NODE_W + H_GAP);
        assert_eq!(at(1).x, (at(2).x + at(3).x) / 2.0);
        assert_eq!(at(0).x, at(1).x);
        assert_eq!(l.width, 2.0 * MARGIN + 2.0 * (NODE_W + H_GAP) - H_GAP);
        assert_eq!(display_name(&graph[2]), "Range (input [0])");
        assert_eq!(display_name(&graph[1]), "Interleave");
    }

    #[test]
    fn loops_repeats_and_orphans_do_not_break_the_layout() {
        let graph = vec![
            node(1, Some(2), "Iterator::A"),
            node(2, Some(1), "Iterator::A::B"),
            node(2, Some(1), "Iterator::A::B"),
            node(3, Some(99), "Iterator::C"),
        ];
        let l = layout(&graph);
        // Ids 1 and 2 (a loop) and 3 (parent unknown) are drawn once each.
        assert_eq!(l.nodes.len(), 3);
        assert_eq!(l.edges.len(), 1);
        assert!(l.nodes.iter().all(|p| p.x.is_finite() && p.y.is_finite()));
        assert_eq!(layout(&[]).nodes.len(), 0);
    }

    #[test]
    fn offsets_carry_their_sign() {
        assert_eq!(signed_us(1_500_000), "+1.5 µs");
        assert_eq!(signed_us(-4_374_384_000), "-4,374.4 µs");
    }
}
