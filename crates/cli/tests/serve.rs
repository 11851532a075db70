//! `proflens serve`: what it refuses before serving (a clear message and a
//! non-zero exit), and what it serves, through a plain HTTP client. The page
//! itself on a served log directory is opened in the browsers
//! (tests/browser/serve.test.mjs).

use crate::common;

use common::{data, proflens, spawn};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;

const LOGDIR: &str = "xspace/input_bound";

/// A page folder holding only an index.html, in a fresh temporary folder.
fn page_folder(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("proflens-serve-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("index.html"), "<!doctype html><title>page</title>").unwrap();
    dir
}

fn refused(args: &[&str], says: &str) {
    let out = proflens(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{args:?} succeeded");
    assert!(stderr.contains(says), "{args:?}: {stderr}");
}

#[test]
fn a_missing_log_directory_or_page_is_refused_with_a_message() {
    let page = page_folder("refused");
    let logdir = data(LOGDIR);
    let (page, logdir) = (page.to_str().unwrap(), logdir.to_str().unwrap());
    refused(&["serve", "/no/such/logdir", "--port", "0", "--page", page], "cannot open the log directory");
    let empty = std::env::temp_dir();
    refused(&["serve", logdir, "--port", "0", "--page", empty.to_str().unwrap()], "holds no index.html");
    let file = data("xspace/input_bound/plugins/profile/2026_11_22_09_04_29/vm.xplane.pb");
    refused(&["serve", file.to_str().unwrap(), "--port", "0", "--page", page], "is not a folder");
}

/// One request's status line and body.
fn get(port: u16, request: &str) -> (String, Vec<u8>) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).unwrap();
    let split = answer.windows(4).position(|w| w == b"\r\n\r\n").expect("a head");
    let head = String::from_utf8_lossy(&answer[..split]).into_owned();
    (head.lines().next().unwrap().to_string(), answer[split + 4..].to_vec())
}

#[test]
fn serves_the_page_the_index_and_profiles_and_nothing_else() {
    let page = page_folder("serves");
    let logdir = data(LOGDIR);
    let mut server = spawn(&["serve", logdir.to_str().unwrap(), "--port", "0", "--page", page.to_str().unwrap()]);
    let mut line = String::new();
    BufReader::new(server.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let port: u16 = line.split("127.0.0.1:").nth(1).unwrap().split('/').next().unwrap().parse().unwrap();
    assert!(line.contains("/?logdir=logdir/"), "{line}");
    let host = format!("Host: 127.0.0.1:{port}\r\n");
    let ask = |target: &str, more: &str| get(port, &format!("GET {target} HTTP/1.1\r\n{host}{more}\r\n"));

    let (status, body) = ask("/", "");
    assert_eq!(
        (status.as_str(), body.as_slice()),
        ("HTTP/1.1 200 OK", std::fs::read(page.join("index.html")).unwrap().as_slice())
    );
    let (status, body) = ask("/logdir/proflens-index.json", "");
    assert_eq!(status, "HTTP/1.1 200 OK");
    let index: serde_json::Value = serde_json::from_slice(&body).unwrap();
    let path = index["runs"][0]["hosts"][0]["path"].as_str().unwrap().to_string();
    assert_eq!(path, "plugins/profile/2026_11_22_09_04_29/vm.xplane.pb");
    let (status, body) = ask(&format!("/logdir/{path}"), "");
    assert_eq!(status, "HTTP/1.1 200 OK");
    assert_eq!(body, std::fs::read(logdir.join(&path)).unwrap(), "the profile's bytes");
    // Nothing outside the folders, and no other site.
    for target in ["/logdir/../../Cargo.toml", "/logdir/%2e%2e/%2e%2e/Cargo.toml", "/..%2f..%2fCargo.toml"] {
        assert_eq!(ask(target, "").0, "HTTP/1.1 404 Not Found", "{target}");
    }
    assert_eq!(ask("/", "Origin: http://evil.example\r\n").0, "HTTP/1.1 403 Forbidden");
    assert_eq!(get(port, "GET / HTTP/1.1\r\nHost: evil.example\r\n\r\n").0, "HTTP/1.1 403 Forbidden");
    assert_eq!(get(port, &format!("PUT / HTTP/1.1\r\n{host}\r\n")).0, "HTTP/1.1 405 Method Not Allowed");
    server.kill().unwrap();
    let _ = server.wait();
}
