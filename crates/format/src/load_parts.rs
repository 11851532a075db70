//! A profile loaded with a raw XSpace's decode split over `parts` threads
//! ([`decode_parts`]); every other file, and one part, as
//! [`load_profile_source`] loads it. The split decodes from memory: a file
//! not already there is read whole first, so it is held beside the model
//! while it decodes (the streamed decode holds at most a line of it); one
//! larger than [`READ_WHOLE_UP_TO`] streams on one thread instead.

use crate::load_source::load_profile_source;
use crate::sniff::{sniff, FileKind};
use crate::source::{read_all, read_head, ByteSource};
use crate::{Error, Limits, Progress};
use proflens_model::Profile;
use std::borrow::Cow;

pub use crate::xspace::split::{decode_parts, decode_split};

/// Enough of the file for `sniff` to tell an XSpace.
const HEAD_BYTES: usize = 4 << 10;

/// The largest file not already in memory that is read whole to be split:
/// past it, holding the file beside its model (1.2 times its size) would
/// take more than the decode's time is worth.
pub const READ_WHOLE_UP_TO: u64 = 1 << 30;

/// [`load_profile_source`], a raw XSpace decoded in `parts` parts.
pub fn load_profile_source_parts(
    file_name: &str,
    source: &dyn ByteSource,
    limits: &Limits,
    parts: usize,
    progress: &mut dyn FnMut(Progress),
) -> Result<Profile, Error> {
    let named_otherwise = crate::tpu_trace::is_trace_file(file_name) || crate::perfetto::is_perfetto_file(file_name);
    let too_big =
        source.len() > limits.max_input_bytes || (source.as_slice().is_none() && source.len() > READ_WHOLE_UP_TO);
    if parts <= 1 || named_otherwise || too_big || !is_raw_xspace(source)? {
        return load_profile_source(file_name, source, limits, progress);
    }
    let bytes = match source.as_slice() {
        Some(bytes) => Cow::Borrowed(bytes),
        None => Cow::Owned(read_all(source)?),
    };
    decode_parts(&bytes, parts, progress).map(crate::cut_long_strings)
}

/// Whether the file is an XSpace as it is (not gzip), as the loaders sniff it.
fn is_raw_xspace(source: &dyn ByteSource) -> Result<bool, Error> {
    let head = read_head(source, HEAD_BYTES)?;
    let as_text = crate::json_text(&head);
    Ok(matches!(as_text, Cow::Borrowed(text) if text.len() == head.len()) && sniff(&head) == FileKind::XSpace)
}
