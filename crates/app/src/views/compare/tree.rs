//! The op profile's tree on both sides (program → category → op), each node
//! with its time on both sides and the change, largest change first. A
//! node's children are drawn when it is opened, so large programs stay quick.

use leptos::prelude::*;
use proflens_analysis::compare::{Comparison, DiffNode};

use super::table::{status_class, status_text};
use super::{change_class, ExportCsv};
use crate::widgets::fmt;

#[component]
pub fn TreeView(comparison: Comparison) -> impl IntoView {
    let Some(root) = comparison.tree.clone() else { return ().into_any() };
    view! {
        <ExportCsv label="Export tree (CSV)" file_name="compare_op_profile.csv".to_string() comparison=comparison.clone()/>
        <div class="diff-tree" id="compare-tree" role="tree" aria-label="Time by category and op, baseline and candidate">
            <div class="tree-row tree-head" aria-hidden="true">
                <span class="name">"Category / op"</span>
                <span class="num">"Baseline (µs)"</span>
                <span class="num">"Candidate (µs)"</span>
                <span class="num">"Change (µs)"</span>
                <span class="num">"Change (%)"</span>
            </div>
            <Node node=root depth=0 open=true/>
        </div>
    }
    .into_any()
}

/// One node and, once opened, its children.
#[component]
fn Node(node: DiffNode, depth: usize, open: bool) -> impl IntoView {
    let row = row(&node, depth);
    if node.children.is_empty() {
        return view! { <div role="treeitem" class="tree-leaf" data-name=node.name.clone()>{row}</div> }.into_any();
    }
    let is_open = RwSignal::new(open);
    let children = StoredValue::new(node.children);
    let on_toggle = move |ev: web_sys::Event| {
        let details: web_sys::HtmlDetailsElement = event_target(&ev);
        is_open.set(details.open());
    };
    view! {
        <details role="treeitem" data-name=node.name.clone() prop:open=open on:toggle=on_toggle>
            <summary>{row}</summary>
            {move || {
                is_open
                    .get()
                    .then(|| {
                        children
                            .get_value()
                            .into_iter()
                            .map(|child| view! { <Node node=child depth=depth + 1 open=false/> })
                            .collect_view()
                    })
            }}
        </details>
    }
    .into_any()
}

fn row(node: &DiffNode, depth: usize) -> impl IntoView {
    let us = |ps: f64| ps / 1e6;
    let pct = (node.base_ps != 0.0).then(|| 100.0 * node.delta_ps / node.base_ps);
    let counts = format!("{} → {}", fmt::count(node.base_count), fmt::count(node.candidate_count));
    view! {
        <span class=format!("tree-row {}", status_class(node.status))>
            <span class="name" title=counts style:padding-left=format!("{}rem", depth)>
                {node.name.clone()}
                " "
                <span class="status-mark">{status_text(node.status)}</span>
            </span>
            <span class="num base">{fmt::decimal(us(node.base_ps), 1)}</span>
            <span class="num candidate">{fmt::decimal(us(node.candidate_ps), 1)}</span>
            <span class=format!("num delta {}", change_class(node.delta_ps)) data-value=node.delta_ps.to_string()>
                {fmt::signed(us(node.delta_ps), 1)}
            </span>
            <span class="num delta-pct">{fmt::signed_percent(pct)}</span>
        </span>
    }
}
