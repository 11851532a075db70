//! Drawing charts on `<canvas>` elements with plotters: stacked bars (one bar
//! per step), paired bars (a baseline and a candidate per category), pies
//! and log–log scatters. Only pixels are drawn here; legends, hover cards and
//! numbers stay in the DOM as text. Canvases are sized to their CSS box times
//! the device pixel ratio so that they stay sharp.

use plotters::prelude::*;
use plotters_canvas::CanvasBackend;

use super::chart_svg::TeeBackend;
use web_sys::HtmlCanvasElement;

/// Colours for series and slices, told apart also by people with the common
/// colour-vision deficiencies (Okabe–Ito first, then Tableau's).
pub const PALETTE: [RGBColor; 12] = [
    RGBColor(0, 114, 178),
    RGBColor(230, 159, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(213, 94, 0),
    RGBColor(240, 228, 66),
    RGBColor(120, 94, 240),
    RGBColor(140, 86, 75),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// Grey for the "Other" slice.
pub const OTHER: RGBColor = RGBColor(190, 190, 190);

/// `#rrggbb`, for legends drawn in HTML.
pub fn css_color(c: RGBColor) -> String {
    format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}

/// One stacked bar: its label and one value per series.
pub struct Bar<'a> {
    pub label: &'a str,
    pub values: Vec<f64>,
}

/// Where the bars were drawn, in CSS pixels from the canvas's left edge.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BarLayout {
    pub left: f64,
    pub right: f64,
    pub top: f64,
    pub bottom: f64,
    pub count: usize,
}

impl BarLayout {
    /// The bar whose slot holds `x` (CSS pixels), if any: the plot is split
    /// into `count` equal slots, one per bar.
    pub fn bar_at(&self, x: f64) -> Option<usize> {
        let width = self.right - self.left;
        if self.count == 0 || width <= 0.0 || !(self.left..self.right).contains(&x) {
            return None;
        }
        let index = ((x - self.left) / width * self.count as f64).floor() as usize;
        Some(index.min(self.count - 1))
    }
}

/// A canvas sized to its CSS box times the device pixel ratio, ready to draw
/// on: its backend (which records the drawing as SVG too) and that ratio.
pub fn backend(canvas: &HtmlCanvasElement) -> Result<(TeeBackend, f64), String> {
    let ratio = web_sys::window().map(|w| w.device_pixel_ratio()).filter(|r| *r > 0.0).unwrap_or(1.0);
    let (width, height) = (canvas.client_width().max(1) as f64, canvas.client_height().max(1) as f64);
    canvas.set_width((width * ratio).round() as u32);
    canvas.set_height((height * ratio).round() as u32);
    let backend = CanvasBackend::with_canvas_object(canvas.clone())
        .ok_or_else(|| "this browser gave no 2D drawing context for the chart".to_string())?;
    Ok((TeeBackend::new(canvas.clone(), backend), ratio))
}

/// A rounded-up axis maximum: a round multiple of a power of ten.
pub fn nice_ceiling(v: f64) -> f64 {
    if !(v.is_finite() && v > 0.0) {
        return 1.0;
    }
    let power = 10f64.powf(v.log10().floor());
    [1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0]
        .iter()
        .map(|m| m * power)
        .find(|c| *c >= v * 0.999_999)
        .unwrap_or(10.0 * power)
}

/// Draws `bars` stacked by series (`colors[i]` for the series `i`) with a
/// value axis labelled `unit`; returns where the bars are.
pub fn stacked_bars(
    canvas: &HtmlCanvasElement,
    bars: &[Bar<'_>],
    colors: &[RGBColor],
    unit: &str,
) -> Result<BarLayout, String> {
    crate::render_timing::timed(&format!("stacked_bars {}", bars.len()), || {
        draw_stacked_bars(canvas, bars, colors, unit)
    })
}

fn draw_stacked_bars(
    canvas: &HtmlCanvasElement,
    bars: &[Bar<'_>],
    colors: &[RGBColor],
    unit: &str,
) -> Result<BarLayout, String> {
    let (backend, ratio) = backend(canvas)?;
    let px = |css: f64| (css * ratio).round() as u32;
    let root = backend.into_drawing_area();
    let ink = crate::theme::chart_colors();
    root.fill(&ink.background).map_err(|e| e.to_string())?;
    let n = bars.len();
    let highest = bars.iter().map(|b| b.values.iter().filter(|v| v.is_finite()).sum::<f64>()).fold(0.0, f64::max);
    let y_max = nice_ceiling(highest);
    let font = ("sans-serif", 12.0 * ratio).into_font().color(&ink.text);

    let width_css = canvas.client_width().max(1) as f64;
    // About one label per 64 CSS pixels; plotters picks evenly spaced steps.
    let max_labels = ((width_css - 80.0) / 64.0).max(1.0) as usize;
    let label_of = |v: &f64| {
        let i = v.round();
        if (v - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < n {
            bars[i as usize].label.to_string()
        } else {
            String::new()
        }
    };
    let value_label = |v: &f64| trim_number(*v);

    let mut chart = ChartBuilder::on(&root)
        .margin_top(px(10.0))
        .margin_right(px(12.0))
        .x_label_area_size(px(26.0))
        .y_label_area_size(px(56.0))
        .build_cartesian_2d(-0.5..(n as f64 - 0.5).max(0.5), 0.0..y_max)
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(max_labels.min(n.max(1)))
        .y_labels(6)
        .x_label_formatter(&label_of)
        .y_label_formatter(&value_label)
        .y_desc(unit)
        .label_style(font.clone())
        .axis_desc_style(font.clone())
        .light_line_style(TRANSPARENT)
        .bold_line_style(ink.grid)
        .axis_style(ink.axis)
        .set_all_tick_mark_size(px(4.0))
        .draw()
        .map_err(|e| e.to_string())?;

    // Bars take 70% of their slot, and at most 72 CSS pixels.
    let (xs, ys) = chart.plotting_area().get_pixel_range();
    let slot = (xs.end - xs.start).max(1) as f64 / n.max(1) as f64;
    let half = (36.0 * ratio / slot).min(0.35);
    let columns = (xs.end - xs.start).max(1) as usize;
    let stacks: Vec<(f64, f64, &Bar<'_>)> = if n > columns {
        // More bars than pixel columns: bars a column shares would be drawn
        // over each other (thinner than a pixel, some rounded away). Each
        // column shows its tallest bar across its whole width instead, the
        // outline the overlapping bars make, at a fraction of the shapes.
        let totals: Vec<f64> = bars.iter().map(total).collect();
        tallest_per_column(&totals, columns)
            .into_iter()
            .map(|(first, end, tallest)| (first as f64 - 0.5, end as f64 - 0.5, &bars[tallest]))
            .collect()
    } else {
        bars.iter().enumerate().map(|(i, bar)| (i as f64 - half, i as f64 + half, bar)).collect()
    };
    for (left, right, bar) in stacks {
        let mut base = 0.0;
        let segments =
            bar.values.iter().zip(colors).filter(|(v, _)| v.is_finite() && **v > 0.0).map(|(value, color)| {
                let top = base + value;
                let segment = Rectangle::new([(left, base), (right, top)], color.filled());
                base = top;
                segment
            });
        chart.draw_series(segments).map_err(|e| e.to_string())?;
    }
    root.present().map_err(|e| e.to_string())?;

    Ok(BarLayout {
        left: xs.start as f64 / ratio,
        right: xs.end as f64 / ratio,
        top: ys.start as f64 / ratio,
        bottom: ys.end as f64 / ratio,
        count: n,
    })
}

/// The height of a stacked bar: the sum of its finite values.
fn total(bar: &Bar<'_>) -> f64 {
    bar.values.iter().filter(|v| v.is_finite() && **v > 0.0).sum()
}

/// `totals.len()` bars spread over `columns` pixel columns (fewer than the
/// bars): for each column with bars, `(first, end, tallest)`: its bars
/// `first..end` and the index of the tallest (the first of equals).
pub fn tallest_per_column(totals: &[f64], columns: usize) -> Vec<(usize, usize, usize)> {
    let n = totals.len();
    let mut groups: Vec<(usize, usize, usize)> = Vec::with_capacity(columns.min(n));
    let mut column = usize::MAX;
    for (i, &t) in totals.iter().enumerate() {
        let c = i * columns / n;
        match groups.last_mut() {
            Some((_, end, tallest)) if c == column => {
                *end = i + 1;
                if t > totals[*tallest] {
                    *tallest = i;
                }
            }
            _ => {
                column = c;
                groups.push((i, i + 1, i));
            }
        }
    }
    groups
}

/// Baseline and candidate colours of paired bars: blue and orange, apart
/// for every common colour vision.
pub const PAIR: [RGBColor; 2] = [PALETTE[0], PALETTE[1]];

/// Draws two horizontal bars per category (`pairs[i]`: baseline, candidate;
/// in [`PAIR`]'s colours), categories top to bottom with their `labels` at
/// the left, on a value axis labelled `unit`.
pub fn paired_bars(
    canvas: &HtmlCanvasElement,
    labels: &[&str],
    pairs: &[(f64, f64)],
    unit: &str,
) -> Result<(), String> {
    let (backend, ratio) = backend(canvas)?;
    let px = |css: f64| (css * ratio).round() as u32;
    let root = backend.into_drawing_area();
    let ink = crate::theme::chart_colors();
    root.fill(&ink.background).map_err(|e| e.to_string())?;
    let n = pairs.len();
    let finite = |v: f64| if v.is_finite() { v.max(0.0) } else { 0.0 };
    let x_max = nice_ceiling(pairs.iter().map(|(b, c)| finite(*b).max(finite(*c))).fold(0.0, f64::max));
    let font = ("sans-serif", 12.0 * ratio).into_font().color(&ink.text);
    // Category `i` sits at y = n - 1 - i, so the first is at the top.
    let label_of = |v: &f64| {
        let i = v.round();
        let index = n as f64 - 1.0 - i;
        if (v - i).abs() < 1e-6 && index >= 0.0 && (index as usize) < n {
            labels.get(index as usize).map_or(String::new(), |l| l.to_string())
        } else {
            String::new()
        }
    };
    let value_label = |v: &f64| trim_number(*v);
    let mut chart = ChartBuilder::on(&root)
        .margin_top(px(8.0))
        .margin_right(px(16.0))
        .x_label_area_size(px(34.0))
        .y_label_area_size(px(150.0))
        .build_cartesian_2d(0.0..x_max, -0.5..(n as f64 - 0.5).max(0.5))
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(n.max(1))
        .x_labels(6)
        .y_label_formatter(&label_of)
        .x_label_formatter(&value_label)
        .x_desc(unit)
        .label_style(font.clone())
        .axis_desc_style(font)
        .light_line_style(TRANSPARENT)
        .bold_line_style(ink.grid)
        .axis_style(ink.axis)
        .set_all_tick_mark_size(px(4.0))
        .draw()
        .map_err(|e| e.to_string())?;
    for (i, (base, candidate)) in pairs.iter().enumerate() {
        let y = (n - 1 - i) as f64;
        for (offset, value, color) in [(0.0, *base, PAIR[0]), (-0.36, *candidate, PAIR[1])] {
            let top = y + 0.36 + offset;
            chart
                .draw_series(std::iter::once(Rectangle::new([(0.0, top - 0.34), (finite(value), top)], color.filled())))
                .map_err(|e| e.to_string())?;
        }
    }
    root.present().map_err(|e| e.to_string())
}

/// Draws a pie of `slices` (value, colour), clockwise from twelve o'clock.
/// Values that are not positive numbers are left out.
pub fn pie(canvas: &HtmlCanvasElement, slices: &[(f64, RGBColor)]) -> Result<(), String> {
    let (backend, ratio) = backend(canvas)?;
    let root = backend.into_drawing_area();
    let ink = crate::theme::chart_colors();
    root.fill(&ink.background).map_err(|e| e.to_string())?;
    let (w, h) = root.dim_in_pixel();
    let center = (w as f64 / 2.0, h as f64 / 2.0);
    let radius = (w.min(h) as f64 / 2.0 - 4.0 * ratio).max(1.0);
    let total: f64 = slices.iter().map(|(v, _)| *v).filter(|v| v.is_finite() && *v > 0.0).sum();
    if total <= 0.0 {
        root.present().map_err(|e| e.to_string())?;
        return Ok(());
    }
    let mut start = -std::f64::consts::FRAC_PI_2;
    for (value, color) in slices {
        if !(value.is_finite() && *value > 0.0) {
            continue;
        }
        let sweep = value / total * std::f64::consts::TAU;
        // One point per ~2 degrees keeps the arc smooth.
        let steps = ((sweep / 0.035).ceil() as usize).max(2);
        let mut points = Vec::with_capacity(steps + 2);
        points.push((center.0.round() as i32, center.1.round() as i32));
        for k in 0..=steps {
            let a = start + sweep * k as f64 / steps as f64;
            points.push(((center.0 + radius * a.cos()).round() as i32, (center.1 + radius * a.sin()).round() as i32));
        }
        root.draw(&Polygon::new(points.clone(), color.filled())).map_err(|e| e.to_string())?;
        // A thin edge in the ground's colour keeps neighbouring slices apart.
        if sweep < std::f64::consts::TAU - 1e-9 {
            root.draw(&PathElement::new(
                vec![points[0], points[1]],
                ink.background.stroke_width(ratio.round().max(1.0) as u32),
            ))
            .map_err(|e| e.to_string())?;
        }
        start += sweep;
    }
    root.present().map_err(|e| e.to_string())?;
    Ok(())
}

/// A log–log scatter's points: (x, y, series), `series` indexing the colours.
pub type ScatterPoint = (f64, f64, usize);

/// Where a scatter's plot is (CSS pixels) and how many marks it drew.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScatterLayout {
    pub left: f64,
    pub right: f64,
    pub top: f64,
    pub bottom: f64,
    /// Distinct marks: points that fall on one pixel are drawn once.
    pub marks: usize,
}

/// What a log–log scatter shows besides its points.
pub struct ScatterAxes<'a> {
    pub x_desc: &'a str,
    pub y_desc: &'a str,
    /// Values below this sit on it (a log axis has no 0).
    pub floor: f64,
    /// Draws the line y = x.
    pub diagonal: bool,
    /// Vertical guide lines at these x values.
    pub x_guides: &'a [f64],
}

/// Draws `points` on log–log axes from `axes.floor` to round maxima, each a
/// small square in its series' colour (later series on top); returns where
/// the plot is. Thousands of points cost no more than the pixels they cover.
pub fn log_scatter(
    canvas: &HtmlCanvasElement,
    points: &[ScatterPoint],
    colors: &[RGBColor],
    axes: &ScatterAxes<'_>,
) -> Result<ScatterLayout, String> {
    let (backend, ratio) = backend(canvas)?;
    let px = |css: f64| (css * ratio).round() as u32;
    let root = backend.into_drawing_area();
    let ink = crate::theme::chart_colors();
    root.fill(&ink.background).map_err(|e| e.to_string())?;
    let floor = if axes.floor > 0.0 { axes.floor } else { 1.0 };
    let clamp = |v: f64| if v.is_finite() { v.max(floor) } else { floor };
    let top_of =
        |f: fn(&ScatterPoint) -> f64| nice_ceiling(points.iter().map(|p| clamp(f(p))).fold(floor * 10.0, f64::max));
    let (x_max, y_max) = (top_of(|p| p.0), top_of(|p| p.1));
    let font = ("sans-serif", 12.0 * ratio).into_font().color(&ink.text);
    let value_label = |v: &f64| trim_number(*v);
    let mut chart = ChartBuilder::on(&root)
        .margin_top(px(10.0))
        .margin_right(px(16.0))
        .x_label_area_size(px(40.0))
        .y_label_area_size(px(64.0))
        .build_cartesian_2d((floor..x_max).log_scale(), (floor..y_max).log_scale())
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_labels(8)
        .y_labels(8)
        .x_label_formatter(&value_label)
        .y_label_formatter(&value_label)
        .x_desc(axes.x_desc)
        .y_desc(axes.y_desc)
        .label_style(font.clone())
        .axis_desc_style(font)
        .light_line_style(TRANSPARENT)
        .bold_line_style(ink.grid)
        .axis_style(ink.axis)
        .set_all_tick_mark_size(px(4.0))
        .draw()
        .map_err(|e| e.to_string())?;
    let guide = ink.axis.stroke_width(ratio.round().max(1.0) as u32);
    if axes.diagonal {
        let end = x_max.min(y_max);
        chart
            .draw_series(std::iter::once(PathElement::new(vec![(floor, floor), (end, end)], guide)))
            .map_err(|e| e.to_string())?;
    }
    for &x in axes.x_guides.iter().filter(|x| (floor..=x_max).contains(*x)) {
        chart
            .draw_series(std::iter::once(PathElement::new(vec![(x, floor), (x, y_max)], guide)))
            .map_err(|e| e.to_string())?;
    }
    // One mark per pixel and series, each series over the ones before it.
    let half = (1.5 * ratio).round().max(1.0) as i32;
    let mut seen = std::collections::HashSet::new();
    let mut marks: Vec<(usize, (i32, i32))> = points
        .iter()
        .map(|&(x, y, series)| (series, chart.backend_coord(&(clamp(x), clamp(y)))))
        .filter(|key| seen.insert(*key))
        .collect();
    marks.sort_by_key(|(series, _)| *series);
    for &(series, (x, y)) in &marks {
        let color = colors.get(series).copied().unwrap_or(PALETTE[0]);
        root.draw(&Rectangle::new([(x - half, y - half), (x + half, y + half)], color.filled()))
            .map_err(|e| e.to_string())?;
    }
    let (xs, ys) = chart.plotting_area().get_pixel_range();
    root.present().map_err(|e| e.to_string())?;
    Ok(ScatterLayout {
        left: xs.start as f64 / ratio,
        right: xs.end as f64 / ratio,
        top: ys.start as f64 / ratio,
        bottom: ys.end as f64 / ratio,
        marks: marks.len(),
    })
}

/// An axis number without needless decimals: `250`, `12.5`, `0.25`.
fn trim_number(v: f64) -> String {
    let text = format!("{v:.3}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".to_string()
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hit_testing_splits_the_plot_into_slots() {
        let layout = BarLayout { left: 50.0, right: 150.0, top: 0.0, bottom: 100.0, count: 10 };
        assert_eq!(layout.bar_at(49.9), None);
        assert_eq!(layout.bar_at(50.0), Some(0));
        assert_eq!(layout.bar_at(59.9), Some(0));
        assert_eq!(layout.bar_at(60.0), Some(1));
        assert_eq!(layout.bar_at(149.9), Some(9));
        assert_eq!(layout.bar_at(150.0), None);
        let empty = BarLayout { count: 0, ..layout };
        assert_eq!(empty.bar_at(60.0), None);
    }

    #[test]
    fn a_column_of_many_bars_shows_its_tallest() {
        // Seven bars over three columns: bars 0-2, 3-4 and 5-6.
        let totals = [1.0, 5.0, 2.0, 4.0, 4.0, 0.0, 3.0];
        assert_eq!(tallest_per_column(&totals, 3), vec![(0, 3, 1), (3, 5, 3), (5, 7, 6)]);
        // Every bar is in exactly one column, columns in order.
        let many: Vec<f64> = (0..3498).map(|i| (i % 17) as f64).collect();
        let groups = tallest_per_column(&many, 1000);
        assert_eq!(groups.len(), 1000);
        assert_eq!(groups.first().map(|g| g.0), Some(0));
        assert_eq!(groups.last().map(|g| g.1), Some(3498));
        assert!(groups.windows(2).all(|w| w[0].1 == w[1].0));
        assert!(groups
            .iter()
            .all(|&(first, end, tallest)| (first..end).contains(&tallest)
                && (first..end).all(|i| many[i] <= many[tallest])));
    }

    #[test]
    fn axis_maxima_are_round() {
        assert_eq!(nice_ceiling(126.5), 150.0);
        assert_eq!(nice_ceiling(0.0), 1.0);
        assert_eq!(nice_ceiling(2.2), 2.5);
        assert_eq!(nice_ceiling(100.0), 100.0);
        assert_eq!(nice_ceiling(f64::NAN), 1.0);
        assert_eq!(trim_number(12.5), "12.5");
        assert_eq!(trim_number(250.0), "250");
    }
}
