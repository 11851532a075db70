//! A small static file server for dist/ on 127.0.0.1 (no dependencies, one
//! thread per connection): enough for `cargo xtask serve` and local checks.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};

pub fn serve(dir: &Path, port: u16) -> Result<(), String> {
    let listener =
        TcpListener::bind(("127.0.0.1", port)).map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e}"))?;
    println!("Proflens is served at http://127.0.0.1:{port}/  (Ctrl-C stops it)");
    println!("The single-file build also opens from disk: {}", dir.join("proflens.html").display());
    for stream in listener.incoming().flatten() {
        let dir = dir.to_path_buf();
        std::thread::spawn(move || {
            // A broken connection only ends that connection.
            let _ = respond(stream, &dir);
        });
    }
    Ok(())
}

fn respond(mut stream: TcpStream, dir: &Path) -> std::io::Result<()> {
    let mut request_line = String::new();
    BufReader::new(&stream).read_line(&mut request_line)?;
    let target = request_line.split_whitespace().nth(1).unwrap_or("/");
    let (status, body, kind) = match resolve(dir, target).and_then(|p| Some((std::fs::read(&p).ok()?, p))) {
        Some((body, path)) => ("200 OK", body, content_type(&path)),
        None => ("404 Not Found", b"not found".to_vec(), "text/plain"),
    };
    write!(stream, "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n", body.len())?;
    stream.write_all(&body)
}

/// The file for a request path, never outside `dir`.
fn resolve(dir: &Path, target: &str) -> Option<PathBuf> {
    let path = target.split(['?', '#']).next().unwrap_or("/");
    let relative = Path::new(path.trim_start_matches('/'));
    if relative.components().any(|c| !matches!(c, Component::Normal(_))) {
        return None;
    }
    let full = dir.join(relative);
    if full.is_dir() {
        Some(full.join("index.html"))
    } else {
        Some(full)
    }
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
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
    fn never_leaves_the_served_folder() {
        let dir = Path::new("/srv/dist");
        assert_eq!(resolve(dir, "/../etc/passwd"), None);
        assert_eq!(resolve(dir, "/a/../../x"), None);
        assert_eq!(resolve(dir, "/proflens.js?v=1"), Some(dir.join("proflens.js")));
        assert_eq!(content_type(Path::new("x.wasm")), "application/wasm");
    }
}
