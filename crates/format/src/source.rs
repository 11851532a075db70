//! Where a file's bytes come from, read a piece at a time: a slice in
//! memory, a file on disk (the CLI), a browser `Blob` (the app's worker,
//! which implements [`ByteSource`] itself). Decoding from a source never
//! holds the whole file, so a file may be larger than memory or than
//! wasm32's 2 GiB limit on one allocation.

use crate::Error;

/// A file's bytes, read at any offset.
pub trait ByteSource {
    /// The file's length in bytes.
    fn len(&self) -> u64;

    /// Whether the file is empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Fills `buf` with the bytes at `offset`; the caller keeps
    /// `offset + buf.len()` within [`ByteSource::len`].
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<(), Error>;

    /// The whole file, when it is already in memory: decoders then read it
    /// in place instead of copying it a piece at a time.
    fn as_slice(&self) -> Option<&[u8]> {
        None
    }
}

impl ByteSource for [u8] {
    fn len(&self) -> u64 {
        <[u8]>::len(self) as u64
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<(), Error> {
        let start = usize::try_from(offset).unwrap_or(usize::MAX);
        let piece = start.checked_add(buf.len()).and_then(|end| self.get(start..end));
        let piece =
            piece.ok_or_else(|| Error::Unreadable { detail: format!("no bytes at {offset} of {}", self.len()) })?;
        buf.copy_from_slice(piece);
        Ok(())
    }

    fn as_slice(&self) -> Option<&[u8]> {
        Some(self)
    }
}

impl ByteSource for Vec<u8> {
    fn len(&self) -> u64 {
        Vec::as_slice(self).len() as u64
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<(), Error> {
        Vec::as_slice(self).read_at(offset, buf)
    }

    fn as_slice(&self) -> Option<&[u8]> {
        Some(Vec::as_slice(self))
    }
}

/// A pointer to a source reads as the source: one body for `Rc`, `Arc`
/// and plain references.
macro_rules! delegate_to_pointee {
    ($($pointer:ty),*) => {$(
        impl<T: ByteSource + ?Sized> ByteSource for $pointer {
            fn len(&self) -> u64 {
                (**self).len()
            }

            fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<(), Error> {
                (**self).read_at(offset, buf)
            }

            fn as_slice(&self) -> Option<&[u8]> {
                (**self).as_slice()
            }
        }
    )*};
}

delegate_to_pointee!(std::rc::Rc<T>, std::sync::Arc<T>, &T);

/// `len` bytes of a source from `offset`: a member of a tar archive, read
/// where it lies in the archive (in place, when the archive is in memory).
pub struct Part<S> {
    whole: S,
    offset: u64,
    len: u64,
}

impl<S: ByteSource> Part<S> {
    /// The part; one past the end of `whole` is cut to it.
    pub fn new(whole: S, offset: u64, len: u64) -> Part<S> {
        let offset = offset.min(whole.len());
        let len = len.min(whole.len() - offset);
        Part { whole, offset, len }
    }
}

impl<S: ByteSource> ByteSource for Part<S> {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<(), Error> {
        if offset.checked_add(buf.len() as u64).is_none_or(|end| end > self.len) {
            return Err(Error::Unreadable { detail: format!("no bytes at {offset} of {}", self.len) });
        }
        self.whole.read_at(self.offset + offset, buf)
    }

    fn as_slice(&self) -> Option<&[u8]> {
        let start = usize::try_from(self.offset).ok()?;
        self.whole.as_slice()?.get(start..start.checked_add(usize::try_from(self.len).ok()?)?)
    }
}

/// The whole file in memory, for readers that need it whole (tool files,
/// CSV logs, trace JSON today).
pub fn read_all(source: &dyn ByteSource) -> Result<Vec<u8>, Error> {
    let len = usize::try_from(source.len()).ok().filter(|&n| n <= isize::MAX as usize);
    let len = len.ok_or(Error::TooLarge { what: "file", limit: isize::MAX as u64 })?;
    let mut bytes = vec![0; len];
    source.read_at(0, &mut bytes)?;
    Ok(bytes)
}

/// The first `max` bytes (fewer if the file is shorter).
pub fn read_head(source: &dyn ByteSource, max: usize) -> Result<Vec<u8>, Error> {
    let n = source.len().min(max as u64) as usize;
    let mut head = vec![0; n];
    source.read_at(0, &mut head)?;
    Ok(head)
}

/// Bytes already in memory, as a source (a fetched file, a test's bytes).
pub fn in_memory(bytes: Vec<u8>) -> Box<dyn ByteSource> {
    Box::new(bytes)
}

/// A file on disk opened as a source; the error names the file.
#[cfg(not(target_arch = "wasm32"))]
pub fn open_file(path: &std::path::Path) -> Result<Box<dyn ByteSource>, String> {
    match FileSource::open(path) {
        Ok(file) => Ok(Box::new(file)),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

/// A file on disk, read where asked (the CLI).
#[cfg(not(target_arch = "wasm32"))]
pub struct FileSource {
    file: std::cell::RefCell<std::fs::File>,
    len: u64,
}

#[cfg(not(target_arch = "wasm32"))]
impl FileSource {
    /// Opens `path`; its length is taken now.
    pub fn open(path: &std::path::Path) -> std::io::Result<FileSource> {
        let file = std::fs::File::open(path)?;
        let len = file.metadata()?.len();
        Ok(FileSource { file: std::cell::RefCell::new(file), len })
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl ByteSource for FileSource {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<(), Error> {
        use std::io::{Read, Seek, SeekFrom};
        let mut file = self.file.borrow_mut();
        let read = file.seek(SeekFrom::Start(offset)).and_then(|_| file.read_exact(buf));
        read.map_err(|e| Error::Unreadable {
            detail: format!(
                "reading {} bytes at {offset} failed ({e}); it may have changed since it was opened",
                buf.len()
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_and_files_read_the_same_bytes() {
        let bytes: Vec<u8> = (0..=255u8).cycle().take(10_000).collect();
        let dir = std::env::temp_dir().join(format!("proflens-source-{}", std::process::id()));
        std::fs::write(&dir, &bytes).unwrap();
        let file = FileSource::open(&dir).unwrap();
        for source in [&bytes as &dyn ByteSource, &file] {
            assert_eq!(source.len(), 10_000);
            let mut buf = [0; 7];
            source.read_at(9_000, &mut buf).unwrap();
            assert_eq!(buf, bytes[9_000..9_007]);
            assert_eq!(read_all(source).unwrap(), bytes);
            assert_eq!(read_head(source, 5).unwrap(), &bytes[..5]);
            assert!(matches!(source.read_at(9_999, &mut buf), Err(Error::Unreadable { .. })));
            // A part reads its own bytes, and none past its end.
            let part = Part::new(source, 100, 50);
            assert_eq!(read_all(&part).unwrap(), bytes[100..150]);
            assert!(matches!(part.read_at(45, &mut buf), Err(Error::Unreadable { .. })));
            assert_eq!(part.as_slice().is_some(), source.as_slice().is_some());
            assert_eq!(Part::new(source, 9_990, 50).len(), 10);
        }
        std::fs::remove_file(&dir).unwrap();
    }
}
