//! Counter tracks as area charts: each sample's value holds until the next
//! one, filled from the track's floor up to the value on a linear axis from
//! 0 to the counter's largest value (written in the gutter). The worker sends
//! at most a few samples per pixel ([`visible_samples`]), so a frame's work
//! is bounded by the width, never by the number of samples. The hover card
//! gives the value at the pointer.
//!
//! [`visible_samples`]: proflens_analysis::passes::trace::counters::visible_samples

use wasm_bindgen::JsValue;
use web_sys::CanvasRenderingContext2d;

use proflens_analysis::passes::trace::counters::Sample;
use proflens_analysis::tools::trace_viewer::{CounterLayout, TrackLayout};

use super::model::{format_duration, RowHit, TrackRow, GUTTER_W, RULER_H, TRACK_GAP};
use super::surface::Surface;
use super::viewer::{Tooltip, Viewer};
use crate::theme::TraceColors;

/// Room above the tallest value, CSS pixels.
const HEADROOM: f64 = 3.0;

/// The counter tracks of the layout with their axis.
fn counters(v: &Viewer) -> impl Iterator<Item = (&TrackLayout, &CounterLayout)> {
    v.layout.sections.iter().flat_map(|s| &s.tracks).filter_map(|t| Some((t, t.counter.as_ref()?)))
}

/// The area colour: the accent, lightened towards the background.
fn area_color(c: &TraceColors) -> [u8; 3] {
    let [r, g, b] = c.counter;
    let [br, bg, bb] = c.background;
    let mix = |a: u8, z: u8| ((u16::from(a) * 3 + u16::from(z) * 2) / 5) as u8;
    [mix(r, br), mix(g, bg), mix(b, bb)]
}

/// Fills the counters' areas into the frame's pixels (device pixels: `dev`
/// converts CSS pixels); the number of samples drawn.
pub fn areas(v: &mut Viewer, c: &TraceColors, ratio: f64, css_h: f64) -> usize {
    let dev = |x: f64| (x * ratio).round() as i64;
    let (width, view) = (v.timeline_width(), v.view);
    let css_w = v.size.0;
    let ppp = view.ps_per_px(width);
    let x_of = |t: f64| GUTTER_W + (t - view.start) / ppp;
    let (fill, edge) = (area_color(c), c.counter);
    let mut drawn = 0;
    let places: Vec<Option<(f64, f64, f64)>> =
        v.rows.tracks.iter().map(|row| row.as_ref().map(|row| place(v, row, css_h))).collect();
    let Some(data) = v.data.as_ref() else { return 0 };
    let surface: &mut Surface = &mut v.surface;
    for (track, axis) in v.layout.sections.iter().flat_map(|s| &s.tracks).filter_map(|t| Some((t, t.counter.as_ref()?)))
    {
        let (Some(Some((top, clip_top, clip_bottom))), Some(samples)) =
            (places.get(track.id as usize), data.counters.get(&track.id))
        else {
            continue;
        };
        let (top, floor) = (*top, top + v.rows.tracks[track.id as usize].map_or(0.0, |r| r.height) - TRACK_GAP);
        if floor < *clip_top || top > *clip_bottom {
            continue;
        }
        let chart_h = (floor - top - HEADROOM).max(1.0);
        let max = if axis.max > 0.0 { axis.max } else { 1.0 };
        let (clip_top, floor) = (dev(top.max(*clip_top)), floor.min(*clip_bottom));
        for (k, s) in samples.iter().enumerate() {
            let x0 = x_of(s.time_ps as f64).max(GUTTER_W);
            // The value holds until the next sample; the last one ends the series.
            let x1 = samples.get(k + 1).map_or(x0 + 1.0, |n| x_of(n.time_ps as f64)).min(css_w);
            if x1 < GUTTER_W || x0 > css_w || !s.value.is_finite() {
                continue;
            }
            let h = (s.value.max(0.0) / max).min(1.0) * chart_h;
            let (dx0, dx1) = (dev(x0), dev(x1).max(dev(x0) + 1));
            let y = dev(floor - h).max(clip_top);
            if y >= dev(floor) {
                continue;
            }
            surface.fill(dx0, y, dx1, dev(floor), fill);
            if h > 0.0 {
                surface.fill(dx0, y, dx1, (y + dev(1.0).max(1)).min(dev(floor)), edge);
            }
            drawn += 1;
        }
    }
    drawn
}

/// Where a track's chart sits: its top, and the band it may be drawn in
/// (pinned tracks under the ruler, the others below the pinned band).
fn place(v: &Viewer, row: &TrackRow, css_h: f64) -> (f64, f64, f64) {
    match row.pinned {
        true => (v.track_top(row), RULER_H, v.scroll_top()),
        false => (v.track_top(row), v.scroll_top(), css_h),
    }
}

/// The axis top of each counter in the gutter, right-aligned.
pub fn axis_labels(v: &Viewer, ctx: &CanvasRenderingContext2d, c: &TraceColors, css_h: f64) -> Result<(), JsValue> {
    ctx.save();
    ctx.set_text_align("right");
    ctx.set_fill_style_str(&c.muted);
    for (track, axis) in counters(v) {
        let Some(Some(row)) = v.rows.tracks.get(track.id as usize) else { continue };
        let (top, clip_top, clip_bottom) = place(v, row, css_h);
        let floor = top + row.height - TRACK_GAP;
        if floor < clip_top || floor > clip_bottom {
            continue;
        }
        ctx.fill_text(&format_value(axis.max, &axis.unit), GUTTER_W - 6.0, floor - 6.0)?;
    }
    ctx.restore();
    Ok(())
}

/// The hover card over a counter track: its value at the pointer.
pub fn describe(v: &Viewer, x: f64, y: f64) -> Option<Tooltip> {
    if x < GUTTER_W || y < RULER_H {
        return None;
    }
    let hit = if y < v.scroll_top() { v.rows.pinned_at(y - RULER_H) } else { v.rows.at(v.content_y(y)) };
    let RowHit::Track(id, _) = hit? else { return None };
    let (track, axis) = counters(v).find(|(t, _)| t.id == id)?;
    let t = v.view.t(x - GUTTER_W, v.timeline_width());
    let sample = value_at(v.data.as_ref()?.counters.get(&id)?, t)?;
    Some(Tooltip {
        x,
        y,
        flip: x > v.size.0 - 320.0,
        name: track.name.clone(),
        detail: format!("{} at {}", format_value(sample.value, &axis.unit), format_duration(t)),
    })
}

/// For the test hook: the counter tracks shown, as `{track, name, unit, max,
/// samples, left, right, top, bottom}` (the chart's box in client coordinates;
/// `samples`: how many the last window answer brought).
pub fn tracks_for_tests(v: &Viewer) -> JsValue {
    let rect = v.canvas.get_bounding_client_rect();
    let out = js_sys::Array::new();
    for (track, axis) in counters(v) {
        let Some(Some(row)) = v.rows.tracks.get(track.id as usize) else { continue };
        let top = v.track_top(row);
        let samples = v.data.as_ref().and_then(|d| d.counters.get(&track.id)).map_or(0, Vec::len);
        let o = js_sys::Object::new();
        for (key, value) in [
            ("track", JsValue::from_f64(f64::from(track.id))),
            ("name", JsValue::from_str(&track.name)),
            ("unit", JsValue::from_str(&axis.unit)),
            ("max", JsValue::from_f64(axis.max)),
            ("samples", JsValue::from_f64(samples as f64)),
            ("left", JsValue::from_f64(rect.left() + GUTTER_W)),
            ("right", JsValue::from_f64(rect.left() + v.size.0)),
            ("top", JsValue::from_f64(rect.top() + top)),
            ("bottom", JsValue::from_f64(rect.top() + top + row.height - TRACK_GAP)),
        ] {
            let _ = js_sys::Reflect::set(&o, &JsValue::from_str(key), &value);
        }
        out.push(&o);
    }
    out.into()
}

/// The sample holding at time `t` (the last one at or before it).
pub fn value_at(samples: &[Sample], t: f64) -> Option<Sample> {
    let n = samples.partition_point(|s| (s.time_ps as f64) <= t);
    n.checked_sub(1).map(|i| samples[i])
}

/// A counter value for people: bytes in binary units, anything else with
/// three significant digits and its unit.
pub fn format_value(v: f64, unit: &str) -> String {
    if !v.is_finite() {
        return "—".to_string();
    }
    let (scaled, unit) = if unit == "B" {
        const BINARY: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
        let mut k = 0;
        let mut s = v;
        while s.abs() >= 1024.0 && k + 1 < BINARY.len() {
            s /= 1024.0;
            k += 1;
        }
        (s, BINARY[k].to_string())
    } else {
        (v, unit.to_string())
    };
    let digits = if scaled.abs() >= 100.0 || scaled.fract() == 0.0 {
        0
    } else if scaled.abs() >= 10.0 {
        1
    } else {
        2
    };
    let text = format!("{scaled:.digits$}");
    if unit.is_empty() {
        text
    } else {
        format!("{text} {unit}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_read_in_their_units() {
        assert_eq!(format_value(512.0, "B"), "512 B");
        assert_eq!(format_value(1536.0, "B"), "1.50 KiB");
        assert_eq!(format_value(3.0 * 1024.0 * 1024.0 * 1024.0, "B"), "3 GiB");
        assert_eq!(format_value(45.0, "%"), "45 %");
        assert_eq!(format_value(250.25, "W"), "250 W");
        assert_eq!(format_value(0.5, ""), "0.50");
    }

    #[test]
    fn the_value_at_a_time_is_the_last_sample_before_it() {
        let s = |time_ps, value| Sample { time_ps, value };
        let samples = [s(10, 1.0), s(20, 2.0), s(30, 3.0)];
        assert_eq!(value_at(&samples, 5.0), None);
        assert_eq!(value_at(&samples, 20.0).map(|x| x.value), Some(2.0));
        assert_eq!(value_at(&samples, 29.9).map(|x| x.value), Some(2.0));
        assert_eq!(value_at(&samples, 1e9).map(|x| x.value), Some(3.0));
    }
}
