//! "Graph viewer": one XLA module's HLO graph around a chosen instruction,
//! drawn as SVG from the layout the analysis computed (nodes coloured by
//! XProf's op groups, fusions as dashed clusters; click a node to centre
//! the graph on it), and XProf's long_txt of the module in a Text tab with
//! a download. Every name from the profile is an SVG or HTML text node.

use std::sync::Arc;

use leptos::prelude::*;
use proflens_analysis::tools::graph_viewer::svg::{detail, fill};
use proflens_analysis::tools::graph_viewer::{Graph, GraphViewer, MAX_WIDTH};

use super::ViewProps;
use crate::protocol::GraphRequest;
use crate::widgets::chart_frame::{ChartData, ChartFrame, ChartText};
use crate::widgets::download;
use crate::widgets::title::ToolTitle;

type Choose = Arc<dyn Fn(Option<String>, GraphRequest) + Send + Sync>;

pub fn view(props: ViewProps) -> AnyView {
    super::with_model(props, |p, page: GraphViewer| {
        let choose = p.actions.choose_graph.clone();
        view! { <GraphViewerView run=p.run host=p.host page=page choose=choose/> }.into_any()
    })
}

#[derive(Clone, Copy, PartialEq)]
enum Tab {
    Graph,
    Text,
}

#[component]
fn GraphViewerView(run: String, host: String, page: GraphViewer, choose: Choose) -> impl IntoView {
    let GraphViewer { modules, module, node, graph_width, merge_fusion, names, graph, text, failed } = page;
    let tab = RwSignal::new(Tab::Graph);
    let typed = RwSignal::new(node.clone());
    let request = move |node: Option<String>, width: u32, merge: bool| GraphRequest {
        node,
        graph_width: Some(width),
        merge_fusion: merge,
    };
    let module_picker = (modules.len() > 1).then(|| {
        let choose = choose.clone();
        let options = modules
            .iter()
            .map(|m| view! { <option value=m.clone() selected=*m == module>{m.clone()}</option> })
            .collect_view();
        view! {
            <label for="graph-viewer-module">"XLA module"</label>
            <select
                id="graph-viewer-module"
                on:change=move |ev| choose(Some(event_target_value(&ev)), request(None, graph_width, merge_fusion))
            >
                {options}
            </select>
        }
    });
    if module.is_empty() {
        return view! {
            <section id="tool-graph_viewer" class="tool" aria-labelledby="tool-graph_viewer-title">
                <ToolTitle tool="graph_viewer" run=run host=host/>
                <p id="no-graph-viewer" class="empty">
                    {failed.unwrap_or_else(|| "There is no XLA module to show.".to_string())}
                </p>
            </section>
        }
        .into_any();
    }
    let show = {
        let choose = choose.clone();
        move || choose(None, request(Some(typed.get_untracked()), graph_width, merge_fusion))
    };
    let show_click = show.clone();
    let width_options = (1..=MAX_WIDTH)
        .map(|w| view! { <option value=w.to_string() selected=w == graph_width>{w.to_string()}</option> })
        .collect_view();
    let on_width = {
        let choose = choose.clone();
        let node = node.clone();
        move |ev| {
            let w = event_target_value(&ev).parse().unwrap_or(graph_width);
            choose(None, request(Some(node.clone()), w, merge_fusion));
        }
    };
    let on_expand = {
        let choose = choose.clone();
        let node = node.clone();
        move |ev| choose(None, request(Some(node.clone()), graph_width, !event_target_checked(&ev)))
    };
    let name_options = names.iter().map(|n| view! { <option value=n.clone()></option> }).collect_view();
    let body = {
        let choose = choose.clone();
        let text = text.clone();
        let module = module.clone();
        move || match tab.get() {
            Tab::Graph => match &graph {
                Some(g) => {
                    let choose = choose.clone();
                    let pick =
                        Arc::new(move |name: String| choose(None, request(Some(name), graph_width, merge_fusion)));
                    drawing(g, &node, graph_width, pick).into_any()
                }
                None => view! {
                    <p id="no-graph" class="empty">{failed.clone().unwrap_or_default()}</p>
                }
                .into_any(),
            },
            Tab::Text => text_tab(&module, &text).into_any(),
        }
    };
    view! {
        <section id="tool-graph_viewer" class="tool" aria-labelledby="tool-graph_viewer-title">
            <ToolTitle tool="graph_viewer" run=run host=host/>
            <div class="toolbar graph-viewer-toolbar">
                {module_picker}
                <label for="graph-viewer-node">"Op"</label>
                <input
                    id="graph-viewer-node"
                    type="search"
                    list="graph-viewer-names"
                    placeholder="HLO instruction name"
                    prop:value=move || typed.get()
                    on:input=move |ev| typed.set(event_target_value(&ev))
                    on:keydown=move |ev| {
                        if ev.key() == "Enter" {
                            show();
                        }
                    }
                />
                <datalist id="graph-viewer-names">{name_options}</datalist>
                <button id="graph-viewer-show" type="button" on:click=move |_| show_click()>
                    "Show"
                </button>
                <label for="graph-viewer-width">"Hops"</label>
                <select id="graph-viewer-width" on:change=on_width>{width_options}</select>
                <label>
                    <input id="graph-viewer-expand" type="checkbox" checked=!merge_fusion on:change=on_expand/>
                    " Expand fusions"
                </label>
            </div>
            <div class="tabs" role="tablist">
                <button
                    id="graph-viewer-tab-graph"
                    role="tab"
                    type="button"
                    aria-selected=move || (tab.get() == Tab::Graph).to_string()
                    on:click=move |_| tab.set(Tab::Graph)
                >
                    "Graph"
                </button>
                <button
                    id="graph-viewer-tab-text"
                    role="tab"
                    type="button"
                    aria-selected=move || (tab.get() == Tab::Text).to_string()
                    on:click=move |_| tab.set(Tab::Text)
                >
                    "Text"
                </button>
            </div>
            {body}
        </section>
    }
    .into_any()
}

fn text_tab(module: &str, text: &str) -> impl IntoView {
    let problem = RwSignal::new(None::<String>);
    let file = format!("graph_viewer.{module}.long_txt.txt");
    let body = text.to_string();
    let save = move |_| problem.set(download::save_text(&file, "text/plain;charset=utf-8", &body).err());
    view! {
        <div class="toolbar">
            <button id="graph-viewer-download" type="button" on:click=save>
                "Download text"
            </button>
            {move || problem.get().map(|p| view! { <span class="error" role="alert">{p}</span> })}
        </div>
        <pre id="graph-viewer-text" class="hlo-text">{text.to_string()}</pre>
    }
}

fn drawing(g: &Graph, center: &str, hops: u32, pick: Arc<dyn Fn(String) + Send + Sync>) -> impl IntoView {
    let clusters = g
        .clusters
        .iter()
        .map(|c| {
            view! {
                <g class="cluster" data-name=c.name.clone()>
                    <title>{format!("{} (fused computation {})", c.name, c.computation)}</title>
                    <rect x=format!("{:.1}", c.x) y=format!("{:.1}", c.y) width=format!("{:.1}", c.width) height=format!("{:.1}", c.height) rx="6"></rect>
                    <text x=format!("{:.1}", c.x + 6.0) y=format!("{:.1}", c.y + 13.0)>{c.name.clone()}</text>
                </g>
            }
        })
        .collect_view();
    let edges = g
        .edges
        .iter()
        .map(|e| {
            let points: Vec<String> = e.points.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect();
            view! { <polyline class="edge" points=points.join(" ") marker-end="url(#graph-viewer-arrow)"></polyline> }
        })
        .collect_view();
    let nodes = g
        .nodes
        .iter()
        .map(|n| {
            let pick = pick.clone();
            let name = n.name.clone();
            let more = match (n.more_operands, n.more_users) {
                (0, 0) => String::new(),
                (o, u) => format!("\n{o} more operands, {u} more users not drawn"),
            };
            let class = if n.center { "node center" } else { "node" };
            view! {
                <g class=class data-name=n.name.clone() on:click=move |_| pick(name.clone())>
                    <title>{format!("{} = {} {}{more}", n.name, n.shape, n.opcode)}</title>
                    <rect x=format!("{:.1}", n.x) y=format!("{:.1}", n.y) width=format!("{:.1}", n.width) height=format!("{:.1}", n.height) rx="4" fill=fill(&n.category)></rect>
                    <text class="name" x=format!("{:.1}", n.x + n.width / 2.0) y=format!("{:.1}", n.y + 15.0)>{n.name.clone()}</text>
                    <text class="detail" x=format!("{:.1}", n.x + n.width / 2.0) y=format!("{:.1}", n.y + 30.0)>{detail(&n.opcode, &n.shape)}</text>
                </g>
            }
        })
        .collect_view();
    let (width, height) = (g.width, g.height);
    let rows =
        g.nodes.iter().map(|n| vec![n.name.clone(), n.opcode.clone(), n.shape.clone(), n.category.clone()]).collect();
    let headers = ["Instruction", "Opcode", "Shape", "Category"];
    let data = ChartData { headers: headers.map(String::from).to_vec(), rows };
    let label = format!(
        "HLO graph around {center}, {hops} hops: {} instructions, {} edges; click an instruction to centre on it.",
        g.nodes.len(),
        g.edges.len()
    );
    view! {
        <p class="note">{label.clone()}</p>
        <ChartFrame name="hlo-graph" caption="HLO graph" text=ChartText::Data(data)>
        // Focusable so that a keyboard can scroll a graph wider than the page.
        <div class="graph-viewer-wrap" tabindex="0" role="region" aria-label="Graph (scrolls)">
            <svg
                id="graph-viewer-graph"
                class="graph-viewer-graph"
                role="img"
                aria-label=label
                width=format!("{width:.0}")
                height=format!("{height:.0}")
                viewBox=format!("0 0 {width:.0} {height:.0}")
            >
                <defs>
                    <marker id="graph-viewer-arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" orient="auto">
                        <path d="M0,0L10,5L0,10z"></path>
                    </marker>
                </defs>
                <g class="clusters">{clusters}</g>
                <g class="edges">{edges}</g>
                <g class="nodes">{nodes}</g>
            </svg>
        </div>
        </ChartFrame>
    }
}
