//! The opened path kept between commands of one Python process. A notebook
//! asks one profile many questions (a tool, its table, the next tool); the
//! Python API runs each as a command ([`crate::capture`]). While output is
//! captured, the last path opened on this thread is kept with its hosts (their
//! decoded events and shared passes, which the app also keeps between tools)
//! and used again while its files are unchanged: the same files, sizes and
//! modification times. The `proflens` program opens each path afresh.

use crate::hosts::{self, Opened};
use crate::{output, Failure};
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Each file of an opened path: its name, size and modification time.
type Stamp = Vec<(PathBuf, Option<(u64, SystemTime)>)>;

struct Kept {
    path: PathBuf,
    stamp: Stamp,
    opened: Opened,
}

thread_local! {
    static KEPT: RefCell<Option<Kept>> = const { RefCell::new(None) };
}

fn stamp_of(opened: &Opened) -> Stamp {
    let specs = opened.runs.iter().flat_map(|r| &r.specs);
    let files = specs.flat_map(|s| s.files.iter().filter_map(|(_, at, _)| at.on_disk()).chain(s.summary.as_deref()));
    files
        .map(|f| {
            let meta = std::fs::metadata(f).ok();
            (f.to_path_buf(), meta.and_then(|m| Some((m.len(), m.modified().ok()?))))
        })
        .collect()
}

/// `path` opened: the kept one if it is `path` unchanged, else afresh.
pub fn open(path: &Path) -> Result<Opened, Failure> {
    let fresh = hosts::open(path)?;
    if !output::capturing() {
        return Ok(fresh);
    }
    let kept = KEPT.with(|k| k.borrow_mut().take());
    match kept {
        Some(kept) if kept.path == path && kept.stamp == stamp_of(&fresh) => Ok(kept.opened),
        _ => Ok(fresh),
    }
}

/// Keeps `opened` (of `path`) for the next command, while output is captured.
pub fn keep(path: &Path, opened: Opened) {
    if output::capturing() {
        let stamp = stamp_of(&opened);
        KEPT.with(|k| *k.borrow_mut() = Some(Kept { path: path.to_path_buf(), stamp, opened }));
    }
}
