//! The selected range's icicle flame graph (`#trace-flame`), as SVG: the
//! root on top, each frame's children below it, widest first, widths in
//! proportion to time in the range. The worker sends the tree already
//! capped (frames under 0.1 % of the selection folded into "other"), so the
//! DOM stays small. Hovering a frame shows its numbers; clicking zooms to it
//! (its ancestors stay above it, full width); "Reset zoom" goes back.
//! Names are SVG text, never markup.

use std::sync::Arc;

use leptos::prelude::*;
use proflens_analysis::passes::trace::flame::{FlameGraph, FOLD_FRACTION};

use super::model::format_duration;
use super::ui::{Flame, Ui};
use crate::widgets::fmt;

/// Height of a row of frames, CSS pixels.
const ROW_PX: f64 = 18.0;

/// A frame placed for drawing: fractions of the zoomed frame's width.
#[derive(Debug, Clone, PartialEq)]
pub struct Placed {
    pub frame: usize,
    pub x: f64,
    pub width: f64,
    pub depth: u16,
}

/// Where each frame of `g` goes when `zoom` fills the width: `zoom`, its
/// descendants and its ancestors (full width); nothing else.
pub fn place(g: &FlameGraph, zoom: usize) -> Vec<Placed> {
    let n = g.frames.len();
    if n == 0 || zoom >= n {
        return Vec::new();
    }
    // Each frame's start in ps from its root's start: children follow each other in order.
    let mut offset = vec![0i64; n];
    let mut cursor = vec![0i64; n];
    for i in 1..n {
        let p = g.frames[i].parent as usize;
        offset[i] = offset[p] + cursor[p];
        cursor[p] += g.frames[i].total_ps;
    }
    let whole = g.frames[zoom].total_ps.max(1) as f64;
    let mut out = Vec::new();
    let mut up = zoom;
    while up != 0 {
        up = g.frames[up].parent as usize;
        out.push(Placed { frame: up, x: 0.0, width: 1.0, depth: g.frames[up].depth });
    }
    out.reverse();
    // Descendants follow their frame in depth-first order, until a frame no deeper.
    let depth = g.frames[zoom].depth;
    let end = (zoom + 1..n).find(|&i| g.frames[i].depth <= depth).unwrap_or(n);
    for i in zoom..end {
        let f = &g.frames[i];
        out.push(Placed {
            frame: i,
            x: (offset[i] - offset[zoom]) as f64 / whole,
            width: f.total_ps as f64 / whole,
            depth: f.depth,
        });
    }
    out
}

/// A stable colour per name (warm hues, as flame graphs go).
fn colour(name: &str) -> String {
    let h = name.bytes().fold(2_166_136_261u32, |h, b| (h ^ b as u32).wrapping_mul(16_777_619));
    format!("hsl({}, 70%, {}%)", h % 60, 62 + (h >> 8) % 14)
}

/// What hovering a frame says.
fn describe(g: &FlameGraph, i: usize) -> String {
    let f = &g.frames[i];
    let root = g.frames[0].total_ps.max(1) as f64;
    let name = &g.names[f.name as usize];
    let folded =
        if f.folded > 0 { format!(" ({} narrow frames folded)", fmt::count(f.folded as u64)) } else { String::new() };
    format!(
        "{name}{folded}: total {}, self {}, {} of the selection",
        format_duration(f.total_ps as f64),
        format_duration(f.self_ps as f64),
        fmt::fraction_percent(f.total_ps as f64 / root),
    )
}

fn frames_view(g: Arc<FlameGraph>, zoom: RwSignal<usize>, hover: RwSignal<Option<usize>>) -> impl IntoView {
    let placed = place(&g, zoom.get().min(g.frames.len().saturating_sub(1)));
    let rows = placed.iter().map(|p| p.depth).max().map_or(0, |d| d as usize + 1);
    let frames = placed
        .into_iter()
        .map(|p| {
            let f = g.frames[p.frame];
            let name = g.names[f.name as usize].clone();
            let i = p.frame;
            let (fill, label) = (colour(&name), name.clone());
            view! {
                <svg
                    class="flame-frame"
                    class:folded={f.folded > 0}
                    x=format!("{:.4}%", p.x * 100.0)
                    y=format!("{}", p.depth as f64 * ROW_PX)
                    width=format!("{:.4}%", p.width * 100.0)
                    height=format!("{}", ROW_PX - 1.0)
                    data-frame=i.to_string()
                    data-depth=f.depth.to_string()
                    data-parent=f.parent.to_string()
                    data-total-ps=f.total_ps.to_string()
                    data-self-ps=f.self_ps.to_string()
                    data-name=name
                    on:mouseenter=move |_| hover.set(Some(i))
                    on:mouseleave=move |_| hover.set(None)
                    on:click=move |_| zoom.set(i)
                >
                    <rect width="100%" height="100%" fill=fill></rect>
                    <text x="3" y="12.5">{label}</text>
                </svg>
            }
        })
        .collect_view();
    view! {
        <svg
            id="trace-flame-svg"
            class="trace-flame-svg"
            width="100%"
            height=format!("{}", rows as f64 * ROW_PX)
            role="img"
            aria-label="Flame graph of the selected range: time per call stack, the outermost events on top"
        >
            {frames}
        </svg>
    }
}

#[component]
pub fn FlamePane(ui: Ui) -> impl IntoView {
    let zoom = RwSignal::new(0usize);
    let hover = RwSignal::new(None::<usize>);
    // A new graph starts unzoomed.
    Effect::new(move |_| {
        ui.flame.track();
        zoom.set(0);
        hover.set(None);
    });
    let graph = move || match ui.flame.get() {
        Flame::Shown(g) => Some(g),
        _ => None,
    };
    let body = move || match ui.flame.get() {
        Flame::Empty => ().into_any(),
        Flame::Loading => view! { <p class="note">"Building the flame graph…"</p> }.into_any(),
        Flame::Failed(message) => view! { <p class="error" role="alert">{message}</p> }.into_any(),
        Flame::Shown(g) if g.frames.first().is_none_or(|f| f.total_ps == 0) => {
            view! { <p class="note">"No event overlaps the range."</p> }.into_any()
        }
        Flame::Shown(g) => frames_view(g, zoom, hover).into_any(),
    };
    let hover_text = move || {
        let g = graph()?;
        let i = hover.get().filter(|&i| i < g.frames.len())?;
        Some(describe(&g, i))
    };
    let note = format!(
        "Time per call stack (the names of nested events on a track, outermost first), merged across the selected \
         tracks and clipped to the range. Frames narrower than {} of the selection are folded into \"other\". \
         Click a frame to zoom to it.",
        fmt::fraction_percent(FOLD_FRACTION)
    );
    view! {
        <div id="trace-flame" class="trace-flame" hidden=move || graph().is_none() && !matches!(ui.flame.get(), Flame::Loading)>
            <h4>"Flame graph"</h4>
            <p class="note">{note}</p>
            <p class="flame-toolbar">
                <button
                    type="button"
                    id="trace-flame-reset"
                    class="button small"
                    prop:disabled=move || zoom.get() == 0
                    on:click=move |_| zoom.set(0)
                >
                    "Reset zoom"
                </button>
                " "
                <span id="trace-flame-hover" class="flame-hover" role="status" aria-live="polite">{hover_text}</span>
            </p>
            {body}
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proflens_analysis::passes::trace::flame::FlameFrame;

    fn frame(parent: u32, depth: u16, total_ps: i64) -> FlameFrame {
        FlameFrame { name: 0, parent, depth, total_ps, self_ps: 0, folded: 0 }
    }

    #[test]
    fn children_sit_side_by_side_and_zoom_fills_the_width() {
        // root 100 → a 60 (→ c 30), b 40
        let g = FlameGraph {
            start_ps: 0,
            end_ps: 100,
            names: vec!["x".into()],
            frames: vec![frame(0, 0, 100), frame(0, 1, 60), frame(1, 2, 30), frame(0, 1, 40)],
        };
        let at = |p: &[Placed]| p.iter().map(|p| (p.frame, p.x, p.width)).collect::<Vec<_>>();
        assert_eq!(at(&place(&g, 0)), [(0, 0.0, 1.0), (1, 0.0, 0.6), (2, 0.0, 0.3), (3, 0.6, 0.4)]);
        // Zoomed to a: the root above it, full width; b is gone.
        assert_eq!(at(&place(&g, 1)), [(0, 0.0, 1.0), (1, 0.0, 1.0), (2, 0.0, 0.5)]);
        assert!(place(&g, 9).is_empty());
    }
}
