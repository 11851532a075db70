//! gzip decompression with an output cap, so a gzip bomb stops early.

use crate::{Error, Progress};
use miniz_oxide::inflate::stream::{inflate, InflateState};
use miniz_oxide::{DataFormat, MZError, MZFlush, MZStatus};

const CHUNK: usize = 1 << 20;

/// Real profiles compress 3–35 fold (XSpace about 10, trace JSON up to 35
/// in the fixtures); deflate's ceiling is about 1000 fold. Output this many
/// times larger than the input read so far, past [`BOMB_CHECK_AFTER`]
/// bytes, is a gzip bomb: refused before it fills memory.
pub const MAX_RATIO: u64 = 64;
pub(crate) const BOMB_CHECK_AFTER: u64 = 64 << 20;

/// Decompresses every gzip member of `bytes`, refusing output over `limit` bytes.
pub fn gunzip(bytes: &[u8], limit: u64, progress: &mut dyn FnMut(Progress)) -> Result<Vec<u8>, Error> {
    // One allocation holds at most isize::MAX bytes (2 GiB on wasm32).
    let limit = limit.min(isize::MAX as u64);
    let total = bytes.len() as u64;
    // The last member's trailer states its size: a hint (untrusted, so
    // capped) that spares the doubling growth and its copies.
    let stated = bytes
        .len()
        .checked_sub(4)
        .map_or(0, |at| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]) as u64);
    let hint =
        stated.max(total.saturating_mul(4)).min(limit).min(MAX_RATIO.saturating_mul(total)).min(isize::MAX as u64);
    // Slack: the last call must find room to report the end of the stream,
    // or the buffer would double just to learn it is complete.
    let mut out = Vec::with_capacity(hint as usize + (64 << 10));
    let mut pos = 0;
    progress(Progress::Inflating { done: 0, total });
    while pos < bytes.len() {
        let member_start = out.len();
        pos = skip_header(bytes, pos)?;
        let mut state = InflateState::new_boxed(DataFormat::Raw);
        let mut last_report = pos;
        loop {
            let old_len = out.len();
            // Fill the room there is before growing the buffer.
            let room = out.capacity() - old_len;
            out.resize(old_len + if room >= 4096 { room.min(CHUNK) } else { CHUNK }, 0);
            let result = inflate(&mut state, &bytes[pos..], &mut out[old_len..], MZFlush::None);
            pos += result.bytes_consumed;
            out.truncate(old_len + result.bytes_written);
            let produced = out.len() as u64;
            if produced > limit {
                return Err(Error::TooLarge { what: "decompressed profile", limit });
            }
            if produced > BOMB_CHECK_AFTER && produced > MAX_RATIO * pos as u64 {
                return Err(Error::GzipBomb { ratio: produced / pos.max(1) as u64 });
            }
            let finished = matches!(result.status, Ok(MZStatus::StreamEnd));
            if pos - last_report >= CHUNK || finished {
                last_report = pos;
                progress(Progress::Inflating { done: pos as u64, total });
            }
            match result.status {
                Ok(MZStatus::StreamEnd) => break,
                Ok(_) if result.bytes_consumed == 0 && result.bytes_written == 0 && pos >= bytes.len() => {
                    return Err(truncated(pos));
                }
                Ok(_) => {}
                Err(MZError::Buf) if pos >= bytes.len() => return Err(truncated(pos)),
                Err(MZError::Buf) => {}
                Err(_) => {
                    return Err(Error::Corrupt { detail: format!("the gzip data is invalid near byte {pos}") });
                }
            }
        }
        // Trailer: CRC-32 and size of the member's output.
        let Some(trailer) = bytes.get(pos..pos + 8) else {
            return Err(truncated(pos));
        };
        let crc = u32::from_le_bytes(trailer[..4].try_into().expect("4 bytes"));
        if crc != crc32(&out[member_start..]) {
            return Err(Error::Corrupt { detail: "the gzip checksum does not match its content".into() });
        }
        pos += 8;
        // Some writers pad with zeros after the last member.
        if bytes[pos..].iter().all(|&b| b == 0) {
            break;
        }
    }
    Ok(out)
}

/// The first (at most `max_out`) bytes a gzip prefix decompresses to: for a
/// look at the start of a file without reading it all. Damage or the end of
/// the prefix just ends the output.
pub fn gunzip_prefix(bytes: &[u8], max_out: usize) -> Vec<u8> {
    let Ok(mut pos) = skip_header(bytes, 0) else {
        return Vec::new();
    };
    let mut state = InflateState::new_boxed(DataFormat::Raw);
    let mut out = vec![0; max_out];
    let mut written = 0;
    while written < max_out && pos < bytes.len() {
        let result = inflate(&mut state, &bytes[pos..], &mut out[written..], MZFlush::None);
        pos += result.bytes_consumed;
        written += result.bytes_written;
        if result.status.is_err() || result.status == Ok(MZStatus::StreamEnd) || result.bytes_consumed == 0 {
            break;
        }
    }
    out.truncate(written);
    out
}

fn truncated(pos: usize) -> Error {
    Error::Truncated { detail: format!("the gzip stream ends early, after {pos} bytes") }
}

/// Skips a gzip member header (RFC 1952) starting at `pos`.
fn skip_header(bytes: &[u8], pos: usize) -> Result<usize, Error> {
    let h = bytes.get(pos..pos + 10).ok_or_else(|| truncated(bytes.len()))?;
    if h[0] != 0x1f || h[1] != 0x8b || h[2] != 8 {
        return Err(Error::Corrupt { detail: format!("byte {pos} does not start a gzip member") });
    }
    let flags = h[3];
    let mut p = pos + 10;
    if flags & 0x04 != 0 {
        let xlen = bytes.get(p..p + 2).ok_or_else(|| truncated(bytes.len()))?;
        p += 2 + usize::from(u16::from_le_bytes([xlen[0], xlen[1]]));
    }
    for flag in [0x08, 0x10] {
        if flags & flag != 0 {
            let nul = bytes.get(p..).and_then(|rest| rest.iter().position(|&b| b == 0));
            p += nul.ok_or_else(|| truncated(bytes.len()))? + 1;
        }
    }
    if flags & 0x02 != 0 {
        p += 2;
    }
    if p > bytes.len() {
        return Err(truncated(bytes.len()));
    }
    Ok(p)
}

fn crc32(data: &[u8]) -> u32 {
    crc32fast::hash(data)
}

/// `data` as one gzip member (what Proflens writes: host summaries).
pub fn gzip(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255];
    out.extend(miniz_oxide::deflate::compress_to_vec(data, 6));
    out.extend(crc32(data).to_le_bytes());
    out.extend((data.len() as u32).to_le_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_checks_crc() {
        let data = b"profile bytes ".repeat(1000);
        let gz = gzip(&data);
        assert_eq!(gunzip(&gz, 1 << 20, &mut |_| {}).unwrap(), data);
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        let mut bad = gz.clone();
        let n = bad.len();
        bad[n - 6] ^= 0xff;
        assert!(matches!(gunzip(&bad, 1 << 20, &mut |_| {}), Err(Error::Corrupt { .. })));
    }

    #[test]
    fn stops_at_the_limit() {
        let zeros = vec![0u8; 8 << 20];
        let gz = gzip(&zeros);
        assert!(gz.len() < 64 << 10, "zeros compress well");
        let err = gunzip(&gz, 1 << 20, &mut |_| {}).map(|v| v.len()).unwrap_err();
        assert_eq!(err, Error::TooLarge { what: "decompressed profile", limit: 1 << 20 });
    }

    #[test]
    fn refuses_bombs_by_ratio() {
        let gz = gzip(&vec![0u8; 80 << 20]);
        let err = gunzip(&gz, u64::MAX, &mut |_| {}).map(|v| v.len()).unwrap_err();
        assert!(matches!(err, Error::GzipBomb { ratio } if ratio > MAX_RATIO), "{err:?}");
    }

    /// Runs of a few bytes compress about 100-fold: under the old 200-fold
    /// check, over the 64-fold one.
    #[test]
    fn refuses_output_past_real_profile_ratios() {
        let mut data = Vec::new();
        let mut seed = 7u32;
        while data.len() < 80 << 20 {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            data.extend(std::iter::repeat_n(b'a' + (seed >> 16) as u8 % 4, 60 + (seed >> 8) as usize % 120));
        }
        let gz = gzip(&data);
        let ratio = data.len() / gz.len();
        assert!((70..200).contains(&ratio), "{ratio}");
        let err = gunzip(&gz, u64::MAX, &mut |_| {}).map(|v| v.len()).unwrap_err();
        assert!(matches!(err, Error::GzipBomb { ratio } if ratio > MAX_RATIO), "{err:?}");
        assert!(err.to_string().contains("-fold"), "{err}");
    }

    #[test]
    fn reports_truncation() {
        let gz = gzip(&b"abc".repeat(10_000));
        for cut in [5, 20, gz.len() / 2, gz.len() - 3] {
            let err = gunzip(&gz[..cut], 1 << 20, &mut |_| {}).map(|v| v.len()).unwrap_err();
            assert!(matches!(err, Error::Truncated { .. }), "cut at {cut}: {err:?}");
        }
    }
}
