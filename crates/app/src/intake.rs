//! Getting files from the user: file and folder pickers, and drag-and-drop of
//! files and whole folders (walked with the File and Directory Entries API).

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{DataTransfer, File, FileList, FileSystemDirectoryEntry, FileSystemEntry, FileSystemFileEntry};

/// Folders nested deeper than this are not walked (guards against link loops).
const MAX_DEPTH: usize = 64;

/// The path a picked file is known by: its path below the picked folder, or its name.
pub fn path_of(file: &File) -> String {
    js_sys::Reflect::get(file, &JsValue::from_str("webkitRelativePath"))
        .ok()
        .and_then(|v| v.as_string())
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| file.name())
}

pub fn from_file_list(list: Option<FileList>) -> Vec<(String, File)> {
    let Some(list) = list else {
        return Vec::new();
    };
    (0..list.length()).filter_map(|i| list.get(i)).map(|f| (path_of(&f), f)).collect()
}

/// The entries of a drop. Must be called inside the drop event: the browser
/// empties the data transfer afterwards.
pub fn drop_entries(data: &DataTransfer) -> Result<Vec<FileSystemEntry>, Vec<(String, File)>> {
    let items = data.items();
    let mut entries = Vec::new();
    for i in 0..items.length() {
        let Some(item) = items.get(i) else { continue };
        if item.kind() != "file" {
            continue;
        }
        match item.webkit_get_as_entry() {
            Ok(Some(entry)) => entries.push(entry),
            // No entries API: fall back to the plain file list (no folders).
            _ => return Err(from_file_list(data.files())),
        }
    }
    Ok(entries)
}

/// Every file below the dropped entries, with paths relative to the drop
/// (`logs/train/plugins/profile/run/vm.xplane.pb`). Unreadable entries are
/// counted, not fatal.
pub async fn walk(entries: Vec<FileSystemEntry>) -> (Vec<(String, File)>, usize) {
    let mut files = Vec::new();
    let mut unreadable = 0;
    let mut stack: Vec<(FileSystemEntry, usize)> = entries.into_iter().map(|e| (e, 0)).collect();
    stack.reverse();
    while let Some((entry, depth)) = stack.pop() {
        if entry.is_file() {
            // Chromium's entries are not instances of the standard interface
            // names (no `instanceof`), so cast by the entry's own `isFile`.
            let file_entry: FileSystemFileEntry = entry.clone().unchecked_into();
            match file_of(&file_entry).await {
                Ok(file) => files.push((relative_path(&entry), file)),
                Err(_) => unreadable += 1,
            }
        } else if entry.is_directory() && depth < MAX_DEPTH {
            let dir: FileSystemDirectoryEntry = entry.unchecked_into();
            match children_of(&dir).await {
                Ok(children) => {
                    stack.extend(children.into_iter().rev().map(|c| (c, depth + 1)));
                }
                Err(_) => unreadable += 1,
            }
        }
    }
    (files, unreadable)
}

fn relative_path(entry: &FileSystemEntry) -> String {
    let full = entry.full_path();
    let trimmed = full.trim_start_matches('/');
    if trimmed.is_empty() {
        entry.name()
    } else {
        trimmed.to_string()
    }
}

async fn file_of(entry: &FileSystemFileEntry) -> Result<File, JsValue> {
    let promise = js_sys::Promise::new(&mut |resolve, reject| {
        entry.file_with_callback_and_callback(&resolve, &reject);
    });
    JsFuture::from(promise).await?.dyn_into::<File>()
}

/// All entries of a directory: `readEntries` gives them in batches until an empty one.
async fn children_of(dir: &FileSystemDirectoryEntry) -> Result<Vec<FileSystemEntry>, JsValue> {
    let reader = dir.create_reader();
    let mut all = Vec::new();
    loop {
        let mut call_error = None;
        let promise = js_sys::Promise::new(&mut |resolve, reject| {
            if let Err(e) = reader.read_entries_with_callback_and_callback(&resolve, &reject) {
                call_error = Some(e);
            }
        });
        if let Some(e) = call_error {
            return Err(e);
        }
        let batch = js_sys::Array::from(&JsFuture::from(promise).await?);
        if batch.length() == 0 {
            break;
        }
        all.extend(batch.iter().filter(|e| e.is_object()).map(|e| e.unchecked_into::<FileSystemEntry>()));
    }
    Ok(all)
}
