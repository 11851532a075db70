//! `cargo xtask dist`: the static app.
//!
//! `dist/` works from any static web server (index.html, proflens.js,
//! proflens_bg.wasm: the page; proflens_worker.js, proflens_worker_bg.wasm:
//! the analysis worker, fetched by loader.js; loader.js, theme-boot.js, theme.css, style.css);
//! `dist/proflens.html` is the same app in one self-contained file that works opened from disk (file://),
//! where browsers refuse module scripts and fetches: the wasm travels inside
//! it gzip+base64 and the scripts are inline, allowed by their CSP hashes.
//!
//! The demos (`crates/app/src/demos.rs`, included below) are copied gzipped
//! into `dist/demos/`, fetched by the app on demand, and embedded in
//! `proflens.html` as base64 elements the page reads from disk.

use crate::{root, run, target_dir, wasm_size};
use base64::Engine;
use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The app's list of demos and their files (data only, written once).
#[allow(dead_code)]
mod demos {
    include!("../../crates/app/src/demos.rs");
}

const CSP_MARKER: &str = "<!-- PROFLENS:CSP -->";

/// The two wasm binaries of the app crate, each built with one cargo feature
/// (so neither carries the other's code): the page's UI and the analysis
/// worker's. `out_name` names their files in dist/ (`<out_name>.js`, `<out_name>_bg.wasm`).
/// Each has its cargo profile: the page is built for size, the worker for speed.
struct Role {
    feature: &'static str,
    out_name: &'static str,
    profile: &'static str,
}

const PAGE: Role = Role { feature: "page", out_name: "proflens", profile: "wasm-release" };
const WORKER: Role = Role { feature: "worker", out_name: "proflens_worker", profile: "wasm-worker" };

/// Builds dist/ and returns its path.
pub fn build() -> Result<PathBuf, String> {
    let root = root();
    let dist = root.join("dist");
    for (i, role) in [PAGE, WORKER].iter().enumerate() {
        run(Command::new("cargo")
            .args(["build", "-p", "proflens-app", "--target", "wasm32-unknown-unknown", "--profile", role.profile])
            .args(["--no-default-features", "--features", role.feature])
            .current_dir(&root))?;
        if i == 0 && dist.exists() {
            std::fs::remove_dir_all(&dist).map_err(|e| format!("clearing {}: {e}", dist.display()))?;
        }
        bindgen(role, &dist)?;
    }

    let web = root.join("web");
    for entry in std::fs::read_dir(&web).map_err(|e| format!("{}: {e}", web.display()))? {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.is_file() && path.file_name().is_some_and(|n| n != "index.html") {
            std::fs::copy(&path, dist.join(path.file_name().expect("file"))).map_err(|e| e.to_string())?;
        }
    }
    let shell = read(&web.join("index.html"))?;
    if !shell.contains(CSP_MARKER) {
        return Err(format!("web/index.html lacks the {CSP_MARKER} line"));
    }
    write(&dist.join("index.html"), &shell.replace(CSP_MARKER, &csp_meta(&[])))?;
    let demo_files = copy_demos(&root, &dist)?;
    let single = single_file(&shell, &dist, &demo_files)?;
    write(&dist.join("proflens.html"), &single)?;

    let demo_bytes: usize = demo_files.iter().map(|(_, gz)| gz.len()).sum();
    println!("xtask: dist ready at {}", dist.display());
    for (what, wasm) in wasm_sizes(&dist)? {
        println!("xtask: {what} wasm {} bytes raw, {} bytes gzip", wasm.raw, wasm.gzip);
    }
    println!(
        "xtask: demos {} bytes gzip in {} files ({}/); single file {} bytes",
        demo_bytes,
        demo_files.len(),
        demos::DIR,
        single.len()
    );
    Ok(dist)
}

/// The size of each wasm in `dist`, by role.
pub fn wasm_sizes(dist: &Path) -> Result<Vec<(&'static str, wasm_size::WasmSize)>, String> {
    [PAGE, WORKER]
        .iter()
        .map(|role| Ok((role.feature, wasm_size::measure(&dist.join(format!("{}_bg.wasm", role.out_name)))?)))
        .collect()
}

/// wasm-bindgen's glue and stripped module of the last build, as `role`'s files in `dist`.
fn bindgen(role: &Role, dist: &Path) -> Result<(), String> {
    let wasm = target_dir().join("wasm32-unknown-unknown").join(role.profile).join("proflens_app.wasm");
    run(Command::new("wasm-bindgen")
        // The name section is 2/3 of the wasm; panics still print their messages.
        .args(["--target", "no-modules", "--no-typescript", "--remove-name-section", "--out-name", role.out_name])
        .arg("--out-dir")
        .arg(dist)
        .arg(&wasm))
}

/// The Content-Security-Policy: nothing from any other origin. Inline
/// scripts are allowed by hash only; wasm compilation needs 'wasm-unsafe-eval'
/// and the decoding worker is created from a blob: URL.
fn csp_meta(inline_script_hashes: &[String]) -> String {
    let hashes: String = inline_script_hashes.iter().map(|h| format!(" 'sha256-{h}'")).collect();
    let policy = format!(
        "default-src 'none'; script-src 'self' 'wasm-unsafe-eval' blob:{hashes}; worker-src blob:; \
         style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; \
         base-uri 'none'; form-action 'none'"
    );
    format!("<meta http-equiv=\"Content-Security-Policy\" content=\"{policy}\">")
}

/// Writes each demo file into `dist/demos/` as gzip (a fixture already
/// gzipped is kept as it is), once per served name; returns them by name.
fn copy_demos(root: &Path, dist: &Path) -> Result<Vec<(String, Vec<u8>)>, String> {
    let dir = dist.join(demos::DIR);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut written: Vec<(String, Vec<u8>)> = Vec::new();
    for file in demos::DEMOS.iter().flat_map(|d| d.files) {
        if written.iter().any(|(served, _)| served == file.served) {
            continue;
        }
        let source = root.join(file.source);
        let raw = std::fs::read(&source).map_err(|e| format!("demo file {}: {e}", source.display()))?;
        let gz = if file.source.ends_with(".gz") { raw } else { gzip(&raw) };
        std::fs::write(dir.join(file.served), &gz).map_err(|e| format!("{}: {e}", file.served))?;
        written.push((file.served.to_string(), gz));
    }
    Ok(written)
}

/// The demo files as elements of the single file: inert (not scripts the
/// browser runs), read by the app by id.
fn demo_elements(files: &[(String, Vec<u8>)]) -> String {
    files
        .iter()
        .map(|(served, gz)| {
            format!(
                "<script type=\"application/octet-stream\" id=\"{}{served}\" data-encoding=\"base64\">{}</script>\n",
                demos::ELEMENT_PREFIX,
                base64::engine::general_purpose::STANDARD.encode(gz)
            )
        })
        .collect()
}

fn single_file(shell: &str, dist: &Path, demo_files: &[(String, Vec<u8>)]) -> Result<String, String> {
    let css = read(&dist.join("style.css"))?;
    let theme_css = read(&dist.join("theme.css"))?;
    let theme_boot = inline_safe(&read(&dist.join("theme-boot.js"))?)?;
    let glue = inline_safe(&read(&dist.join("proflens.js"))?)?;
    let loader = inline_safe(&read(&dist.join("loader.js"))?)?;
    let wasm_b64 = embedded_wasm(dist, PAGE.out_name)?;
    // The worker's glue is not run on the page (it would redefine the page's
    // `wasm_bindgen`): loader.js puts it in the worker's Blob, so it needs no hash.
    let worker_glue = inline_safe(&read(&dist.join(format!("{}.js", WORKER.out_name)))?)?;
    let worker_wasm_b64 = embedded_wasm(dist, WORKER.out_name)?;
    let hashes = vec![sha256_b64(&glue), sha256_b64(&loader), sha256_b64(&theme_boot)];

    let replacements = [
        (CSP_MARKER.to_string(), csp_meta(&hashes)),
        ("<link rel=\"stylesheet\" href=\"theme.css\">".to_string(), format!("<style>{theme_css}</style>")),
        ("<link rel=\"stylesheet\" href=\"style.css\">".to_string(), format!("<style>{css}</style>")),
        ("<script src=\"theme-boot.js\"></script>".to_string(), format!("<script>{theme_boot}</script>")),
        ("<script src=\"proflens.js\"></script>".to_string(), format!("<script id=\"proflens-glue\">{glue}</script>")),
        (
            "<script src=\"loader.js\"></script>".to_string(),
            format!(
                "<script type=\"application/octet-stream\" id=\"proflens-wasm\" data-encoding=\"gzip-base64\">{wasm_b64}</script>\n\
                 <script type=\"text/plain\" id=\"proflens-worker-glue\">{worker_glue}</script>\n\
                 <script type=\"application/octet-stream\" id=\"proflens-worker-wasm\" data-encoding=\"gzip-base64\">{worker_wasm_b64}</script>\n\
                 {}<script>{loader}</script>",
                demo_elements(demo_files)
            ),
        ),
    ];
    let mut html = shell.to_string();
    for (from, to) in replacements {
        if !html.contains(&from) {
            return Err(format!("web/index.html lacks `{from}`"));
        }
        html = html.replacen(&from, &to, 1);
    }
    Ok(html)
}

/// `<out_name>_bg.wasm` of dist/ as gzip in base64, for an element of the single file.
fn embedded_wasm(dist: &Path, out_name: &str) -> Result<String, String> {
    let path = dist.join(format!("{out_name}_bg.wasm"));
    let wasm = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(base64::engine::general_purpose::STANDARD.encode(gzip(&wasm)))
}

/// Script text that cannot end its `<script>` element early.
fn inline_safe(script: &str) -> Result<String, String> {
    if script.to_ascii_lowercase().contains("</script") {
        return Err("a script contains `</script`, which cannot be inlined".into());
    }
    Ok(script.to_string())
}

fn sha256_b64(text: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(Sha256::digest(text.as_bytes()))
}

/// gzip (RFC 1952) of `data`, as browsers' DecompressionStream reads it.
fn gzip(data: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(data).expect("writing to memory");
    encoder.finish().expect("writing to memory")
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csp_names_no_other_origin() {
        let meta = csp_meta(&["abc=".to_string()]);
        assert!(meta.contains("default-src 'none'"));
        assert!(meta.contains("'sha256-abc='"));
        assert!(!meta.contains("://") && !meta.contains("https:") && !meta.contains(" *"), "{meta}");
    }

    #[test]
    fn gzip_round_trips() {
        let data = b"wasm bytes".repeat(100);
        let gz = gzip(&data);
        let mut raw = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&gz[..]), &mut raw).unwrap();
        assert_eq!(raw, data);
    }

    #[test]
    fn demo_elements_are_inert_and_named_by_file() {
        let html = demo_elements(&[("a.json.gz".to_string(), vec![0x1f, 0x8b, 0, 255])]);
        assert_eq!(
            html,
            "<script type=\"application/octet-stream\" id=\"proflens-demo-a.json.gz\" data-encoding=\"base64\">H4sA/w==</script>\n"
        );
        // Every demo file of the list exists where xtask reads it.
        for file in demos::DEMOS.iter().flat_map(|d| d.files) {
            assert!(root().join(file.source).is_file(), "{}", file.source);
        }
    }

    #[test]
    fn refuses_scripts_that_would_close_their_element() {
        assert!(inline_safe("let s = '</SCRIPT>';").is_err());
        assert!(inline_safe("let s = 1;").is_ok());
    }
}
