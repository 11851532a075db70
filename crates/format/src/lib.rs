//! Bytes → profile model.
//!
//! [`sniff`] recognises a file by its content, [`inflate`] unpacks gzip under
//! size limits, [`xspace`] decodes XSpace protobuf into the model,
//! [`chrome_trace`] reads trace-event JSON (PyTorch/Kineto, XProf's legacy
//! trace.json) into the same model, [`perfetto`] reads Perfetto protobuf
//! traces through the same mapping, [`load_profile`] picks between them,
//! [`logdir`] finds runs and hosts in a list of uploaded paths, and
//! [`archive`] lists the profiles of a tar archive ([`tar`]). Every failure
//! is an [`Error`] whose `Display` is a sentence a user can act on.

pub mod archive;
pub mod capture_window;
pub mod chrome_trace;
pub mod error;
mod gunzip_stream;
pub mod hlo;
mod hlo_attributes;
pub mod inflate;
pub mod legacy;
pub mod load_parts;
pub mod load_source;
pub mod logdir;
pub mod logdir_index;
pub mod nvidia_smi;
pub mod perfetto;
pub mod sniff;
pub mod source;
mod stream_reader;
pub mod tar;
pub mod tpu_trace;
pub mod wire;
pub mod xspace;

#[cfg(test)]
mod stream_tests;

/// The generated XSpace types (for writers such as the collector and tests;
/// readers use the model).
pub mod proto {
    #![allow(clippy::all, clippy::pedantic, missing_docs)]
    include!(concat!(env!("OUT_DIR"), "/tensorflow.profiler.rs"));
}

/// The generated HLO types (`proto/hlo.proto`), private to [`hlo`].
mod xla_proto {
    #![allow(clippy::all, clippy::pedantic, missing_docs, dead_code)]
    include!(concat!(env!("OUT_DIR"), "/xla.rs"));
}

pub use error::{escape_controls, quoted, Error};
pub use load_source::load_profile_source;
pub use sniff::FileKind;
pub use source::ByteSource;

/// Size limits applied while decoding untrusted input. By default there
/// are none: gzip bombs are refused by their ratio, XSpace streams from its
/// source ([`load_profile_source`]), and in a browser a host too large for
/// its memory is refused by an estimate before decoding.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Largest accepted input, compressed or not (when read whole).
    pub max_input_bytes: u64,
    /// Largest accepted size after decompression.
    pub max_decompressed_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_input_bytes: u64::MAX, max_decompressed_bytes: u64::MAX }
    }
}

/// Where a long decode is, for progress bars.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Progress {
    /// Decompressing: compressed bytes consumed of the total.
    Inflating { done: u64, total: u64 },
    /// Parsing the protobuf (one step, no finer progress).
    Parsing,
    /// Building the model: lines done of the total.
    Building { done: u64, total: u64 },
}

impl Progress {
    /// Overall fraction 0..=1, weighting the phases by their usual cost.
    pub fn fraction(&self) -> f64 {
        let part = |done: u64, total: u64| {
            if total == 0 {
                1.0
            } else {
                done as f64 / total as f64
            }
        };
        match *self {
            Progress::Inflating { done, total } => 0.3 * part(done, total),
            Progress::Parsing => 0.3,
            Progress::Building { done, total } => 0.6 + 0.4 * part(done, total),
        }
    }
}

/// Decodes one host's XSpace file (raw or gzip) into a profile.
pub fn load_xspace(
    bytes: &[u8],
    limits: &Limits,
    progress: &mut dyn FnMut(Progress),
) -> Result<proflens_model::Profile, Error> {
    load(bytes, limits, progress, false)
}

/// Decodes any profile file Proflens reads, recognised by its content: an
/// XSpace (raw or gzip), Chrome trace-event JSON (raw or gzip: PyTorch /
/// Kineto traces, XProf's legacy `trace.json.gz`, other trace files) or a
/// Perfetto protobuf trace (raw or gzip).
/// [`proflens_model::Profile::origin`] says which it was.
pub fn load_profile(
    bytes: &[u8],
    limits: &Limits,
    progress: &mut dyn FnMut(Progress),
) -> Result<proflens_model::Profile, Error> {
    load(bytes, limits, progress, true)
}

/// [`load_profile`], except that a file named as the TPU profiler's trace
/// (`<host>.trace`, whose framing looks like an XSpace's) is read as one,
/// and one named as a Perfetto trace (`*.pftrace`, `*.perfetto-trace`) as
/// one whatever its first packet looks like.
pub fn load_profile_named(
    file_name: &str,
    bytes: &[u8],
    limits: &Limits,
    progress: &mut dyn FnMut(Progress),
) -> Result<proflens_model::Profile, Error> {
    if tpu_trace::is_trace_file(file_name) {
        tpu_trace::decode(bytes, limits, progress).map(cut_long_strings)
    } else if perfetto::is_perfetto_file(file_name) {
        perfetto::load(bytes, limits, progress).map(cut_long_strings)
    } else {
        load_profile(bytes, limits, progress)
    }
}

/// XSpace, and trace JSON and Perfetto traces when `traces`, raw or gzip.
fn load(
    bytes: &[u8],
    limits: &Limits,
    progress: &mut dyn FnMut(Progress),
    traces: bool,
) -> Result<proflens_model::Profile, Error> {
    if bytes.len() as u64 > limits.max_input_bytes {
        return Err(Error::TooLarge { what: "file", limit: limits.max_input_bytes });
    }
    let decode = |raw: &[u8], progress: &mut dyn FnMut(Progress)| {
        let raw = json_text(raw);
        match sniff::sniff(&raw) {
            FileKind::XSpace => xspace::decode(&raw, progress),
            FileKind::Json if traces => chrome_trace::decode(&raw, progress),
            FileKind::Perfetto if traces => perfetto::decode(&raw, progress),
            FileKind::Empty => Err(Error::Empty),
            other => Err(Error::NotAProfile { found: other.describe() }),
        }
    };
    let profile = match sniff::sniff(bytes) {
        FileKind::Gzip => {
            let raw = inflate::gunzip(bytes, limits.max_decompressed_bytes, progress)?;
            decode(&raw, progress)
        }
        _ => decode(bytes, progress),
    }?;
    Ok(cut_long_strings(profile))
}

/// The profile with names and values past the model's limit cut, and a warning saying so.
fn cut_long_strings(mut profile: proflens_model::Profile) -> proflens_model::Profile {
    let cut = profile.strings.cut_strings();
    if cut > 0 {
        profile.warnings.push(format!(
            "{cut} names or values were longer than {} MiB, which real profiles never are, and were cut",
            proflens_model::MAX_STRING_BYTES >> 20
        ));
    }
    profile
}

/// The first `max` bytes of a file (raw or gzip) as UTF-8 JSON text
/// ([`json_text`]), without decompressing the rest.
pub(crate) fn text_head(bytes: &[u8], max: usize) -> Vec<u8> {
    let head = if bytes.starts_with(&[0x1f, 0x8b]) {
        crate::inflate::gunzip_prefix(bytes, max)
    } else {
        bytes[..bytes.len().min(max)].to_vec()
    };
    crate::json_text(&head).into_owned()
}

/// JSON as UTF-8 without a byte-order mark, which is what JSON readers take.
/// Windows tools write UTF-8 with a mark, and PowerShell's `>` writes UTF-16;
/// UTF-16 without a mark is told by the NUL beside the first `{`, `[` or
/// space. Anything else (XSpace protobuf among it) is returned as it is.
pub fn json_text(bytes: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    use std::borrow::Cow;
    if let Some(rest) = bytes.strip_prefix(b"\xEF\xBB\xBF") {
        return Cow::Borrowed(rest);
    }
    // Spaces, then `{` or `[`, each beside a NUL: `low` is the ASCII byte's place.
    let opens_json = |low: usize| {
        let mut pairs = bytes.chunks_exact(2).map(|p| (p[low], p[1 - low]));
        let first = pairs.find(|&(ascii, nul)| nul != 0 || !ascii.is_ascii_whitespace());
        matches!(first, Some((b'{' | b'[', 0)))
    };
    let (body, little_endian) = match bytes {
        [0xFF, 0xFE, rest @ ..] => (rest, true),
        [0xFE, 0xFF, rest @ ..] => (rest, false),
        [_, 0, ..] if opens_json(0) => (bytes, true),
        [0, _, ..] if opens_json(1) => (bytes, false),
        _ => return Cow::Borrowed(bytes),
    };
    let units = body.chunks_exact(2).map(|pair| {
        let pair = [pair[0], pair[1]];
        if little_endian {
            u16::from_le_bytes(pair)
        } else {
            u16::from_be_bytes(pair)
        }
    });
    let text: String = char::decode_utf16(units).map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER)).collect();
    Cow::Owned(text.into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trace_with_a_byte_order_mark_or_in_utf16_is_read() {
        let trace = r#"{"traceEvents":[{"ph":"X","name":"é","pid":1,"tid":1,"ts":0,"dur":1}]}"#;
        let utf16 = |le: bool, bom: bool| -> Vec<u8> {
            let units = bom.then_some(0xFEFF).into_iter().chain(trace.encode_utf16());
            units.flat_map(|u| if le { u.to_le_bytes() } else { u.to_be_bytes() }).collect()
        };
        let with_bom = [b"\xEF\xBB\xBF".as_slice(), trace.as_bytes()].concat();
        for bytes in [with_bom, utf16(true, true), utf16(false, true), utf16(true, false), utf16(false, false)] {
            let profile = load_profile(&bytes, &Limits::default(), &mut |_| {}).unwrap();
            assert_eq!(profile.event_count(), 1);
            assert!(sniff::check_json_head(&bytes).is_ok());
            assert_eq!(json_text(&bytes).as_ref(), trace.as_bytes());
        }
        for xspace in [&[0x0a, 0x00][..], &[0x0a, 0x00, 0x0a, 0x02]] {
            assert!(matches!(json_text(xspace), std::borrow::Cow::Borrowed(_)));
        }
        let spaced: Vec<u8> = " \n[]".encode_utf16().flat_map(u16::to_le_bytes).collect();
        assert_eq!(json_text(&spaced).as_ref(), b" \n[]");
    }
}
