//! A small static file server for dist/ on 127.0.0.1 (no dependencies, one
//! thread per connection): enough for `cargo xtask serve` and local checks.
//! Paths are made safe as `proflens serve` makes them (`static_files`).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;

#[path = "../../crates/cli/src/static_files.rs"]
mod static_files;

pub fn serve(dir: &Path, port: u16) -> Result<(), String> {
    let listener =
        TcpListener::bind(("127.0.0.1", port)).map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e}"))?;
    println!("Proflens is served at http://127.0.0.1:{port}/  (Ctrl-C stops it)");
    println!("The single-file build also opens from disk: {}", dir.join("proflens.html").display());
    let dir = dir.canonicalize().map_err(|e| format!("{}: {e}", dir.display()))?;
    for stream in listener.incoming().flatten() {
        let dir = dir.clone();
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
    let file = static_files::decoded_path(target).and_then(|path| {
        let rel = if path == "/" { "index.html" } else { &path[1..] };
        let (mut file, _, path) = static_files::file_inside(dir, rel)?;
        let mut body = Vec::new();
        file.read_to_end(&mut body).ok()?;
        Some((body, path))
    });
    let (status, body, kind) = match file {
        Some((body, path)) => ("200 OK", body, static_files::content_type(&path)),
        None => ("404 Not Found", b"not found".to_vec(), "text/plain"),
    };
    write!(stream, "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n", body.len())?;
    stream.write_all(&body)
}
