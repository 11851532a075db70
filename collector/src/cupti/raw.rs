//! CUPTI's activity records as raw bytes, kept for replay: with
//! `PROFLENS_CUPTI_DUMP=FILE` the injection library appends every record it
//! is handed (its exact bytes, up to the next record) and the text of every
//! name pointer it resolves. Parsing such a file again with
//! [`super::activity::parse`] reproduces what the library saw on the GPU, so
//! the record layouts are tested on records a real CUPTI wrote.
//!
//! Format, native byte order (x86-64: little-endian), a sequence of entries:
//! `b'R' u32 len, len bytes` (one record) or `b'S' u64 ptr, u32 len, len
//! bytes` (the UTF-8 text CUPTI's `const char*` `ptr` pointed at).

use super::activity::{self, Activity};
use std::collections::HashMap;

/// A record entry's bytes.
pub fn encode_record(bytes: &[u8], out: &mut Vec<u8>) {
    out.push(b'R');
    out.extend_from_slice(&(bytes.len() as u32).to_ne_bytes());
    out.extend_from_slice(bytes);
}

/// A string entry's bytes.
pub fn encode_string(ptr: u64, text: &str, out: &mut Vec<u8>) {
    out.push(b'S');
    out.extend_from_slice(&ptr.to_ne_bytes());
    out.extend_from_slice(&(text.len() as u32).to_ne_bytes());
    out.extend_from_slice(text.as_bytes());
}

/// A dump read back: the records in the order CUPTI handed them out, and the
/// strings by the pointer they had in the traced process.
#[derive(Debug, Default)]
pub struct Dump {
    pub records: Vec<Vec<u8>>,
    pub strings: HashMap<u64, String>,
}

impl Dump {
    pub fn read(bytes: &[u8]) -> Result<Dump, String> {
        let mut dump = Dump::default();
        let mut at = 0usize;
        let take = |at: &mut usize, n: usize| -> Result<&[u8], String> {
            let slice = bytes.get(*at..*at + n).ok_or_else(|| format!("dump cut short at byte {}", *at))?;
            *at += n;
            Ok(slice)
        };
        while at < bytes.len() {
            let tag = take(&mut at, 1)?[0];
            match tag {
                b'R' => {
                    let len = u32::from_ne_bytes(take(&mut at, 4)?.try_into().unwrap_or_default()) as usize;
                    dump.records.push(take(&mut at, len)?.to_vec());
                }
                b'S' => {
                    let ptr = u64::from_ne_bytes(take(&mut at, 8)?.try_into().unwrap_or_default());
                    let len = u32::from_ne_bytes(take(&mut at, 4)?.try_into().unwrap_or_default()) as usize;
                    let text = String::from_utf8_lossy(take(&mut at, len)?).into_owned();
                    dump.strings.insert(ptr, text);
                }
                other => return Err(format!("unknown dump entry {other:#x} at byte {}", at - 1)),
            }
        }
        Ok(dump)
    }

    /// Every record parsed as the injection library parses it.
    pub fn activities(&self) -> Vec<Result<Activity, String>> {
        let string = |ptr: u64| self.strings.get(&ptr).cloned();
        self.records.iter().map(|r| activity::parse(r, &string)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip_and_a_cut_dump_is_an_error() {
        let mut out = Vec::new();
        encode_record(&[12, 0, 0, 0, 9], &mut out);
        encode_string(0xdead, "train 1", &mut out);
        let dump = Dump::read(&out).unwrap();
        assert_eq!(dump.records, vec![vec![12, 0, 0, 0, 9]]);
        assert_eq!(dump.strings[&0xdead], "train 1");
        assert!(Dump::read(&out[..out.len() - 1]).unwrap_err().contains("cut short"));
        assert!(Dump::read(b"X").unwrap_err().contains("unknown"));
    }
}
