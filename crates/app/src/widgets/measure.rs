//! Small helpers shared by the kernel stats, memory profile, pod viewer and
//! tf.data views: byte sizes and durations written for people, the hover band
//! over a bar chart, and redrawing charts when the window resizes.

use crate::widgets::chart::BarLayout;
use crate::widgets::fmt;
use leptos::prelude::*;

/// A byte count for people: `512 B`, `1.5 KiB`, `16.0 MiB`, `23.5 GiB`.
pub fn bytes(n: i64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    let sign = if n < 0 { "-" } else { "" };
    let magnitude = n.unsigned_abs();
    if magnitude < 1024 {
        return format!("{sign}{magnitude} B");
    }
    let mut value = magnitude as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{sign}{} {}", fmt::decimal(value, 1), UNITS[unit])
}

/// The unit a set of byte counts up to `max` reads best in: (divisor, name).
pub fn byte_unit(max: f64) -> (f64, &'static str) {
    const GIB: f64 = (1u64 << 30) as f64;
    const MIB: f64 = (1u64 << 20) as f64;
    if max >= GIB {
        (GIB, "GiB")
    } else if max >= MIB {
        (MIB, "MiB")
    } else if max >= 1024.0 {
        (1024.0, "KiB")
    } else {
        (1.0, "B")
    }
}

/// Microseconds with one decimal and separators: `12,345.7`.
pub fn us(v: f64) -> String {
    fmt::decimal(v, 1)
}

/// Picoseconds as microseconds with their unit: `115,323.1 µs`.
pub fn ps_as_us(ps: f64) -> String {
    format!("{} µs", us(ps / 1e6))
}

/// A bar chart's light band over the slot of bar `index`, drawn as a DOM
/// overlay so the canvas need not be redrawn while the pointer moves.
pub fn bar_highlight(layout: BarLayout, index: usize) -> impl IntoView {
    let slot = (layout.right - layout.left) / layout.count.max(1) as f64;
    view! {
        <div
            class="bar-highlight"
            aria-hidden="true"
            style:left=format!("{}px", layout.left + slot * index as f64)
            style:width=format!("{slot}px")
            style:top=format!("{}px", layout.top)
            style:height=format!("{}px", (layout.bottom - layout.top).max(0.0))
        ></div>
    }
}

/// Counts the window's resizes while the calling component lives, so that
/// charts that read it are drawn again at their new size.
pub fn window_resizes() -> RwSignal<u32> {
    let resized = RwSignal::new(0u32);
    let listener = window_event_listener(leptos::ev::resize, move |_| resized.update(|n| *n = n.wrapping_add(1)));
    on_cleanup(move || listener.remove());
    resized
}

/// Where a hover card goes beside the pointer at `x` in a box `width` wide:
/// (left, right) CSS lengths, on the side with more room.
pub fn card_side(x: f64, width: f64) -> (Option<String>, Option<String>) {
    if x > width / 2.0 {
        (None, Some(format!("{}px", (width - x + 14.0).max(0.0))))
    } else {
        (Some(format!("{}px", x + 14.0)), None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_sizes() {
        assert_eq!(bytes(0), "0 B");
        assert_eq!(bytes(1023), "1023 B");
        assert_eq!(bytes(1536), "1.5 KiB");
        assert_eq!(bytes(16_777_216), "16.0 MiB");
        assert_eq!(bytes(25_276_502_016), "23.5 GiB");
        assert_eq!(bytes(-2048), "-2.0 KiB");
        assert_eq!(byte_unit(16_777_216.0), ((1u64 << 20) as f64, "MiB"));
        assert_eq!(byte_unit(10.0), (1.0, "B"));
    }

    #[test]
    fn durations() {
        assert_eq!(ps_as_us(115_323_121_000.0), "115,323.1 µs");
        assert_eq!(us(0.04), "0.0");
    }
}
