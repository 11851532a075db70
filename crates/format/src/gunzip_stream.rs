//! gzip inflated as it is read: a [`Fill`] that yields a `.gz` file's
//! content a buffer at a time, never holding it whole. The checks are
//! [`crate::inflate::gunzip`]'s (output cap, ratio against gzip bombs,
//! CRC, truncation) with the same messages, made as the bytes pass.

use crate::inflate::{BOMB_CHECK_AFTER, MAX_RATIO};
use crate::source::ByteSource;
use crate::stream_reader::{Fill, Reader, SourceFill};
use crate::Error;
use miniz_oxide::inflate::stream::{inflate, InflateState};
use miniz_oxide::{DataFormat, MZError, MZFlush, MZStatus};

/// Compressed bytes read from the source at a time.
const INPUT_CHUNK: usize = 256 << 10;

/// The inflated content of every gzip member of a source.
pub(crate) struct GunzipFill<'a> {
    input: Reader<'a>,
    total: u64,
    limit: u64,
    state: Box<InflateState>,
    crc: crc32fast::Hasher,
    /// Output so far, over all members.
    produced: u64,
    /// Between members (a header comes next), or done.
    at_member_start: bool,
    done: bool,
}

impl<'a> GunzipFill<'a> {
    /// Output past `limit` bytes is refused.
    pub fn new(source: &'a dyn ByteSource, limit: u64, input_chunk: usize) -> Self {
        GunzipFill {
            input: Reader::new(Box::new(SourceFill::new(source)), input_chunk.min(INPUT_CHUNK)),
            total: source.len(),
            limit,
            state: InflateState::new_boxed(DataFormat::Raw),
            crc: crc32fast::Hasher::new(),
            produced: 0,
            at_member_start: true,
            done: false,
        }
    }

    fn truncated(&self, pos: u64) -> Error {
        Error::Truncated { detail: format!("the gzip stream ends early, after {pos} bytes") }
    }

    /// Reads a member header (RFC 1952), as `inflate::skip_header` does.
    fn header(&mut self) -> Result<(), Error> {
        let start = self.input.pos();
        let mut h = [0; 10];
        if !self.input.read_exact(&mut h)? {
            return Err(self.truncated(self.total));
        }
        if h[0] != 0x1f || h[1] != 0x8b || h[2] != 8 {
            return Err(Error::Corrupt { detail: format!("byte {start} does not start a gzip member") });
        }
        let flags = h[3];
        let mut ok = true;
        if flags & 0x04 != 0 {
            let mut xlen = [0; 2];
            ok = self.input.read_exact(&mut xlen)?
                && self.input.skip_to(self.input.pos() + u64::from(u16::from_le_bytes(xlen)))?;
        }
        for flag in [0x08, 0x10] {
            if ok && flags & flag != 0 {
                ok = loop {
                    match self.input.byte()? {
                        Some(0) => break true,
                        Some(_) => {}
                        None => break false,
                    }
                };
            }
        }
        if ok && flags & 0x02 != 0 {
            ok = self.input.skip_to(self.input.pos() + 2)?;
        }
        if !ok {
            return Err(self.truncated(self.total));
        }
        self.state = InflateState::new_boxed(DataFormat::Raw);
        self.crc = crc32fast::Hasher::new();
        self.at_member_start = false;
        Ok(())
    }

    /// After a member's data: its trailer, then whether another member follows
    /// (writers may pad the end with zeros).
    fn trailer(&mut self) -> Result<(), Error> {
        let mut trailer = [0; 8];
        let at = self.input.pos();
        if !self.input.read_exact(&mut trailer)? {
            return Err(self.truncated(at));
        }
        let stated = u32::from_le_bytes(trailer[..4].try_into().expect("4 bytes"));
        let crc = std::mem::replace(&mut self.crc, crc32fast::Hasher::new()).finalize();
        if stated != crc {
            return Err(Error::Corrupt { detail: "the gzip checksum does not match its content".into() });
        }
        let next = self.input.pos();
        loop {
            let here = self.input.pos();
            let rest = self.input.buffered()?;
            if rest.is_empty() {
                self.done = true;
                return Ok(());
            }
            match rest.iter().position(|&b| b != 0) {
                // Not only zeros: a member must start where this one ended.
                Some(0) if here == next => break,
                // Zeros, then more: what `inflate::skip_header` says of a member starting with a zero.
                Some(_) if self.total - next < 10 => return Err(self.truncated(self.total)),
                Some(_) => return Err(Error::Corrupt { detail: format!("byte {next} does not start a gzip member") }),
                None => {
                    let n = rest.len();
                    self.input.consume(n);
                }
            }
        }
        self.at_member_start = true;
        Ok(())
    }
}

impl Fill for GunzipFill<'_> {
    fn fill(&mut self, out: &mut [u8]) -> Result<usize, Error> {
        let mut stalled = 0;
        while !self.done {
            if self.at_member_start {
                self.header()?;
            }
            let input = self.input.buffered()?;
            let result = inflate(&mut self.state, input, out, MZFlush::None);
            self.input.consume(result.bytes_consumed);
            let pos = self.input.pos();
            let written = result.bytes_written;
            self.crc.update(&out[..written]);
            self.produced += written as u64;
            if self.produced > self.limit {
                return Err(Error::TooLarge { what: "decompressed profile", limit: self.limit });
            }
            if self.produced > BOMB_CHECK_AFTER && self.produced > MAX_RATIO * pos {
                return Err(Error::GzipBomb { ratio: self.produced / pos.max(1) });
            }
            let at_end = pos >= self.total;
            let progressed = result.bytes_consumed > 0 || written > 0;
            match result.status {
                Ok(MZStatus::StreamEnd) => self.trailer()?,
                Ok(_) if !progressed && at_end => return Err(self.truncated(pos)),
                Err(MZError::Buf) if at_end => return Err(self.truncated(pos)),
                Ok(_) | Err(MZError::Buf) => {}
                Err(_) => return Err(Error::Corrupt { detail: format!("the gzip data is invalid near byte {pos}") }),
            }
            if written > 0 {
                return Ok(written);
            }
            // Never spin: input that inflates to nothing, again and again, is damage.
            stalled = if progressed { 0 } else { stalled + 1 };
            if stalled > 2 {
                return Err(Error::Corrupt { detail: format!("the gzip data is invalid near byte {pos}") });
            }
        }
        Ok(0)
    }

    fn consumed(&self) -> u64 {
        self.input.pos()
    }
}

/// The whole inflated content, the source read a piece at a time (a
/// `.tar.gz` archive; tests compare it with [`crate::inflate::gunzip`]).
pub(crate) fn gunzip_all(source: &dyn ByteSource, limit: u64, chunk: usize) -> Result<Vec<u8>, Error> {
    let mut fill = GunzipFill::new(source, limit, chunk);
    let mut out = Vec::new();
    let mut buf = vec![0; chunk];
    loop {
        let n = fill.fill(&mut buf)?;
        if n == 0 {
            return Ok(out);
        }
        out.extend_from_slice(&buf[..n]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inflate::gunzip;

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut out = vec![0x1f, 0x8b, 8, 0x08, 0, 0, 0, 0, 0, 255];
        out.extend(b"name.pb\0");
        out.extend(miniz_oxide::deflate::compress_to_vec(data, 6));
        out.extend(crc32fast::hash(data).to_le_bytes());
        out.extend((data.len() as u32).to_le_bytes());
        out
    }

    #[test]
    fn inflates_like_gunzip_in_any_chunk_size() {
        let data: Vec<u8> = (0..200_000u32).flat_map(|i| (i % 251).to_le_bytes()).collect();
        let two = [gzip(&data), gzip(b"second member"), vec![0; 5]].concat();
        for chunk in [7, 4096, 1 << 20] {
            assert_eq!(gunzip_all(&two, u64::MAX, chunk).unwrap(), gunzip(&two, u64::MAX, &mut |_| {}).unwrap());
        }
    }

    #[test]
    fn damage_gives_gunzips_errors() {
        let gz = gzip(&b"abc".repeat(10_000));
        let mut bad_crc = gz.clone();
        let n = bad_crc.len();
        bad_crc[n - 6] ^= 0xff;
        let garbage_after = [gz.clone(), vec![0, 7]].concat();
        let mut cases: Vec<Vec<u8>> =
            [5, 12, 20, gz.len() / 2, gz.len() - 3].iter().map(|&c| gz[..c].to_vec()).collect();
        cases.extend([bad_crc, garbage_after, vec![0x1f, 0x8b, 9, 0, 0, 0, 0, 0, 0, 0, 1]]);
        for case in &cases {
            let want = gunzip(case, 1 << 20, &mut |_| {}).unwrap_err();
            for chunk in [7, 4096] {
                assert_eq!(gunzip_all(case, 1 << 20, chunk).unwrap_err(), want, "{} bytes", case.len());
            }
        }
        let zeros = gzip(&vec![0u8; 8 << 20]);
        let limited = gunzip_all(&zeros, 1 << 20, 4096).unwrap_err();
        assert_eq!(limited, Error::TooLarge { what: "decompressed profile", limit: 1 << 20 });
        let bomb = gzip(&vec![0u8; 80 << 20]);
        assert!(matches!(gunzip_all(&bomb, u64::MAX, 4096), Err(Error::GzipBomb { ratio }) if ratio > MAX_RATIO));
    }
}
