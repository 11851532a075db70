//! One XSpace decoded in parts: its lines cut into contiguous ranges, each
//! range decoded on a thread of its own, merged in line order into the
//! profile [`super::decode`] builds, string ids and all (docs/design.md,
//! "One host across threads").
//!
//! Each part decodes its lines with an interner of its own, a piece per
//! plane. Meanwhile this thread does the rest of one decoder's work in its
//! order: a plane's metadata, built with the profile's interner, then the
//! plane's pieces as the parts hand them over, each part's strings adopted
//! ([`Interner::adopt`]): a string that one decoder first meets in a part's
//! lines is first met there here too, so it gets the same id. The pieces
//! then take the profile's ids, each part's on a thread again. The metadata
//! is not split: re-interning every name of it in the merge cost as much as
//! splitting saved, on files whose bytes are mostly metadata.
//!
//! Only a file the fast path reads without doubt is split: any damage or
//! oddity (a line stating its timestamp after its events, a field that does
//! not frame) leaves the file to [`super::decode`], whose result and errors
//! are then one decoder's by construction. Where there are no threads
//! (wasm32) the parts run one after another, through the same cut and merge.

use super::builder::PlaneBuilder;
use super::plane_head::PlaneHead;
use super::{decode_line_counted, heads_window, line_walk, new_profile, read_heads};
use crate::{Error, Progress};
use proflens_model::{Interner, Line, Profile, StrId};
use std::ops::Range;

/// Decodes raw XSpace bytes as [`super::decode`] does, its lines cut into
/// `parts` ranges of about equal bytes, each decoded on its own thread
/// (one after another on wasm32). The profile, or the error, is the one
/// `decode` gives.
pub fn decode_parts(bytes: &[u8], parts: usize, progress: &mut dyn FnMut(Progress)) -> Result<Profile, Error> {
    let progress = &mut super::forward_only(progress);
    match (parts > 1).then(|| decode_split(bytes, parts, progress)).flatten() {
        Some(profile) => Ok(profile),
        None => super::decode(bytes, progress),
    }
}

/// The profile of `bytes` decoded in `parts` parts; `None` where the file
/// needs one decoder's care (module docs), or is damaged.
pub fn decode_split(bytes: &[u8], parts: usize, progress: &mut dyn FnMut(Progress)) -> Option<Profile> {
    let (head, planes) = read_heads(bytes, progress).ok()?;
    // Every line, in order, with the timestamp its head states (checked as it is built).
    let mut lines: Vec<(usize, &[u8], i64)> = Vec::new();
    for (p, plane) in planes.iter().enumerate() {
        for &line in &plane.lines {
            lines.push((p, line, line_walk::head_timestamp(line)?));
        }
    }
    let line_starts: Vec<i64> = lines.iter().map(|l| l.2).collect();
    let mut profile = new_profile(&head, planes.len(), heads_window(&planes), &line_starts).ok()?;
    let origin = profile.origin_ns.map(|o| i64::try_from(o).unwrap_or(i64::MAX));
    let ranges = cut(&lines.iter().map(|l| l.1.len()).collect::<Vec<_>>(), parts);
    let parts: Vec<&[(usize, &[u8], i64)]> = ranges.into_iter().map(|r| &lines[r]).collect();
    let (planes_ref, total) = (&planes, lines.len() as u64);
    let pieces = with_parts(
        &parts,
        |part, hand: &mut dyn FnMut(Option<Piece>) -> bool| decode_range(part, planes_ref, origin, hand),
        |handed: &mut [Handed]| merge(&mut profile, planes_ref, handed, total, progress),
    )?;
    let pieces = run_all(pieces.into_iter().map(|part| move || remap(part)).collect());
    let mut by_plane: Vec<Vec<Line>> = (0..planes.len()).map(|_| Vec::new()).collect();
    for piece in pieces.into_iter().flatten() {
        by_plane[piece.plane].extend(piece.lines);
    }
    for (plane, lines) in profile.planes.iter_mut().zip(by_plane) {
        plane.lines = lines;
    }
    Some(profile)
}

/// What a part hands over: its pieces in order, `None` where it failed.
type Handed<'a> = std::iter::Peekable<Box<dyn Iterator<Item = Option<Piece>> + 'a>>;

/// One decoder's order: each plane's metadata, built with the profile's
/// interner, then the plane's pieces adopted as the parts hand them over.
/// The profile's planes have no lines yet; the pieces, each part's, are
/// given back with their maps to the profile's ids.
fn merge(
    profile: &mut Profile,
    planes: &[PlaneHead],
    handed: &mut [Handed],
    total: u64,
    progress: &mut dyn FnMut(Progress),
) -> Option<Vec<Vec<Piece>>> {
    let mut kept: Vec<Vec<Piece>> = handed.iter().map(|_| Vec::new()).collect();
    let (mut part, mut lines_done) = (0, 0u64);
    for (p, head) in planes.iter().enumerate() {
        let builder = PlaneBuilder::from_head(head, &mut profile.strings).ok()?;
        profile.planes.push(builder.finish(Vec::new()));
        while part < handed.len() {
            let Some(next) = handed[part].peek() else {
                part += 1;
                continue;
            };
            let piece = next.as_ref()?;
            if piece.plane != p {
                break;
            }
            let mut piece = handed[part].next().flatten()?;
            piece.map = adopt(&mut profile.strings, &piece.strings, piece.cuts);
            lines_done += piece.lines.len() as u64;
            progress(Progress::Building { done: lines_done, total });
            kept[part].push(piece);
        }
    }
    // Every piece was a plane's, in order.
    handed.iter_mut().all(|h| h.peek().is_none()).then_some(kept)
}

/// `decode` of each part, each on a thread of its own, handing its results
/// over as it goes to `merge` on this thread; one after another where there
/// are no threads. `merge`'s answer.
fn with_parts<'a, P: Sync, T>(
    parts: &[P],
    decode: impl Fn(&P, &mut dyn FnMut(Option<Piece>) -> bool) + Sync,
    merge: impl FnOnce(&mut [Handed<'a>]) -> T,
) -> T {
    #[cfg(not(target_arch = "wasm32"))]
    return std::thread::scope(|scope| {
        let mut handed: Vec<Handed<'a>> = Vec::new();
        for part in parts {
            let (tx, rx) = std::sync::mpsc::channel();
            let decode = &decode;
            // A send fails once the merge has stopped: the part stops too.
            scope.spawn(move || decode(part, &mut |piece| tx.send(piece).is_ok()));
            let pieces: Box<dyn Iterator<Item = Option<Piece>>> = Box::new(rx.into_iter());
            handed.push(pieces.peekable());
        }
        merge(&mut handed)
    });
    #[cfg(target_arch = "wasm32")]
    {
        let mut handed: Vec<Handed<'a>> = Vec::new();
        for part in parts {
            let mut pieces = Vec::new();
            decode(part, &mut |piece| {
                pieces.push(piece);
                true
            });
            let pieces: Box<dyn Iterator<Item = Option<Piece>>> = Box::new(pieces.into_iter());
            handed.push(pieces.peekable());
        }
        merge(&mut handed)
    }
}

/// One plane's lines in one part, with the part's string ids.
struct Piece {
    plane: usize,
    lines: Vec<Line>,
    strings: Interner,
    /// Strings cut while decoding the lines (the stat names' are counted with the metadata).
    cuts: u64,
    /// The part's ids → the profile's, once merged (empty: the same ids).
    map: Vec<StrId>,
}

/// The strings of a part adopted by the profile: the map of its ids, empty where they are the same.
fn adopt(strings: &mut Interner, part: &Interner, cuts: u64) -> Vec<StrId> {
    let map = strings.adopt(part, cuts);
    let same = map.iter().enumerate().all(|(i, id)| id.0 as usize == i);
    if same {
        Vec::new()
    } else {
        map
    }
}

/// `parts` contiguous ranges of lines of about equal bytes (a line goes
/// where its middle falls); ranges with no line are left out.
fn cut(lengths: &[usize], parts: usize) -> Vec<Range<usize>> {
    let parts = parts.max(1) as u128;
    let total: u128 = lengths.iter().map(|&l| l as u128).sum();
    let mut ends = Vec::with_capacity(parts as usize);
    let (mut at, mut before) = (0, 0u128);
    for k in 1..parts {
        let goal = total * k / parts;
        while at < lengths.len() && before + lengths[at] as u128 / 2 < goal {
            before += lengths[at] as u128;
            at += 1;
        }
        ends.push(at);
    }
    ends.push(lengths.len());
    let mut start = 0;
    let mut ranges = Vec::with_capacity(ends.len());
    for end in ends {
        if end > start {
            ranges.push(start..end);
            start = end;
        }
    }
    ranges
}

/// A part's lines decoded, a piece per plane, each handed over as it is
/// done (until `hand` answers false); `None` handed over where a line fails
/// or states another timestamp after its events.
fn decode_range(
    lines: &[(usize, &[u8], i64)],
    planes: &[PlaneHead],
    origin: Option<i64>,
    hand: &mut dyn FnMut(Option<Piece>) -> bool,
) {
    for group in lines.chunk_by(|a, b| a.0 == b.0) {
        let plane = group[0].0;
        let mut strings = Interner::new();
        let mut builder = PlaneBuilder::for_lines(&planes[plane], &mut strings);
        let before = strings.cut_strings();
        let mut built = Vec::with_capacity(group.len());
        for &(_, line, stamp) in group {
            match decode_line_counted(&mut builder, line, origin, &mut strings, None) {
                Ok((line, read_ns)) if read_ns == stamp => built.push(line),
                _ => {
                    hand(None);
                    return;
                }
            }
        }
        let cuts = strings.cut_strings() - before;
        if !hand(Some(Piece { plane, lines: built, strings, cuts, map: Vec::new() })) {
            return;
        }
    }
}

/// A part's pieces with the profile's string ids.
fn remap(mut pieces: Vec<Piece>) -> Vec<Piece> {
    for piece in &mut pieces {
        if !piece.map.is_empty() {
            piece.lines.iter_mut().for_each(|line| line.remap_strings(&piece.map));
        }
        piece.strings = Interner::default();
    }
    pieces
}

/// Each task's result in order: each on a thread of its own (the first on
/// this one), or one after another where there are no threads.
fn run_all<T: Send, F: FnOnce() -> T + Send>(tasks: Vec<F>) -> Vec<T> {
    #[cfg(not(target_arch = "wasm32"))]
    if tasks.len() > 1 {
        return std::thread::scope(|scope| {
            let mut tasks = tasks.into_iter();
            let first = tasks.next().expect("more than one task");
            let others: Vec<_> = tasks.map(|task| scope.spawn(task)).collect();
            let mut results = vec![first()];
            results.extend(others.into_iter().map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))));
            results
        });
    }
    tasks.into_iter().map(|task| task()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_cover_every_line_once_in_order() {
        assert_eq!(cut(&[10, 10, 10, 10], 2), vec![0..2, 2..4]);
        assert_eq!(cut(&[10, 10, 10, 10], 1), vec![0..4]);
        // A long line goes where its middle falls; parts with no line are left out.
        assert_eq!(cut(&[100, 1, 1, 1], 2), vec![0..1, 1..4]);
        assert_eq!(cut(&[5, 5], 7), vec![0..1, 1..2]);
        assert_eq!(cut(&[], 3), Vec::<Range<usize>>::new());
        for parts in 1..9 {
            let lengths = [3, 0, 7, 1, 1, 12, 0, 4];
            let ranges = cut(&lengths, parts);
            let flat: Vec<usize> = ranges.iter().flat_map(|r| r.clone()).collect();
            assert_eq!(flat, (0..lengths.len()).collect::<Vec<_>>(), "{parts} parts");
            assert!(ranges.len() <= parts);
        }
    }

    #[test]
    fn tasks_run_and_answer_in_order() {
        let tasks: Vec<_> = (0..5).map(|i| move || i * 10).collect();
        assert_eq!(run_all(tasks), vec![0, 10, 20, 30, 40]);
    }
}
