//! Decoding a profile from a [`ByteSource`]: XSpace and trace JSON (raw or
//! gzip) stream, never held whole; other files (TPU traces) are read whole and
//! decoded as [`crate::load_profile_named`] decodes bytes. Before a long
//! decode, the model's size is estimated from the file's, and in a browser
//! a host that cannot fit is refused with the numbers.

use crate::sniff::{sniff, FileKind};
use crate::source::{read_all, read_head, ByteSource};
use crate::xspace::{decode_stream, Input, Looks};
use crate::{Error, Limits, Progress};
use proflens_model::Profile;

/// How much of the file decides what it is (and `sniff`'s printable test).
const HEAD_BYTES: usize = 64 << 10;

/// Bytes read from the source at a time.
const CHUNK: usize = 1 << 20;

/// Decodes the profile in `source`, named `file_name`; see the module docs.
pub fn load_profile_source(
    file_name: &str,
    source: &dyn ByteSource,
    limits: &Limits,
    progress: &mut dyn FnMut(Progress),
) -> Result<Profile, Error> {
    // Bytes already in memory (a fetched file) are decoded in place: streaming would only copy them.
    if let Some(bytes) = source.as_slice() {
        return crate::load_profile_named(file_name, bytes, limits, progress);
    }
    load_inner(file_name, source, limits, CHUNK, WHOLE_JSON_UP_TO, progress)
}

/// Trace JSON up to this size (inflated; a gzip's estimated) is parsed in
/// memory: one pass instead of two or three (1.3-1.4x faster), and a giant
/// string in it costs its size once, where the stream's growing event buffer
/// would hold it 2-3 times over (tests/browser/hardening.test.mjs). Larger
/// traces stream.
const WHOLE_JSON_UP_TO: u64 = 128 << 20;

/// [`load_profile_source`], always streaming (even bytes in memory), reading
/// `chunk` bytes at a time (tests and the fuzz target use tiny reads, to cut
/// the framing at every place).
pub fn load_with_chunk(
    file_name: &str,
    source: &dyn ByteSource,
    limits: &Limits,
    chunk: usize,
    progress: &mut dyn FnMut(Progress),
) -> Result<Profile, Error> {
    load_inner(file_name, source, limits, chunk, 0, progress)
}

/// [`load_with_chunk`], with trace JSON up to `whole_json_up_to` bytes read whole.
fn load_inner(
    file_name: &str,
    source: &dyn ByteSource,
    limits: &Limits,
    chunk: usize,
    whole_json_up_to: u64,
    progress: &mut dyn FnMut(Progress),
) -> Result<Profile, Error> {
    let whole = |progress: &mut dyn FnMut(Progress)| {
        let bytes = read_all(source)?;
        crate::load_profile_named(file_name, &bytes, limits, progress)
    };
    if source.len() > limits.max_input_bytes {
        return Err(Error::TooLarge { what: "file", limit: limits.max_input_bytes });
    }
    // Named as a protobuf trace that is read whole (its framing may look like an XSpace's).
    if crate::tpu_trace::is_trace_file(file_name) || crate::perfetto::is_perfetto_file(file_name) {
        return whole(progress);
    }
    let head = read_head(source, HEAD_BYTES)?;
    let (input, inflated_head) = match sniff(&head) {
        FileKind::Gzip => (Input::Gzip(source, limits.max_decompressed_bytes), crate::text_head(&head, HEAD_BYTES)),
        _ => (Input::Raw(source), head),
    };
    let gzip = matches!(input, Input::Gzip(..));
    if sniff(&inflated_head) == FileKind::Json {
        let raw_head = if gzip {
            read_head(source, HEAD_BYTES).map(|h| crate::inflate::gunzip_prefix(&h, HEAD_BYTES))?
        } else {
            inflated_head
        };
        // UTF-16 text (rare: PowerShell's `>`) is converted whole, then decoded; small traces are read whole.
        let inflated_len = if gzip { source.len().saturating_mul(JSON_GZIP_RATIO) } else { source.len() };
        if matches!(crate::json_text(&raw_head), std::borrow::Cow::Owned(_)) || inflated_len <= whole_json_up_to {
            return whole(progress);
        }
        if cfg!(target_arch = "wasm32") {
            Estimate::of_json(source.len(), gzip).fits(BROWSER_MEMORY_BYTES)?;
        }
        let gzip_limit = gzip.then_some(limits.max_decompressed_bytes);
        return crate::chrome_trace::decode_stream(source, gzip_limit, chunk, progress).map(crate::cut_long_strings);
    }
    if sniff(&inflated_head) != FileKind::XSpace {
        return whole(progress);
    }
    let estimate = Estimate::of(source.len(), gzip);
    if cfg!(target_arch = "wasm32") {
        estimate.fits(BROWSER_MEMORY_BYTES)?;
    }
    let first = &inflated_head[..inflated_head.len().min(4096)];
    let looks = Looks { printable: first.iter().all(|b| b.is_ascii_graphic() || b.is_ascii_whitespace()) };
    decode_stream(input, looks, chunk, progress).map(crate::cut_long_strings)
}

/// What a browser tab's worker can hold: wasm32 addresses 4 GiB.
pub const BROWSER_MEMORY_BYTES: u64 = 4 << 30;

/// Bytes of raw XSpace per event: 22 in the large TF profiles (2.07 M and
/// 10.4 M events), 28–52 in most fixtures, 80 in the synthetic 2 GB one.
/// The least: the most events a file may hold.
const XSPACE_BYTES_PER_EVENT: u64 = 22;

/// The worker's wasm memory once an XSpace is decoded, over the file's
/// size, in headless Chromium (tests/browser/bench_web.mjs): 1.19 at
/// 51.8 M events (1.13 GiB), 1.18 at 93 M (2.04 GiB), copies of the
/// 10.4 M event TF profile (tests/scripts/synthetic_xspace.py); 1.19 at
/// 93.1 M (2.01 GiB), copies of the 2.07 M event one.
const MODEL_BYTES_PER_XSPACE_BYTE: f64 = 1.2;

/// What a tool's passes over an XSpace hold at once per event beyond the
/// decoded events (grouping's forest is the most): the most its
/// allocations held over what the decode held was 16.4 bytes an event on
/// 72.5 M events in the browser (17.4 before grouping's ends, executor
/// list and group columns were cut), and 12.2–13.1 natively
/// (`examples/pass_times`, 10.4 M and 72.5 M events). The file's estimate
/// counts the overview's; `Tool::working_bytes_per_event` weighs each
/// tool's against the memory left.
pub const XSPACE_WORKING_BYTES_PER_EVENT: u64 = 17;

/// How far gzip shrinks an XSpace (about 10-fold; 12 in the fixtures).
const GZIP_RATIO: u64 = 10;

/// Bytes of trace JSON per event: 241 in the DDP Kineto fixture, 293 in
/// the synthetic 1.0 GB trace made from it (3.42 M events in the model;
/// tests/scripts/synthetic_kineto.py).
const JSON_BYTES_PER_EVENT: u64 = 240;

/// Peak memory of a streamed JSON decode over the file's size: 0.41 on a
/// synthetic 1.0 GB Kineto trace (388 MiB, counted by `examples/pass_times`'
/// allocator; `proflens info` peaks at 286 MB RSS).
/// Kineto events carry several args each; flow phases are kept compact
/// until bound, and launch flows not at all.
const MODEL_BYTES_PER_JSON_BYTE: f64 = 0.45;

/// Opening's peak over the decode's, for trace JSON: the worker's wasm
/// memory once the overview of that 1.0 GB trace was shown was 576 MiB in
/// headless Chromium (tests/browser/bench_web.mjs), 1.34 times the decode's
/// 0.45. The tools chosen after it that would not fit in what is left are
/// refused one at a time, with the numbers
/// (`HostContext::ensure_room`); the file is not. A trace past about
/// 6.6 GB is refused.
const JSON_ANALYSIS_FACTOR: f64 = 1.45;

/// How far gzip shrinks trace JSON: 10 to 30-fold in the fixtures; the
/// least, to refuse only what cannot fit.
const JSON_GZIP_RATIO: u64 = 10;

/// A host's size once decoded, estimated from its file's before decoding.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    pub events: u64,
    /// Memory the model and the analysis over it need.
    pub bytes: u64,
}

impl Estimate {
    /// For an XSpace file of `len` bytes (gzip when `gzip`): its decoded
    /// events and the passes of the first tool shown, the overview.
    pub fn of(len: u64, gzip: bool) -> Estimate {
        let raw = if gzip { len.saturating_mul(GZIP_RATIO) } else { len };
        let events = raw / XSPACE_BYTES_PER_EVENT;
        let model = raw as f64 * MODEL_BYTES_PER_XSPACE_BYTE;
        let bytes = (model as u64).saturating_add(events.saturating_mul(XSPACE_WORKING_BYTES_PER_EVENT));
        Estimate { events, bytes }
    }

    /// For a trace JSON file of `len` bytes (gzip when `gzip`).
    pub fn of_json(len: u64, gzip: bool) -> Estimate {
        let raw = if gzip { len.saturating_mul(JSON_GZIP_RATIO) } else { len };
        let bytes = raw as f64 * MODEL_BYTES_PER_JSON_BYTE * JSON_ANALYSIS_FACTOR;
        Estimate { events: raw / JSON_BYTES_PER_EVENT, bytes: bytes as u64 }
    }

    /// Refuses, with the numbers, a host that needs more than `room` bytes.
    pub fn fits(self, room: u64) -> Result<(), Error> {
        if self.bytes <= room {
            return Ok(());
        }
        Err(Error::TooLargeForBrowser { events: self.events, need_bytes: self.bytes, room_bytes: room })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_host_past_a_browsers_memory_is_refused_with_numbers() {
        // The large TF profile: 45 MB, 2.07 M events, fits.
        let large = Estimate::of(45_000_000, false);
        // It holds 2.07 M events; the estimate is within a factor of 1.5.
        assert!((1_400_000..3_100_000).contains(&large.events), "{large:?}");
        assert_eq!(large.fits(BROWSER_MEMORY_BYTES), Ok(()));
        // An XSpace at protobuf's 2 GiB limit (2,156,379,414 bytes, 93.1 M
        // events, whose overview and every tool were shown in headless
        // Chromium) fits; 2.25 GB does not.
        assert_eq!(Estimate::of(2_156_379_414, false).fits(BROWSER_MEMORY_BYTES), Ok(()));
        let err = Estimate::of(2_250_000_000, false).fits(BROWSER_MEMORY_BYTES).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("~102 million events need about 4.1 GiB"), "{text}");
        assert!(text.contains("holds at most 4.0 GiB") && text.contains("proflens summarize"), "{text}");
        // Copies of the 10.4 M event profile just past protobuf's limit
        // (2.04 GiB) are refused, their need told apart from the room.
        let text = Estimate::of(2_194_790_715, false).fits(BROWSER_MEMORY_BYTES).unwrap_err().to_string();
        assert!(text.contains("~99 million events need about 4.03 GiB"), "{text}");
        // gzip counts at its inflated size.
        assert!(Estimate::of(250_000_000, true).fits(BROWSER_MEMORY_BYTES).is_err());
    }

    #[test]
    fn a_trace_json_past_a_browsers_memory_is_refused_with_numbers() {
        // The synthetic 6.0 GB Kineto trace (20.5 M events) opens: 0.60×
        // the file measured once its overview is shown at 1.0 GB.
        let big = Estimate::of_json(6_003_328_212, false);
        assert!((14_000_000..31_000_000).contains(&big.events), "{big:?}");
        assert_eq!(big.fits(BROWSER_MEMORY_BYTES), Ok(()));
        // 8 GB does not; nor 800 MB of gzip, which counts as 8 GB.
        let text = Estimate::of_json(8_000_000_000, false).fits(BROWSER_MEMORY_BYTES).unwrap_err().to_string();
        assert!(text.contains("~33 million events need about 4.9 GiB"), "{text}");
        assert!(Estimate::of_json(800_000_000, true).fits(BROWSER_MEMORY_BYTES).is_err());
    }
}
