//! Tar archives among the files of a PATH (`proflens info ranks.tar.gz`):
//! each profile in one becomes a file of the folder, named
//! `<archive>/<member>`, so that discovery makes the archive a run with a
//! host per member, as the page does with an archive dropped on it. A
//! `.tar` is read where it lies on disk; a `.tar.gz` is inflated once and
//! shared by the threads that analyse its hosts.

use crate::Failure;
use proflens_format::archive::{self, Packing};
use proflens_format::source::{read_head, ByteSource, FileSource, Part};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Where a host's file is read from.
#[derive(Debug, Clone)]
pub enum Location {
    File(PathBuf),
    /// A member of a tar archive: `shown` is `<archive>/<member>`.
    Member {
        shown: PathBuf,
        bytes: ArchiveBytes,
        offset: u64,
        len: u64,
    },
}

/// The bytes of an archive: a `.tar` on disk, or a `.tar.gz`'s inflated tar.
#[derive(Debug, Clone)]
pub enum ArchiveBytes {
    OnDisk(PathBuf),
    Inflated(Arc<Vec<u8>>),
}

impl Location {
    /// The path messages name.
    pub fn path(&self) -> &Path {
        match self {
            Location::File(path) => path,
            Location::Member { shown, .. } => shown,
        }
    }

    /// The file on disk, when it is not a member of an archive (summaries
    /// are written and read beside such files only).
    pub fn on_disk(&self) -> Option<&Path> {
        match self {
            Location::File(path) => Some(path),
            Location::Member { .. } => None,
        }
    }

    /// Its bytes, read where they lie; the error names the file.
    pub fn open(&self) -> Result<Box<dyn ByteSource>, String> {
        match self {
            Location::File(path) => proflens_format::source::open_file(path),
            Location::Member { bytes: ArchiveBytes::OnDisk(archive), offset, len, .. } => {
                let file = FileSource::open(archive).map_err(|e| format!("{}: {e}", archive.display()))?;
                Ok(Box::new(Part::new(file, *offset, *len)))
            }
            Location::Member { bytes: ArchiveBytes::Inflated(tar), offset, len, .. } => {
                Ok(Box::new(Part::new(tar.clone(), *offset, *len)))
            }
        }
    }
}

/// A file found under PATH: its path relative to the opened folder (as
/// messages and the page name it), the path discovery names its run and
/// host by, and where it is read.
pub struct Found {
    pub relative: String,
    pub listed: String,
    pub location: Location,
}

/// `files` (with their paths relative to the opened folder) with each
/// archive among them replaced by its profiles, and notes on what was left
/// out. Archives are told by their name, and `alone` (the one file PATH
/// names) by its content too. A damaged archive is an error when it is the
/// file named, a note in a folder.
pub fn expand(files: Vec<PathBuf>, relative: Vec<String>, alone: bool) -> Result<(Vec<Found>, Vec<String>), Failure> {
    let mut found = Vec::new();
    let mut notes = Vec::new();
    for (path, relative) in files.into_iter().zip(relative) {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let named = archive::is_archive_name(&name);
        if !named && !alone {
            found.push(Found { listed: relative.clone(), relative, location: Location::File(path) });
            continue;
        }
        match members(&path, &relative, named) {
            Ok(None) => found.push(Found { listed: relative.clone(), relative, location: Location::File(path) }),
            Ok(Some((members, skipped))) => {
                found.extend(members);
                notes.extend(skipped);
            }
            Err(why) if alone => return Err(Failure(format!("{}: {why}", path.display()))),
            Err(why) => notes.push(format!("{}: {why}", path.display())),
        }
    }
    Ok((found, notes))
}

/// The profiles of the archive at `path` and notes on its other members;
/// `None` when it is no archive (and not `named` as one).
#[allow(clippy::type_complexity)]
fn members(path: &Path, relative: &str, named: bool) -> Result<Option<(Vec<Found>, Vec<String>)>, String> {
    let file = FileSource::open(path).map_err(|e| e.to_string())?;
    let head = read_head(&file, 4 << 10).map_err(|e| e.to_string())?;
    let (listing, bytes) = match archive::packing(&head) {
        None if named => return Err("named as a tar archive, but its content is not one".to_string()),
        None => return Ok(None),
        Some(Packing::Tar) => (archive::list(&file), ArchiveBytes::OnDisk(path.to_path_buf())),
        Some(Packing::TarGzip) => {
            let tar = Arc::new(archive::inflate(&file, u64::MAX).map_err(|e| e.to_string())?);
            (archive::list(&*tar), ArchiveBytes::Inflated(tar))
        }
    };
    let listing = listing.map_err(|e| e.to_string())?;
    let notes = listing.skipped.iter().map(|s| format!("{relative}/{}: {}", s.path, s.reason)).collect();
    let found = listing
        .members
        .into_iter()
        .map(|m| Found {
            relative: format!("{relative}/{}", m.path),
            listed: format!("{relative}/{}", m.listed),
            location: Location::Member {
                shown: path.join(&m.path),
                bytes: bytes.clone(),
                offset: m.offset,
                len: m.len,
            },
        })
        .collect();
    Ok(Some((found, notes)))
}
