//! The memory timeline drawn on its canvas with plotters, and where the
//! plot landed so that the hover card can map pixels back to time.

use plotters::prelude::*;
use proflens_analysis::tools::memory_profile::Snapshot;
use web_sys::HtmlCanvasElement;

use crate::widgets::chart;
use crate::widgets::fmt;
use crate::widgets::measure;

/// Series colours: stack, heap, free memory, fragmentation.
pub(super) const STACK: RGBColor = chart::PALETTE[1];
pub(super) const HEAP: RGBColor = chart::PALETTE[0];
pub(super) const FREE: RGBColor = RGBColor(200, 226, 200);
pub(super) const FRAGMENTATION: RGBColor = chart::PALETTE[7];

/// Where the timeline was drawn (CSS pixels) and the time range it spans (ps).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct TimelineLayout {
    pub(super) left: f64,
    pub(super) right: f64,
    pub(super) top: f64,
    pub(super) bottom: f64,
    pub(super) start_ps: f64,
    pub(super) end_ps: f64,
}

impl TimelineLayout {
    /// The time (ps) under `x` (CSS pixels), if `x` is over the plot.
    pub(super) fn time_at(&self, x: f64) -> Option<f64> {
        let width = self.right - self.left;
        if width <= 0.0 || x < self.left || x > self.right {
            return None;
        }
        Some(self.start_ps + (x - self.left) / width * (self.end_ps - self.start_ps))
    }

    pub(super) fn x_of(&self, ps: f64) -> f64 {
        let span = self.end_ps - self.start_ps;
        if span <= 0.0 {
            return self.left;
        }
        self.left + (ps - self.start_ps) / span * (self.right - self.left)
    }
}

pub(super) fn in_use(s: &Snapshot) -> i64 {
    s.stats.stack_reserved_bytes.saturating_add(s.stats.heap_allocated_bytes)
}

fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// A value that holds from each point until the next: the corners of its steps.
fn steps(points: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let mut out = Vec::with_capacity(points.len() * 2);
    for (i, &(x, y)) in points.iter().enumerate() {
        if i > 0 {
            out.push((x, points[i - 1].1));
        }
        out.push((x, y));
    }
    out
}

/// Draws stack, heap (and free memory) stacked over time and fragmentation
/// on a right axis; returns where the plot is.
pub(super) fn draw_timeline(
    canvas: &HtmlCanvasElement,
    timeline: &[Snapshot],
    show_free: bool,
) -> Result<TimelineLayout, String> {
    let (backend, ratio) = chart::backend(canvas)?;
    let px = |css: f64| (css * ratio).round() as u32;
    let root = backend.into_drawing_area();
    let ink = crate::theme::chart_colors();
    root.fill(&ink.background).map_err(|e| e.to_string())?;

    let start = timeline.first().map_or(0.0, |s| s.time_offset_ps as f64);
    let mut end = timeline.last().map_or(0.0, |s| s.time_offset_ps as f64);
    if end <= start {
        end = start + 1e9;
    }
    let top_of = |s: &Snapshot| {
        let used = in_use(s) as f64;
        if show_free {
            used + s.stats.free_memory_bytes as f64
        } else {
            used
        }
    };
    let highest = timeline.iter().map(top_of).filter(|v| v.is_finite()).fold(0.0, f64::max);
    let (unit, unit_name) = measure::byte_unit(highest);
    let y_max = chart::nice_ceiling(highest / unit);
    // Time in ms on the axis.
    let (x0, x1) = (start / 1e9, end / 1e9);
    let font = ("sans-serif", 12.0 * ratio).into_font().color(&ink.text);
    let mut chart = ChartBuilder::on(&root)
        .margin_top(px(10.0))
        .margin_right(px(8.0))
        .x_label_area_size(px(34.0))
        .y_label_area_size(px(64.0))
        .right_y_label_area_size(px(56.0))
        .build_cartesian_2d(x0..x1, 0.0..y_max)
        .map_err(err)?
        .set_secondary_coord(x0..x1, 0.0..100.0);
    let time_label = |v: &f64| fmt::decimal(*v, if (x1 - x0) < 10.0 { 2 } else { 0 });
    chart
        .configure_mesh()
        .x_labels(8)
        .y_labels(6)
        .x_label_formatter(&time_label)
        .y_label_formatter(&|v: &f64| fmt::decimal(*v, if y_max < 10.0 { 1 } else { 0 }))
        .x_desc("Time (ms)")
        .y_desc(format!("Memory ({unit_name})"))
        .label_style(font.clone())
        .axis_desc_style(font.clone())
        .light_line_style(TRANSPARENT)
        .bold_line_style(ink.grid)
        .axis_style(ink.axis)
        .set_all_tick_mark_size(px(4.0))
        .draw()
        .map_err(err)?;
    chart
        .configure_secondary_axes()
        .y_labels(6)
        .y_label_formatter(&|v: &f64| format!("{v:.0}%"))
        .y_desc("Fragmentation (%)")
        .label_style(font.clone())
        .axis_desc_style(font)
        .axis_style(ink.axis)
        .draw()
        .map_err(err)?;

    let series = |value: &dyn Fn(&Snapshot) -> f64| -> Vec<(f64, f64)> {
        steps(&timeline.iter().map(|s| (s.time_offset_ps as f64 / 1e9, value(s))).collect::<Vec<_>>())
    };
    let area = |top: Vec<(f64, f64)>| -> Vec<(f64, f64)> {
        let mut polygon = top;
        if let (Some(&(first, _)), Some(&(last, _))) = (polygon.first(), polygon.last()) {
            polygon.push((last, 0.0));
            polygon.push((first, 0.0));
        }
        polygon
    };
    if show_free {
        let free = series(&|s| (in_use(s) as f64 + s.stats.free_memory_bytes as f64) / unit);
        chart.draw_series(std::iter::once(Polygon::new(area(free), FREE.filled()))).map_err(err)?;
    }
    let heap = series(&|s| in_use(s) as f64 / unit);
    chart.draw_series(std::iter::once(Polygon::new(area(heap.clone()), HEAP.mix(0.75).filled()))).map_err(err)?;
    chart.draw_series(std::iter::once(PathElement::new(heap, HEAP.stroke_width(px(1.5).max(1))))).map_err(err)?;
    let stack = series(&|s| s.stats.stack_reserved_bytes as f64 / unit);
    if stack.iter().any(|&(_, v)| v > 0.0) {
        chart.draw_series(std::iter::once(Polygon::new(area(stack), STACK.mix(0.85).filled()))).map_err(err)?;
    }
    let fragmentation = series(&|s| {
        let f = s.stats.fragmentation;
        if f.is_finite() {
            (f * 100.0).clamp(0.0, 100.0)
        } else {
            0.0
        }
    });
    chart
        .draw_secondary_series(std::iter::once(PathElement::new(
            fragmentation,
            FRAGMENTATION.stroke_width(px(1.5).max(1)),
        )))
        .map_err(err)?;
    let (xs, ys) = chart.plotting_area().get_pixel_range();
    root.present().map_err(|e| e.to_string())?;
    Ok(TimelineLayout {
        left: xs.start as f64 / ratio,
        right: xs.end as f64 / ratio,
        top: ys.start as f64 / ratio,
        bottom: ys.end as f64 / ratio,
        start_ps: start,
        end_ps: end,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_hold_until_the_next_event() {
        assert_eq!(
            steps(&[(0.0, 1.0), (1.0, 3.0), (2.0, 2.0)]),
            vec![(0.0, 1.0), (1.0, 1.0), (1.0, 3.0), (2.0, 3.0), (2.0, 2.0)]
        );
        assert!(steps(&[]).is_empty());
    }
}
