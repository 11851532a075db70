//! Files served from a folder over HTTP: a request's path made safe, the
//! regular file it names inside the folder, and its media type. Shared by
//! `proflens serve` and `cargo xtask serve` (which includes this file with
//! `#[path]`: the build tool depends on no crate of the workspace), so the
//! two servers refuse the same paths.

use std::path::{Component, Path, PathBuf};

/// The request's path, percent-decoded, without its query; `None` for one
/// that is not plain text or names a part that is not a plain name.
pub fn decoded_path(target: &str) -> Option<String> {
    let raw = target.split(['?', '#']).next()?;
    if !raw.starts_with('/') {
        return None;
    }
    let mut bytes = Vec::with_capacity(raw.len());
    let mut rest = raw.as_bytes();
    while let Some((&b, tail)) = rest.split_first() {
        if b == b'%' {
            let hex = std::str::from_utf8(tail.get(..2)?).ok()?;
            bytes.push(u8::from_str_radix(hex, 16).ok()?);
            rest = &tail[2..];
        } else {
            bytes.push(b);
            rest = tail;
        }
    }
    let path = String::from_utf8(bytes).ok()?;
    let plain = path[1..].split('/').all(|part| part != "." && part != "..")
        && !path.contains(['\\', '\0'])
        && Path::new(&path[1..]).components().all(|c| matches!(c, Component::Normal(_)));
    plain.then_some(path)
}

/// The regular file at `rel` inside `root`, with its length and canonical
/// path; `None` where it is missing, not a file, or lies outside `root`
/// (through a symlink).
pub fn file_inside(root: &Path, rel: &str) -> Option<(std::fs::File, u64, PathBuf)> {
    let path = root.join(rel).canonicalize().ok()?;
    if !path.starts_with(root) {
        return None;
    }
    let file = std::fs::File::open(&path).ok()?;
    let meta = file.metadata().ok()?;
    meta.is_file().then_some((file, meta.len(), path))
}

pub fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("wasm") => "application/wasm",
        Some("json") => "application/json",
        Some("png") => "image/png",
        Some("svg") => "image/svg+xml",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_decoded_and_never_climb() {
        assert_eq!(decoded_path("/logdir/a%20b.pb?x=1").as_deref(), Some("/logdir/a b.pb"));
        assert_eq!(decoded_path("/").as_deref(), Some("/"));
        for bad in ["/../etc/passwd", "/logdir/%2e%2e/x", "/logdir/..%2fx", "/a/./b", "/a%5cb", "/%00", "x", "/%zz"] {
            assert_eq!(decoded_path(bad), None, "{bad}");
        }
    }
}
