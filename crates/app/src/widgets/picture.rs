//! Pictures of charts, as files: the PNG of a `<canvas>` or of an `<svg>`
//! (drawn into a canvas through an image), and SVG text, either recorded
//! while a plotters chart was drawn or serialised from an SVG element with
//! its computed colours and fonts written in, so that the file stands alone.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Blob, CanvasRenderingContext2d, Element, HtmlCanvasElement, HtmlImageElement};

use super::chart_svg::SVG_PROPERTY;
use super::download;

/// Computed style properties that give an SVG its look; written into each
/// element's `style` so the SVG needs no stylesheet.
const SVG_LOOK: [&str; 14] = [
    "fill",
    "fill-opacity",
    "stroke",
    "stroke-width",
    "stroke-dasharray",
    "stroke-opacity",
    "opacity",
    "font-family",
    "font-size",
    "font-weight",
    "text-anchor",
    "dominant-baseline",
    "visibility",
    "display",
];

fn document() -> Result<web_sys::Document, String> {
    web_sys::window().and_then(|w| w.document()).ok_or_else(|| "the page is not reachable".to_string())
}

/// The chart element inside `figure`: its first canvas or SVG.
pub fn chart_element(figure: &Element) -> Option<Element> {
    figure.query_selector("canvas, svg").ok().flatten()
}

/// A deep copy of `svg` whose elements carry their computed look inline,
/// with its size and namespace set, ready to stand alone.
pub fn standalone_svg(svg: &Element) -> Result<Element, String> {
    let copy: Element =
        svg.clone_node_with_deep(true).ok().and_then(|n| n.dyn_into().ok()).ok_or("the chart could not be copied")?;
    inline_look(svg, &copy)?;
    let rect = svg.get_bounding_client_rect();
    let _ = copy.set_attribute("xmlns", "http://www.w3.org/2000/svg");
    let _ = copy.set_attribute("width", &format!("{:.0}", rect.width().max(1.0)));
    let _ = copy.set_attribute("height", &format!("{:.0}", rect.height().max(1.0)));
    Ok(copy)
}

/// Writes the computed look of `original` and its descendants into the
/// `style` of the same elements of `copy` (a deep clone of it).
pub fn inline_look(original: &Element, copy: &Element) -> Result<(), String> {
    let window = web_sys::window().ok_or("the page is not reachable")?;
    let from = original.query_selector_all("*").map_err(|_| "the chart could not be read")?;
    let to = copy.query_selector_all("*").map_err(|_| "the chart could not be read")?;
    let pairs = std::iter::once((Some(original.clone()), Some(copy.clone()))).chain(
        (0..from.length().min(to.length()))
            .map(|i| (from.item(i).and_then(|n| n.dyn_into().ok()), to.item(i).and_then(|n| n.dyn_into().ok()))),
    );
    for (original, copy) in pairs {
        let (Some(original), Some(copy)) = (original, copy) else { continue };
        let Ok(Some(computed)) = window.get_computed_style(&original) else { continue };
        let style: String = SVG_LOOK
            .iter()
            .filter_map(|p| computed.get_property_value(p).ok().filter(|v| !v.is_empty()).map(|v| format!("{p}:{v};")))
            .collect();
        let _ = copy.set_attribute("style", &style);
    }
    Ok(())
}

/// The chart as SVG text: what was recorded while a canvas chart was drawn,
/// or the serialised SVG element.
pub fn svg_text(chart: &Element) -> Result<String, String> {
    if chart.dyn_ref::<HtmlCanvasElement>().is_some() {
        return js_sys::Reflect::get(chart, &JsValue::from_str(SVG_PROPERTY))
            .ok()
            .and_then(|v| v.as_string())
            .ok_or_else(|| "the chart has not been drawn yet".to_string());
    }
    let copy = standalone_svg(chart)?;
    let text = web_sys::XmlSerializer::new()
        .and_then(|s| s.serialize_to_string(&copy))
        .map_err(|_| "the chart could not be written as SVG")?;
    Ok(format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{text}\n"))
}

/// Saves the chart as `file_name` (SVG).
pub fn save_svg(chart: &Element, file_name: &str) -> Result<(), String> {
    let text = svg_text(chart)?;
    download::save_text(file_name, "image/svg+xml", &text)
}

/// Saves the chart as `file_name` (PNG). Canvas charts are saved as drawn;
/// SVG charts are drawn into a canvas first, on the page's background
/// colour, at the device pixel ratio. Failures arrive through `failed`
/// (the image decodes later).
pub fn save_png(chart: &Element, file_name: &str, failed: impl Fn(String) + 'static) -> Result<(), String> {
    if let Some(canvas) = chart.dyn_ref::<HtmlCanvasElement>() {
        save_canvas(canvas, file_name.to_string(), failed);
        return Ok(());
    }
    let text = svg_text(chart)?;
    let rect = chart.get_bounding_client_rect();
    let ratio = web_sys::window().map(|w| w.device_pixel_ratio()).filter(|r| *r > 0.0).unwrap_or(1.0);
    let (width, height) = ((rect.width().max(1.0) * ratio).round(), (rect.height().max(1.0) * ratio).round());
    let parts = js_sys::Array::of1(&JsValue::from_str(&text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("image/svg+xml");
    let blob =
        Blob::new_with_str_sequence_and_options(&parts, &options).map_err(|_| "the SVG could not be prepared")?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(|_| "the SVG could not be prepared")?;
    let image = HtmlImageElement::new().map_err(|_| "the picture could not be prepared")?;
    let name = file_name.to_string();
    let loaded = image.clone();
    let blob_url = url.clone();
    let on_load = Closure::once_into_js(move || {
        let _ = web_sys::Url::revoke_object_url(&blob_url);
        match draw_image(&loaded, width, height) {
            Ok(canvas) => save_canvas(&canvas, name, failed),
            Err(e) => failed(e),
        }
    });
    image.set_onload(Some(on_load.unchecked_ref()));
    image.set_src(&url);
    Ok(())
}

/// A new canvas of `width` × `height` pixels with `image` drawn on the
/// page's background colour.
fn draw_image(image: &HtmlImageElement, width: f64, height: f64) -> Result<HtmlCanvasElement, String> {
    let document = document()?;
    let canvas: HtmlCanvasElement = document
        .create_element("canvas")
        .ok()
        .and_then(|e| e.dyn_into().ok())
        .ok_or("the picture could not be prepared")?;
    canvas.set_width(width as u32);
    canvas.set_height(height as u32);
    let context: CanvasRenderingContext2d = canvas
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|c| c.dyn_into().ok())
        .ok_or("this browser gave no 2D drawing context")?;
    context.set_fill_style_str(&page_background());
    context.fill_rect(0.0, 0.0, width, height);
    context
        .draw_image_with_html_image_element_and_dw_and_dh(image, 0.0, 0.0, width, height)
        .map_err(|_| "the chart could not be drawn as a picture")?;
    Ok(canvas)
}

/// The page's background colour (white when it has none).
pub fn page_background() -> String {
    let body = document().ok().and_then(|d| d.body());
    let colour = body
        .and_then(|b| web_sys::window()?.get_computed_style(&b).ok().flatten())
        .and_then(|s| s.get_property_value("background-color").ok())
        .unwrap_or_default();
    if colour.is_empty() || colour == "rgba(0, 0, 0, 0)" || colour == "transparent" {
        "#ffffff".to_string()
    } else {
        colour
    }
}

fn save_canvas(canvas: &HtmlCanvasElement, file_name: String, failed: impl Fn(String) + 'static) {
    let on_blob = Closure::once_into_js(move |blob: Option<Blob>| {
        let result = blob
            .ok_or_else(|| format!("Proflens could not make the picture for {file_name}."))
            .and_then(|b| download::save_blob(&file_name, &b));
        if let Err(e) = result {
            failed(e);
        }
    });
    // to_blob only throws for tainted canvases, which the page never draws.
    let _ = canvas.to_blob(on_blob.unchecked_ref());
}

/// A file-name part from any text: letters, digits, `.`, `-` and `_` kept,
/// anything else `_`.
pub fn file_part(text: &str) -> String {
    let part: String =
        text.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') { c } else { '_' }).collect();
    if part.is_empty() {
        "_".to_string()
    } else {
        part
    }
}

/// The id of the tool around `element` (`overview_page` for a chart inside
/// `<section id="tool-overview_page">`), or `page` outside any tool.
pub fn tool_of(element: &Element) -> String {
    element
        .closest("section.tool")
        .ok()
        .flatten()
        .map(|s| s.id())
        .and_then(|id| id.strip_prefix("tool-").map(str::to_string))
        .unwrap_or_else(|| "page".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_parts_keep_only_safe_characters() {
        assert_eq!(file_part("host-1.example_a"), "host-1.example_a");
        assert_eq!(file_part("a/b c:d"), "a_b_c_d");
        assert_eq!(file_part("../x"), ".._x");
        assert_eq!(file_part(""), "_");
    }
}
