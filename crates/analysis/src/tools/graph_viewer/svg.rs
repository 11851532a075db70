//! The laid-out graph as a standalone SVG document (`--format svg`). Every
//! name from the profile is escaped as XML text.

use super::{Graph, GraphViewer};
use std::fmt::Write;

/// Fill colours per category, as the page draws them.
pub fn fill(category: &str) -> &'static str {
    match category {
        "async" => "#c6dbef",
        "collective" => "#d7b899",
        "matmul" => "#9ecae1",
        "control" => "#a1d99b",
        "fusion" => "#d9d9d9",
        "layout" => "#c7e9c0",
        "parameter" => "#fdd0a2",
        "reduction" => "#dadaeb",
        "broadcast" => "#fff3a0",
        _ => "#ffffff",
    }
}

pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// A node's second line: opcode and (shortened) shape.
pub fn detail(opcode: &str, shape: &str) -> String {
    let short: String = shape.chars().take(40).collect();
    let more = if shape.chars().count() > 40 { "…" } else { "" };
    format!("{opcode} {short}{more}")
}

fn graph_svg(g: &Graph, title: &str) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0}" height="{h:.0}" viewBox="0 0 {w:.0} {h:.0}" font-family="sans-serif" font-size="11"><title>{t}</title>"#,
        w = g.width,
        h = g.height,
        t = escape(title)
    );
    s.push_str(r##"<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" orient="auto"><path d="M0,0L10,5L0,10z" fill="#555"/></marker></defs>"##);
    for c in &g.clusters {
        let _ = write!(
            s,
            r##"<g class="cluster"><rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" rx="6" fill="#f4f4f4" stroke="#999" stroke-dasharray="4 2"/><text x="{:.1}" y="{:.1}">{}</text></g>"##,
            c.x,
            c.y,
            c.width,
            c.height,
            c.x + 6.0,
            c.y + 13.0,
            escape(&c.name)
        );
    }
    for e in &g.edges {
        let points: Vec<String> = e.points.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect();
        let _ = write!(
            s,
            r##"<polyline class="edge" points="{}" fill="none" stroke="#555" marker-end="url(#arrow)"/>"##,
            points.join(" ")
        );
    }
    for n in &g.nodes {
        let stroke = if n.center { r##"stroke="#d62728" stroke-width="2.5""## } else { r##"stroke="#333""## };
        let _ = write!(
            s,
            r##"<g class="node"><title>{name} = {shape} {op}</title><rect x="{x:.1}" y="{y:.1}" width="{w:.1}" height="{h:.1}" rx="4" fill="{fill}" {stroke}/><text x="{tx:.1}" y="{ty1:.1}" text-anchor="middle" font-weight="bold">{name}</text><text x="{tx:.1}" y="{ty2:.1}" text-anchor="middle">{detail}</text></g>"##,
            name = escape(&n.name),
            shape = escape(&n.shape),
            op = escape(&n.opcode),
            x = n.x,
            y = n.y,
            w = n.width,
            h = n.height,
            fill = fill(&n.category),
            tx = n.x + n.width / 2.0,
            ty1 = n.y + 15.0,
            ty2 = n.y + 30.0,
            detail = escape(&detail(&n.opcode, &n.shape)),
        );
    }
    s.push_str("</svg>\n");
    s
}

/// The page's graph as SVG; `None` when it has none.
pub fn to_svg(page: &GraphViewer) -> Option<String> {
    let g = page.graph.as_ref()?;
    Some(graph_svg(g, &format!("{} around {} ({} hops)", page.module, page.node, page.graph_width)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_escaped() {
        assert_eq!(escape(r#"<a&"b'>"#), "&lt;a&amp;&quot;b&#39;&gt;");
    }
}
