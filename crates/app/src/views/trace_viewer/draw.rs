//! Drawing a frame on `<canvas id="trace-canvas">`. Boxes, bands and grid
//! lines are written into a pixel buffer in wasm memory and put on the
//! canvas at once (one call however many boxes); text, the ruler, outlines
//! and flow arrows are drawn on top with Canvas 2D. Names are drawn as
//! canvas text, never as HTML. Everything is sized in CSS pixels times the
//! device pixel ratio, so it stays sharp.

use wasm_bindgen::{Clamped, JsValue};
use web_sys::{CanvasRenderingContext2d, ImageData};

use super::model::{
    format_duration, format_tick, muted, tick_step, TrackRow, View, GUTTER_W, ROW_H, RULER_H, SECTION_H, TRACK_GAP,
};
use super::surface::{Drawn, Surface};
use super::viewer::Viewer;
use crate::theme::TraceColors;

/// The range's and the mark's chips keep their colours (white text on them)
/// in both themes.
const ACCENT: &str = "#0b5cad";
const FONT: &str = "11px system-ui, sans-serif";
const FONT_BOLD: &str = "600 12px system-ui, sans-serif";
/// Narrowest box (CSS pixels) that gets its name written in it.
const LABEL_MIN_W: f64 = 28.0;
/// Narrowest box the test hook offers to click.
const CLICKABLE_MIN_W: f64 = 6.0;
const MAX_CLICKABLE: usize = 20_000;

fn darker(c: [u8; 3]) -> [u8; 3] {
    c.map(|v| (u16::from(v) * 4 / 5) as u8)
}

/// Draws the frame; the number of boxes drawn.
pub fn frame(v: &mut Viewer) -> Result<usize, JsValue> {
    let ratio = web_sys::window().map(|w| w.device_pixel_ratio()).filter(|r| *r > 0.0).unwrap_or(1.0);
    let (css_w, css_h) = (f64::from(v.canvas.client_width()), f64::from(v.canvas.client_height()));
    if css_w < GUTTER_W + 10.0 || css_h < RULER_H + 10.0 {
        return Ok(0);
    }
    let (dw, dh) = ((css_w * ratio).round() as u32, (css_h * ratio).round() as u32);
    if v.canvas.width() != dw || v.canvas.height() != dh {
        v.canvas.set_width(dw);
        v.canvas.set_height(dh);
    }
    if v.size != (css_w, css_h) {
        v.size = (css_w, css_h);
        // A taller or shorter canvas may leave the scroll out of range.
        v.clamp_scroll();
    }
    v.surface.resize(dw, dh);
    let dev = |c: f64| (c * ratio).round() as i64;
    let width = v.timeline_width();
    let view = v.view;
    let ppp = view.ps_per_px(width);
    let x_of = |t: f64| GUTTER_W + (t - view.start) / ppp;
    let scroll = v.scroll_y;
    // Pinned tracks fill a band under the ruler; the others scroll below it.
    let stop = v.scroll_top();
    let y_of = |content_y: f64| stop + content_y - scroll;
    // A track's top and the band of the canvas it may draw in.
    let place = |row: &TrackRow| match row.pinned {
        true => (RULER_H + row.y, RULER_H, stop),
        false => (y_of(row.y), stop, css_h),
    };

    let c = crate::theme::trace_colors();
    v.surface.clear(c.background);
    // Grid lines at the ruler's ticks.
    let step = tick_step(ppp, 90.0);
    let first = (view.start / step).ceil() as i64;
    let last = (view.end / step).floor() as i64;
    for k in first..=last.min(first + 200) {
        let x = dev(x_of(k as f64 * step));
        v.surface.fill(x, dev(RULER_H), x + 1, i64::from(dh), c.grid);
    }
    // Section headers, gutters and track separators.
    for s in &v.rows.sections {
        let y = y_of(s.y);
        if y + SECTION_H >= stop && y <= css_h {
            v.surface.fill(0, dev(y.max(stop)), i64::from(dw), dev(y + SECTION_H), c.header);
        }
    }
    for row in v.rows.tracks.iter().flatten() {
        let (y, lo, hi) = place(row);
        if y + row.height >= lo && y <= hi {
            v.surface.fill(0, dev(y.max(lo)), dev(GUTTER_W), dev((y + row.height).min(hi)), c.gutter);
            let bottom = dev(y + row.height) - 1;
            if y + row.height <= hi {
                v.surface.fill(0, bottom, i64::from(dw), bottom + 1, c.line);
            }
        }
    }
    v.surface.fill(dev(GUTTER_W) - 1, dev(RULER_H), dev(GUTTER_W), i64::from(dh), c.line);

    // Boxes.
    let mut labels: Vec<(f64, f64, f64, u32)> = Vec::new();
    v.drawn.clear();
    let mut count = 0usize;
    if let Some(data) = &v.data {
        for (&track, boxes) in &data.tracks {
            let Some(Some(row)) = v.rows.tracks.get(track as usize) else { continue };
            let (top, lo, hi) = place(row);
            if top + row.height < lo || top > hi {
                continue;
            }
            for b in boxes {
                let y = top + f64::from(b.depth) * ROW_H;
                if y + ROW_H < lo || y > hi {
                    continue;
                }
                let (x0, x1) = (x_of(b.start_ps as f64), x_of(b.end_ps as f64));
                if x1 < GUTTER_W || x0 > css_w {
                    continue;
                }
                let (cx0, cx1) = (x0.max(GUTTER_W), x1.min(css_w));
                let dx0 = dev(cx0);
                let dx1 = dev(cx1).max(dx0 + 1);
                let color = data.colors.get(b.name as usize).copied().unwrap_or([200, 200, 200]);
                let (dy0, dy1) = (dev(y.max(lo)), dev((y + ROW_H - 1.0).min(hi)));
                let whole = y >= lo && y + ROW_H <= hi;
                if b.merged > 1 {
                    let faded = muted(color);
                    v.surface.fill_with(dx0, dy0, dx1, dy1, faded, Some(darker(faded)));
                } else {
                    v.surface.fill(dx0, dy0, dx1, dy1, color);
                    if cx1 - cx0 >= LABEL_MIN_W && whole {
                        labels.push((cx0, cx1, y, b.name));
                    }
                    if cx1 - cx0 >= CLICKABLE_MIN_W && v.drawn.len() < MAX_CLICKABLE && whole {
                        v.drawn.push(Drawn { x: cx0, y, w: cx1 - cx0, track, event: b.event, name: b.name });
                    }
                }
                count += 1;
            }
        }
    }
    count += super::draw_counter::areas(v, &c, ratio, css_h);
    if stop > RULER_H {
        v.surface.fill(0, dev(stop) - 1, i64::from(dw), dev(stop) + 1, c.line);
    }
    // Bands: the selected range and the mark.
    let band = |surface: &mut Surface, (a, b): (f64, f64), c: [u8; 3]| {
        let (x0, x1) = (x_of(a).max(GUTTER_W), x_of(b).min(css_w));
        if x1 >= x0 {
            let (dx0, dx1) = (dev(x0), dev(x1).max(dev(x0) + 1));
            blend(surface, dx0, dev(RULER_H), dx1, i64::from(dh), c, 0.16);
            surface.fill(dx0, dev(RULER_H), dx0 + 1, i64::from(dh), c);
            surface.fill(dx1 - 1, dev(RULER_H), dx1, i64::from(dh), c);
        }
    };
    if let Some(m) = v.mark {
        band(&mut v.surface, m, [230, 159, 0]);
    }
    if let Some(r) = v.range {
        band(&mut v.surface, r, [11, 92, 173]);
    }

    let image = ImageData::new_with_u8_clamped_array_and_sh(Clamped(&v.surface.pixels), dw, dh)?;
    let ctx = v.ctx.clone();
    ctx.put_image_data(&image, 0.0, 0.0)?;
    ctx.set_transform(ratio, 0.0, 0.0, ratio, 0.0, 0.0)?;

    // Names in the boxes.
    ctx.set_font(FONT);
    ctx.set_text_baseline("middle");
    ctx.set_fill_style_str(&c.slice_text);
    if let Some(data) = v.data.as_mut() {
        for (x0, x1, y, name) in labels {
            let (Some(text), Some(measured)) = (data.names.get(name as usize), data.widths.get_mut(name as usize))
            else {
                continue;
            };
            if measured.is_nan() {
                *measured = ctx.measure_text(text).map(|m| m.width()).unwrap_or(0.0);
            }
            if let Some(shown) = fit_text(text, *measured, x1 - x0 - 6.0) {
                ctx.fill_text(&shown, x0 + 3.0, y + ROW_H / 2.0 - 0.5)?;
            }
        }
    }
    gutter(v, &ctx, &c, css_h)?;
    super::draw_counter::axis_labels(v, &ctx, &c, css_h)?;
    v.flags_drawn = super::stragglers::draw_flags(v, &ctx, css_w, css_h)?;
    overlays(v, &ctx, &c, css_w, css_h)?;
    ruler(v, &ctx, &c, css_w, step)?;
    scrollbar(v, &ctx, &c, css_w, css_h);
    super::track_control::draw_marks(v, &ctx, &c)?;
    Ok(count)
}

/// Blends `c` over a rectangle of the buffer with opacity `alpha`.
fn blend(s: &mut Surface, x0: i64, y0: i64, x1: i64, y1: i64, c: [u8; 3], alpha: f64) {
    let (w, h) = (i64::from(s.width), i64::from(s.height));
    let (x0, x1) = (x0.clamp(0, w) as usize, x1.clamp(0, w) as usize);
    let (y0, y1) = (y0.clamp(0, h) as usize, y1.clamp(0, h) as usize);
    let a = (alpha * 256.0) as u32;
    let width = s.width as usize;
    for y in y0..y1 {
        for px in s.pixels[(y * width + x0) * 4..(y * width + x1) * 4].chunks_exact_mut(4) {
            for k in 0..3 {
                px[k] = ((u32::from(px[k]) * (256 - a) + u32::from(c[k]) * a) >> 8) as u8;
            }
        }
    }
}

/// `text` cut to `avail` CSS pixels with an ellipsis, given its full width;
/// `None` when not even a letter fits.
pub fn fit_text(text: &str, full: f64, avail: f64) -> Option<String> {
    if avail <= 0.0 || text.is_empty() {
        return None;
    }
    if full <= avail {
        return Some(text.to_string());
    }
    let chars = text.chars().count();
    let per_char = full / chars.max(1) as f64;
    let keep = ((avail - per_char) / per_char).floor();
    if keep < 1.0 {
        return None;
    }
    let mut out: String = text.chars().take(keep as usize).collect();
    out.push('…');
    Some(out)
}

/// Section headers and track names.
fn gutter(v: &mut Viewer, ctx: &CanvasRenderingContext2d, c: &TraceColors, css_h: f64) -> Result<(), JsValue> {
    let scroll = v.scroll_y;
    let stop = v.scroll_top();
    for row in &v.rows.sections {
        let y = stop + row.y - scroll;
        if y < stop || y > css_h {
            continue;
        }
        section_title(v, ctx, c, row.index, y)?;
    }
    ctx.set_font(FONT);
    ctx.set_fill_style_str(&c.muted);
    let sticky = v.sticky_section();
    // Track names stay in view while their track does, below a sticky header.
    let top = stop + sticky.map_or(0.0, |(_, y)| y - stop + SECTION_H).max(0.0);
    for pinned in [true, false] {
        let (top, bottom) = if pinned { (RULER_H, stop) } else { (top, css_h) };
        gutter_names(v, ctx, pinned, top, bottom)?;
    }
    if let Some((s, y)) = sticky {
        let [r, g, b] = c.header;
        ctx.set_fill_style_str(&format!("rgb({r}, {g}, {b})"));
        ctx.fill_rect(0.0, y, v.size.0, SECTION_H);
        ctx.set_fill_style_str(&c.ruler_edge);
        ctx.fill_rect(0.0, y + SECTION_H - 1.0, v.size.0, 1.0);
        section_title(v, ctx, c, s, y)?;
    }
    Ok(())
}

/// The names of the pinned or the scrolling tracks, within canvas heights `[top, bottom]`.
fn gutter_names(
    v: &mut Viewer,
    ctx: &CanvasRenderingContext2d,
    pinned: bool,
    top: f64,
    bottom: f64,
) -> Result<(), JsValue> {
    ctx.save();
    ctx.begin_path();
    ctx.rect(0.0, top, GUTTER_W, (bottom - top).max(0.0));
    ctx.clip();
    for section in &v.layout.sections {
        for track in &section.tracks {
            let Some(Some(row)) = v.rows.tracks.get(track.id as usize) else { continue };
            let y = v.track_top(row);
            if row.pinned != pinned || y + row.height < top || y > bottom {
                continue;
            }
            let Some(width) = v.gutter_widths.get_mut(track.id as usize) else { continue };
            if width.is_nan() {
                *width = ctx.measure_text(&track.name).map(|m| m.width()).unwrap_or(0.0);
            }
            if let Some(text) = fit_text(&track.name, *width, GUTTER_W - 16.0) {
                let label_y = y.max(top).min(y + row.height - TRACK_GAP - ROW_H);
                ctx.fill_text(&text, 10.0, label_y + ROW_H / 2.0)?;
            }
        }
    }
    ctx.restore();
    Ok(())
}

fn section_title(v: &Viewer, ctx: &CanvasRenderingContext2d, c: &TraceColors, s: usize, y: f64) -> Result<(), JsValue> {
    let (Some(section), Some(row)) = (v.layout.sections.get(s), v.rows.sections.iter().find(|r| r.index == s)) else {
        return Ok(());
    };
    let text = format!(
        "{} {}  ·  {}",
        if row.collapsed { "▸" } else { "▾" },
        section.name,
        crate::widgets::fmt::plural(section.tracks.len(), "track", "tracks")
    );
    ctx.set_font(FONT_BOLD);
    ctx.set_fill_style_str(&c.text);
    ctx.fill_text(&text, 8.0, y + SECTION_H / 2.0)?;
    ctx.set_font(FONT);
    Ok(())
}

/// Where an event sits on screen: (x0, x1, y) in CSS pixels, if its track is shown.
fn event_place(v: &Viewer, track: u32, depth: u16, start: f64, end: f64) -> Option<(f64, f64, f64)> {
    let row = v.rows.tracks.get(track as usize)?.as_ref()?;
    let width = v.timeline_width();
    let x0 = GUTTER_W + v.view.x(start, width);
    let x1 = GUTTER_W + v.view.x(end, width);
    Some((x0, x1.max(x0 + 1.0), v.track_top(row) + f64::from(depth) * ROW_H))
}

/// Selection outline, hover outline and flow arrows.
fn overlays(
    v: &Viewer,
    ctx: &CanvasRenderingContext2d,
    c: &TraceColors,
    css_w: f64,
    css_h: f64,
) -> Result<(), JsValue> {
    ctx.save();
    ctx.begin_path();
    ctx.rect(GUTTER_W, RULER_H, css_w - GUTTER_W, css_h - RULER_H);
    ctx.clip();
    // Hover.
    if let (Some((px, py)), None) = (v.pointer, v.drag) {
        if let Some(super::viewer::Pick::Box(track, b)) = v.hit_test(px, py) {
            if let Some((x0, x1, y)) = event_place(v, track, b.depth, b.start_ps as f64, b.end_ps as f64) {
                ctx.set_stroke_style_str(&c.hover);
                ctx.set_line_width(1.0);
                ctx.stroke_rect(
                    x0.max(GUTTER_W - 2.0) + 0.5,
                    y + 0.5,
                    (x1.min(css_w + 2.0) - x0.max(GUTTER_W - 2.0) - 1.0).max(1.0),
                    ROW_H - 2.0,
                );
            }
        }
    }
    // Flow arrows between the selected event and its linked events.
    if let Some(sel) = &v.selected {
        let from = event_place(v, sel.hit.track, sel.hit.depth, sel.hit.start_ps as f64, sel.hit.end_ps as f64);
        ctx.set_stroke_style_str(&c.flow);
        ctx.set_fill_style_str(&c.flow);
        ctx.set_line_width(1.2);
        for link in &v.links {
            let to = event_place(v, link.to.track, link.to.depth, link.to.start_ps as f64, link.to.end_ps as f64);
            let (Some(a), Some(b)) = (from, to) else { continue };
            // Arrows point from launcher to launched, producer to consumer, along flows.
            let outgoing = matches!(link.kind.as_str(), "launched" | "consumer") || link.kind.starts_with("flow to ");
            let (src, dst) = if outgoing { (a, b) } else { (b, a) };
            let (sx, sy) = (src.0, src.2 + ROW_H / 2.0);
            let (tx, ty) = (dst.0, dst.2 + ROW_H / 2.0);
            let bend = ((tx - sx).abs() / 2.0).clamp(20.0, 120.0);
            ctx.begin_path();
            ctx.move_to(sx, sy);
            ctx.bezier_curve_to(sx + bend, sy, tx - bend, ty, tx, ty);
            ctx.stroke();
            ctx.begin_path();
            ctx.move_to(tx, ty);
            ctx.line_to(tx - 7.0, ty - 3.5);
            ctx.line_to(tx - 7.0, ty + 3.5);
            ctx.close_path();
            ctx.fill();
        }
        if let Some((x0, x1, y)) = from {
            ctx.set_stroke_style_str(&c.selection);
            ctx.set_line_width(2.0);
            let (l, r) = (x0.max(GUTTER_W - 3.0), x1.min(css_w + 3.0));
            ctx.stroke_rect(l, y, (r - l).max(2.0), ROW_H - 1.0);
        }
    }
    ctx.restore();
    Ok(())
}

/// The time ruler: ticks with readable units, the visible duration, search
/// matches, and the durations of the range and the mark.
fn ruler(v: &Viewer, ctx: &CanvasRenderingContext2d, c: &TraceColors, css_w: f64, step: f64) -> Result<(), JsValue> {
    let width = v.timeline_width();
    let view = v.view;
    ctx.set_fill_style_str(&c.ruler);
    ctx.fill_rect(0.0, 0.0, css_w, RULER_H);
    ctx.set_fill_style_str(&c.ruler_edge);
    ctx.fill_rect(0.0, RULER_H - 1.0, css_w, 1.0);
    ctx.set_font(FONT);
    ctx.set_text_baseline("middle");
    ctx.set_fill_style_str(&c.muted);
    ctx.fill_text(&format!("{} shown", format_duration(view.duration())), 8.0, RULER_H / 2.0)?;
    let first = (view.start / step).ceil() as i64;
    let last = (view.end / step).floor() as i64;
    for k in first..=last.min(first + 200) {
        let t = k as f64 * step;
        let x = GUTTER_W + view.x(t, width);
        ctx.set_fill_style_str(&c.tick);
        ctx.fill_rect(x, RULER_H - 7.0, 1.0, 6.0);
        ctx.set_fill_style_str(&c.text);
        ctx.fill_text(&format_tick(t, step), x + 3.0, RULER_H / 2.0 - 2.0)?;
    }
    // Search matches on screen, one mark per pixel at most.
    if !v.hits.is_empty() {
        ctx.set_fill_style_str("#d55e00");
        let from = v.hits.partition_point(|h| (h.end_ps as f64) < view.start && (h.start_ps as f64) < view.start);
        let mut last_x = f64::NEG_INFINITY;
        for h in v.hits[from..].iter().take_while(|h| (h.start_ps as f64) <= view.end) {
            let x = (GUTTER_W + view.x(h.start_ps as f64, width)).floor();
            if x > last_x && x >= GUTTER_W {
                ctx.fill_rect(x, RULER_H - 5.0, 2.0, 4.0);
                last_x = x + 1.0;
            }
        }
    }
    for (span, color) in [(v.mark, "#9a6700"), (v.range, ACCENT)] {
        let Some((a, b)) = span else { continue };
        let (x0, x1) = (GUTTER_W + view.x(a, width), GUTTER_W + view.x(b, width));
        let label = format_duration(b - a);
        let w = ctx.measure_text(&label).map(|m| m.width()).unwrap_or(40.0) + 10.0;
        let x = ((x0 + x1) / 2.0 - w / 2.0).clamp(GUTTER_W, (css_w - w).max(GUTTER_W));
        ctx.set_fill_style_str(color);
        ctx.fill_rect(x, 3.0, w, RULER_H - 8.0);
        ctx.set_fill_style_str("#ffffff");
        ctx.fill_text(&label, x + 5.0, RULER_H / 2.0 - 1.5)?;
    }
    Ok(())
}

/// A thin bar at the right edge when the tracks are taller than the canvas.
fn scrollbar(v: &Viewer, ctx: &CanvasRenderingContext2d, c: &TraceColors, css_w: f64, css_h: f64) {
    let h = css_h - v.scroll_top();
    let content = v.rows.height;
    if content <= h + 0.5 {
        return;
    }
    let thumb = (h * h / content).max(20.0);
    let y = v.scroll_top() + (v.scroll_y / (content - h).max(1.0)) * (h - thumb);
    ctx.set_fill_style_str(&c.scrollbar);
    ctx.fill_rect(css_w - 6.0, y, 4.0, thumb);
}

/// The view that shows `b` whole, a little wider (for a merged box clicked).
pub fn view_of_box(start: f64, end: f64) -> View {
    let d = (end - start).max(1000.0);
    View { start: start - d * 0.05, end: end + d * 0.05 }
}

/// What the hover card says about the thing under the pointer.
pub fn describe(v: &Viewer, x: f64, y: f64) -> Option<super::viewer::Tooltip> {
    if let Some(card) = super::draw_counter::describe(v, x, y) {
        return Some(card);
    }
    let pick = v.hit_test(x, y)?;
    let super::viewer::Pick::Box(_, b) = pick else { return None };
    let name = v.box_name(&b).unwrap_or("").to_string();
    let duration = format_duration((b.end_ps - b.start_ps) as f64);
    let (name, detail) = if b.merged > 1 {
        (
            format!("{} events", crate::widgets::fmt::count(u64::from(b.merged))),
            format!("{duration} · zoom in to see them (click)"),
        )
    } else {
        (name, duration)
    };
    Some(super::viewer::Tooltip { x, y, flip: x > v.size.0 - 320.0, name, detail })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_fits_or_is_cut() {
        assert_eq!(fit_text("MatMul", 36.0, 40.0).as_deref(), Some("MatMul"));
        assert_eq!(fit_text("MatMul", 36.0, 30.0).as_deref(), Some("MatM…"));
        assert_eq!(fit_text("MatMul", 36.0, 8.0), None);
        assert_eq!(fit_text("ÄÖÜ€", 40.0, 25.0).as_deref(), Some("Ä…"));
    }

    #[test]
    fn surface_fills_clip() {
        let mut s = Surface::default();
        s.resize(4, 2);
        s.clear([0, 0, 0]);
        s.fill(-5, 1, 2, 9, [9, 8, 7]);
        assert_eq!(&s.pixels[16..20], &[9, 8, 7, 255]);
        assert_eq!(&s.pixels[24..28], &[0, 0, 0, 255]);
        assert_eq!(&s.pixels[0..4], &[0, 0, 0, 255]);
        s.fill(3, 0, 3, 2, [1, 1, 1]);
        assert_eq!(&s.pixels[12..16], &[0, 0, 0, 255], "empty rectangle");
    }
}
