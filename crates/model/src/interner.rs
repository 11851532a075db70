//! String interning: each distinct string of a profile is stored once.

use rustc_hash::FxHashMap;

/// Id of an interned string; only meaningful with the interner that made it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct StrId(pub u32);

#[derive(Debug, Default)]
pub struct Interner {
    strings: Vec<Box<str>>,
    ids: FxHashMap<Box<str>, StrId>,
}

impl Interner {
    pub fn new() -> Self {
        let mut interner = Self::default();
        // Id 0 is the empty string, so `StrId::default()` is always valid.
        interner.intern("");
        interner
    }

    pub fn intern(&mut self, s: &str) -> StrId {
        if let Some(&id) = self.ids.get(s) {
            return id;
        }
        let id = StrId(u32::try_from(self.strings.len()).expect("fewer than 2^32 strings"));
        self.strings.push(s.into());
        self.ids.insert(s.into(), id);
        id
    }

    /// The string for `id`; the empty string for an id this interner never made.
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
}
