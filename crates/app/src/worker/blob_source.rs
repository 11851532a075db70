//! A picked or dropped file read a slice at a time in the worker
//! (`FileReaderSync` over `Blob.slice`), so that a profile decodes without
//! the whole file in the worker's memory (wasm32 holds at most 4 GiB, and
//! one allocation at most 2 GiB).
//!
//! Each `FileReaderSync` read costs Chromium several milliseconds whatever its
//! size (44 reads of 1 MiB took 330-550 ms of a 44 MiB file, 3 reads of 16 MiB
//! 135-210 ms), so reads that follow each other are served from a window read
//! ahead, which doubles while they do (up to [`MAX_WINDOW`]). The window is a
//! JavaScript buffer, outside the wasm memory; a jump reads only what it asks.

use proflens_format::{ByteSource, Error};
use std::cell::RefCell;
use web_sys::{File, FileReaderSync};

/// The largest read ahead: 16 MiB, beyond which longer reads gained little.
const MAX_WINDOW: u64 = 16 << 20;

pub struct BlobSource {
    path: String,
    file: File,
    len: u64,
    window: RefCell<Option<Window>>,
}

/// The bytes last read from the file, from `start`.
struct Window {
    start: u64,
    bytes: js_sys::Uint8Array,
}

/// The bytes to read at `offset` for a read of `wanted` after a window of
/// `last` (start, length): `wanted`, or twice the window where the read
/// starts at its end.
fn read_len(last: Option<(u64, u64)>, offset: u64, wanted: u64) -> u64 {
    let ahead = match last {
        Some((start, len)) if start + len == offset => (2 * len).min(MAX_WINDOW),
        _ => 0,
    };
    ahead.max(wanted)
}

/// Whether a window of `last` (start, length) holds the `wanted` bytes at `offset`.
fn covers(last: Option<(u64, u64)>, offset: u64, wanted: u64) -> bool {
    last.is_some_and(|(start, len)| start <= offset && offset + wanted <= start + len)
}

impl BlobSource {
    pub fn new(path: &str, file: &File) -> BlobSource {
        BlobSource { path: path.to_string(), file: file.clone(), len: file.size() as u64, window: RefCell::new(None) }
    }

    fn unreadable(&self) -> Error {
        Error::Unreadable {
            detail: format!(
                "“{}” may have been moved, changed or deleted since it was opened; open it again",
                self.path
            ),
        }
    }

    /// `len` bytes from `offset` (fewer at the end of the file), as the file reads now.
    fn read_slice(&self, offset: u64, len: u64) -> Result<js_sys::Uint8Array, Error> {
        let end = (offset + len).min(self.len);
        let slice = self.file.slice_with_f64_and_f64(offset as f64, end as f64).map_err(|_| self.unreadable())?;
        let reader = FileReaderSync::new().map_err(|_| self.unreadable())?;
        let buffer = reader.read_as_array_buffer(&slice).map_err(|_| self.unreadable())?;
        let bytes = js_sys::Uint8Array::new(&buffer);
        // A file changed on disk since it was picked reads short.
        if u64::from(bytes.length()) != end.saturating_sub(offset) {
            return Err(self.unreadable());
        }
        Ok(bytes)
    }
}

impl ByteSource for BlobSource {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<(), Error> {
        let wanted = buf.len() as u64;
        let mut window = self.window.borrow_mut();
        let last = window.as_ref().map(|w| (w.start, u64::from(w.bytes.length())));
        if !covers(last, offset, wanted) {
            let bytes = self.read_slice(offset, read_len(last, offset, wanted))?;
            *window = Some(Window { start: offset, bytes });
        }
        let w = window.as_ref().expect("a window was just read");
        let from = (offset - w.start) as u32;
        let bytes = w.bytes.subarray(from, from + buf.len() as u32);
        if bytes.length() as usize != buf.len() {
            return Err(self.unreadable());
        }
        bytes.copy_to(buf);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reads a file of `len` bytes takes when it is read `chunk` bytes at a time.
    fn reads(len: u64, chunk: u64) -> Vec<u64> {
        let (mut window, mut offset, mut reads) = (None::<(u64, u64)>, 0, Vec::new());
        while offset < len {
            let wanted = chunk.min(len - offset);
            if !covers(window, offset, wanted) {
                let read = read_len(window, offset, wanted).min(len - offset);
                reads.push(read);
                window = Some((offset, read));
            }
            offset += wanted;
        }
        reads
    }

    #[test]
    fn reads_in_a_row_double_up_to_the_largest_window() {
        const MIB: u64 = 1 << 20;
        assert_eq!(reads(44 * MIB, MIB), [MIB, 2 * MIB, 4 * MIB, 8 * MIB, 16 * MIB, 13 * MIB]);
        assert_eq!(reads(100 * MIB, 4 * MIB).iter().filter(|&&r| r == MAX_WINDOW).count(), 5);
    }

    #[test]
    fn a_jump_reads_only_what_it_asks() {
        assert_eq!(read_len(Some((0, 1 << 20)), 5 << 20, 4096), 4096);
        assert_eq!(read_len(None, 0, 65536), 65536);
        // A read larger than the window asks its own length.
        assert_eq!(read_len(Some((0, 10)), 10, 1 << 30), 1 << 30);
    }
}
