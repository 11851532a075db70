//! The page's model of the timeline, free of web types: where sections and
//! tracks sit vertically, which time range is on screen and how it maps to
//! pixels, ruler ticks, colours, and when the boxes on hand no longer do.

use super::track_prefs::Arranged;
use crate::widgets::fmt;
use proflens_analysis::tools::trace_viewer::TraceLayout;

/// Heights and widths in CSS pixels.
pub const RULER_H: f64 = 26.0;
pub const GUTTER_W: f64 = 190.0;
pub const SECTION_H: f64 = 22.0;
pub const ROW_H: f64 = 17.0;
pub const TRACK_GAP: f64 = 5.0;
/// Shortest visible range, ps: ten picoseconds across the screen is plenty.
const MIN_RANGE_PS: f64 = 10.0;

/// A section header's place, in content coordinates (before scrolling).
#[derive(Debug, Clone, PartialEq)]
pub struct SectionRow {
    pub y: f64,
    pub collapsed: bool,
    /// The section's index in the layout (rows list sections in the user's order).
    pub index: usize,
}

/// A track's place; absent for tracks of collapsed, hidden or filtered-out
/// sections. Pinned tracks sit in the band under the ruler (`y` from its top).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrackRow {
    pub y: f64,
    pub height: f64,
    pub section: usize,
    pub pinned: bool,
}

/// Where everything sits vertically.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Rows {
    /// In the order shown.
    pub sections: Vec<SectionRow>,
    /// By track id.
    pub tracks: Vec<Option<TrackRow>>,
    /// Height of the scrolling content (without the pinned band).
    pub height: f64,
    /// Height of the pinned tracks' band.
    pub pinned_height: f64,
}

/// What is at a height of the content.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RowHit {
    /// The section's index in the layout.
    Section(usize),
    /// Track id and nesting depth.
    Track(u32, u16),
}

fn track_height(layout: &TraceLayout, id: u32) -> f64 {
    let rows = layout.sections.iter().flat_map(|s| &s.tracks).find(|t| t.id == id).map_or(1, |t| t.rows);
    f64::from(rows.max(1)) * ROW_H + TRACK_GAP
}

impl Rows {
    /// Every section and track in the layout's order (the viewer uses
    /// [`Rows::arranged`] with the user's prefs).
    #[cfg(test)]
    pub fn new(layout: &TraceLayout, collapsed: &[bool]) -> Rows {
        let keys = super::track_prefs::track_keys(layout);
        Rows::arranged(layout, collapsed, &super::track_prefs::TrackPrefs::default().arrange(layout, &keys))
    }

    /// Sections and tracks as the user arranged them (order, pins, hidden, filter).
    pub fn arranged(layout: &TraceLayout, collapsed: &[bool], arranged: &Arranged) -> Rows {
        let count: usize = layout.sections.iter().map(|s| s.tracks.len()).sum();
        let mut rows = Rows { sections: Vec::new(), tracks: vec![None; count], height: 0.0, pinned_height: 0.0 };
        let section_of = |id: u32| layout.sections.iter().position(|s| s.tracks.iter().any(|t| t.id == id));
        let mut y = 0.0;
        for &id in &arranged.pinned {
            let height = track_height(layout, id);
            if let (Some(slot), Some(section)) = (rows.tracks.get_mut(id as usize), section_of(id)) {
                *slot = Some(TrackRow { y, height, section, pinned: true });
                y += height;
            }
        }
        rows.pinned_height = y;
        let mut y = 0.0;
        for (s, tracks) in &arranged.sections {
            let is_collapsed = collapsed.get(*s).copied().unwrap_or(false);
            rows.sections.push(SectionRow { y, collapsed: is_collapsed, index: *s });
            y += SECTION_H;
            if is_collapsed {
                continue;
            }
            for &id in tracks {
                let height = track_height(layout, id);
                if let Some(slot) = rows.tracks.get_mut(id as usize) {
                    *slot = Some(TrackRow { y, height, section: *s, pinned: false });
                }
                y += height;
            }
        }
        rows.height = y;
        rows
    }

    /// The section header or track row at content height `y`.
    pub fn at(&self, y: f64) -> Option<RowHit> {
        if y < 0.0 || y >= self.height {
            return None;
        }
        // Headers first: they are few.
        let s = self.sections.partition_point(|r| r.y <= y).checked_sub(1)?;
        if y < self.sections[s].y + SECTION_H {
            return Some(RowHit::Section(self.sections[s].index));
        }
        self.track_at(y, false)
    }

    /// The pinned track at height `y` of the pinned band.
    pub fn pinned_at(&self, y: f64) -> Option<RowHit> {
        (y >= 0.0 && y < self.pinned_height).then(|| self.track_at(y, true))?
    }

    fn track_at(&self, y: f64, pinned: bool) -> Option<RowHit> {
        self.tracks.iter().enumerate().find_map(|(id, row)| {
            let row = row.as_ref().filter(|r| r.pinned == pinned)?;
            (y >= row.y && y < row.y + row.height).then(|| {
                let depth = ((y - row.y) / ROW_H).floor().clamp(0.0, f64::from(u16::MAX)) as u16;
                RowHit::Track(id as u32, depth)
            })
        })
    }

    /// The section (its place in [`Rows::sections`]) whose header or tracks
    /// are at content height `y`, and where it ends.
    pub fn section_at(&self, y: f64) -> Option<(usize, f64)> {
        let s = self.sections.partition_point(|r| r.y <= y).checked_sub(1)?;
        let end = self.sections.get(s + 1).map_or(self.height, |r| r.y);
        (y < end).then_some((s, end))
    }

    /// Scrolling tracks shown (not collapsed) that overlap content heights `[top, bottom]`.
    pub fn tracks_between(&self, top: f64, bottom: f64) -> Vec<u32> {
        let (top, bottom) = (top.min(bottom), top.max(bottom));
        self.tracks
            .iter()
            .enumerate()
            .filter_map(|(id, row)| {
                row.filter(|r| !r.pinned && r.y + r.height > top && r.y < bottom).map(|_| id as u32)
            })
            .collect()
    }

    /// Tracks in the pinned band.
    pub fn pinned(&self) -> Vec<u32> {
        self.tracks.iter().enumerate().filter_map(|(id, row)| row.filter(|r| r.pinned).map(|_| id as u32)).collect()
    }
}

/// The time range on screen, ps (as f64: exact up to 2^53 ps, 2.5 hours).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct View {
    pub start: f64,
    pub end: f64,
}

impl View {
    pub fn duration(&self) -> f64 {
        self.end - self.start
    }

    pub fn ps_per_px(&self, width: f64) -> f64 {
        self.duration() / width.max(1.0)
    }

    /// Pixels from the timeline's left edge.
    pub fn x(&self, t: f64, width: f64) -> f64 {
        (t - self.start) / self.ps_per_px(width)
    }

    pub fn t(&self, x: f64, width: f64) -> f64 {
        self.start + x * self.ps_per_px(width)
    }

    /// `factor` < 1 zooms in, keeping time `anchor` where it is.
    pub fn zoom(&self, factor: f64, anchor: f64) -> View {
        View { start: anchor - (anchor - self.start) * factor, end: anchor + (self.end - anchor) * factor }
    }

    pub fn pan(&self, dt: f64) -> View {
        View { start: self.start + dt, end: self.end + dt }
    }

    /// The whole of `span` with a little room on both sides.
    pub fn fit(start: f64, end: f64) -> View {
        let pad = ((end - start) * 0.04).max(MIN_RANGE_PS);
        View { start: start - pad, end: end + pad }
    }

    /// Keeps the view sensible for a trace over `span`: not narrower than
    /// a few ps, not much wider than the trace, and never far off it.
    pub fn clamp(self, span: (f64, f64)) -> View {
        let whole = (span.1 - span.0).max(MIN_RANGE_PS);
        let longest = whole * 1.5;
        let mut v = self;
        if !(v.start.is_finite() && v.end.is_finite()) || v.duration() <= 0.0 {
            return View::fit(span.0, span.1);
        }
        if v.duration() < MIN_RANGE_PS {
            let mid = (v.start + v.end) / 2.0;
            v = View { start: mid - MIN_RANGE_PS / 2.0, end: mid + MIN_RANGE_PS / 2.0 };
        }
        if v.duration() > longest {
            let mid = (v.start + v.end) / 2.0;
            v = View { start: mid - longest / 2.0, end: mid + longest / 2.0 };
        }
        // At least a fifth of the view stays on the trace.
        let keep = v.duration() * 0.2;
        if v.end < span.0 + keep {
            v = v.pan(span.0 + keep - v.end);
        }
        if v.start > span.1 - keep {
            v = v.pan(span.1 - keep - v.start);
        }
        v
    }
}

/// The range of boxes on hand, and what to ask for next.
#[derive(Debug, Clone, PartialEq)]
pub struct Coverage {
    pub start: f64,
    pub end: f64,
    pub ps_per_px: f64,
    /// Sorted track ids.
    pub tracks: Vec<u32>,
}

impl Coverage {
    /// Whether these boxes still draw `view` well: they cover it (as far as
    /// the trace goes), have every wanted track, and their merging suits the
    /// zoom level.
    pub fn serves(&self, view: View, width: f64, span: (f64, f64), wanted: &[u32]) -> bool {
        let need_start = view.start.max(span.0);
        let need_end = view.end.min(span.1);
        let covered = need_end <= need_start || (self.start <= need_start && self.end >= need_end);
        let ratio = view.ps_per_px(width) / self.ps_per_px.max(f64::MIN_POSITIVE);
        covered && (0.6..=2.0).contains(&ratio) && wanted.iter().all(|t| self.tracks.binary_search(t).is_ok())
    }
}

/// The window to ask for around `view`: three screens wide (one each side),
/// within the trace, at the view's pixel size. `(start, end, width_px)`.
pub fn fetch_range(view: View, width: f64, span: (f64, f64)) -> (i64, i64, u32) {
    let d = view.duration();
    let start = (view.start - d).max(span.0).floor();
    let end = (view.end + d).min(span.1).ceil().max(start + 1.0);
    let width_px = ((end - start) / view.ps_per_px(width)).round().clamp(1.0, 16_384.0);
    (start as i64, end as i64, width_px as u32)
}

/// A ruler step of 1, 2 or 5 × 10^k ps leaving at least `min_px` between ticks.
pub fn tick_step(ps_per_px: f64, min_px: f64) -> f64 {
    let want = (ps_per_px * min_px).max(1.0);
    let mut step = 10f64.powf(want.log10().floor());
    for m in [1.0, 2.0, 5.0, 10.0] {
        if step * m >= want {
            step *= m;
            break;
        }
    }
    step
}

/// A time on the ruler in the largest unit that shows `step` with at most
/// one decimal: `1_250_000_000, step 50_000_000` → `1,250 µs`.
pub fn format_tick(ps: f64, step: f64) -> String {
    let (unit, scale) = UNITS.iter().copied().find(|(_, scale)| *scale <= step * 10.0).unwrap_or(("ps", 1.0));
    let decimals = (-(step / scale).log10().floor()).clamp(0.0, 3.0) as usize;
    format!("{} {unit}", fmt::decimal(ps / scale, decimals))
}

const UNITS: [(&str, f64); 5] = [("s", 1e12), ("ms", 1e9), ("µs", 1e6), ("ns", 1e3), ("ps", 1.0)];

/// A duration for people: three significant digits in a fitting unit.
pub fn format_duration(ps: f64) -> String {
    if !ps.is_finite() {
        return "—".to_string();
    }
    let (unit, scale) = unit_of(ps.abs());
    let v = ps / scale;
    let decimals = if v.abs() >= 100.0 {
        1
    } else if v.abs() >= 10.0 {
        2
    } else {
        3
    };
    let decimals = if unit == "ps" { 0 } else { decimals };
    format!("{v:.decimals$} {unit}")
}

fn unit_of(ps: f64) -> (&'static str, f64) {
    UNITS.iter().copied().find(|(_, scale)| ps >= *scale).unwrap_or(("ps", 1.0))
}

/// The names' colour on the boxes (`--trace-slice-text`, the same in both
/// themes: the boxes are light in both).
const SLICE_TEXT: [u8; 3] = [0x1b, 0x1f, 0x24];
/// WCAG's contrast for normal text.
const LABEL_CONTRAST: f64 = 4.5;

/// A stable colour for an event name: a hue from the name's hash, light
/// enough for its name in dark text to reach WCAG's 4.5:1 (blues and
/// purples need more lightness than yellows).
pub fn name_color(name: &str) -> [u8; 3] {
    // FNV-1a.
    let mut h: u32 = 0x811c_9dc5;
    for b in name.bytes() {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    let hue = f64::from(h % 360);
    let saturation = 0.42 + f64::from((h >> 9) % 4) * 0.07;
    let mut lightness = 0.66 + f64::from((h >> 13) % 3) * 0.05;
    let mut color = hsl(hue, saturation, lightness);
    while contrast(color, SLICE_TEXT) < LABEL_CONTRAST && lightness < 0.95 {
        lightness += 0.02;
        color = hsl(hue, saturation, lightness);
    }
    color
}

/// WCAG 2's contrast ratio of two sRGB colours (1 to 21).
pub fn contrast(a: [u8; 3], b: [u8; 3]) -> f64 {
    let luminance = |c: [u8; 3]| {
        let [r, g, b] = c.map(|v| {
            let v = f64::from(v) / 255.0;
            if v <= 0.039_28 {
                v / 12.92
            } else {
                ((v + 0.055) / 1.055).powf(2.4)
            }
        });
        0.2126 * r + 0.7152 * g + 0.0722 * b
    };
    let (la, lb) = (luminance(a), luminance(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

/// A merged box's colour: the first event's, faded towards grey.
pub fn muted(c: [u8; 3]) -> [u8; 3] {
    c.map(|v| ((u16::from(v) + 2 * 200) / 3) as u8)
}

fn hsl(h: f64, s: f64, l: f64) -> [u8; 3] {
    let c = (1.0 - (2.0 * l - 1.0).abs()) * s;
    let hp = h / 60.0;
    let x = c * (1.0 - (hp % 2.0 - 1.0).abs());
    let (r, g, b) = match hp as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = l - c / 2.0;
    [r, g, b].map(|v| ((v + m) * 255.0).round().clamp(0.0, 255.0) as u8)
}

/// A layout for tests: sections of (track name, rows), track ids in order.
#[cfg(test)]
pub fn test_layout(sections: &[(&str, &[(&str, u16)])]) -> TraceLayout {
    use proflens_analysis::tools::trace_viewer::{SectionLayout, TrackLayout};
    let mut id = 0;
    let sections: Vec<SectionLayout> = sections
        .iter()
        .map(|(name, tracks)| SectionLayout {
            name: name.to_string(),
            tracks: tracks
                .iter()
                .map(|&(name, rows)| {
                    id += 1;
                    TrackLayout {
                        id: id - 1,
                        name: name.into(),
                        rows,
                        events: 1,
                        kind: Default::default(),
                        counter: None,
                    }
                })
                .collect(),
        })
        .collect();
    TraceLayout {
        events: u64::from(id),
        sections,
        start_ps: 0,
        end_ps: 1000,
        build_ms: 0.0,
        hosts: Vec::new(),
        stragglers: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout() -> TraceLayout {
        test_layout(&[("a", &[("t0", 2), ("t1", 1)]), ("b", &[("t2", 3)])])
    }

    #[test]
    fn rows_stack_and_collapse() {
        let l = layout();
        let rows = Rows::new(&l, &[false, false]);
        let t0 = rows.tracks[0].expect("shown");
        assert_eq!(t0.y, SECTION_H);
        assert_eq!(t0.height, 2.0 * ROW_H + TRACK_GAP);
        assert_eq!(rows.at(1.0), Some(RowHit::Section(0)));
        assert_eq!(rows.at(SECTION_H + ROW_H + 1.0), Some(RowHit::Track(0, 1)));
        let b = rows.sections[1].y;
        assert_eq!(rows.at(b + 1.0), Some(RowHit::Section(1)));
        assert_eq!(rows.at(b + SECTION_H + 2.5 * ROW_H), Some(RowHit::Track(2, 2)));
        assert_eq!(rows.at(rows.height + 1.0), None);
        assert_eq!(rows.tracks_between(0.0, SECTION_H + 1.0), vec![0]);
        assert_eq!(rows.section_at(SECTION_H + 1.0), Some((0, b)));
        assert_eq!(rows.section_at(b + 1.0), Some((1, rows.height)));
        assert_eq!(rows.section_at(rows.height), None);

        let folded = Rows::new(&l, &[true, false]);
        assert_eq!(folded.tracks[0], None);
        assert_eq!(folded.sections[1].y, SECTION_H);
        assert_eq!(folded.at(SECTION_H + 1.0), Some(RowHit::Section(1)));
    }

    #[test]
    fn arranged_rows_pin_reorder_and_hide() {
        use crate::views::trace_viewer::track_prefs::{track_keys, TrackPrefs};
        let l = layout();
        let keys = track_keys(&l);
        let mut prefs = TrackPrefs::default();
        prefs.toggle_pinned(keys[2]);
        prefs.move_track(&l, &keys, 1, 0);
        let rows = Rows::arranged(&l, &[false, false], &prefs.arrange(&l, &keys));
        // Track 2 sits in the band, out of the scrolling content.
        let pinned = rows.tracks[2].expect("pinned");
        assert!(pinned.pinned && pinned.y == 0.0);
        assert_eq!(rows.pinned_height, pinned.height);
        assert_eq!(rows.pinned(), vec![2]);
        assert_eq!(rows.pinned_at(1.0), Some(RowHit::Track(2, 0)));
        assert_eq!(rows.pinned_at(pinned.height + 1.0), None);
        // Section b keeps its header, now empty; track 1 comes before track 0.
        assert_eq!(rows.tracks[1].map(|r| r.y), Some(SECTION_H));
        assert_eq!(rows.tracks[0].map(|r| r.y), Some(SECTION_H + ROW_H + TRACK_GAP));
        assert_eq!(rows.tracks_between(0.0, rows.height), vec![0, 1]);
        assert_eq!(rows.at(rows.sections[1].y + 1.0), Some(RowHit::Section(1)));
        // Sections in another order keep their layout index.
        prefs.move_section(&l, 1, 0);
        prefs.toggle_hidden(keys[0]);
        let rows = Rows::arranged(&l, &[false, false], &prefs.arrange(&l, &keys));
        assert_eq!(rows.sections.iter().map(|s| s.index).collect::<Vec<_>>(), vec![1, 0]);
        assert_eq!(rows.at(1.0), Some(RowHit::Section(1)));
        assert_eq!(rows.tracks[0], None);
        assert_eq!(rows.height, 2.0 * SECTION_H + ROW_H + TRACK_GAP);
    }

    #[test]
    fn view_maps_zooms_and_clamps() {
        let v = View { start: 100.0, end: 1100.0 };
        assert_eq!(v.x(600.0, 100.0), 50.0);
        assert_eq!(v.t(50.0, 100.0), 600.0);
        let z = v.zoom(0.5, 600.0);
        assert_eq!((z.start, z.end), (350.0, 850.0));
        let span = (0.0, 1_000.0);
        let far = View { start: 10_000.0, end: 11_000.0 }.clamp(span);
        assert!(far.start < span.1 && far.end > span.1);
        let wide = View { start: -1e9, end: 1e9 }.clamp(span);
        assert!(wide.duration() <= 1_500.0 + 1e-6);
        let narrow = View { start: 5.0, end: 5.000001 }.clamp(span);
        assert!(narrow.duration() >= MIN_RANGE_PS - 1e-9);
        assert_eq!(View { start: f64::NAN, end: 1.0 }.clamp(span), View::fit(0.0, 1000.0));
    }

    #[test]
    fn coverage_and_fetching() {
        let span = (0.0, 10_000.0);
        let view = View { start: 4_000.0, end: 5_000.0 };
        let (s, e, w) = fetch_range(view, 100.0, span);
        assert_eq!((s, e, w), (3_000, 6_000, 300));
        let have =
            Coverage { start: s as f64, end: e as f64, ps_per_px: (e - s) as f64 / w as f64, tracks: vec![1, 3] };
        assert!(have.serves(view, 100.0, span, &[1, 3]));
        assert!(!have.serves(view, 100.0, span, &[2]));
        assert!(!have.serves(view.pan(1_500.0), 100.0, span, &[1]));
        assert!(!have.serves(view.zoom(0.2, 4_500.0), 100.0, span, &[1]), "too coarse");
        // At the trace's end, what lies beyond it needs no boxes.
        let edge = View { start: 9_500.0, end: 10_500.0 };
        let (s, e, w) = fetch_range(edge, 100.0, span);
        assert_eq!((s, e), (8_500, 10_000));
        let have = Coverage { start: s as f64, end: e as f64, ps_per_px: (e - s) as f64 / w as f64, tracks: vec![] };
        assert!(have.serves(edge, 100.0, span, &[]));
    }

    #[test]
    fn ticks_and_times() {
        assert_eq!(tick_step(1.0, 80.0), 100.0);
        assert_eq!(tick_step(3e6, 80.0), 5e8);
        assert_eq!(tick_step(1.3e6, 80.0), 2e8);
        assert_eq!(format_tick(1_250_000_000.0, 50_000_000.0), "1,250 µs");
        assert_eq!(format_tick(440e9, 20e9), "440 ms");
        assert_eq!(format_tick(1.5e9, 5e8), "1.5 ms");
        assert_eq!(format_tick(2e12, 1e12), "2 s");
        assert_eq!(format_tick(-0.0, 5e8), "0.0 ms");
        assert_eq!(format_tick(300.0, 100.0), "0.3 ns");
        assert_eq!(format_tick(3_982_213_000_000.0, 1e6), "3,982,213 µs");
        assert_eq!(format_duration(1_234_567_000.0), "1.235 ms");
        assert_eq!(format_duration(56_700_000.0), "56.70 µs");
        assert_eq!(format_duration(800.0), "800 ps");
        assert_eq!(format_duration(f64::NAN), "—");
    }

    #[test]
    fn colours_are_stable_and_light() {
        assert_eq!(name_color("MatMul"), name_color("MatMul"));
        assert_ne!(name_color("MatMul"), name_color("Conv2D"));
        for name in ["", "a", "EagerPyFunc", "train 3"] {
            let c = name_color(name);
            let luma = 0.299 * f64::from(c[0]) + 0.587 * f64::from(c[1]) + 0.114 * f64::from(c[2]);
            assert!(luma > 120.0, "{name}: {c:?}");
        }
    }

    #[test]
    fn names_on_every_colour_reach_wcag_contrast() {
        assert!((contrast([0, 0, 0], [255, 255, 255]) - 21.0).abs() < 1e-9);
        assert!((contrast([7, 7, 7], [7, 7, 7]) - 1.0).abs() < 1e-9);
        // Enough names to land on every hue, saturation and lightness step.
        let worst = (0..5000).map(|i| contrast(name_color(&format!("op{i}")), SLICE_TEXT)).fold(f64::MAX, f64::min);
        assert!(worst >= LABEL_CONTRAST, "worst contrast {worst}");
    }
}
