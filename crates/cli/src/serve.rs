//! `proflens serve LOGDIR`: the page and a log directory on 127.0.0.1, for
//! a browser on the same machine (the page's `?logdir=` mode: the index of
//! the log directory is built on each request, profiles are fetched when
//! chosen). Read-only: GET and HEAD of files inside the page's folder or the
//! log directory, nothing else. A request naming another host or origin is
//! refused, so that a web site cannot read the log directory through the
//! browser (DNS rebinding, cross-site requests).

use crate::static_files::{content_type, decoded_path, file_inside};
use crate::Failure;
use proflens_format::logdir_index;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Where the log directory is served on the page's origin.
const LOGDIR_PREFIX: &str = "/logdir/";
/// A request's line and headers, at most: a browser's are a few hundred bytes.
const MAX_HEAD_BYTES: u64 = 16 << 10;

pub struct Args {
    pub logdir: PathBuf,
    pub port: u16,
    pub open: bool,
    pub page: Option<PathBuf>,
}

/// What the server reads: both folders canonical, so that a file's own
/// canonical path shows whether it is inside them (symlinks included).
struct Served {
    page: PathBuf,
    logdir: PathBuf,
    port: u16,
}

pub fn run(args: &Args) -> Result<(), Failure> {
    let logdir = folder(&args.logdir, "log directory")?;
    let page = folder(&page_folder(args.page.as_deref())?, "page folder")?;
    if !page.join("index.html").is_file() {
        return Err(Failure(format!(
            "{} holds no index.html: pass the built page with --page (`cargo xtask dist` builds it in dist/)",
            page.display()
        )));
    }
    let listener = TcpListener::bind(("127.0.0.1", args.port))
        .map_err(|e| Failure(format!("cannot listen on 127.0.0.1:{}: {e}", args.port)))?;
    let port = listener.local_addr().map_err(|e| Failure(e.to_string()))?.port();
    let url = format!("http://127.0.0.1:{port}/?logdir=logdir/");
    println!("Proflens serves {} at {url}  (Ctrl-C stops it)", logdir.display());
    std::io::stdout().flush().map_err(|e| Failure(e.to_string()))?;
    if args.open {
        open_browser(&url);
    }
    let served = std::sync::Arc::new(Served { page, logdir, port });
    for stream in listener.incoming().flatten() {
        let served = served.clone();
        // A broken or slow connection only ends that connection.
        std::thread::spawn(move || {
            let _ = respond(stream, &served);
        });
    }
    Ok(())
}

/// `--page`, else `PROFLENS_PAGE`, else the page installed beside the
/// program (`../share/proflens/page`), else a `dist/` above it (a build of
/// this repository after `cargo xtask dist`).
fn page_folder(given: Option<&Path>) -> Result<PathBuf, Failure> {
    if let Some(page) = given.map(Path::to_path_buf).or_else(|| std::env::var_os("PROFLENS_PAGE").map(PathBuf::from)) {
        return Ok(page);
    }
    let exe = std::env::current_exe().map_err(|e| Failure(format!("cannot find the page: {e}")))?;
    let beside = exe.parent().map(|bin| bin.join("../share/proflens/page"));
    let above = exe.ancestors().skip(1).map(|dir| dir.join("dist"));
    beside.into_iter().chain(above).find(|dir| dir.join("index.html").is_file()).ok_or_else(|| {
        Failure("no built page found: build it with `cargo xtask dist` and pass --page dist".to_string())
    })
}

fn folder(path: &Path, what: &str) -> Result<PathBuf, Failure> {
    let canonical =
        path.canonicalize().map_err(|e| Failure(format!("{}: cannot open the {what}: {e}", path.display())))?;
    if !canonical.is_dir() {
        return Err(Failure(format!("{}: the {what} is not a folder", path.display())));
    }
    Ok(canonical)
}

/// Best effort: the URL is printed either way.
fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") { "open" } else { "xdg-open" };
    if let Err(e) = std::process::Command::new(opener).arg(url).spawn() {
        eprintln!("could not open a browser ({opener}: {e}); open {url}");
    }
}

/// A response's status, type and body (a file is sent from disk as it is read).
enum Body {
    Bytes(&'static str, Vec<u8>),
    File(&'static str, std::fs::File, u64),
}

fn respond(mut stream: TcpStream, served: &Served) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let (status, body, head_only) = match read_request(&stream) {
        Ok(request) => {
            let head_only = request.method == "HEAD";
            let (status, body) = answer(&request, served);
            (status, body, head_only)
        }
        Err(status) => (status, Body::Bytes("text/plain; charset=utf-8", status.as_bytes().to_vec()), false),
    };
    let (kind, length) = match &body {
        Body::Bytes(kind, bytes) => (*kind, bytes.len() as u64),
        Body::File(kind, _, length) => (*kind, *length),
    };
    write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {length}\r\nCache-Control: no-cache\r\n\
         X-Content-Type-Options: nosniff\r\nCross-Origin-Resource-Policy: same-origin\r\n\
         Referrer-Policy: no-referrer\r\nContent-Security-Policy: frame-ancestors 'none'\r\nConnection: close\r\n\r\n"
    )?;
    if head_only {
        return Ok(());
    }
    match body {
        Body::Bytes(_, bytes) => stream.write_all(&bytes),
        Body::File(_, file, _) => std::io::copy(&mut BufReader::new(file), &mut stream).map(|_| ()),
    }
}

struct Request {
    method: String,
    target: String,
    host: Option<String>,
    origin: Option<String>,
}

/// The request line and the headers the server checks; an error status for
/// a request it cannot read.
fn read_request(stream: &TcpStream) -> Result<Request, &'static str> {
    let mut reader = BufReader::new(stream.take(MAX_HEAD_BYTES));
    let mut line = String::new();
    reader.read_line(&mut line).map_err(|_| "400 Bad Request")?;
    let mut parts = line.split_whitespace();
    let (Some(method), Some(target)) = (parts.next(), parts.next()) else {
        return Err("400 Bad Request");
    };
    let mut request = Request { method: method.to_string(), target: target.to_string(), host: None, origin: None };
    loop {
        line.clear();
        if reader.read_line(&mut line).map_err(|_| "400 Bad Request")? == 0 {
            return Err("431 Request Header Fields Too Large");
        }
        let header = line.trim_end();
        if header.is_empty() {
            return Ok(request);
        }
        let Some((name, value)) = header.split_once(':') else { return Err("400 Bad Request") };
        match name.trim().to_ascii_lowercase().as_str() {
            "host" => request.host = Some(value.trim().to_string()),
            "origin" => request.origin = Some(value.trim().to_string()),
            _ => {}
        }
    }
}

fn answer(request: &Request, served: &Served) -> (&'static str, Body) {
    let text = |status: &'static str, message: &str| (status, Body::Bytes("text/plain; charset=utf-8", message.into()));
    if request.method != "GET" && request.method != "HEAD" {
        return text("405 Method Not Allowed", "only GET and HEAD: this server is read-only");
    }
    let own = |host: &str| host == format!("127.0.0.1:{}", served.port) || host == format!("localhost:{}", served.port);
    let from_here = request.host.as_deref().is_some_and(own)
        && request.origin.as_deref().is_none_or(|o| o.strip_prefix("http://").is_some_and(own));
    if !from_here {
        return text("403 Forbidden", "only pages served here may read this server");
    }
    let Some(path) = decoded_path(&request.target) else {
        return text("404 Not Found", "not found");
    };
    let found = match path.strip_prefix(LOGDIR_PREFIX) {
        Some(logdir_index::FILE_NAME) => match logdir_index::build(&served.logdir)
            .and_then(|index| serde_json::to_vec_pretty(&index).map_err(|e| e.to_string()))
        {
            Ok(json) => return ("200 OK", Body::Bytes("application/json", json)),
            Err(e) => return text("500 Internal Server Error", &e),
        },
        Some(rel) => file_inside(&served.logdir, rel),
        None if path == "/" => file_inside(&served.page, "index.html"),
        None => file_inside(&served.page, &path[1..]),
    };
    match found {
        Some((file, length, path)) => ("200 OK", Body::File(content_type(&path), file, length)),
        None => text("404 Not Found", "not found"),
    }
}
