//! Tar archives among the picked or dropped files (`ranks.tar.gz`: one
//! trace per rank): each profile in one becomes a file of its own, named
//! `<archive>/<member>`, so that discovery makes the archive a run with a
//! host per member, as the CLI does. A `.tar` is read where it lies in the
//! picked file; a `.tar.gz` is inflated once into the worker's memory, and
//! its members are read in place there.

use std::rc::Rc;

use proflens_format::archive::{self, Packing};
use proflens_format::source::{ByteSource, Part};
use proflens_format::Error;
use web_sys::File;

use super::blob_source::BlobSource;
use crate::protocol::SkippedEntry;

/// The most a `.tar.gz` may inflate to here: a wasm32 `Vec` doubles its
/// allocation as it grows, and one allocation past 2 GiB fails.
const MAX_INFLATED_BYTES: u64 = 1 << 30;

/// A file to list: picked, or a member of a picked archive.
pub enum Item {
    Picked(String, File),
    Member {
        /// `<archive>/<member>`, as messages name it.
        path: String,
        /// `<archive>/<name discovery knows it by>`.
        listed: String,
        tar: Rc<dyn ByteSource>,
        offset: u64,
        len: u64,
    },
}

impl Item {
    /// The path messages name.
    pub fn path(&self) -> &str {
        match self {
            Item::Picked(path, _) => path,
            Item::Member { path, .. } => path,
        }
    }

    /// The path discovery names its run and host by.
    pub fn listed(&self) -> &str {
        match self {
            Item::Picked(path, _) => path,
            Item::Member { listed, .. } => listed,
        }
    }

    /// The picked file, for a member none.
    pub fn file(&self) -> Option<&File> {
        match self {
            Item::Picked(_, file) => Some(file),
            Item::Member { .. } => None,
        }
    }

    /// Its bytes, read where they lie.
    pub fn source(&self) -> Box<dyn ByteSource> {
        match self {
            Item::Picked(path, file) => Box::new(BlobSource::new(path, file)),
            Item::Member { tar, offset, len, .. } => Box::new(Part::new(tar.clone(), *offset, *len)),
        }
    }
}

/// The picked files with each archive among them replaced by its profiles;
/// what was left out of the archives, and archives that could not be read,
/// as skipped files. An archive is told by its name, and a lone picked file
/// whose name says nothing by its content too (`head` reads its first bytes).
pub fn expand(picked: Vec<(String, File)>, head: impl Fn(&File) -> Option<Vec<u8>>) -> (Vec<Item>, Vec<SkippedEntry>) {
    let alone = picked.len() == 1;
    let mut items = Vec::new();
    let mut skipped = Vec::new();
    for (path, file) in picked {
        let name = path.rsplit('/').next().unwrap_or(&path);
        let named = archive::is_archive_name(name);
        let packing = if named || alone { head(&file).and_then(|h| archive::packing(&h)) } else { None };
        let Some(packing) = packing else {
            if named {
                let reason = "named as a tar archive, but its content is not one".to_string();
                skipped.push(SkippedEntry { path, reason });
            } else {
                items.push(Item::Picked(path, file));
            }
            continue;
        };
        match members(&path, &file, packing) {
            Ok((members, notes)) => {
                items.extend(members);
                skipped.extend(notes);
            }
            Err(e) => skipped.push(SkippedEntry { path, reason: e.to_string() }),
        }
    }
    (items, skipped)
}

/// The profiles of the archive `file` (picked as `path`), and its other members.
fn members(path: &str, file: &File, packing: Packing) -> Result<(Vec<Item>, Vec<SkippedEntry>), Error> {
    let blob = BlobSource::new(path, file);
    let tar: Rc<dyn ByteSource> = match packing {
        Packing::Tar => Rc::new(blob),
        Packing::TarGzip => Rc::new(archive::inflate(&blob, MAX_INFLATED_BYTES)?),
    };
    let listing = archive::list(&*tar)?;
    let notes = listing
        .skipped
        .iter()
        .map(|s| SkippedEntry { path: format!("{path}/{}", s.path), reason: s.reason.to_string() })
        .collect();
    let items = listing
        .members
        .into_iter()
        .map(|m| Item::Member {
            path: format!("{path}/{}", m.path),
            listed: format!("{path}/{}", m.listed),
            tar: tar.clone(),
            offset: m.offset,
            len: m.len,
        })
        .collect();
    Ok((items, notes))
}
