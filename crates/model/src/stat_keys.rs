//! Each stat's key in a byte.
//!
//! The events of a line use a handful of stat names, so a column of stats
//! keeps the names it has seen once and each stat's key as its index among
//! them: 1 byte a stat instead of a 4-byte [`StrId`].

use crate::StrId;

/// Past this many names a column keeps every key whole.
const MAX_NAMES: usize = 256;

#[derive(Debug, PartialEq)]
pub(crate) enum KeyColumn {
    Indexed {
        /// The names seen, in order of first sight.
        names: Vec<StrId>,
        index: Vec<u8>,
    },
    /// A column of more than [`MAX_NAMES`] names (never seen in a real profile).
    Plain(Vec<StrId>),
}

impl Default for KeyColumn {
    fn default() -> KeyColumn {
        KeyColumn::new()
    }
}

impl KeyColumn {
    pub(crate) const fn new() -> KeyColumn {
        KeyColumn::Indexed { names: Vec::new(), index: Vec::new() }
    }

    #[inline]
    pub(crate) fn len(&self) -> usize {
        match self {
            KeyColumn::Indexed { index, .. } => index.len(),
            KeyColumn::Plain(all) => all.len(),
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    #[inline]
    pub(crate) fn get(&self, j: usize) -> StrId {
        match self {
            KeyColumn::Indexed { names, index } => names[index[j] as usize],
            KeyColumn::Plain(all) => all[j],
        }
    }

    #[inline]
    pub(crate) fn push(&mut self, key: StrId) {
        match self {
            KeyColumn::Indexed { names, index } => {
                // Events repeat their stats in one order: the name after the
                // last one is the likeliest.
                let next = index.last().map_or(0, |&last| last as usize + 1);
                let found =
                    if names.get(next) == Some(&key) { Some(next) } else { names.iter().position(|&name| name == key) };
                match found {
                    Some(at) => index.push(at as u8),
                    None if names.len() < MAX_NAMES => {
                        index.push(names.len() as u8);
                        names.push(key);
                    }
                    None => {
                        let all = index.iter().map(|&at| names[at as usize]).chain([key]).collect();
                        *self = KeyColumn::Plain(all);
                    }
                }
            }
            KeyColumn::Plain(all) => all.push(key),
        }
    }

    /// Each key `k` becomes `map[k]` (a one-to-one map: the names stay distinct).
    pub(crate) fn remap(&mut self, map: &[StrId]) {
        let names = match self {
            KeyColumn::Indexed { names, .. } => names,
            KeyColumn::Plain(all) => all,
        };
        names.iter_mut().for_each(|k| *k = map[k.0 as usize]);
    }

    pub(crate) fn reserve(&mut self, additional: usize) {
        match self {
            KeyColumn::Indexed { index, .. } => index.reserve_exact(additional),
            KeyColumn::Plain(all) => all.reserve_exact(additional),
        }
    }

    pub(crate) fn shrink_to_fit(&mut self) {
        match self {
            KeyColumn::Indexed { names, index } => {
                names.shrink_to_fit();
                index.shrink_to_fit();
            }
            KeyColumn::Plain(all) => all.shrink_to_fit(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_read_back_whether_indexed_or_whole() {
        let keys: Vec<StrId> = [3, 4, 5, 3, 4, 5, 9, 3].into_iter().map(StrId).collect();
        let mut column = KeyColumn::new();
        keys.iter().for_each(|&k| column.push(k));
        assert!(matches!(&column, KeyColumn::Indexed { names, .. } if names.len() == 4));
        assert_eq!((0..column.len()).map(|j| column.get(j)).collect::<Vec<_>>(), keys);

        let many: Vec<StrId> = (0..300).chain(0..10).map(StrId).collect();
        let mut column = KeyColumn::new();
        many.iter().for_each(|&k| column.push(k));
        assert!(matches!(column, KeyColumn::Plain(_)));
        assert_eq!((0..column.len()).map(|j| column.get(j)).collect::<Vec<_>>(), many);
    }
}
