//! A tar archive's table of contents: each entry's name, kind and where its
//! bytes lie, read from the headers alone (member data is never copied: a
//! member is an offset and a length in the archive).
//!
//! The rules are POSIX's (IEEE Std 1003.1-2017, `pax`: "ustar Interchange
//! Format" and "pax Interchange Format") and GNU tar's extensions (GNU tar
//! manual, "Basic Tar Format" and "Numeric Extensions"), the formats
//! `tar` writes by default:
//! - a header is one 512-byte block; its checksum is the sum of its bytes
//!   with the checksum field read as eight spaces (some old tars summed
//!   signed bytes, which is accepted too), written in octal;
//! - numbers are octal text, or GNU's base-256 (first byte's high bit set)
//!   for sizes past 8 GiB;
//! - a name is `prefix/name` for POSIX ustar (magic `ustar\0`), the name
//!   alone otherwise; a GNU `L` entry holds the name of the entry after it,
//!   a pax `x` entry records (`path`, `size`) for the entry after it;
//! - data follows its header, padded to whole blocks; two zero blocks (GNU
//!   tar stops at the first) end the archive.

use crate::source::ByteSource;
use crate::Error;

/// Header and padding unit.
const BLOCK: u64 = 512;

/// The longest GNU long name or pax header read: real ones are a few
/// hundred bytes; a larger one is damage, refused before it is allocated.
const MAX_META_BYTES: u64 = 1 << 20;

/// What an entry is, from its type flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    /// A regular file (`0`, NUL, or `7`: contiguous).
    File,
    /// A directory (`5`, or an old archive's regular entry named `…/`).
    Directory,
    /// A hard (`1`) or symbolic (`2`) link.
    Link,
    /// Anything else (devices, FIFOs, GNU sparse files, volume labels), by its flag.
    Other(u8),
}

/// One entry of the archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub name: String,
    pub kind: EntryKind,
    /// Where its data starts in the archive.
    pub offset: u64,
    pub len: u64,
}

/// Whether `block` (an archive's first bytes) starts with a tar header: a
/// block that is not all zeros and whose checksum agrees.
pub fn is_header(block: &[u8]) -> bool {
    match block.get(..BLOCK as usize) {
        Some(header) => header.iter().any(|&b| b != 0) && checksum_agrees(header),
        None => false,
    }
}

/// Every entry of the archive in `source`, in order. A bad checksum, an
/// entry whose data runs past the end, or damaged metadata is an error.
pub fn entries(source: &dyn ByteSource) -> Result<Vec<Entry>, Error> {
    let total = source.len();
    let mut out = Vec::new();
    let mut pos = 0u64;
    // What a GNU `L` or a pax `x` entry says of the entry after it.
    let mut long_name: Option<String> = None;
    let mut pax = Pax::default();
    while pos < total {
        let mut header = [0u8; BLOCK as usize];
        if total - pos < BLOCK {
            let mut rest = vec![0u8; (total - pos) as usize];
            source.read_at(pos, &mut rest)?;
            if rest.iter().all(|&b| b == 0) {
                break;
            }
            return Err(Error::Truncated { detail: format!("the tar archive ends inside the header at byte {pos}") });
        }
        source.read_at(pos, &mut header)?;
        if header.iter().all(|&b| b == 0) {
            break;
        }
        if !checksum_agrees(&header) {
            return Err(Error::Corrupt {
                detail: format!("the tar header at byte {pos} has a wrong checksum, so the archive is damaged there"),
            });
        }
        let flag = header[156];
        let is_meta = matches!(flag, b'L' | b'K' | b'x' | b'g');
        let size = match pax.size.take().filter(|_| !is_meta) {
            Some(size) => size,
            None => number(&header[124..136]).ok_or_else(|| Error::Corrupt {
                detail: format!("the tar header at byte {pos} has a size that is not a number"),
            })?,
        };
        let data = pos + BLOCK;
        let name_now = || pax.path.clone().or_else(|| long_name.clone()).unwrap_or_else(|| header_name(&header));
        if size > total {
            return Err(Error::Corrupt {
                detail: format!(
                    "the tar entry {} claims {size} bytes, more than the whole archive ({total} bytes)",
                    crate::quoted(&name_now())
                ),
            });
        }
        if size > total - data {
            return Err(Error::Truncated {
                detail: format!(
                    "the tar archive ends inside {}: {size} bytes from byte {data}, but the archive has {total}",
                    crate::quoted(&name_now())
                ),
            });
        }
        match flag {
            b'L' => long_name = Some(meta_text(source, data, size, pos)?),
            b'x' => pax = Pax::parse(&meta_bytes(source, data, size, pos)?, pos)?,
            // Long link names (links are not followed) and global pax records (no
            // archiver writes names or sizes there) change nothing read here.
            b'K' | b'g' => {}
            _ => {
                let name = pax.path.take().or_else(|| long_name.take()).unwrap_or_else(|| header_name(&header));
                let kind = match flag {
                    b'0' | 0 | b'7' if name.ends_with('/') => EntryKind::Directory,
                    b'0' | 0 | b'7' => EntryKind::File,
                    b'5' => EntryKind::Directory,
                    b'1' | b'2' => EntryKind::Link,
                    other => EntryKind::Other(other),
                };
                out.push(Entry { name, kind, offset: data, len: size });
                long_name = None;
                pax = Pax::default();
            }
        }
        // Data padded to whole blocks; `size <= total - data` keeps this in range.
        pos = data + size.div_ceil(BLOCK) * BLOCK;
    }
    Ok(out)
}

/// A header's name: ustar's `prefix/name`, or the name field alone (GNU
/// headers use the prefix's bytes for other fields).
fn header_name(header: &[u8; BLOCK as usize]) -> String {
    let name = text(&header[0..100]);
    let posix = &header[257..263] == b"ustar\0";
    let prefix = if posix { text(&header[345..500]) } else { String::new() };
    if prefix.is_empty() {
        name
    } else {
        format!("{prefix}/{name}")
    }
}

/// A NUL-terminated text field (names are bytes; non-UTF-8 ones are shown lossily).
fn text(field: &[u8]) -> String {
    let end = field.iter().position(|&b| b == 0).unwrap_or(field.len());
    String::from_utf8_lossy(&field[..end]).into_owned()
}

/// A numeric field: octal text (leading spaces, ended by a space or NUL),
/// or GNU's base-256 (high bit of the first byte set; `0xff` first is
/// negative, which no size is). `None` when it is neither.
fn number(field: &[u8]) -> Option<u64> {
    match field.first() {
        Some(&first) if first & 0x80 != 0 => {
            if first == 0xff {
                return None;
            }
            field[1..].iter().try_fold(u64::from(first & 0x7f), |v, &b| v.checked_mul(256)?.checked_add(u64::from(b)))
        }
        _ => {
            let digits = field.iter().skip_while(|&&b| b == b' ');
            let digits: Vec<u8> = digits.take_while(|&&b| b != b' ' && b != 0).copied().collect();
            if !digits.iter().all(|b| (b'0'..=b'7').contains(b)) {
                return None;
            }
            digits.iter().try_fold(0u64, |v, &b| v.checked_mul(8)?.checked_add(u64::from(b - b'0')))
        }
    }
}

/// Whether the checksum field agrees with the header's bytes (the field
/// counted as spaces), summed unsigned as POSIX says or signed as some old
/// tars did.
fn checksum_agrees(header: &[u8]) -> bool {
    let field = &header[148..156];
    if field.iter().all(|&b| b == 0 || b == b' ') {
        return false;
    }
    let Some(recorded) = number(field).filter(|_| field[0] & 0x80 == 0) else { return false };
    let outside = header[..148].iter().chain(&header[156..BLOCK as usize]);
    let unsigned: u64 = outside.clone().map(|&b| u64::from(b)).sum::<u64>() + 8 * u64::from(b' ');
    let signed: i64 = outside.map(|&b| i64::from(b as i8)).sum::<i64>() + 8 * i64::from(b' ');
    recorded == unsigned || i64::try_from(recorded).is_ok_and(|r| r == signed)
}

/// The data of a metadata entry (a long name, pax records), refused past
/// [`MAX_META_BYTES`].
fn meta_bytes(source: &dyn ByteSource, data: u64, size: u64, header_at: u64) -> Result<Vec<u8>, Error> {
    if size > MAX_META_BYTES {
        return Err(Error::Corrupt {
            detail: format!(
                "the tar entry at byte {header_at} holds {size} bytes of names or attributes; real ones hold a few hundred"
            ),
        });
    }
    let mut bytes = vec![0; size as usize];
    source.read_at(data, &mut bytes)?;
    Ok(bytes)
}

/// A GNU long name: the text up to its NUL.
fn meta_text(source: &dyn ByteSource, data: u64, size: u64, header_at: u64) -> Result<String, Error> {
    Ok(text(&meta_bytes(source, data, size, header_at)?))
}

/// The pax records that change how the next entry is read.
#[derive(Debug, Default, PartialEq, Eq)]
struct Pax {
    path: Option<String>,
    size: Option<u64>,
}

impl Pax {
    /// Records `"<length> <key>=<value>\n"`, the length counting the whole
    /// record; other keys (times, owners) are passed over.
    fn parse(bytes: &[u8], header_at: u64) -> Result<Pax, Error> {
        let bad =
            |why: &str| Error::Corrupt { detail: format!("the pax header at byte {header_at} is damaged ({why})") };
        let mut pax = Pax::default();
        let mut rest = bytes;
        while !rest.is_empty() {
            // Some writers pad the data with NULs after the last record.
            if rest.iter().all(|&b| b == 0) {
                break;
            }
            let space = rest.iter().position(|&b| b == b' ').ok_or_else(|| bad("a record without a length"))?;
            let len: usize = std::str::from_utf8(&rest[..space])
                .ok()
                .and_then(|s| s.parse().ok())
                .ok_or_else(|| bad("a record's length is not a number"))?;
            if len <= space + 1 || len > rest.len() || rest[len - 1] != b'\n' {
                return Err(bad("a record's length does not fit it"));
            }
            let record = &rest[space + 1..len - 1];
            let eq = record.iter().position(|&b| b == b'=').ok_or_else(|| bad("a record without '='"))?;
            let value = String::from_utf8_lossy(&record[eq + 1..]).into_owned();
            match &record[..eq] {
                b"path" => pax.path = Some(value),
                b"size" => pax.size = Some(value.parse().map_err(|_| bad("its size is not a number"))?),
                _ => {}
            }
            rest = &rest[len..];
        }
        Ok(pax)
    }
}

#[cfg(test)]
#[path = "tar_tests.rs"]
mod tests;
