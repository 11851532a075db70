//! The SVG twin of every plotters chart. [`SvgRecorder`] is a plotters
//! backend that writes each shape and label as an SVG element; [`TeeBackend`]
//! draws on the canvas and into a recorder at once, so one drawing function
//! makes both the picture on screen and the file "Save SVG" offers, with no
//! second code path per chart. When the drawing is done (the backend is
//! dropped) the SVG text is kept on the canvas element, where the chart's
//! frame finds it.

use std::cell::RefCell;
use std::fmt::Write as _;
use std::rc::Rc;

use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind, FontTransform,
};
use plotters_canvas::CanvasBackend;
use wasm_bindgen::JsValue;
use web_sys::HtmlCanvasElement;

/// The property of a chart's `<canvas>` that holds its SVG text.
pub const SVG_PROPERTY: &str = "proflensSvg";

/// Writes what plotters draws as SVG elements, in the backend's pixels.
/// Clones share one text, so a clone given to plotters can be read after.
#[derive(Debug, Default, Clone)]
pub struct SvgRecorder {
    size: (u32, u32),
    body: Rc<RefCell<String>>,
}

impl SvgRecorder {
    pub fn new(size: (u32, u32)) -> Self {
        SvgRecorder { size, body: Rc::default() }
    }

    fn write(&self, element: std::fmt::Arguments<'_>) {
        let mut body = self.body.borrow_mut();
        let _ = body.write_fmt(element);
        body.push('\n');
    }

    /// The whole SVG document: a standalone file (every colour and font is
    /// an attribute; no stylesheet, no scripts).
    pub fn document(&self) -> String {
        let (w, h) = self.size;
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\">\n{}</svg>\n",
            self.body.borrow()
        )
    }

    fn paint(color: BackendColor) -> String {
        let (r, g, b) = color.rgb;
        if color.alpha >= 1.0 {
            format!("#{r:02x}{g:02x}{b:02x}")
        } else {
            format!("#{r:02x}{g:02x}{b:02x}\" fill-opacity=\"{0}\" stroke-opacity=\"{0}", color.alpha.max(0.0))
        }
    }

    fn stroke(style: &impl BackendStyle) -> String {
        format!("fill=\"none\" stroke=\"{}\" stroke-width=\"{}\"", Self::paint(style.color()), style.stroke_width())
    }

    fn points(path: impl IntoIterator<Item = BackendCoord>) -> String {
        let mut text = String::new();
        for (x, y) in path {
            let _ = write!(text, "{}{x},{y}", if text.is_empty() { "" } else { " " });
        }
        text
    }
}

/// `text` escaped for XML (SVG) content and attributes: labels come from
/// profiles (op and host names) and must stay text in the file. HTML's
/// escaping is XML's too (`&#39;` is a character reference in both).
pub use proflens_analysis::common::html::escape as escape_xml;

impl DrawingBackend for SvgRecorder {
    type ErrorType = std::convert::Infallible;

    fn get_size(&self) -> (u32, u32) {
        self.size
    }

    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        Ok(())
    }

    fn present(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        Ok(())
    }

    fn draw_pixel(
        &mut self,
        (x, y): BackendCoord,
        color: BackendColor,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        if color.alpha > 0.0 {
            self.write(format_args!(
                "<rect x=\"{x}\" y=\"{y}\" width=\"1\" height=\"1\" fill=\"{}\"/>",
                Self::paint(color)
            ));
        }
        Ok(())
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        (x1, y1): BackendCoord,
        (x2, y2): BackendCoord,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        if style.color().alpha > 0.0 {
            self.write(format_args!("<line x1=\"{x1}\" y1=\"{y1}\" x2=\"{x2}\" y2=\"{y2}\" {}/>", Self::stroke(style)));
        }
        Ok(())
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        (x1, y1): BackendCoord,
        (x2, y2): BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        if style.color().alpha > 0.0 {
            let (w, h) = (x2 - x1, y2 - y1);
            let paint = if fill { format!("fill=\"{}\"", Self::paint(style.color())) } else { Self::stroke(style) };
            self.write(format_args!("<rect x=\"{x1}\" y=\"{y1}\" width=\"{w}\" height=\"{h}\" {paint}/>"));
        }
        Ok(())
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        if style.color().alpha > 0.0 {
            self.write(format_args!("<polyline points=\"{}\" {}/>", Self::points(path), Self::stroke(style)));
        }
        Ok(())
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        if style.color().alpha > 0.0 {
            self.write(format_args!(
                "<polygon points=\"{}\" fill=\"{}\"/>",
                Self::points(path),
                Self::paint(style.color())
            ));
        }
        Ok(())
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        (x, y): BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        if style.color().alpha > 0.0 {
            let paint = if fill { format!("fill=\"{}\"", Self::paint(style.color())) } else { Self::stroke(style) };
            self.write(format_args!("<circle cx=\"{x}\" cy=\"{y}\" r=\"{radius}\" {paint}/>"));
        }
        Ok(())
    }

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        (x, y): BackendCoord,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let color = style.color();
        if color.alpha <= 0.0 {
            return Ok(());
        }
        let anchor = match style.anchor().h_pos {
            HPos::Left => "start",
            HPos::Right => "end",
            HPos::Center => "middle",
        };
        let baseline = match style.anchor().v_pos {
            VPos::Top => "text-before-edge",
            VPos::Center => "central",
            VPos::Bottom => "text-after-edge",
        };
        let degrees = match style.transform() {
            FontTransform::None => 0,
            FontTransform::Rotate90 => 90,
            FontTransform::Rotate180 => 180,
            FontTransform::Rotate270 => 270,
        };
        let rotate = if degrees == 0 { String::new() } else { format!(" transform=\"rotate({degrees},{x},{y})\"") };
        let weight = match style.style().as_str() {
            "bold" => " font-weight=\"bold\"",
            "italic" => " font-style=\"italic\"",
            "oblique" => " font-style=\"oblique\"",
            _ => "",
        };
        self.write(format_args!(
            "<text x=\"{x}\" y=\"{y}\" font-family=\"{}\" font-size=\"{}\"{weight} fill=\"{}\" text-anchor=\"{anchor}\" dominant-baseline=\"{baseline}\"{rotate}>{}</text>",
            escape_xml(style.family().as_str()),
            style.size(),
            Self::paint(color),
            escape_xml(text),
        ));
        Ok(())
    }
}

/// Draws on a chart's canvas and records the same drawing as SVG; when
/// dropped, leaves the SVG text on the canvas (property [`SVG_PROPERTY`]).
pub struct TeeBackend {
    canvas_element: HtmlCanvasElement,
    canvas: CanvasBackend,
    svg: SvgRecorder,
}

impl TeeBackend {
    pub fn new(canvas_element: HtmlCanvasElement, canvas: CanvasBackend) -> Self {
        let svg = SvgRecorder::new(canvas.get_size());
        TeeBackend { canvas_element, canvas, svg }
    }
}

impl Drop for TeeBackend {
    fn drop(&mut self) {
        let text = JsValue::from_str(&self.svg.document());
        let _ = js_sys::Reflect::set(&self.canvas_element, &JsValue::from_str(SVG_PROPERTY), &text);
    }
}

/// The canvas's answer; the recorder cannot fail.
fn both<E: std::error::Error + Send + Sync>(
    canvas: Result<(), DrawingErrorKind<E>>,
    _svg: Result<(), DrawingErrorKind<std::convert::Infallible>>,
) -> Result<(), DrawingErrorKind<E>> {
    canvas
}

impl DrawingBackend for TeeBackend {
    type ErrorType = <CanvasBackend as DrawingBackend>::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.canvas.get_size()
    }

    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.canvas.ensure_prepared()
    }

    fn present(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.canvas.present()
    }

    fn draw_pixel(
        &mut self,
        point: BackendCoord,
        color: BackendColor,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let svg = self.svg.draw_pixel(point, color);
        both(self.canvas.draw_pixel(point, color), svg)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let svg = self.svg.draw_line(from, to, style);
        both(self.canvas.draw_line(from, to, style), svg)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let svg = self.svg.draw_rect(upper_left, bottom_right, style, fill);
        both(self.canvas.draw_rect(upper_left, bottom_right, style, fill), svg)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let path: Vec<BackendCoord> = path.into_iter().collect();
        let svg = self.svg.draw_path(path.iter().copied(), style);
        both(self.canvas.draw_path(path, style), svg)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let path: Vec<BackendCoord> = path.into_iter().collect();
        let svg = self.svg.fill_polygon(path.iter().copied(), style);
        both(self.canvas.fill_polygon(path, style), svg)
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let svg = self.svg.draw_circle(center, radius, style, fill);
        both(self.canvas.draw_circle(center, radius, style, fill), svg)
    }

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let svg = self.svg.draw_text(text, style, pos);
        both(self.canvas.draw_text(text, style, pos), svg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use plotters::prelude::*;

    #[test]
    fn a_chart_drawn_on_the_recorder_keeps_its_labels_shapes_and_colours() {
        let recorder = SvgRecorder::new((400, 300));
        {
            let root = recorder.clone().into_drawing_area();
            root.fill(&WHITE).unwrap();
            let mut chart = ChartBuilder::on(&root)
                .x_label_area_size(30)
                .y_label_area_size(40)
                .build_cartesian_2d(0.0..10.0, 0.0..100.0)
                .unwrap();
            chart.configure_mesh().y_desc("Step time (ms)").x_labels(3).draw().unwrap();
            chart
                .draw_series(std::iter::once(Rectangle::new([(1.0, 0.0), (2.0, 42.0)], RGBColor(0, 114, 178).filled())))
                .unwrap();
            root.draw(&Text::new("host <a> & \"b\"", (5, 5), ("sans-serif", 12))).unwrap();
        }
        let svg = recorder.document();
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"400\" height=\"300\""), "{svg}");
        assert!(svg.contains(">Step time (ms)</text>"), "the axis description is text: {svg}");
        assert!(svg.contains("transform=\"rotate(270,"), "the y description is turned: {svg}");
        assert!(svg.contains("fill=\"#0072b2\""), "the bar keeps its colour: {svg}");
        assert!(svg.contains(">host &lt;a&gt; &amp; &quot;b&quot;</text>"), "names stay text: {svg}");
        assert!(!svg.contains("<a>"), "{svg}");
        let labels = svg.matches("<text ").count();
        assert!(labels >= 4, "axis numbers are labelled ({labels} texts)");
        assert!(svg.matches("<rect ").count() >= 2, "background and bar");
        assert!(svg.trim_end().ends_with("</svg>"));
    }

    #[test]
    fn translucent_colours_keep_their_opacity_and_invisible_shapes_are_left_out() {
        let mut recorder = SvgRecorder::new((10, 10));
        recorder.draw_rect((0, 0), (5, 5), &RGBColor(255, 0, 0).mix(0.5), true).unwrap();
        recorder.draw_line((0, 0), (5, 5), &TRANSPARENT).unwrap();
        let svg = recorder.document();
        assert!(svg.contains("fill=\"#ff0000\" fill-opacity=\"0.5\""), "{svg}");
        assert!(!svg.contains("<line"), "{svg}");
    }
}
