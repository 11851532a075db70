//! A tar archive of profiles (`.tar`, `.tar.gz`, `.tgz`: one trace per
//! rank, or a log directory packed whole) as the files of a folder: each
//! member that is a profile, with the name [`crate::logdir::discover`]
//! names its run and host by, and where its bytes lie in the archive.
//!
//! A `.tar` is read where it lies (members are [`crate::source::Part`]s of
//! the archive's source); a `.tar.gz` is inflated once, and its members are
//! parts of the inflated bytes. Members are recognised as loose files are:
//! by name, and by content where the name says nothing (`rank0.bin` that
//! holds an XSpace is listed as `rank0.xplane.pb`).

use crate::logdir::{self, Skipped};
use crate::sniff::{self, FileKind};
use crate::source::ByteSource;
use crate::tar::{self, EntryKind};
use crate::Error;

/// How an archive is packed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Packing {
    Tar,
    /// A tar inside gzip: inflated whole before its members are read.
    TarGzip,
}

/// File name suffixes of archives, longest first.
const SUFFIXES: [&str; 3] = [".tar.gz", ".tgz", ".tar"];

/// How much of a member decides what it is (trace JSON's check reads as much).
const MEMBER_HEAD_BYTES: usize = sniff::JSON_HEAD_BYTES;

/// Whether a file is named as a tar archive.
pub fn is_archive_name(file_name: &str) -> bool {
    let lower = file_name.to_ascii_lowercase();
    SUFFIXES.iter().any(|s| lower.ends_with(s) && lower.len() > s.len())
}

/// What a file's first bytes say it is: a tar archive, raw or in gzip.
pub fn packing(head: &[u8]) -> Option<Packing> {
    if head.starts_with(&[0x1f, 0x8b]) {
        tar::is_header(&crate::inflate::gunzip_prefix(head, 512)).then_some(Packing::TarGzip)
    } else {
        tar::is_header(head).then_some(Packing::Tar)
    }
}

/// The tar inside a `.tar.gz`, inflated (at most `limit` bytes; the
/// gzip-bomb check of every gzip applies).
pub fn inflate(source: &dyn ByteSource, limit: u64) -> Result<Vec<u8>, Error> {
    match source.as_slice() {
        Some(bytes) => crate::inflate::gunzip(bytes, limit, &mut |_| {}),
        None => crate::gunzip_stream::gunzip_all(source, limit, 1 << 20),
    }
}

/// A member that is a profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// Its path in the archive.
    pub path: String,
    /// The path discovery names it by: `path`, or for a file whose name
    /// says nothing, the name its content gives (`dir/rank0.xplane.pb`).
    pub listed: String,
    /// Where its bytes lie in the (inflated) archive.
    pub offset: u64,
    pub len: u64,
}

/// An archive's members that are profiles, and the others with why they
/// were left out (their paths are the archive's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listing {
    pub members: Vec<Member>,
    pub skipped: Vec<Skipped>,
}

/// The profiles of the tar archive in `tar` (a `.tar`, or a `.tar.gz`'s
/// inflated bytes). A damaged archive is an error; directories pass
/// silently (their files are entries of their own), links and other
/// entries that are no profile are skipped with a reason.
pub fn list(tar: &dyn ByteSource) -> Result<Listing, Error> {
    let mut listing = Listing { members: Vec::new(), skipped: Vec::new() };
    for entry in tar::entries(tar)? {
        let path = entry.name.trim_start_matches("./").to_string();
        let reason = match entry.kind {
            EntryKind::Directory => continue,
            EntryKind::Link => Some("a link inside the archive (links are not followed)"),
            EntryKind::Other(_) => Some("an entry of the archive that is not a plain file"),
            EntryKind::File if entry.len == 0 => Some("an empty file"),
            EntryKind::File => None,
        };
        let listed = match reason {
            Some(reason) => Err(reason),
            None => {
                let mut head = vec![0; entry.len.min(MEMBER_HEAD_BYTES as u64) as usize];
                tar.read_at(entry.offset, &mut head)?;
                listed_name(&path, &head)
            }
        };
        match listed {
            Ok(listed) => listing.members.push(Member { path, listed, offset: entry.offset, len: entry.len }),
            Err(reason) => listing.skipped.push(Skipped { path, reason }),
        }
    }
    Ok(listing)
}

/// The name discovery knows a member by, from its name, else its content
/// (`head`: its first bytes); why it is no profile otherwise.
fn listed_name(path: &str, head: &[u8]) -> Result<String, &'static str> {
    let (dir, name) = match path.rfind('/') {
        Some(slash) => path.split_at(slash + 1),
        None => ("", path),
    };
    if logdir::summary_host_name(name).is_some() {
        // A summary describes a file on disk, which no member is.
        return Err("a host summary inside an archive (summaries are read beside profiles on disk)");
    }
    if is_archive_name(name) {
        return Err("an archive inside the archive (unpack it first)");
    }
    if logdir::host_name(name).is_some()
        || crate::legacy::tool_file(name).is_some()
        || crate::tpu_trace::host_name(name).is_some()
    {
        return Ok(path.to_string());
    }
    if logdir::trace_host_name(name).is_some() {
        return sniff::check_json_head(head).map(|()| path.to_string());
    }
    // A name that says nothing: the content decides, as for a loose file.
    let stem = logdir::loose_host_name(name.strip_suffix(".gz").unwrap_or(name));
    let inner = if head.starts_with(&[0x1f, 0x8b]) {
        crate::inflate::gunzip_prefix(head, MEMBER_HEAD_BYTES)
    } else {
        head.to_vec()
    };
    match sniff::sniff(&crate::json_text(&inner)) {
        FileKind::XSpace => Ok(format!("{dir}{stem}.xplane.pb")),
        FileKind::Json => sniff::check_json_head(head).map(|()| format!("{dir}{stem}.json")),
        _ => Err("not a profile (neither an XSpace nor trace JSON by its name or content)"),
    }
}

#[cfg(test)]
#[path = "archive_tests.rs"]
mod tests;
