//! Track control's model, free of web types: the user's order of sections
//! and tracks, what is pinned to the top, what is hidden, and a name filter
//! ([`TrackPrefs`]), and where that puts each track ([`Arranged`], which
//! [`Rows`](super::model::Rows) lays out), and the viewer's state of them
//! ([`TrackControl`]).
//!
//! Prefs name sections and tracks by a hash of their names (a track's with
//! its section's and its rank among same-named tracks), not by position, so
//! they survive layouts that add sections or tracks (more hosts, counters),
//! and stay short in the URL hash: `tracks=<profile>~o…~t…~p…~h…~f<filter>`.

use proflens_analysis::tools::trace_viewer::TraceLayout;

/// The user's layout of the timeline; the default shows everything in the
/// layout's order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrackPrefs {
    /// Section keys in the user's order; sections not listed follow in the layout's order.
    pub section_order: Vec<u32>,
    /// Track keys in the user's order (within each section, as for sections).
    pub track_order: Vec<u32>,
    /// Pinned section and track keys: drawn in a band under the ruler.
    pub pinned: Vec<u32>,
    /// Hidden section and track keys.
    pub hidden: Vec<u32>,
    /// Only tracks whose name or section's name contains this (any case) stay.
    pub filter: String,
}

/// Where the prefs put the layout's tracks.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Arranged {
    /// Sections shown, in order (layout index), with their shown tracks (ids) in order.
    pub sections: Vec<(usize, Vec<u32>)>,
    /// Tracks drawn in the pinned band, in order.
    pub pinned: Vec<u32>,
    /// Sections and tracks hidden by the user (not by the filter).
    pub hidden: usize,
}

/// What is being dragged in the gutter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Grab {
    /// A section, by layout index.
    Section(usize),
    /// A scrolling track, by id.
    Track(u32),
}

/// The viewer's side of track control.
#[derive(Debug, Clone, Default)]
pub struct TrackControl {
    pub prefs: TrackPrefs,
    /// Every track's key by id ([`track_prefs::track_keys`]).
    pub keys: Vec<u32>,
    pub grab: Option<Grab>,
    /// Canvas height of the pointer while dragging a name.
    pub drop_y: Option<f64>,
    /// The track chosen in the finder, and until when it is highlighted.
    pub flash: Option<(u32, f64)>,
    /// The tracks the last window query asked for (for the test hook).
    pub asked: Vec<u32>,
}

impl TrackControl {
    pub fn new(layout: &TraceLayout, prefs: TrackPrefs) -> TrackControl {
        TrackControl { prefs, keys: track_keys(layout), ..TrackControl::default() }
    }

    pub fn arrange(&self, layout: &TraceLayout) -> Arranged {
        self.prefs.arrange(layout, &self.keys)
    }
}

/// FNV-1a, 32 bits.
fn fnv(parts: &[&str]) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            h ^= 0x1f;
            h = h.wrapping_mul(0x0100_0193);
        }
        for b in part.bytes() {
            h ^= u32::from(b);
            h = h.wrapping_mul(0x0100_0193);
        }
    }
    h
}

/// A section's key: a hash of its name.
pub fn section_key(name: &str) -> u32 {
    fnv(&["section", name])
}

/// Every track's key by id: a hash of its section's name, its name, and how
/// many tracks of that name come before it in the section.
pub fn track_keys(layout: &TraceLayout) -> Vec<u32> {
    let count: usize = layout.sections.iter().map(|s| s.tracks.len()).sum();
    let mut keys = vec![0; count];
    for section in &layout.sections {
        for (i, track) in section.tracks.iter().enumerate() {
            let rank = section.tracks[..i].iter().filter(|t| t.name == track.name).count();
            if let Some(k) = keys.get_mut(track.id as usize) {
                *k = fnv(&[&section.name, &track.name, &rank.to_string()]);
            }
        }
    }
    keys
}

/// A key for the profile the prefs belong to: its run, host and sections.
pub fn profile_key(run: &str, host: &str, layout: &TraceLayout) -> String {
    let mut parts = vec![run, host];
    parts.extend(layout.sections.iter().map(|s| s.name.as_str()));
    to_base36(fnv(&parts))
}

/// `items` ordered as `order` lists their keys; unlisted ones after, as they were.
fn ordered<T: Copy>(items: &[T], key: impl Fn(T) -> u32, order: &[u32]) -> Vec<T> {
    let mut out: Vec<T> = items.to_vec();
    out.sort_by_key(|&item| order.iter().position(|&k| k == key(item)).unwrap_or(usize::MAX));
    out
}

fn matches(name: &str, filter: &str) -> bool {
    filter.is_empty() || name.to_lowercase().contains(filter)
}

impl TrackPrefs {
    pub fn is_default(&self) -> bool {
        *self == TrackPrefs::default()
    }

    pub fn is_pinned(&self, key: u32) -> bool {
        self.pinned.contains(&key)
    }

    pub fn is_hidden(&self, key: u32) -> bool {
        self.hidden.contains(&key)
    }

    /// Pins or unpins a section or track.
    pub fn toggle_pinned(&mut self, key: u32) {
        toggle(&mut self.pinned, key);
    }

    /// Hides or shows a section or track.
    pub fn toggle_hidden(&mut self, key: u32) {
        toggle(&mut self.hidden, key);
    }

    /// Section indices of the layout in the user's order.
    pub fn section_order(&self, layout: &TraceLayout) -> Vec<usize> {
        let all: Vec<usize> = (0..layout.sections.len()).collect();
        ordered(&all, |s| section_key(&layout.sections[s].name), &self.section_order)
    }

    /// A section's track ids in the user's order.
    pub fn track_order(&self, layout: &TraceLayout, keys: &[u32], s: usize) -> Vec<u32> {
        let Some(section) = layout.sections.get(s) else { return Vec::new() };
        let ids: Vec<u32> = section.tracks.iter().map(|t| t.id).collect();
        ordered(&ids, |id| keys.get(id as usize).copied().unwrap_or(0), &self.track_order)
    }

    /// Moves section `s` (layout index) to position `to` of the user's order.
    pub fn move_section(&mut self, layout: &TraceLayout, s: usize, to: usize) {
        let mut order = self.section_order(layout);
        let Some(from) = order.iter().position(|&x| x == s) else { return };
        let item = order.remove(from);
        order.insert(to.min(order.len()), item);
        self.section_order = order.iter().map(|&x| section_key(&layout.sections[x].name)).collect();
        if self.section_order.iter().enumerate().all(|(i, &k)| k == section_key(&layout.sections[i].name)) {
            self.section_order.clear();
        }
    }

    /// Moves track `id` to position `to` among its section's tracks.
    pub fn move_track(&mut self, layout: &TraceLayout, keys: &[u32], id: u32, to: usize) {
        let Some(s) = layout.sections.iter().position(|sec| sec.tracks.iter().any(|t| t.id == id)) else { return };
        let mut order = self.track_order(layout, keys, s);
        let Some(from) = order.iter().position(|&t| t == id) else { return };
        let item = order.remove(from);
        order.insert(to.min(order.len()), item);
        let key = |t: u32| keys.get(t as usize).copied().unwrap_or(0);
        let mine: Vec<u32> = layout.sections[s].tracks.iter().map(|t| key(t.id)).collect();
        self.track_order.retain(|k| !mine.contains(k));
        let default = layout.sections[s].tracks.iter().map(|t| t.id).eq(order.iter().copied());
        if !default {
            self.track_order.extend(order.iter().map(|&t| key(t)));
        }
    }

    /// Moves a section (`track: None`) or a track one place up (`by < 0`) or down.
    pub fn move_by(&mut self, layout: &TraceLayout, keys: &[u32], s: usize, track: Option<u32>, by: isize) {
        match track {
            None => {
                let order = self.section_order(layout);
                if let Some(at) = order.iter().position(|&x| x == s) {
                    self.move_section(layout, s, at.saturating_add_signed(by));
                }
            }
            Some(id) => {
                let order = self.track_order(layout, keys, s);
                if let Some(at) = order.iter().position(|&t| t == id) {
                    self.move_track(layout, keys, id, at.saturating_add_signed(by));
                }
            }
        }
    }

    /// Where the prefs put the layout's tracks (`keys` from [`track_keys`]).
    pub fn arrange(&self, layout: &TraceLayout, keys: &[u32]) -> Arranged {
        let filter = self.filter.trim().to_lowercase();
        let mut out = Arranged::default();
        let key = |id: u32| keys.get(id as usize).copied().unwrap_or(0);
        for s in self.section_order(layout) {
            let section = &layout.sections[s];
            let skey = section_key(&section.name);
            if self.is_hidden(skey) {
                out.hidden += 1;
                continue;
            }
            let section_pinned = self.is_pinned(skey);
            let section_matches = matches(&section.name, &filter);
            let mut shown = Vec::new();
            for id in self.track_order(layout, keys, s) {
                if self.is_hidden(key(id)) {
                    out.hidden += 1;
                } else if section_pinned || self.is_pinned(key(id)) {
                    out.pinned.push(id);
                } else if section_matches || section.tracks.iter().any(|t| t.id == id && matches(&t.name, &filter)) {
                    shown.push(id);
                }
            }
            if !shown.is_empty() || (filter.is_empty() && !section_pinned) {
                out.sections.push((s, shown));
            }
        }
        out
    }

    /// The prefs as text for the URL hash and storage (unreserved characters
    /// but the filter's), empty for the default.
    pub fn encode(&self) -> String {
        let list = |tag: char, keys: &[u32]| {
            (!keys.is_empty())
                .then(|| format!("{tag}{}", keys.iter().map(|&k| to_base36(k)).collect::<Vec<_>>().join(".")))
        };
        let mut parts: Vec<String> = [
            list('o', &self.section_order),
            list('t', &self.track_order),
            list('p', &self.pinned),
            list('h', &self.hidden),
        ]
        .into_iter()
        .flatten()
        .collect();
        if !self.filter.is_empty() {
            // Last: the filter may hold any character.
            parts.push(format!("f{}", self.filter));
        }
        parts.join("~")
    }

    /// Undoes [`TrackPrefs::encode`]; parts that do not parse are dropped.
    pub fn decode(text: &str) -> TrackPrefs {
        let mut prefs = TrackPrefs::default();
        let (lists, filter) = match text.find("~f").map(|i| i + 1).or_else(|| text.starts_with('f').then_some(0)) {
            Some(i) => (&text[..i], Some(&text[i + 1..])),
            None => (text, None),
        };
        for part in lists.split('~') {
            let mut chars = part.chars();
            let Some(tag) = chars.next() else { continue };
            let keys: Vec<u32> = chars.as_str().split('.').filter_map(from_base36).collect();
            match tag {
                'o' => prefs.section_order = keys,
                't' => prefs.track_order = keys,
                'p' => prefs.pinned = keys,
                'h' => prefs.hidden = keys,
                _ => {}
            }
        }
        prefs.filter = filter.unwrap_or_default().to_string();
        prefs
    }

    /// `<profile>~<prefs>`, the URL hash's `tracks=` value (before percent-encoding).
    pub fn to_hash_value(&self, profile: &str) -> String {
        format!("{profile}~{}", self.encode())
    }

    /// The prefs of a `tracks=` value, if it is for `profile`.
    pub fn from_hash_value(value: &str, profile: &str) -> Option<TrackPrefs> {
        let (key, rest) = value.split_once('~').unwrap_or((value, ""));
        (key == profile).then(|| TrackPrefs::decode(rest))
    }
}

fn toggle(list: &mut Vec<u32>, key: u32) {
    if let Some(i) = list.iter().position(|&k| k == key) {
        list.remove(i);
    } else {
        list.push(key);
    }
}

fn to_base36(mut n: u32) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

fn from_base36(text: &str) -> Option<u32> {
    (!text.is_empty() && text.len() <= 7).then_some(())?;
    u32::from_str_radix(text, 36).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::views::trace_viewer::model::test_layout;

    /// Sections "GPU 0" (Stream 1, Stream 2, Stream 2) and "Host" (python, main).
    fn layout() -> TraceLayout {
        let one = |name| (name, 1);
        test_layout(&[
            ("GPU 0", &[one("Stream 1"), one("Stream 2"), one("Stream 2")]),
            ("Host", &[one("python"), one("main")]),
        ])
    }

    fn ids(a: &Arranged) -> Vec<(usize, Vec<u32>)> {
        a.sections.clone()
    }

    #[test]
    fn keys_tell_same_named_tracks_apart_and_survive_new_sections() {
        let l = layout();
        let keys = track_keys(&l);
        assert_ne!(keys[1], keys[2]);
        assert_eq!(keys.iter().collect::<std::collections::HashSet<_>>().len(), 5);
        // A section added in front (another host) shifts ids, not keys.
        let mut more = test_layout(&[("Other", &[("x", 1)])]);
        let shifted = l.sections.iter().cloned().map(|mut s| {
            s.tracks.iter_mut().for_each(|t| t.id += 1);
            s
        });
        more.sections.extend(shifted);
        let moved = track_keys(&more);
        assert_eq!(&moved[1..], &keys[..]);
        assert_ne!(profile_key("r", "h", &l), profile_key("r", "h", &more));
        assert_ne!(profile_key("r", "h", &l), profile_key("r", "h2", &l));
    }

    #[test]
    fn default_shows_everything_in_layout_order() {
        let l = layout();
        let a = TrackPrefs::default().arrange(&l, &track_keys(&l));
        assert_eq!(ids(&a), vec![(0, vec![0, 1, 2]), (1, vec![3, 4])]);
        assert!(a.pinned.is_empty());
        assert_eq!(a.hidden, 0);
    }

    #[test]
    fn pins_hides_and_filters() {
        let l = layout();
        let keys = track_keys(&l);
        let mut p = TrackPrefs::default();
        p.toggle_pinned(keys[4]);
        p.toggle_hidden(keys[0]);
        let a = p.arrange(&l, &keys);
        assert_eq!(a.pinned, vec![4]);
        assert_eq!(ids(&a), vec![(0, vec![1, 2]), (1, vec![3])]);
        assert_eq!(a.hidden, 1);
        // A hidden section takes its tracks, pinned ones too.
        p.toggle_hidden(section_key("Host"));
        let a = p.arrange(&l, &keys);
        assert_eq!((ids(&a), a.pinned.clone(), a.hidden), (vec![(0, vec![1, 2])], vec![], 2));
        p.toggle_hidden(section_key("Host"));
        p.toggle_hidden(keys[0]);
        // A pinned section: all its tracks in the band, no header left.
        p.toggle_pinned(keys[4]);
        p.toggle_pinned(section_key("GPU 0"));
        let a = p.arrange(&l, &keys);
        assert_eq!((ids(&a), a.pinned.clone()), (vec![(1, vec![3, 4])], vec![0, 1, 2]));
        p.toggle_pinned(section_key("GPU 0"));
        assert!(p.is_default());
        // The filter keeps matching tracks, and whole sections whose name matches; any case.
        p.filter = "STREAM 2".into();
        assert_eq!(ids(&p.arrange(&l, &keys)), vec![(0, vec![1, 2])]);
        p.filter = "host".into();
        assert_eq!(ids(&p.arrange(&l, &keys)), vec![(1, vec![3, 4])]);
        p.filter = "nothing".into();
        assert_eq!(ids(&p.arrange(&l, &keys)), vec![]);
        // Pinned tracks stay whatever the filter.
        p.toggle_pinned(keys[3]);
        assert_eq!(p.arrange(&l, &keys).pinned, vec![3]);
    }

    #[test]
    fn reorders_sections_and_tracks() {
        let l = layout();
        let keys = track_keys(&l);
        let mut p = TrackPrefs::default();
        p.move_section(&l, 1, 0);
        assert_eq!(ids(&p.arrange(&l, &keys)), vec![(1, vec![3, 4]), (0, vec![0, 1, 2])]);
        p.move_track(&l, &keys, 0, 2);
        assert_eq!(ids(&p.arrange(&l, &keys)), vec![(1, vec![3, 4]), (0, vec![1, 2, 0])]);
        p.move_by(&l, &keys, 0, Some(0), -1);
        assert_eq!(p.track_order(&l, &keys, 0), vec![1, 0, 2]);
        p.move_by(&l, &keys, 1, Some(4), -1);
        assert_eq!(p.track_order(&l, &keys, 1), vec![4, 3]);
        // Up from the top stays; back to the layout's order forgets the order.
        p.move_by(&l, &keys, 1, Some(4), -1);
        assert_eq!(p.track_order(&l, &keys, 1), vec![4, 3]);
        p.move_by(&l, &keys, 1, Some(4), 1);
        p.move_by(&l, &keys, 0, Some(0), -1);
        p.move_by(&l, &keys, 0, None, -1);
        assert!(p.is_default(), "{p:?}");
    }

    #[test]
    fn encodes_for_the_hash_and_back() {
        let l = layout();
        let keys = track_keys(&l);
        assert_eq!(TrackPrefs::default().encode(), "");
        let mut p = TrackPrefs::default();
        p.move_section(&l, 1, 0);
        p.move_track(&l, &keys, 0, 2);
        p.toggle_pinned(keys[4]);
        p.toggle_hidden(section_key("GPU 0"));
        p.filter = "a~f&b=c".into();
        let text = p.encode();
        assert_eq!(TrackPrefs::decode(&text), p);
        assert!(text.chars().take(text.len() - 7).all(|c| c.is_ascii_alphanumeric() || "~.".contains(c)), "{text}");
        let profile = profile_key("run", "host", &l);
        let value = p.to_hash_value(&profile);
        assert_eq!(TrackPrefs::from_hash_value(&value, &profile), Some(p.clone()));
        assert_eq!(TrackPrefs::from_hash_value(&value, "other"), None);
        let only_filter = TrackPrefs { filter: "x".into(), ..TrackPrefs::default() };
        assert_eq!(TrackPrefs::decode(&only_filter.encode()), only_filter);
        // Junk does not panic and drops what does not parse.
        assert_eq!(TrackPrefs::decode("p1.zzzzzzzzz~q3~"), TrackPrefs { pinned: vec![1], ..TrackPrefs::default() });
        assert_eq!(from_base36(&to_base36(u32::MAX)), Some(u32::MAX));
    }
}
