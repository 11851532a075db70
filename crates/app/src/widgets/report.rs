//! "Save report": the tool on screen as one self-contained HTML file. The
//! tool's DOM is cloned (so profile names stay escaped text), canvases become
//! PNG `<img>`s with data: URLs, SVGs get their colours inline, controls are
//! dropped, and the page's CSS is copied in. The file has no scripts and a
//! Content-Security-Policy that forbids any request: it opens from disk.

use wasm_bindgen::JsCast;
use wasm_bindgen::JsValue;
use web_sys::{Element, HtmlCanvasElement};

use super::chart_svg::escape_xml;
use super::download;
use super::picture::{file_part, inline_look};

/// What the report's header says besides the tool.
pub struct ReportInfo<'a> {
    pub tool: &'a str,
    pub tool_label: &'a str,
    pub run: &'a str,
    pub host: &'a str,
}

/// `proflens-<tool>-<host>.html`.
pub fn report_file_name(tool: &str, host: &str) -> String {
    format!("proflens-{}-{}.html", file_part(tool), file_part(host))
}

/// Saves the tool's section (`#tool-<tool>`) as a report.
pub fn save_report(info: &ReportInfo<'_>) -> Result<(), String> {
    let document = web_sys::window().and_then(|w| w.document()).ok_or("the page is not reachable")?;
    let section = document.get_element_by_id(&format!("tool-{}", info.tool)).ok_or("the tool is not on the page")?;
    let body = report_body(&section)?;
    let file_name = report_file_name(info.tool, info.host);
    let date = js_sys::Date::new_0().to_iso_string().as_string().unwrap_or_default();
    let html = report_document(info, &file_name, &date, &page_css(&document), &body);
    download::save_text(&file_name, "text/html;charset=utf-8", &html)
}

/// The section's HTML as a report shows it: charts as pictures, no controls.
fn report_body(section: &Element) -> Result<String, String> {
    let copy: Element = section
        .clone_node_with_deep(true)
        .ok()
        .and_then(|n| n.dyn_into().ok())
        .ok_or("the tool could not be copied")?;
    let canvases = section.query_selector_all("canvas").map_err(|_| "the tool could not be read")?;
    let copies = copy.query_selector_all("canvas").map_err(|_| "the tool could not be read")?;
    let document = web_sys::window().and_then(|w| w.document()).ok_or("the page is not reachable")?;
    for i in 0..canvases.length().min(copies.length()) {
        let (Some(canvas), Some(slot)) = (
            canvases.item(i).and_then(|n| n.dyn_into::<HtmlCanvasElement>().ok()),
            copies.item(i).and_then(|n| n.dyn_into::<Element>().ok()),
        ) else {
            continue;
        };
        let Ok(url) = canvas.to_data_url() else { continue };
        let image = document.create_element("img").map_err(|_| "the report could not be made")?;
        let _ = image.set_attribute("src", &url);
        let _ = image.set_attribute("alt", &canvas.get_attribute("aria-label").unwrap_or_default());
        for keep in ["id", "class", "aria-describedby"] {
            if let Some(value) = canvas.get_attribute(keep) {
                let _ = image.set_attribute(keep, &value);
            }
        }
        let _ = image
            .set_attribute("style", &format!("width:{}px;max-width:100%;height:auto", canvas.client_width().max(1)));
        let _ = slot.replace_with_with_node_1(&image);
    }
    let svgs = section.query_selector_all("svg").map_err(|_| "the tool could not be read")?;
    let svg_copies = copy.query_selector_all("svg").map_err(|_| "the tool could not be read")?;
    for i in 0..svgs.length().min(svg_copies.length()) {
        if let (Some(svg), Some(svg_copy)) = (
            svgs.item(i).and_then(|n| n.dyn_into::<Element>().ok()),
            svg_copies.item(i).and_then(|n| n.dyn_into::<Element>().ok()),
        ) {
            inline_look(&svg, &svg_copy)?;
        }
    }
    let controls =
        copy.query_selector_all("button, input, select, textarea, script").map_err(|_| "the tool could not be read")?;
    for i in 0..controls.length() {
        if let Some(control) = controls.item(i).and_then(|n| n.dyn_into::<Element>().ok()) {
            control.remove();
        }
    }
    // Data tables are open in the report: it is read, not explored.
    if let Ok(details) = copy.query_selector_all("details") {
        for i in 0..details.length() {
            if let Some(d) = details.item(i).and_then(|n| n.dyn_into::<Element>().ok()) {
                let _ = d.set_attribute("open", "");
            }
        }
    }
    Ok(copy.outer_html())
}

/// The text of every stylesheet the page can read (its own), one rule a line.
fn page_css(document: &web_sys::Document) -> String {
    let mut css = String::new();
    let sheets = js_sys::Reflect::get(document, &JsValue::from_str("styleSheets")).unwrap_or(JsValue::UNDEFINED);
    for sheet in js_sys::Array::from(&sheets).iter() {
        // Reading the rules of another origin's sheet throws; the page has none.
        let Ok(rules) = js_sys::Reflect::get(&sheet, &JsValue::from_str("cssRules")) else { continue };
        for rule in js_sys::Array::from(&rules).iter() {
            if let Some(text) =
                js_sys::Reflect::get(&rule, &JsValue::from_str("cssText")).ok().and_then(|t| t.as_string())
            {
                css.push_str(&text);
                css.push('\n');
            }
        }
    }
    css
}

/// The whole report file. Every text from the profile (run, host) is
/// escaped; `body` is serialised DOM, escaped by the browser.
pub fn report_document(info: &ReportInfo<'_>, file_name: &str, date: &str, css: &str, body: &str) -> String {
    let e = escape_xml;
    // A stylesheet cannot end the <style> element early.
    let css = css.replace("</", "<\\/");
    let version = env!("CARGO_PKG_VERSION");
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; style-src 'unsafe-inline'\">\n\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
<title>{title}</title>\n<style>\n{css}</style>\n</head>\n<body class=\"proflens-report\">\n\
<header class=\"report-header\">\n<p><strong>{file}</strong></p>\n<dl>\n\
<dt>Tool</dt><dd>{tool}</dd>\n<dt>Run</dt><dd>{run}</dd>\n<dt>Host</dt><dd>{host}</dd>\n\
<dt>Proflens</dt><dd>{version}</dd>\n<dt>Saved</dt><dd>{date}</dd>\n</dl>\n</header>\n<main>\n{body}\n</main>\n</body>\n</html>\n",
        title = e(&format!("{} · {} · {}", info.tool_label, info.run, info.host)),
        file = e(file_name),
        tool = e(info.tool_label),
        run = e(info.run),
        host = e(info.host),
        date = e(date),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_report_escapes_profile_names_and_forbids_requests() {
        let info = ReportInfo { tool: "overview_page", tool_label: "Overview", run: "run<1>", host: "h&\"x\"" };
        let name = report_file_name(info.tool, info.host);
        assert_eq!(name, "proflens-overview_page-h__x_.html");
        let html = report_document(&info, &name, "2026-01-01T00:00:00.000Z", "p { color: red }</style>", "<p>b</p>");
        assert!(html.starts_with("<!doctype html>"));
        assert!(html.contains("<dd>run&lt;1&gt;</dd>"), "{html}");
        assert!(html.contains("<dd>h&amp;&quot;x&quot;</dd>"), "{html}");
        assert!(!html.contains("run<1>"));
        assert!(html.contains("default-src 'none'; img-src data:"));
        assert!(html.contains("p { color: red }<\\/style>"), "the CSS cannot close the style element");
        assert_eq!(html.matches("</style>").count(), 1);
        assert!(html.contains(env!("CARGO_PKG_VERSION")));
        assert!(!html.contains("<script"));
    }
}
