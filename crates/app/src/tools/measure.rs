//! Small helpers shared by the kernel stats, memory profile, pod viewer and
//! tf.data views: byte sizes and durations written for people, canvases
//! sized for sharp drawing, and redrawing charts when the window resizes.

use leptos::prelude::*;
use plotters_canvas::CanvasBackend;
use web_sys::HtmlCanvasElement;

use crate::fmt;

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

/// A canvas sized to its CSS box times the device pixel ratio, ready to draw
/// on: its backend and that ratio.
pub fn canvas_backend(canvas: &HtmlCanvasElement) -> Result<(CanvasBackend, f64), String> {
    let ratio = web_sys::window().map(|w| w.device_pixel_ratio()).filter(|r| *r > 0.0).unwrap_or(1.0);
    let (width, height) = (canvas.client_width().max(1) as f64, canvas.client_height().max(1) as f64);
    canvas.set_width((width * ratio).round() as u32);
    canvas.set_height((height * ratio).round() as u32);
    let backend = CanvasBackend::with_canvas_object(canvas.clone())
        .ok_or_else(|| "this browser gave no 2D drawing context for the chart".to_string())?;
    Ok((backend, ratio))
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
