//! `PROFLENS_CUPTI_DUMP=FILE`: every activity record CUPTI hands over, and
//! the names it points at, appended to FILE
//! (`proflens_collector::cupti::raw` says the format and reads it back).
//! For checking the record layouts against a real CUPTI; off unless set.
//! A file that cannot be written is said once and the dump stops; tracing
//! goes on.

use crate::say;
use proflens_collector::cupti::raw;
use std::fs::File;
use std::io::Write;
use std::sync::{Mutex, OnceLock};

static FILE: OnceLock<Option<Mutex<File>>> = OnceLock::new();

fn file() -> Option<&'static Mutex<File>> {
    FILE.get_or_init(|| {
        let path = std::env::var_os("PROFLENS_CUPTI_DUMP")?;
        match File::create(&path) {
            Ok(f) => Some(Mutex::new(f)),
            Err(e) => {
                say(&format!("cannot write the CUPTI record dump {}: {e}", path.to_string_lossy()));
                None
            }
        }
    })
    .as_ref()
}

/// Whether records are being dumped.
pub fn enabled() -> bool {
    file().is_some()
}

/// Appends already encoded entries ([`raw::encode_record`], [`raw::encode_string`]).
pub fn append(entries: &[u8]) {
    let Some(file) = file() else { return };
    let mut f = file.lock().unwrap_or_else(|e| e.into_inner());
    if let Err(e) = f.write_all(entries) {
        say(&format!("the CUPTI record dump stopped: {e}"));
    }
}

pub use raw::{encode_record, encode_string};
