//! String interning: each distinct string of a profile is stored once.

use rustc_hash::FxHashMap;
use std::sync::Arc;

/// Longest string kept whole. Real names, stat values and diagnostics are
/// far shorter (under 1 KB in every fixture); a crafted file can hold a
/// gigabyte name, which would otherwise be copied into every view of it.
pub const MAX_STRING_BYTES: usize = 1 << 20;

/// Id of an interned string; only meaningful with the interner that made it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct StrId(pub u32);

#[derive(Debug, Default)]
pub struct Interner {
    // One allocation per string, shared by the list and the map.
    strings: Vec<Arc<str>>,
    ids: FxHashMap<Arc<str>, StrId>,
    cut: u64,
}

impl Interner {
    pub fn new() -> Self {
        let mut interner = Self::default();
        // Id 0 is the empty string, so `StrId::default()` is always valid.
        interner.intern("");
        interner
    }

    /// The id of `s`, cut to [`MAX_STRING_BYTES`] (ending in "…") if longer.
    pub fn intern(&mut self, s: &str) -> StrId {
        let s = if s.len() > MAX_STRING_BYTES {
            self.cut += 1;
            std::borrow::Cow::Owned(format!("{}…", char_prefix(s, MAX_STRING_BYTES - '…'.len_utf8())))
        } else {
            std::borrow::Cow::Borrowed(s)
        };
        if let Some(&id) = self.ids.get(&*s) {
            return id;
        }
        // Inputs are capped at 2 GiB, so fewer than 2^32 distinct strings.
        let id = StrId(self.strings.len() as u32);
        let shared: Arc<str> = s.into();
        self.strings.push(shared.clone());
        self.ids.insert(shared, id);
        id
    }

    /// Interns `part`'s strings in `part`'s order, as if the calls that
    /// made `part` had been made here, and counts `cuts` of its cut strings
    /// as made here; returns each of `part`'s ids' id here. One profile
    /// decoded in parts ends with the strings and ids of one decoder when
    /// the parts are adopted in order (`proflens_format::xspace`'s split).
    pub fn adopt(&mut self, part: &Interner, cuts: u64) -> Vec<StrId> {
        self.cut += cuts;
        part.strings.iter().map(|s| self.intern(s)).collect()
    }

    /// How many strings [`Interner::intern`] cut to [`MAX_STRING_BYTES`].
    pub fn cut_strings(&self) -> u64 {
        self.cut
    }

    /// The string for `id`; the empty string for an id this interner never made.
    #[inline]
    pub fn get(&self, id: StrId) -> &str {
        self.strings.get(id.0 as usize).map_or("", |s| s)
    }

    pub fn lookup(&self, s: &str) -> Option<StrId> {
        self.ids.get(s).copied()
    }

    pub fn len(&self) -> usize {
        self.strings.len()
    }

    pub fn is_empty(&self) -> bool {
        self.strings.is_empty()
    }
}

/// Two interners are equal when they hold the same strings under the same
/// ids and cut as many (the map only finds them).
impl PartialEq for Interner {
    fn eq(&self, other: &Interner) -> bool {
        self.strings == other.strings && self.cut == other.cut
    }
}

/// The longest prefix of `s` at most `max` bytes long that ends on a
/// character boundary.
pub fn char_prefix(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interns_once() {
        let mut i = Interner::new();
        let a = i.intern("tf_op");
        let b = i.intern("tf_op");
        let c = i.intern("hlo_op");
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(i.get(c), "hlo_op");
        assert_eq!(i.get(StrId::default()), "");
        assert_eq!(i.lookup("missing"), None);
    }

    #[test]
    fn adopting_parts_in_order_gives_one_interners_ids() {
        let calls = ["a", "b", "a", "c", "d", "b", "e"];
        let mut one = Interner::new();
        let ids: Vec<StrId> = calls.iter().map(|s| one.intern(s)).collect();
        // Two parts: the first three calls, then the rest, each from a fresh interner.
        let (mut first, mut second) = (Interner::new(), Interner::new());
        let local: Vec<StrId> =
            calls[..3].iter().map(|s| first.intern(s)).chain(calls[3..].iter().map(|s| second.intern(s))).collect();
        let mut merged = Interner::new();
        let map1 = merged.adopt(&first, 0);
        let map2 = merged.adopt(&second, 0);
        assert_eq!(merged, one);
        let remapped: Vec<StrId> = local
            .iter()
            .enumerate()
            .map(|(i, id)| if i < 3 { map1[id.0 as usize] } else { map2[id.0 as usize] })
            .collect();
        assert_eq!(remapped, ids);
        // Adopted in the other order, "c" would come before "a": not one interner's ids.
        let mut swapped = Interner::new();
        swapped.adopt(&second, 0);
        swapped.adopt(&first, 0);
        assert_ne!(swapped, one);
    }

    #[test]
    fn giant_strings_are_cut_on_a_character_boundary() {
        let mut i = Interner::new();
        let giant = "é".repeat(MAX_STRING_BYTES);
        let id = i.intern(&giant);
        let kept = i.get(id);
        assert!(kept.len() <= MAX_STRING_BYTES && kept.ends_with('…'), "{}", kept.len());
        assert_eq!(i.cut_strings(), 1);
        assert_eq!(i.intern(&giant), id);
        assert_eq!(char_prefix("aé", 2), "a");
    }
}
