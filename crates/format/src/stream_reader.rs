//! A forward-only, buffered reader over a file's bytes (raw from a
//! [`ByteSource`], or inflated from gzip as they come): what the streaming
//! XSpace walk reads protobuf framing from, a few bytes at a time, without
//! ever holding the file.

use crate::source::ByteSource;
use crate::Error;

/// Produces the next bytes of a stream.
pub(crate) trait Fill {
    /// Writes the next bytes into `out`; 0 only at the end of the stream.
    fn fill(&mut self, out: &mut [u8]) -> Result<usize, Error>;

    /// Moves the stream to `pos` (at or after the current one) without
    /// producing the bytes between, when it can: `Some(the position
    /// reached)`, short of `pos` at the end of the stream; `None` when it
    /// cannot (a compressed stream, whose bytes must be inflated to be skipped).
    fn seek(&mut self, _pos: u64) -> Option<u64> {
        None
    }

    /// Bytes of the underlying file consumed so far (for progress).
    fn consumed(&self) -> u64;
}

/// A raw source read in order, jumping where the reader skips.
pub(crate) struct SourceFill<'a> {
    source: &'a dyn ByteSource,
    at: u64,
}

impl<'a> SourceFill<'a> {
    pub fn new(source: &'a dyn ByteSource) -> Self {
        SourceFill { source, at: 0 }
    }
}

impl Fill for SourceFill<'_> {
    fn fill(&mut self, out: &mut [u8]) -> Result<usize, Error> {
        let n = (self.source.len().saturating_sub(self.at)).min(out.len() as u64) as usize;
        self.source.read_at(self.at, &mut out[..n])?;
        self.at += n as u64;
        Ok(n)
    }

    fn seek(&mut self, pos: u64) -> Option<u64> {
        self.at = pos.min(self.source.len());
        Some(self.at)
    }

    fn consumed(&self) -> u64 {
        self.at
    }
}

/// Buffered reads from a [`Fill`], tracking the stream position.
pub(crate) struct Reader<'a> {
    fill: Box<dyn Fill + 'a>,
    buf: Vec<u8>,
    lo: usize,
    hi: usize,
    /// Stream position of `buf[lo]`.
    pos: u64,
    ended: bool,
}

impl<'a> Reader<'a> {
    /// A reader that asks `fill` for `chunk` bytes at a time.
    pub fn new(fill: Box<dyn Fill + 'a>, chunk: usize) -> Self {
        Reader { fill, buf: vec![0; chunk.max(1)], lo: 0, hi: 0, pos: 0, ended: false }
    }

    pub fn pos(&self) -> u64 {
        self.pos
    }

    pub fn consumed(&self) -> u64 {
        self.fill.consumed()
    }

    /// Refills an empty buffer; `false` at the end of the stream.
    fn refill(&mut self) -> Result<bool, Error> {
        if self.lo < self.hi {
            return Ok(true);
        }
        if self.ended {
            return Ok(false);
        }
        let n = self.fill.fill(&mut self.buf)?;
        (self.lo, self.hi) = (0, n);
        self.ended = n == 0;
        Ok(n > 0)
    }

    /// The bytes buffered now (refilled when none are); empty at the end.
    pub fn buffered(&mut self) -> Result<&[u8], Error> {
        self.refill()?;
        Ok(&self.buf[self.lo..self.hi])
    }

    /// Marks `n` of the [`Reader::buffered`] bytes as read.
    pub fn consume(&mut self, n: usize) {
        let n = n.min(self.hi - self.lo);
        self.lo += n;
        self.pos += n as u64;
    }

    /// Whether the source has been read to its end (not stopped by an
    /// error of its own, such as a gzip stream cut short).
    pub fn ended(&self) -> bool {
        self.ended
    }

    /// Whether the stream has no more bytes.
    pub fn at_end(&mut self) -> Result<bool, Error> {
        Ok(!self.refill()?)
    }

    /// The next byte, `None` at the end.
    pub fn byte(&mut self) -> Result<Option<u8>, Error> {
        if !self.refill()? {
            return Ok(None);
        }
        let b = self.buf[self.lo];
        self.lo += 1;
        self.pos += 1;
        Ok(Some(b))
    }

    /// A base-128 varint that must end before stream position `end`, as
    /// `sniff::read_varint` reads one from a slice ending there: `None` when
    /// it runs past `end` or the stream, or over ten bytes.
    pub fn varint(&mut self, end: u64) -> Result<Option<u64>, Error> {
        // Most varints lie whole in the buffer, well before `end`: read there
        // without a check per byte.
        if self.hi - self.lo >= 10 && end.saturating_sub(self.pos) >= 10 {
            let mut value = 0u64;
            for (i, &byte) in self.buf[self.lo..self.lo + 10].iter().enumerate() {
                value |= u64::from(byte & 0x7f) << (7 * i);
                if byte & 0x80 == 0 {
                    self.lo += i + 1;
                    self.pos += i as u64 + 1;
                    return Ok(Some(value));
                }
            }
            return Ok(None);
        }
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            if self.pos >= end {
                return Ok(None);
            }
            let Some(byte) = self.byte()? else {
                return Ok(None);
            };
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(Some(value));
            }
        }
        Ok(None)
    }

    /// Fills `out`; `false` when the stream ends first.
    pub fn read_exact(&mut self, out: &mut [u8]) -> Result<bool, Error> {
        let mut done = 0;
        while done < out.len() {
            // Past what is buffered, a long read goes straight into `out`:
            // one read of the source (a browser's file read is a call to the
            // browser) instead of one per chunk, and no copy through `buf`.
            if self.lo == self.hi && !self.ended && out.len() - done >= self.buf.len() {
                let n = self.fill.fill(&mut out[done..])?;
                self.ended = n == 0;
                if self.ended {
                    return Ok(false);
                }
                done += n;
                self.pos += n as u64;
                continue;
            }
            if !self.refill()? {
                return Ok(false);
            }
            let n = (self.hi - self.lo).min(out.len() - done);
            out[done..done + n].copy_from_slice(&self.buf[self.lo..self.lo + n]);
            (self.lo, done) = (self.lo + n, done + n);
            self.pos += n as u64;
        }
        Ok(true)
    }

    /// Moves forward to stream position `to`; `false` when the stream ends first.
    pub fn skip_to(&mut self, to: u64) -> Result<bool, Error> {
        while self.pos < to {
            let buffered = (self.hi - self.lo) as u64;
            if to - self.pos <= buffered {
                self.lo += (to - self.pos) as usize;
                self.pos = to;
                return Ok(true);
            }
            if let Some(reached) = self.fill.seek(to) {
                (self.lo, self.hi, self.pos) = (0, 0, reached);
                return Ok(reached == to);
            }
            self.pos += buffered;
            (self.lo, self.hi) = (0, 0);
            if !self.refill()? {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_varints_bytes_and_skips_across_tiny_chunks() {
        let bytes: Vec<u8> = [&[0x96, 0x01][..], &[1, 2, 3, 4, 5, 6, 7, 8, 9], &[0xff; 11]].concat();
        for chunk in [1, 3, 64] {
            let mut r = Reader::new(Box::new(SourceFill::new(&bytes)), chunk);
            assert_eq!(r.varint(u64::MAX).unwrap(), Some(150));
            let mut four = [0; 4];
            assert!(r.read_exact(&mut four).unwrap());
            assert_eq!(four, [1, 2, 3, 4]);
            assert!(r.skip_to(8).unwrap());
            assert_eq!(r.byte().unwrap(), Some(7));
            assert_eq!(r.varint(9).unwrap(), None, "ends past the bound");
            r.skip_to(11).unwrap();
            assert_eq!(r.varint(u64::MAX).unwrap(), None, "over ten bytes");
            assert!(!r.skip_to(100).unwrap());
            assert!(!r.read_exact(&mut four).unwrap());
        }
    }
}
