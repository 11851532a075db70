//! The size guard: each wasm of dist/ (the page's, the worker's) at most
//! [`LIMIT_GZIP`] bytes gzipped, as a browser downloads it from a server that
//! compresses. `cargo xtask test` fails past it; `cargo xtask dist` prints the sizes.

use std::io::Write;
use std::path::Path;

/// 1.5 MB (decimal, as the sizes are printed), gzip at the best level.
pub const LIMIT_GZIP: usize = 1_500_000;

/// One wasm's size in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WasmSize {
    pub raw: usize,
    pub gzip: usize,
}

/// The size of the wasm file at `path`, raw and gzipped at the best level.
pub fn measure(path: &Path) -> Result<WasmSize, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(&bytes).map_err(|e| e.to_string())?;
    let gzip = encoder.finish().map_err(|e| e.to_string())?.len();
    Ok(WasmSize { raw: bytes.len(), gzip })
}

/// Fails, naming each wasm over the limit, when any is: `wasms` are (what, size).
pub fn check(wasms: &[(&str, WasmSize)]) -> Result<(), String> {
    let over: Vec<String> = wasms.iter().filter_map(|(what, size)| over_limit(what, *size, LIMIT_GZIP)).collect();
    if over.is_empty() {
        Ok(())
    } else {
        Err(over.join("; "))
    }
}

fn over_limit(what: &str, size: WasmSize, limit: usize) -> Option<String> {
    (size.gzip > limit).then(|| {
        format!("the {what} wasm is {} bytes gzip, over the limit of {limit} (xtask/src/wasm_size.rs)", size.gzip)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn over_the_limit_fails_and_at_it_passes() {
        let at = WasmSize { raw: 4_000_000, gzip: 1_500_000 };
        assert_eq!(over_limit("page", at, LIMIT_GZIP), None);
        let over = WasmSize { raw: 4_000_000, gzip: 1_500_001 };
        let message = over_limit("worker", over, LIMIT_GZIP).expect("over");
        assert!(message.contains("worker wasm is 1500001 bytes gzip"), "{message}");
        assert!(check(&[("page", at)]).is_ok());
        let both = check(&[("page", over), ("worker", at)]).expect_err("over");
        assert!(both.contains("page wasm") && !both.contains("worker wasm"), "{both}");
    }

    #[test]
    fn measures_raw_and_gzip_bytes_of_a_file() {
        let dir = std::env::temp_dir().join(format!("proflens-wasm-size-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let bytes = b"\0asm\x01\0\0\0".repeat(1000);
        let path = dir.join("x_bg.wasm");
        std::fs::write(&path, &bytes).unwrap();
        let size = measure(&path).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(size.raw, 8000);
        assert!(size.gzip > 0 && size.gzip < 200, "{size:?}");
        assert!(measure(&path).is_err());
    }
}
