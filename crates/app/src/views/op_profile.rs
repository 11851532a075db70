//! "Op profile": the device's XLA ops as an expandable tree, by program or by
//! category, each node with its share of the time (and a bar for it), FLOPS
//! utilisation coloured from red (low) to green (high), HBM bandwidth
//! utilisation and the framework op it came from. A slider limits how many
//! children each node shows, a toggle keeps only the ops that make up 90% of
//! their parent's time, and hovering a row shows the op's card (name,
//! category, utilisations, HLO expression; layout and padding of
//! convolutions).

use std::collections::HashSet;
use std::sync::Arc;

use leptos::prelude::*;
use proflens_analysis::tools::op_profile::{Node, OpProfile};
use wasm_bindgen::JsCast;

use super::ViewProps;
use crate::widgets::fmt;
use crate::widgets::title::ToolTitle;

/// Children shown per node when the tool opens (the slider's start).
const DEFAULT_SHOWN: usize = 10;
/// The slider's range.
const MAX_SHOWN: usize = 100;
/// What the tree's root row says (its node is named after the grouping).
const ROOT_LABEL: &str = "All XLA ops";
/// Share of a node's time the "top 90%" toggle keeps.
const TOP_SHARE: f64 = 0.9;

/// The view of an `op_profile` model (the op profile itself).
pub fn view(props: ViewProps) -> AnyView {
    super::with_model(props, |p, profile: OpProfile| {
        view! { <OpProfileView run=p.run host=p.host profile=profile/> }.into_any()
    })
}

#[component]
fn OpProfileView(run: String, host: String, profile: OpProfile) -> impl IntoView {
    let profile = Arc::new(profile);
    if profile.by_program.children.is_empty() && profile.by_category.children.is_empty() {
        return view! {
            <section id="tool-op_profile" class="tool" aria-labelledby="tool-op_profile-title">
                <ToolTitle tool="op_profile" run=run host=host/>
                <p id="no-xla-ops" class="empty">
                    "No XLA ops ran on a device in this profile, so there is no op profile. "
                    "The op profile needs a device (GPU or TPU) running XLA programs (JAX, or TensorFlow with jit_compile)."
                </p>
            </section>
        }
        .into_any();
    }
    let by_program = RwSignal::new(true);
    let include_idle = RwSignal::new(true);
    let shown = RwSignal::new(DEFAULT_SHOWN);
    let top_only = RwSignal::new(false);
    // Expanded nodes by path (names from the root, joined by '\u{1f}').
    let expanded = RwSignal::new(HashSet::from([String::new()]));
    // The hovered op and its FLOPS utilisation.
    let hovered = RwSignal::new(None::<(Node, f64)>);
    let stored = StoredValue::new(profile.clone());

    let tree = move || {
        let grouping = (by_program.get(), include_idle.get());
        let options = TreeOptions { shown: shown.get(), top_only: top_only.get() };
        let open = expanded.get();
        // Only the visible rows are copied out of the tree.
        let (rows, total) = stored.with_value(|p| {
            let root = match grouping {
                (true, true) => &p.by_program,
                (true, false) => &p.by_program_exclude_idle,
                (false, true) => &p.by_category,
                (false, false) => &p.by_category_exclude_idle,
            };
            let mut rows = Vec::new();
            flatten(root, String::new(), 0, &options, &open, &mut rows);
            (rows, root.metrics.raw_time.max(1.0))
        });
        rows.into_iter().map(|row| row_view(row, total, expanded, hovered)).collect_view()
    };
    let device = profile.device_type.clone();
    view! {
        <section id="tool-op_profile" class="tool" aria-labelledby="tool-op_profile-title">
            <ToolTitle tool="op_profile" run=run host=host/>
            <p class="note">
                {format!(
                    "XLA ops on the {device} device. FLOPS utilisation is the op's FLOP rate against the device's peak; \
                     bandwidth is HBM traffic against the peak HBM bandwidth. Select a row to expand it; hover it for details."
                )}
            </p>
            <div class="toolbar op-profile-controls">
                <label for="op-profile-group">"Group by"</label>
                <select id="op-profile-group" on:change=move |ev| by_program.set(event_target_value(&ev) == "program")>
                    <option value="program" selected>"Program"</option>
                    <option value="category">"Category"</option>
                </select>
                <label class="check">
                    <input
                        id="op-profile-idle"
                        type="checkbox"
                        prop:checked=move || include_idle.get()
                        on:change=move |ev| include_idle.set(event_target_checked(&ev))
                    />
                    "Include idle time"
                </label>
                <label for="op-profile-shown">{move || format!("Ops shown per node: {}", shown.get())}</label>
                <input
                    id="op-profile-shown"
                    type="range"
                    min="1"
                    max=MAX_SHOWN.to_string()
                    prop:value=move || shown.get().to_string()
                    on:input=move |ev| shown.set(event_target_value(&ev).parse().unwrap_or(DEFAULT_SHOWN))
                />
                <label class="check">
                    <input
                        id="op-profile-top90"
                        type="checkbox"
                        prop:checked=move || top_only.get()
                        on:change=move |ev| top_only.set(event_target_checked(&ev))
                    />
                    "Only the ops that make up 90% of the time"
                </label>
            </div>
            <div class="op-profile">
                <div id="op-profile-tree" class="op-tree" role="tree" aria-label="XLA ops by share of device time">
                    <div class="op-row op-head" aria-hidden="true">
                        <span class="op-name">"Name"</span>
                        <span class="op-time">"Time"</span>
                        <span class="op-flops">"FLOPS util."</span>
                        <span class="op-bw">"HBM bw util."</span>
                        <span class="op-provenance">"Framework op"</span>
                    </div>
                    {tree}
                </div>
                <aside id="op-detail" class="op-detail panel" aria-live="polite">
                    {move || match hovered.get() {
                        Some((node, flops)) => detail_card(&node, flops).into_any(),
                        None => view! { <p class="note">"Hover or focus an op to see its details."</p> }.into_any(),
                    }}
                </aside>
            </div>
        </section>
    }
    .into_any()
}

struct TreeOptions {
    shown: usize,
    top_only: bool,
}

/// A visible row of the tree: the node, where it sits and whether it opens.
struct TreeRow {
    node: Node,
    path: String,
    depth: usize,
    has_children: bool,
    open: bool,
    /// Children not shown under the limits (on the last row of a parent).
    hidden_after: usize,
}

/// The children of `node` that the slider and the toggle let through.
pub fn visible_children(node: &Node, shown: usize, top_only: bool) -> &[Node] {
    let mut count = node.children.len().min(shown.max(1));
    if top_only {
        let total = node.metrics.raw_time.max(f64::MIN_POSITIVE);
        let mut sum = 0.0;
        let mut kept = 0;
        for child in &node.children[..count] {
            kept += 1;
            sum += child.metrics.raw_time;
            if sum >= TOP_SHARE * total {
                break;
            }
        }
        count = kept;
    }
    &node.children[..count]
}

fn flatten(
    node: &Node,
    path: String,
    depth: usize,
    options: &TreeOptions,
    open: &HashSet<String>,
    out: &mut Vec<TreeRow>,
) {
    let is_open = open.contains(&path);
    let children = visible_children(node, options.shown, options.top_only);
    out.push(TreeRow {
        // The node without its subtree.
        node: Node {
            name: node.name.clone(),
            metrics: node.metrics,
            children: Vec::new(),
            num_children: node.num_children,
            xla: node.xla.clone(),
        },
        path: path.clone(),
        depth,
        has_children: !node.children.is_empty(),
        open: is_open,
        hidden_after: 0,
    });
    if !is_open {
        return;
    }
    for child in children {
        flatten(child, format!("{path}\u{1f}{}", child.name), depth + 1, options, open, out);
    }
    let hidden = node.num_children.max(node.children.len()) - children.len();
    if hidden > 0 {
        out.push(TreeRow {
            node: Node { name: String::new(), ..Node::default() },
            path: format!("{path}\u{1f}…"),
            depth: depth + 1,
            has_children: false,
            open: false,
            hidden_after: hidden,
        });
    }
}

/// FLOPS utilisation of a node (0..1): XProf stores it times the node's share of the time.
pub fn flops_utilization(node: &Node, total_ps: f64) -> f64 {
    let share = node.metrics.raw_time / total_ps.max(1.0);
    if share <= 0.0 {
        0.0
    } else {
        (node.metrics.flops / share).clamp(0.0, 1.0)
    }
}

/// Red (0) through amber to green (1), as XProf colours utilisation.
pub fn utilization_colour(u: f64) -> String {
    format!("hsl({:.0}, 70%, 38%)", 120.0 * u.clamp(0.0, 1.0))
}

fn percent(v: f64) -> String {
    format!("{}%", fmt::decimal(100.0 * v, 1))
}

fn row_view(
    row: TreeRow,
    total: f64,
    expanded: RwSignal<HashSet<String>>,
    hovered: RwSignal<Option<(Node, f64)>>,
) -> AnyView {
    let indent = format!("{}rem", 1.2 * row.depth as f64);
    if row.hidden_after > 0 {
        return view! {
            <div class="op-row op-more" role="none">
                <span class="op-name" style:padding-left=indent>
                    {format!("… {} more (raise “Ops shown per node”)", fmt::count(row.hidden_after as u64))}
                </span>
            </div>
        }
        .into_any();
    }
    let node = row.node;
    let share = node.metrics.raw_time / total;
    let flops = flops_utilization(&node, total);
    let bandwidth = node.metrics.bandwidth_utils[0].clamp(0.0, 1.0);
    let provenance = node.xla.as_ref().map(|x| x.provenance.clone()).unwrap_or_default();
    let path = StoredValue::new(row.path.clone());
    let toggle = move || {
        expanded.update(|set| {
            path.with_value(|path| {
                if !set.remove(path) {
                    set.insert(path.clone());
                }
            })
        })
    };
    // The keyboard does what the mouse does: Enter or Space toggles, → opens
    // and ← closes (as in a tree), and focus shows the op's card as hover does.
    let (has_children, open) = (row.has_children, row.open);
    let on_key = move |ev: web_sys::KeyboardEvent| {
        let key = ev.key();
        let wanted = match key.as_str() {
            "Enter" | " " => true,
            "ArrowRight" => has_children && !open,
            "ArrowLeft" => has_children && open,
            _ => false,
        };
        if wanted {
            ev.prevent_default();
            toggle();
            // The rows are drawn anew: the focus goes back to this one.
            path.with_value(|path| refocus(path.clone()));
        }
    };
    let focused_card = node.clone();
    let marker = if !row.has_children {
        "\u{2022}"
    } else if row.open {
        "\u{25be}"
    } else {
        "\u{25b8}"
    };
    let name = if row.depth == 0 { ROOT_LABEL.to_string() } else { node.name.clone() };
    let card = node.clone();
    let title = name.clone();
    view! {
        <div
            class="op-row"
            role="treeitem"
            attr:aria-level=(row.depth + 1).to_string()
            aria-expanded=row.has_children.then(|| row.open.to_string())
            data-name=node.name.clone()
            data-path=path.get_value()
            tabindex="0"
            on:click=move |_| toggle()
            on:keydown=on_key
            on:focus=move |_| hovered.set(Some((focused_card.clone(), flops)))
            on:mouseenter=move |_| hovered.set(Some((card.clone(), flops)))
        >
            <span class="op-name" style:padding-left=indent title=title>
                <span class="op-toggle" aria-hidden="true">{marker}</span>
                {name}
            </span>
            <span class="op-time">
                <span class="op-bar" style:width=format!("{:.1}%", 100.0 * share.clamp(0.0, 1.0))></span>
                <span class="op-value">{percent(share)}</span>
            </span>
            <span class="op-flops" style:color=utilization_colour(flops)>{percent(flops)}</span>
            <span class="op-bw">{percent(bandwidth)}</span>
            <span class="op-provenance" title=provenance.clone()>{provenance.clone()}</span>
        </div>
    }
    .into_any()
}

/// A convolution's layout (`dim_labels`) and padding (`pad=` of its window), from its HLO expression.
pub fn convolution_details(expression: &str) -> Option<(String, String)> {
    // XLA's own convolutions and the cuDNN/MIOpen custom calls that replace them.
    if !(expression.contains("convolution(") || expression.contains("$conv")) {
        return None;
    }
    let field = |key: &str| {
        let start = expression.find(key)? + key.len();
        let rest = &expression[start..];
        let end = rest.find([',', ' ', '}']).unwrap_or(rest.len());
        Some(rest[..end].to_string())
    };
    let layout = field("dim_labels=").unwrap_or_default();
    let padding = field("pad=").unwrap_or_else(|| "none".to_string());
    Some((layout, padding))
}

fn detail_card(node: &Node, flops: f64) -> impl IntoView {
    let xla = node.xla.clone().unwrap_or_default();
    let conv = convolution_details(&xla.expression).map(|(layout, padding)| {
        view! {
            <dt>"Layout"</dt>
            <dd class="op-layout">{layout}</dd>
            <dt>"Padding"</dt>
            <dd class="op-padding">{padding}</dd>
        }
    });
    let expression = (!xla.expression.is_empty()).then(|| {
        view! {
            <dt>"Expression"</dt>
            <dd>
                <code class="op-expression">{xla.expression.clone()}</code>
            </dd>
        }
    });
    let category = if xla.category.is_empty() { "—".to_string() } else { xla.category.clone() };
    view! {
        <h3 class="op-detail-name">{if node.xla.is_none() && node.name.starts_with("by_") { ROOT_LABEL.to_string() } else { node.name.clone() }}</h3>
        <dl class="op-detail-list">
            <dt>"Category"</dt>
            <dd class="op-category">{category}</dd>
            <dt>"Time"</dt>
            <dd>{format!("{} µs over {}", fmt::decimal(node.metrics.raw_time / 1e6, 2), fmt::plural(node.metrics.occurrences as usize, "run", "runs"))}</dd>
            <dt>"FLOPS utilisation"</dt>
            <dd class="op-detail-flops" style:color=utilization_colour(flops)>{percent(flops)}</dd>
            <dt>"HBM bandwidth utilisation"</dt>
            <dd class="op-detail-bw">{percent(node.metrics.bandwidth_utils[0].clamp(0.0, 1.0))}</dd>
            <dt>"Framework op"</dt>
            <dd>{if xla.provenance.is_empty() { "—".to_string() } else { xla.provenance.clone() }}</dd>
            {expression}
            {conv}
        </dl>
    }
}

/// Focuses the tree's row of `path` once the tree is redrawn.
fn refocus(path: String) {
    request_animation_frame(move || {
        let tree = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id("op-profile-tree"));
        let mut row = tree.and_then(|t| t.first_element_child());
        while let Some(element) = row {
            if element.get_attribute("data-path").as_deref() == Some(path.as_str()) {
                if let Ok(element) = element.dyn_into::<web_sys::HtmlElement>() {
                    let _ = element.focus();
                }
                return;
            }
            row = element.next_element_sibling();
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use proflens_analysis::tools::op_profile::Metrics;

    fn node(name: &str, time: f64, children: Vec<Node>) -> Node {
        Node {
            name: name.into(),
            metrics: Metrics { raw_time: time, ..Metrics::default() },
            num_children: children.len(),
            children,
            xla: None,
        }
    }

    #[test]
    fn the_slider_and_the_top_share_toggle_limit_children() {
        let root = node("", 100.0, vec![node("a", 60.0, vec![]), node("b", 35.0, vec![]), node("c", 5.0, vec![])]);
        assert_eq!(visible_children(&root, 10, false).len(), 3);
        assert_eq!(visible_children(&root, 2, false).len(), 2);
        assert_eq!(visible_children(&root, 0, false).len(), 1);
        // a + b = 95% ≥ 90%: c is left out.
        let top: Vec<&str> = visible_children(&root, 10, true).iter().map(|n| n.name.as_str()).collect();
        assert_eq!(top, ["a", "b"]);
    }

    #[test]
    fn flops_utilisation_divides_the_time_share_back_out() {
        let mut n = node("op", 25.0, vec![]);
        n.metrics.flops = 0.1; // 40% utilisation × 25% of the time
        assert!((flops_utilization(&n, 100.0) - 0.4).abs() < 1e-12);
        assert_eq!(utilization_colour(0.0), "hsl(0, 70%, 38%)");
        assert_eq!(utilization_colour(1.0), "hsl(120, 70%, 38%)");
    }

    #[test]
    fn convolutions_show_layout_and_padding() {
        let e = "%convolution.1 = f32[8,32,32,64]{3,2,1,0} convolution(f32[8,32,32,3]{3,2,1,0} %p0, f32[3,3,3,64]{3,2,1,0} %p1), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f";
        assert_eq!(convolution_details(e), Some(("b01f_01io->b01f".into(), "1_1x1_1".into())));
        assert_eq!(convolution_details("%add = f32[] add(%a, %b)"), None);
        let cudnn = "%cudnn-conv.1.0 = (bf16[1,5120,34,31,53]{4,3,2,1,0}, u8[7150336]{0}) custom-call(bf16[1,16,32,60,104]{4,3,2,1,0} %b), window={size=1x2x2 stride=1x2x2 pad=1_1x1_1x1_1}, dim_labels=bf012_oi012->bf012, custom_call_target=\"__cudnn$convForward\"";
        assert_eq!(convolution_details(cudnn), Some(("bf012_oi012->bf012".into(), "1_1x1_1x1_1".into())));
    }
}
