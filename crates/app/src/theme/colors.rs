//! The theme's colours for canvases, read from theme.css's custom properties
//! (`--chart-*`, `--trace-*`) of the theme on screen. They are read once per
//! theme change and kept until the next one.

use plotters::style::RGBColor;
use std::cell::RefCell;

/// A chart's colours: its ground, its text, grid lines and axes, and `ink`
/// (the text colour, for lines that must stand out, like the compute roof).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChartColors {
    pub background: RGBColor,
    pub text: RGBColor,
    pub grid: RGBColor,
    pub axis: RGBColor,
    pub ink: RGBColor,
}

/// The trace viewer's colours: pixel-buffer fills as RGB, canvas 2D styles
/// as CSS colour text.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceColors {
    pub background: [u8; 3],
    pub gutter: [u8; 3],
    pub header: [u8; 3],
    pub line: [u8; 3],
    pub grid: [u8; 3],
    pub text: String,
    pub muted: String,
    pub ruler: String,
    pub ruler_edge: String,
    pub tick: String,
    pub hover: String,
    pub flow: String,
    pub scrollbar: String,
    /// The selected event's outline.
    pub selection: String,
    /// Names on the event boxes, whose colours are light in both themes.
    pub slice_text: String,
    /// Counter tracks' area charts (the accent).
    pub counter: [u8; 3],
}

/// Light colours, used where the style sheet cannot be read.
const LIGHT_CHART: ChartColors = ChartColors {
    background: RGBColor(255, 255, 255),
    text: RGBColor(87, 96, 106),
    grid: RGBColor(232, 235, 238),
    axis: RGBColor(140, 149, 159),
    ink: RGBColor(27, 31, 36),
};

#[derive(Clone)]
struct Palette {
    chart: ChartColors,
    trace: TraceColors,
}

thread_local! {
    static CACHE: RefCell<Option<Palette>> = const { RefCell::new(None) };
}

/// Drops the colours read, after the theme changed.
pub(super) fn forget() {
    CACHE.with(|c| c.borrow_mut().take());
}

fn palette() -> Palette {
    if let Some(p) = CACHE.with(|c| c.borrow().clone()) {
        return p;
    }
    let p = read();
    CACHE.with(|c| *c.borrow_mut() = Some(p.clone()));
    p
}

/// The charts' colours now. Inside an effect, it also subscribes the effect
/// to theme changes, so that a chart drawn with them is redrawn in the next
/// theme.
pub fn chart_colors() -> ChartColors {
    super::track();
    palette().chart
}

/// The trace viewer's colours now (the viewer redraws on [`super::track`] itself).
pub fn trace_colors() -> TraceColors {
    palette().trace
}

fn read() -> Palette {
    let style = web_sys::window().and_then(|w| {
        let root = w.document()?.document_element()?;
        w.get_computed_style(&root).ok().flatten()
    });
    let var = |name: &str| style.as_ref().and_then(|s| s.get_property_value(name).ok()).unwrap_or_default();
    let rgb =
        |name: &str, fallback: RGBColor| parse_hex(var(name).trim()).map_or(fallback, |[r, g, b]| RGBColor(r, g, b));
    let chart = ChartColors {
        background: rgb("--chart-bg", LIGHT_CHART.background),
        text: rgb("--chart-text", LIGHT_CHART.text),
        grid: rgb("--chart-grid", LIGHT_CHART.grid),
        axis: rgb("--chart-axis", LIGHT_CHART.axis),
        ink: rgb("--chart-ink", LIGHT_CHART.ink),
    };
    let fill = |name: &str, fallback: [u8; 3]| parse_hex(var(name).trim()).unwrap_or(fallback);
    let text = |name: &str, fallback: &str| {
        let value = var(name);
        let value = value.trim();
        if value.is_empty() { fallback } else { value }.to_string()
    };
    let trace = TraceColors {
        background: fill("--trace-bg", [255, 255, 255]),
        gutter: fill("--trace-gutter", [246, 248, 250]),
        header: fill("--trace-header", [231, 236, 241]),
        line: fill("--trace-line", [222, 227, 232]),
        grid: fill("--trace-grid", [238, 241, 244]),
        text: text("--trace-text", "#1b1f24"),
        muted: text("--trace-muted", "#57606a"),
        ruler: text("--trace-ruler", "#f5f7f9"),
        ruler_edge: text("--trace-ruler-edge", "#d0d7de"),
        tick: text("--trace-tick", "#8c959f"),
        hover: text("--trace-hover", "rgba(27, 31, 36, 0.6)"),
        flow: text("--trace-flow", "rgba(61, 74, 87, 0.85)"),
        scrollbar: text("--trace-scrollbar", "rgba(27, 31, 36, 0.28)"),
        selection: text("--accent", "#0b5cad"),
        slice_text: text("--trace-slice-text", "#1b1f24"),
        counter: fill("--accent", [11, 92, 173]),
    };
    Palette { chart, trace }
}

/// `#rrggbb` or `#rgb` as RGB.
fn parse_hex(text: &str) -> Option<[u8; 3]> {
    let hex = text.strip_prefix('#')?;
    if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let channel = |s: &str| u8::from_str_radix(s, 16).ok();
    match hex.len() {
        6 => Some([channel(&hex[0..2])?, channel(&hex[2..4])?, channel(&hex[4..6])?]),
        3 => {
            let short = |i: usize| channel(&hex[i..=i]).map(|v| v * 17);
            Some([short(0)?, short(1)?, short(2)?])
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_colours_parse() {
        assert_eq!(parse_hex("#0b5cad"), Some([11, 92, 173]));
        assert_eq!(parse_hex("#fff"), Some([255, 255, 255]));
        assert_eq!(parse_hex("#FFFFFF"), Some([255, 255, 255]));
        assert_eq!(parse_hex("0b5cad"), None);
        assert_eq!(parse_hex("#0b5cazz"), None);
        assert_eq!(parse_hex("#éé"), None);
        assert_eq!(parse_hex("rgb(1, 2, 3)"), None);
    }
}
