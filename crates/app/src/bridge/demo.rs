//! Opening a demo (`crate::demos`): served, the worker fetches its files
//! from the page's `demos/` folder; in the single-file build opened from
//! disk (where fetches are refused) the files are elements of the page,
//! read here and passed on as files.

use wasm_bindgen::JsValue;
use web_sys::File;

use super::{fail, start_open, Opening, SESSION};
use crate::demos::{self, Demo};
use crate::protocol::{self, Request};
use crate::recent;
use crate::state::AppState;
use crate::url_state::UrlState;

/// Opens the demo `id` (the default one for an empty or unknown name). From
/// the menu it opens on the demo's run and tool; from the URL (`#demo=…`)
/// the URL's selection wins and the demo fills in what it lacks.
pub fn open_demo(state: AppState, id: &str, from_url: bool) {
    let demo = demos::find(id);
    SESSION.with_borrow_mut(|s| {
        let asked = s.pending_url.take().filter(|_| from_url).unwrap_or_default();
        s.pending_url = Some(UrlState {
            demo: Some(demo.id.to_string()),
            run: asked.run.or(Some(demo.run.to_string())),
            tool: asked.tool.or(demo.tool),
            ..asked
        });
    });
    let message = match embedded_files(demo) {
        Some(files) => {
            let (paths, list): (Vec<String>, Vec<File>) = files.into_iter().unzip();
            let array: js_sys::Array = list.into_iter().map(JsValue::from).collect();
            protocol::envelope(&Request::Open { paths, append: false }, Some(&array))
        }
        None => match served_base() {
            Some(base) => protocol::envelope(&Request::OpenDemo { id: demo.id.to_string(), base }, None),
            None => return fail(state, "Proflens could not tell where its demos are served.".into()),
        },
    };
    match message {
        Ok(message) => {
            recent::remember_demo(demo);
            start_open(state, message, Opening::Load, Some(demo.id.to_string()));
        }
        Err(e) => fail(state, format!("Proflens could not open the demo ({e}).")),
    }
}

/// The absolute URL of the `demos/` folder beside the page.
fn served_base() -> Option<String> {
    let page = web_sys::window()?.location().href().ok()?;
    Some(web_sys::Url::new_with_base(&format!("{}/", demos::DIR), &page).ok()?.href())
}

/// The demo's files from the page's elements (the single-file build), each
/// as a file with its listed path; `None` when the page has not all of them.
fn embedded_files(demo: &Demo) -> Option<Vec<(String, File)>> {
    let window = web_sys::window()?;
    let document = window.document()?;
    demo.files
        .iter()
        .map(|file| {
            let element = document.get_element_by_id(&format!("{}{}", demos::ELEMENT_PREFIX, file.served))?;
            let text: String = element.text_content()?.split_whitespace().collect();
            // atob gives one character per byte.
            let binary = window.atob(&text).ok()?;
            let bytes: Vec<u8> = binary.chars().map(|c| c as u32 as u8).collect();
            let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes.as_slice()));
            let opened = File::new_with_u8_array_sequence(&parts, file.name).ok()?;
            Some((demos::listed_path(demo, file), opened))
        })
        .collect()
}
