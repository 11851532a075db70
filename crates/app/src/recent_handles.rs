//! Recent files that reopen, where the browser allows it (Chromium's File
//! System Access API): picked or dropped files and folders keep their
//! handles in this page's IndexedDB, through `proflensRecentHandles` of
//! `web/loader.js`; a click asks for read access again and reopens them.
//! Elsewhere the pickers are the plain file inputs and only names are kept
//! ([`crate::recent`]).

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{spawn_local, JsFuture};
use web_sys::{DataTransfer, File};

use crate::recent;

/// Files with the paths they are opened as.
pub type Picked = Vec<(String, File)>;

fn helper() -> Option<JsValue> {
    let window = web_sys::window()?;
    js_sys::Reflect::get(&window, &JsValue::from_str("proflensRecentHandles")).ok().filter(|h| h.is_object())
}

/// Calls `proflensRecentHandles.<method>(args…)`.
fn call(method: &str, args: &[&JsValue]) -> Result<JsValue, JsValue> {
    let helper = helper().ok_or_else(|| JsValue::from_str("no helper"))?;
    let function: js_sys::Function = js_sys::Reflect::get(&helper, &JsValue::from_str(method))?.dyn_into()?;
    let list: js_sys::Array = args.iter().map(|a| (*a).clone()).collect();
    function.apply(&helper, &list)
}

async fn call_async(method: &str, args: &[&JsValue]) -> Result<JsValue, JsValue> {
    let promise: js_sys::Promise = call(method, args)?.dyn_into()?;
    JsFuture::from(promise).await
}

/// Whether handles can be kept (the pickers are then the browser's own).
pub fn supported() -> bool {
    helper().and_then(|h| js_sys::Reflect::get(&h, &JsValue::from_str("supported")).ok()).is_some_and(|s| s.is_truthy())
}

/// The browser's picker for files (or a folder): `None` when cancelled.
pub async fn pick(folder: bool) -> Result<Option<(JsValue, Picked)>, String> {
    match call_async(if folder { "pickFolder" } else { "pickFiles" }, &[]).await {
        Ok(picked) => {
            let handles = js_sys::Reflect::get(&picked, &JsValue::from_str("handles")).unwrap_or(JsValue::NULL);
            let files = js_sys::Reflect::get(&picked, &JsValue::from_str("files")).unwrap_or(JsValue::NULL);
            Ok(Some((handles, files_of(&files))))
        }
        Err(e) if error_name(&e) == "AbortError" => Ok(None),
        Err(e) => Err(message(&e)),
    }
}

/// The handles of a drop: to be called inside the drop event.
pub fn drop_handles(data: &DataTransfer) -> Option<js_sys::Promise> {
    supported().then(|| call("dropHandles", &[data]).ok()?.dyn_into().ok()).flatten()
}

/// Lists `files` as recently opened, with their handles when there are.
pub fn remember(files: &[(String, File)], handles: Option<JsValue>) {
    let paths: Vec<String> = files.iter().map(|(p, _)| p.clone()).collect();
    let key = handles.as_ref().map(|_| format!("h{}", js_sys::Date::now() as u64));
    recent::remember_files(&paths, key.clone());
    if !supported() {
        return;
    }
    let keys: js_sys::Array = recent::list().into_iter().filter_map(|e| e.handles).map(JsValue::from).collect();
    spawn_local(async move {
        if let (Some(key), Some(handles)) = (key, handles) {
            // Kept or not, the files are open: a refusal only costs the reopening.
            let _ = call_async("save", &[&JsValue::from_str(&key), &handles]).await;
        }
        let _ = call_async("keepOnly", &[&keys]).await;
    });
}

/// Lists dropped files as recently opened, with the drop's handles when
/// the browser gives them.
pub fn remember_drop(files: &[(String, File)], handles: Option<js_sys::Promise>) {
    let Some(promise) = handles else {
        return remember(files, None);
    };
    let files = files.to_vec();
    spawn_local(async move {
        let handles = JsFuture::from(promise).await.ok().filter(|h| js_sys::Array::from(h).length() > 0);
        remember(&files, handles);
    });
}

/// The files of the entry kept as `key`, after the browser grants read access again.
pub async fn reopen(key: &str) -> Result<Picked, String> {
    let files = call_async("reopen", &[&JsValue::from_str(key)]).await.map_err(|e| message(&e))?;
    Ok(files_of(&files))
}

/// Forgets every kept handle.
pub fn forget_all() {
    if !supported() {
        return;
    }
    spawn_local(async {
        let _ = call_async("forgetAll", &[]).await;
    });
}

/// `[{path, file}]` from the helper.
fn files_of(list: &JsValue) -> Picked {
    js_sys::Array::from(list)
        .iter()
        .filter_map(|item| {
            let path = js_sys::Reflect::get(&item, &JsValue::from_str("path")).ok()?.as_string()?;
            let file = js_sys::Reflect::get(&item, &JsValue::from_str("file")).ok()?.dyn_into::<File>().ok()?;
            Some((path, file))
        })
        .collect()
}

fn error_name(e: &JsValue) -> String {
    js_sys::Reflect::get(e, &JsValue::from_str("name")).ok().and_then(|n| n.as_string()).unwrap_or_default()
}

fn message(e: &JsValue) -> String {
    js_sys::Reflect::get(e, &JsValue::from_str("message"))
        .ok()
        .and_then(|m| m.as_string())
        .or_else(|| e.as_string())
        .unwrap_or_else(|| "the browser refused".to_string())
}
