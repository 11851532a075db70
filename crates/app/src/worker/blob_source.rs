//! A picked or dropped file read a slice at a time in the worker
//! (`FileReaderSync` over `Blob.slice`), so that a profile decodes without
//! the whole file in the worker's memory (wasm32 holds at most 4 GiB, and
//! one allocation at most 2 GiB).

use proflens_format::{ByteSource, Error};
use web_sys::{File, FileReaderSync};

pub struct BlobSource {
    path: String,
    file: File,
    len: u64,
}

impl BlobSource {
    pub fn new(path: &str, file: &File) -> BlobSource {
        BlobSource { path: path.to_string(), file: file.clone(), len: file.size() as u64 }
    }

    fn unreadable(&self) -> Error {
        Error::Unreadable {
            detail: format!(
                "“{}” may have been moved, changed or deleted since it was opened; open it again",
                self.path
            ),
        }
    }
}

impl ByteSource for BlobSource {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<(), Error> {
        let end = offset + buf.len() as u64;
        let slice = self.file.slice_with_f64_and_f64(offset as f64, end as f64).map_err(|_| self.unreadable())?;
        let reader = FileReaderSync::new().map_err(|_| self.unreadable())?;
        let buffer = reader.read_as_array_buffer(&slice).map_err(|_| self.unreadable())?;
        let bytes = js_sys::Uint8Array::new(&buffer);
        // A file changed on disk since it was picked reads short.
        if bytes.length() as usize != buf.len() {
            return Err(self.unreadable());
        }
        bytes.copy_to(buf);
        Ok(())
    }
}
