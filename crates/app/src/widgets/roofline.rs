//! A roofline chart on a `<canvas>`: points on log–log axes (operational
//! intensity, FLOP rate) under the device's roofs, each roof a bandwidth's
//! slope up to the compute peak. Only pixels are drawn here; the page puts
//! its legend, hover card and point buttons in the DOM as text.

use super::chart::{backend, ScatterLayout, ScatterPoint, PALETTE};
use plotters::prelude::*;
use web_sys::HtmlCanvasElement;

/// One memory's roof: its bandwidth (GB/s, so that GB/s × FLOP/byte is
/// GFLOP/s) and colour.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Roof {
    pub gb_per_s: f64,
    pub color: RGBColor,
}

/// The roofs over the points.
pub struct Roofs<'a> {
    /// GFLOP/s; 0 when unknown (the memory roofs then rise unbounded).
    pub peak_gflops: f64,
    pub compute_color: RGBColor,
    pub memories: &'a [Roof],
}

/// Where a point was drawn (CSS pixels from the canvas's top left), if it was.
pub type PointAt = Option<(f64, f64)>;

/// A log axis's range in whole decades around `values` (and `extra`).
pub fn decades(values: impl Iterator<Item = f64>, extra: &[f64]) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, 0f64);
    for v in values.chain(extra.iter().copied()).filter(|v| v.is_finite() && *v > 0.0) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if hi <= 0.0 {
        return (0.1, 10.0);
    }
    let lo = 10f64.powf(lo.log10().floor());
    let hi = 10f64.powf(hi.log10().ceil()).max(lo * 10.0);
    (lo, hi)
}

/// Draws `points` (only positive ones can be on a log chart) in their
/// series' colours under `roofs`, with `selected` ringed; returns the plot's
/// place and each point's position in CSS pixels (`None`: not drawn).
pub fn roofline_chart(
    canvas: &HtmlCanvasElement,
    points: &[ScatterPoint],
    colors: &[RGBColor],
    roofs: &Roofs<'_>,
    selected: Option<usize>,
) -> Result<(ScatterLayout, Vec<PointAt>), String> {
    let (backend, ratio) = backend(canvas)?;
    let px = |css: f64| (css * ratio).round() as u32;
    let root = backend.into_drawing_area();
    let ink = crate::theme::chart_colors();
    root.fill(&ink.background).map_err(|e| e.to_string())?;
    let shown = |p: &&ScatterPoint| p.0 > 0.0 && p.1 > 0.0 && p.0.is_finite() && p.1.is_finite();
    let ridges: Vec<f64> =
        roofs.memories.iter().filter(|m| m.gb_per_s > 0.0).map(|m| roofs.peak_gflops / m.gb_per_s).collect();
    let (x_lo, x_hi) = decades(points.iter().filter(shown).map(|p| p.0), &ridges);
    let (y_lo, y_hi) = decades(points.iter().filter(shown).map(|p| p.1), &[roofs.peak_gflops]);
    let font = ("sans-serif", 12.0 * ratio).into_font().color(&ink.text);
    let label = |v: &f64| axis_number(*v);
    let mut chart = ChartBuilder::on(&root)
        .margin_top(px(10.0))
        .margin_right(px(16.0))
        .x_label_area_size(px(40.0))
        .y_label_area_size(px(64.0))
        .build_cartesian_2d((x_lo..x_hi).log_scale(), (y_lo..y_hi).log_scale())
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_labels(10)
        .y_labels(10)
        .x_label_formatter(&label)
        .y_label_formatter(&label)
        .x_desc("Operational intensity (FLOP/byte)")
        .y_desc("FLOP rate (GFLOP/s)")
        .label_style(font.clone())
        .axis_desc_style(font)
        .light_line_style(TRANSPARENT)
        .bold_line_style(ink.grid)
        .axis_style(ink.axis)
        .set_all_tick_mark_size(px(4.0))
        .draw()
        .map_err(|e| e.to_string())?;
    let width = (2.0 * ratio).round().max(1.0) as u32;
    let ceiling = if roofs.peak_gflops > 0.0 { roofs.peak_gflops } else { f64::INFINITY };
    for roof in roofs.memories.iter().filter(|m| m.gb_per_s > 0.0) {
        // The slope from where it enters the plot to the ridge, then flat.
        let start = x_lo.max(y_lo / roof.gb_per_s);
        let ridge = (ceiling / roof.gb_per_s).min(x_hi).max(start);
        let mut line = vec![(start, (roof.gb_per_s * start).min(y_hi)), (ridge, (roof.gb_per_s * ridge).min(y_hi))];
        if ceiling.is_finite() {
            line.push((x_hi, ceiling));
        }
        chart
            .draw_series(std::iter::once(PathElement::new(line, roof.color.stroke_width(width))))
            .map_err(|e| e.to_string())?;
    }
    if roofs.peak_gflops > 0.0 {
        let flat = vec![(x_lo, roofs.peak_gflops), (x_hi, roofs.peak_gflops)];
        chart
            .draw_series(std::iter::once(PathElement::new(flat, roofs.compute_color.stroke_width(1))))
            .map_err(|e| e.to_string())?;
    }
    let half = (3.0 * ratio).round().max(1.0) as i32;
    let mut positions = Vec::with_capacity(points.len());
    let mut marks = std::collections::HashSet::new();
    for p in points {
        if !shown(&p) {
            positions.push(None);
            continue;
        }
        let (x, y) = chart.backend_coord(&(p.0, p.1));
        let color = colors.get(p.2).copied().unwrap_or(PALETTE[0]);
        if marks.insert((p.2, x, y)) {
            root.draw(&Circle::new((x, y), half, color.filled())).map_err(|e| e.to_string())?;
        }
        positions.push(Some((f64::from(x) / ratio, f64::from(y) / ratio)));
    }
    if let Some(Some((x, y))) = selected.and_then(|i| positions.get(i)) {
        let centre = ((x * ratio).round() as i32, (y * ratio).round() as i32);
        root.draw(&Circle::new(centre, half * 3, ink.ink.stroke_width(width))).map_err(|e| e.to_string())?;
    }
    let (xs, ys) = chart.plotting_area().get_pixel_range();
    root.present().map_err(|e| e.to_string())?;
    let layout = ScatterLayout {
        left: xs.start as f64 / ratio,
        right: xs.end as f64 / ratio,
        top: ys.start as f64 / ratio,
        bottom: ys.end as f64 / ratio,
        marks: marks.len(),
    };
    Ok((layout, positions))
}

/// A log axis number: `0.01`, `1`, `1000`, `1e6`.
fn axis_number(v: f64) -> String {
    if v >= 1e5 || (v > 0.0 && v < 1e-3) {
        format!("1e{}", v.log10().round())
    } else {
        let text = format!("{v:.3}");
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_span_whole_decades() {
        assert_eq!(decades([0.3, 45.0].into_iter(), &[]), (0.1, 100.0));
        assert_eq!(decades([0.0, -1.0].into_iter(), &[]), (0.1, 10.0));
        assert_eq!(decades([5.0].into_iter(), &[]), (1.0, 10.0));
        assert_eq!(decades([2.0].into_iter(), &[491.0]), (1.0, 1000.0));
        assert_eq!(axis_number(1e6), "1e6");
        assert_eq!(axis_number(0.01), "0.01");
        assert_eq!(axis_number(1000.0), "1000");
    }
}
