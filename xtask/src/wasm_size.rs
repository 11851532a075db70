//! The size guard: each wasm of dist/ (the page's, the worker's) at most
//! [`LIMIT_GZIP`] bytes gzipped, as a browser downloads it from a server that
//! compresses. `cargo xtask test` fails past it; `cargo xtask dist` prints the sizes.

use crate::dist::{gzip, PAGE, WORKER};
use std::path::Path;

/// 1.5 MB (decimal, as the sizes are printed), gzip at the best level.
pub const LIMIT_GZIP: usize = 1_500_000;

/// One wasm's size in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WasmSize {
    pub raw: usize,
    pub gzip: usize,
}

/// The size of `<out_name>_bg.wasm` in `dist`.
pub fn measure(dist: &Path, out_name: &str) -> Result<WasmSize, String> {
    let path = dist.join(format!("{out_name}_bg.wasm"));
    let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(WasmSize { raw: bytes.len(), gzip: gzip(&bytes).len() })
}

/// Fails, naming each wasm over the limit, when either is.
pub fn check(dist: &Path) -> Result<(), String> {
    let mut over = Vec::new();
    for role in [PAGE, WORKER] {
        let size = measure(dist, role.out_name)?;
        if let Some(message) = over_limit(role.feature, size, LIMIT_GZIP) {
            over.push(message);
        }
    }
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
    }

    #[test]
    fn measures_raw_and_gzip_bytes_of_a_file() {
        let dir = std::env::temp_dir().join(format!("proflens-wasm-size-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let bytes = b"\0asm\x01\0\0\0".repeat(1000);
        std::fs::write(dir.join("x_bg.wasm"), &bytes).unwrap();
        let size = measure(&dir, "x").unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(size.raw, 8000);
        assert!(size.gzip > 0 && size.gzip < 200, "{size:?}");
        assert!(measure(&dir, "x").is_err());
    }
}
