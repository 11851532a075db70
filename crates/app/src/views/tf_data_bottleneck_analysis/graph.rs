//! One call's iterators drawn as inline SVG: the critical path in bold,
//! the bottleneck outlined, each node with its times and calls.

use leptos::prelude::*;
use proflens_analysis::tools::tf_data::RankedCall;

use super::layout::{display_name, layout, NODE_H, NODE_W};
use crate::widgets::chart_frame::{ChartData, ChartFrame, ChartText};
use crate::widgets::fmt;
use crate::widgets::measure::ps_as_us;

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
pub(super) fn PipelineGraph(pipeline: String, call: RankedCall) -> impl IntoView {
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
    let rows = placed
        .nodes
        .iter()
        .filter_map(|p| call.graph.get(p.node))
        .map(|n| {
            vec![
                n.name.clone(),
                ps_as_us(n.duration_ps as f64),
                ps_as_us(n.self_ps as f64),
                fmt::count(n.calls),
                if n.blocking { "yes" } else { "no" }.to_string(),
            ]
        })
        .collect();
    let headers = ["Iterator", "Total", "Self", "Calls", "Critical path"];
    let data = ChartData { headers: headers.map(String::from).to_vec(), rows };
    let label = format!(
        "Iterators of call #{} of pipeline {}: {} nodes; the critical path is bold, the bottleneck outlined in red.",
        call.rank,
        pipeline,
        placed.nodes.len()
    );
    view! {
        {bottleneck}
        <ChartFrame name="iterator-graph" caption="Iterators of the call" text=ChartText::Data(data)>
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
        </ChartFrame>
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_carry_their_sign() {
        assert_eq!(signed_us(1_500_000), "+1.5 µs");
        assert_eq!(signed_us(-4_374_384_000), "-4,374.4 µs");
    }
}
