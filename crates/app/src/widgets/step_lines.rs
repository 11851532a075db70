//! A step chart of a few time series drawn as SVG: each series a line that
//! holds its value until the next point (a counter's time series), the
//! area under it tinted. Labels and the legend are text, never HTML.

use leptos::prelude::*;

use crate::widgets::chart::{css_color, PALETTE};
use crate::widgets::chart_frame::{ChartData, ChartFrame, ChartText};
use crate::widgets::fmt;

/// One series: its label and its points (x in ms, y), x ascending.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub label: String,
    pub points: Vec<(f64, f64)>,
}

const WIDTH: f64 = 800.0;
const HEIGHT: f64 = 220.0;
const LEFT: f64 = 56.0;
const BOTTOM: f64 = 24.0;
const TOP: f64 = 8.0;

/// The SVG `points` of a step line scaled into the plot.
pub fn step_path(points: &[(f64, f64)], x: (f64, f64), y_max: f64) -> String {
    let sx = |v: f64| LEFT + (v - x.0) / (x.1 - x.0).max(f64::MIN_POSITIVE) * (WIDTH - LEFT - 4.0);
    let sy = |v: f64| TOP + (1.0 - v / y_max.max(f64::MIN_POSITIVE)) * (HEIGHT - TOP - BOTTOM);
    let mut out = String::new();
    let mut last: Option<f64> = None;
    for &(px, py) in points {
        if let Some(prev) = last {
            out.push_str(&format!("{:.1},{:.1} ", sx(px), sy(prev)));
        }
        out.push_str(&format!("{:.1},{:.1} ", sx(px), sy(py)));
        last = Some(py);
    }
    out.trim_end().to_string()
}

/// At most this many points in the chart's data table.
const DATA_TABLE_ROWS: usize = 500;

/// The series' points for the chart's "Data table", series after series.
fn series_data(series: &[Series], y_label: &str) -> ChartData {
    let rows = series
        .iter()
        .flat_map(|s| s.points.iter().map(move |&(x, y)| vec![s.label.clone(), fmt::decimal(x, 3), fmt::decimal(y, 2)]))
        .take(DATA_TABLE_ROWS)
        .collect();
    ChartData { headers: vec!["Series".into(), "Time (ms)".into(), y_label.to_string()], rows }
}

/// The chart: `id` names the figure, `y_label` the value's unit.
#[component]
pub fn StepLines(id: String, caption: String, y_label: &'static str, series: Vec<Series>) -> impl IntoView {
    let all = series.iter().flat_map(|s| s.points.iter());
    let (x0, x1, y1) =
        all.fold((f64::INFINITY, f64::NEG_INFINITY, 0.0f64), |(a, b, c), &(x, y)| (a.min(x), b.max(x), c.max(y)));
    let x = if x0.is_finite() { (x0, x1.max(x0 + 1e-9)) } else { (0.0, 1.0) };
    let y_max = crate::widgets::chart::nice_ceiling(y1.max(1e-9));
    let lines = series
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let color = css_color(PALETTE[i % PALETTE.len()]);
            view! {
                <polyline
                    points=step_path(&s.points, x, y_max)
                    fill="none"
                    stroke=color
                    stroke-width="1.5"
                    data-series=s.label.clone()
                ></polyline>
            }
        })
        .collect_view();
    let legend = series
        .iter()
        .enumerate()
        .map(|(i, s)| {
            view! {
                <li>
                    <span class="swatch" style:background-color=css_color(PALETTE[i % PALETTE.len()])></span>
                    {s.label.clone()}
                </li>
            }
        })
        .collect_view();
    let axis = format!("{} ms → {} ms", fmt::decimal(x.0, 1), fmt::decimal(x.1, 1));
    let data = series_data(&series, y_label);
    let chart_name = id.clone();
    view! {
        <figure id=id class="step-lines">
            <figcaption>{caption}</figcaption>
            <ChartFrame name=chart_name caption="" text=ChartText::Data(data)>
            <svg viewBox=format!("0 0 {WIDTH} {HEIGHT}") role="img" aria-label=y_label preserveAspectRatio="none">
                <line class="axis" x1=LEFT y1=TOP x2=LEFT y2=HEIGHT - BOTTOM></line>
                <line class="axis" x1=LEFT y1=HEIGHT - BOTTOM x2=WIDTH y2=HEIGHT - BOTTOM></line>
                <text x="4" y=TOP + 10.0 font-size="11">{fmt::decimal(y_max, if y_max.fract() == 0.0 { 0 } else { 2 })}</text>
                <text x="4" y=HEIGHT - BOTTOM font-size="11">"0"</text>
                <text x=LEFT y=HEIGHT - 6.0 font-size="11">{axis}</text>
                {lines}
            </svg>
            <p class="axis-label">{y_label}</p>
            <ul class="legend">{legend}</ul>
            </ChartFrame>
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_hold_their_value() {
        // Two points: the line goes right at the first value, then up.
        let path = step_path(&[(0.0, 0.0), (1.0, 1.0)], (0.0, 1.0), 1.0);
        assert_eq!(path, "56.0,196.0 796.0,196.0 796.0,8.0");
    }
}
