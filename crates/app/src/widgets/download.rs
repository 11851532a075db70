//! Saving text the page made (CSV exports) as a file: a Blob behind an
//! `<a download>` link that is clicked once. Nothing leaves the machine.

use std::time::Duration;

use wasm_bindgen::JsCast;
use wasm_bindgen::JsValue;
use web_sys::{Blob, BlobPropertyBag, HtmlAnchorElement, Url};

/// Offers `text` as a download named `file_name`.
pub fn save_text(file_name: &str, mime: &str, text: &str) -> Result<(), String> {
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let options = BlobPropertyBag::new();
    options.set_type(mime);
    let blob = Blob::new_with_str_sequence_and_options(&parts, &options)
        .map_err(|_| format!("Proflens could not prepare the file for the download of {file_name}."))?;
    save_blob(file_name, &blob)
}

/// Offers a file made elsewhere (the worker's trace export) as a download.
pub fn save_blob(file_name: &str, blob: &Blob) -> Result<(), String> {
    let failed = |what: &str| format!("Proflens could not {what} for the download of {file_name}.");
    let url = Url::create_object_url_with_blob(blob).map_err(|_| failed("prepare the file"))?;
    let document = web_sys::window().and_then(|w| w.document()).ok_or_else(|| failed("reach the page"))?;
    let link: HtmlAnchorElement =
        document.create_element("a").ok().and_then(|e| e.dyn_into().ok()).ok_or_else(|| failed("create a link"))?;
    link.set_href(&url);
    link.set_download(file_name);
    link.set_hidden(true);
    let body = document.body().ok_or_else(|| failed("reach the page"))?;
    body.append_child(&link).map_err(|_| failed("create a link"))?;
    link.click();
    link.remove();
    // The browser has taken the file once the click is handled; free it a little later.
    leptos::prelude::set_timeout(
        move || {
            let _ = Url::revoke_object_url(&url);
        },
        Duration::from_secs(10),
    );
    Ok(())
}
