//! Stats stored as packed columns.
//!
//! A stat is a key (interned stat name) and a value. Integer stats written as
//! int64 or uint64 are unified: a value that fits in i64 is always stored as
//! [`StatValue::Int`], so readers need not care which field the writer used;
//! only uint64 values above i64::MAX stay [`StatValue::Uint`]. String values
//! (`str_value` and interned `ref_value` alike) become [`StatValue::Str`].

use crate::owner_offsets::OwnerOffsets;
use crate::stat_keys::KeyColumn;
use crate::StrId;

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum StatValue<'a> {
    Int(i64),
    Uint(u64),
    Double(f64),
    Str(&'a str),
    Bytes(&'a [u8]),
}

impl StatValue<'_> {
    /// The value as an integer, whichever integer field it was written in.
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            StatValue::Int(v) => Some(v),
            StatValue::Uint(v) => i64::try_from(v).ok(),
            _ => None,
        }
    }

    /// The integer's 64 bits, whichever integer field it was written in
    /// (ids above i64::MAX keep their bits, as the profiler's readers do).
    pub fn as_id(&self) -> Option<u64> {
        match *self {
            StatValue::Int(v) => Some(v as u64),
            StatValue::Uint(v) => Some(v),
            _ => None,
        }
    }

    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            StatValue::Int(v) => u64::try_from(v).ok(),
            StatValue::Uint(v) => Some(v),
            _ => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            StatValue::Int(v) => Some(v as f64),
            StatValue::Uint(v) => Some(v as f64),
            StatValue::Double(v) => Some(v),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            StatValue::Str(s) => Some(s),
            _ => None,
        }
    }
}

impl std::fmt::Display for StatValue<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StatValue::Int(v) => write!(f, "{v}"),
            StatValue::Uint(v) => write!(f, "{v}"),
            StatValue::Double(v) => write!(f, "{v}"),
            StatValue::Str(s) => f.write_str(s),
            StatValue::Bytes(b) => write!(f, "<{} bytes>", b.len()),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum StatKind {
    Int = 0,
    Uint = 1,
    Double = 2,
    Str = 3,
    Bytes = 4,
}

/// A stat as stored: key, kind and 64 value bits (an integer, f64 bits,
/// a [`StrId`] or an index into the bytes arena).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StatRef {
    pub key: StrId,
    pub kind: StatKind,
    pub bits: u64,
}

/// Stats of many owners (events of a line) in shared columns; owner `i` has
/// the stats in `offsets[i]..offsets[i + 1]`.
///
/// A stat takes 6 bytes: its key (a byte, [`KeyColumn`]), a tag byte (kind,
/// and whether the value is wide) and 32 value bits. Values that need more
/// (ids past 2^32, negative numbers, most doubles) hold an index into `wide`
/// (8 bytes more). Most values are small integers and string ids (94% of a
/// Kineto trace's, 75% of a TensorFlow host's). An owner's start takes about
/// 2 bytes ([`OwnerOffsets`]).
#[derive(Debug, Default, PartialEq)]
pub struct Stats {
    keys: KeyColumn,
    tags: Vec<u8>,
    values: Vec<u32>,
    wide: Vec<u64>,
    offsets: OwnerOffsets,
    bytes: Vec<Box<[u8]>>,
}

/// Set in a tag when the stat's value is an index into `Stats::wide`.
const WIDE: u8 = 0x80;

impl StatKind {
    fn from_tag(tag: u8) -> StatKind {
        match tag & !WIDE {
            0 => StatKind::Int,
            1 => StatKind::Uint,
            2 => StatKind::Double,
            3 => StatKind::Str,
            _ => StatKind::Bytes,
        }
    }
}

impl Stats {
    /// No stats (usable in a `static`).
    pub const fn new() -> Stats {
        Stats {
            keys: KeyColumn::new(),
            tags: Vec::new(),
            values: Vec::new(),
            wide: Vec::new(),
            offsets: OwnerOffsets::new(),
            bytes: Vec::new(),
        }
    }

    /// Starts the stats of the next owner; call once per owner, in order.
    #[inline]
    pub fn begin_owner(&mut self) {
        if self.offsets.is_empty() {
            self.offsets.push(0);
        }
    }

    /// Ends the stats of the current owner.
    #[inline]
    pub fn end_owner(&mut self) {
        self.begin_owner();
        self.offsets.push(u32::try_from(self.keys.len()).expect("fewer than 2^32 stats per line"));
    }

    #[inline]
    pub fn push_int(&mut self, key: StrId, v: i64) {
        self.push(key, StatKind::Int, v as u64);
    }

    /// Stores an unsigned value, unified with signed ones when it fits.
    #[inline]
    pub fn push_uint(&mut self, key: StrId, v: u64) {
        match i64::try_from(v) {
            Ok(signed) => self.push_int(key, signed),
            Err(_) => self.push(key, StatKind::Uint, v),
        }
    }

    #[inline]
    pub fn push_double(&mut self, key: StrId, v: f64) {
        self.push(key, StatKind::Double, v.to_bits());
    }

    #[inline]
    pub fn push_str(&mut self, key: StrId, v: StrId) {
        self.push(key, StatKind::Str, u64::from(v.0));
    }

    pub fn push_bytes(&mut self, key: StrId, v: Vec<u8>) {
        let idx = self.bytes.len() as u64;
        self.bytes.push(v.into_boxed_slice());
        self.push(key, StatKind::Bytes, idx);
    }

    #[inline]
    fn push(&mut self, key: StrId, kind: StatKind, bits: u64) {
        self.begin_owner();
        self.keys.push(key);
        match u32::try_from(bits) {
            Ok(narrow) => {
                self.tags.push(kind as u8);
                self.values.push(narrow);
            }
            Err(_) => {
                self.tags.push(kind as u8 | WIDE);
                self.values.push(u32::try_from(self.wide.len()).expect("fewer than 2^32 stats per line"));
                self.wide.push(bits);
            }
        }
    }

    /// Number of owners recorded.
    pub fn owners(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Raw stats of owner `i`.
    pub fn of(&self, i: usize) -> impl Iterator<Item = StatRef> + '_ {
        self.range_of(i).map(|j| self.stat_at(j))
    }

    /// Positions of owner `i`'s stats, for [`Stats::key_at`] and [`Stats::stat_at`]
    /// (hot loops read a stat's key alone before deciding to read the rest).
    pub fn range_of(&self, i: usize) -> std::ops::Range<usize> {
        match (self.offsets.get(i), self.offsets.get(i + 1)) {
            (Some(lo), Some(hi)) => lo as usize..hi as usize,
            _ => 0..0,
        }
    }

    /// The key of the stat at position `j` (from [`Stats::range_of`]).
    pub fn key_at(&self, j: usize) -> StrId {
        self.keys.get(j)
    }

    /// The stat at position `j` (from [`Stats::range_of`]).
    pub fn stat_at(&self, j: usize) -> StatRef {
        let tag = self.tags[j];
        let value = self.values[j];
        let bits = if tag & WIDE != 0 { self.wide[value as usize] } else { u64::from(value) };
        StatRef { key: self.keys.get(j), kind: StatKind::from_tag(tag), bits }
    }

    /// Resolves a stored stat to its value.
    pub fn value<'a>(&'a self, stat: StatRef, strings: &'a crate::Interner) -> StatValue<'a> {
        match stat.kind {
            StatKind::Int => StatValue::Int(stat.bits as i64),
            StatKind::Uint => StatValue::Uint(stat.bits),
            StatKind::Double => StatValue::Double(f64::from_bits(stat.bits)),
            StatKind::Str => StatValue::Str(strings.get(StrId(stat.bits as u32))),
            StatKind::Bytes => StatValue::Bytes(self.bytes.get(stat.bits as usize).map_or(&[], |b| b)),
        }
    }

    /// Reorders owners: owner `i` becomes owner `order[i]` of before.
    /// One column is rebuilt at a time, so the reorder holds at most one
    /// column's copy beside the stats (wide values and byte strings stay
    /// where they are: stats refer to them by index).
    pub fn permute(&mut self, order: &[u32]) {
        fn gather<T: Copy>(column: &[T], stats: &Stats, order: &[u32]) -> Vec<T> {
            let mut out = Vec::with_capacity(column.len());
            for &src in order {
                out.extend_from_slice(&column[stats.range_of(src as usize)]);
            }
            out
        }
        if self.offsets.is_empty() {
            return;
        }
        let keys = match &self.keys {
            KeyColumn::Indexed { names, index } => {
                KeyColumn::Indexed { names: names.clone(), index: gather(index, self, order) }
            }
            KeyColumn::Plain(all) => KeyColumn::Plain(gather(all, self, order)),
        };
        self.keys = keys;
        let tags = gather(&self.tags, self, order);
        self.tags = tags;
        let values = gather(&self.values, self, order);
        self.values = values;
        let mut offsets = OwnerOffsets::with_capacity(order.len() + 1);
        let mut at = 0;
        offsets.push(at);
        for &src in order {
            at += self.range_of(src as usize).len() as u32;
            offsets.push(at);
        }
        self.offsets = offsets;
    }

    /// Each string id `s` (keys and string values) becomes `map[s]`: stats
    /// built with a part's interner, moved to the interner that adopted it
    /// ([`crate::Interner::adopt`]). String ids are always narrow values.
    pub fn remap_strings(&mut self, map: &[StrId]) {
        self.keys.remap(map);
        for (tag, value) in self.tags.iter().zip(&mut self.values) {
            if *tag == StatKind::Str as u8 {
                *value = map[*value as usize].0;
            }
        }
    }

    /// Makes room, at once, for `owners` more owners with as many stats each
    /// as the `so_far` owners stored hold (a sixteenth more), and room for at
    /// most `most` stats and owners: columns that grow by doubling leave
    /// freed pieces of every size behind them.
    pub fn reserve_like(&mut self, so_far: usize, owners: usize, most: usize) {
        let per_owner = |n: usize| {
            let like = n as u128 * owners as u128 * 17 / (16 * so_far.max(1) as u128);
            like.min(most as u128) as usize
        };
        let (stats, wide) = (per_owner(self.keys.len()), per_owner(self.wide.len()));
        self.keys.reserve(stats);
        self.tags.reserve_exact(stats);
        self.values.reserve_exact(stats);
        self.wide.reserve_exact(wide);
        self.offsets.reserve(owners.min(most));
    }

    /// Releases the room that growing the columns left unused.
    pub fn shrink_to_fit(&mut self) {
        self.keys.shrink_to_fit();
        self.tags.shrink_to_fit();
        self.values.shrink_to_fit();
        self.wide.shrink_to_fit();
        self.offsets.shrink_to_fit();
    }

    /// Total number of stats stored.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}

/// The stats of a single owner (a plane or an event metadata).
#[derive(Debug, Default, PartialEq)]
pub struct StatList(pub Stats);

impl StatList {
    pub fn iter(&self) -> impl Iterator<Item = StatRef> + '_ {
        self.0.of(0)
    }

    pub fn get<'a>(&'a self, key: StrId, strings: &'a crate::Interner) -> Option<StatValue<'a>> {
        self.iter().find(|s| s.key == key).map(|s| self.0.value(s, strings))
    }

    pub fn value<'a>(&'a self, stat: StatRef, strings: &'a crate::Interner) -> StatValue<'a> {
        self.0.value(stat, strings)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Interner;

    #[test]
    fn int_and_uint_are_unified() {
        let mut strings = Interner::new();
        let key = strings.intern("correlation_id");
        let mut stats = Stats::default();
        stats.push_uint(key, 42);
        stats.push_int(key, 42);
        stats.push_uint(key, u64::MAX);
        stats.end_owner();
        let values: Vec<_> = stats.of(0).map(|s| stats.value(s, &strings)).collect();
        assert_eq!(values[0], StatValue::Int(42));
        assert_eq!(values[0], values[1]);
        assert_eq!(values[2], StatValue::Uint(u64::MAX));
        assert_eq!(values[2].as_i64(), None);
        assert_eq!(values[2].as_u64(), Some(u64::MAX));
    }

    #[test]
    fn values_past_32_bits_round_trip_and_survive_a_reorder() {
        let mut strings = Interner::new();
        let k = strings.intern("k");
        let s = strings.intern("text");
        let ints = [0, 1, i64::from(u32::MAX), i64::from(u32::MAX) + 1, -1, i64::MIN, i64::MAX];
        let mut stats = Stats::default();
        for &v in &ints {
            stats.push_int(k, v);
            stats.end_owner();
        }
        stats.push_double(k, -2.5e300);
        stats.push_double(k, 0.0);
        stats.push_uint(k, u64::MAX);
        stats.push_str(k, s);
        stats.end_owner();
        let all = |st: &Stats| -> Vec<Vec<String>> {
            (0..st.owners()).map(|i| st.of(i).map(|x| format!("{:?}", st.value(x, &strings))).collect()).collect()
        };
        let before = all(&stats);
        assert_eq!(before[3], vec!["Int(4294967296)"]);
        assert_eq!(before[5], vec!["Int(-9223372036854775808)"]);
        assert_eq!(before[7], vec!["Double(-2.5e300)", "Double(0.0)", "Uint(18446744073709551615)", "Str(\"text\")"]);
        let order: Vec<u32> = (0..stats.owners() as u32).rev().collect();
        stats.permute(&order);
        let mut after = all(&stats);
        after.reverse();
        assert_eq!(after, before);
    }

    #[test]
    fn owners_keep_their_stats_and_permute() {
        let mut strings = Interner::new();
        let k = strings.intern("k");
        let mut stats = Stats::default();
        stats.push_int(k, 1);
        stats.end_owner();
        stats.end_owner(); // owner 1 has none
        stats.push_bytes(k, vec![7, 8]);
        stats.push_double(k, 0.5);
        stats.end_owner();
        assert_eq!(stats.owners(), 3);
        assert_eq!(stats.of(1).count(), 0);
        let mut p = stats;
        p.permute(&[2, 0, 1]);
        let first: Vec<_> = p.of(0).map(|s| p.value(s, &strings)).collect();
        assert_eq!(first, vec![StatValue::Bytes(&[7, 8]), StatValue::Double(0.5)]);
        assert_eq!(p.of(1).map(|s| p.value(s, &strings)).collect::<Vec<_>>(), vec![StatValue::Int(1)]);
        assert_eq!(p.of(2).count(), 0);
    }

    #[test]
    fn room_reserved_like_the_owners_so_far_takes_as_many_more() {
        let mut strings = Interner::new();
        let (k, w) = (strings.intern("k"), strings.intern("w"));
        let push_owner = |stats: &mut Stats, i: i64| {
            stats.push_int(k, i);
            stats.push_int(w, -1 - i); // negative: wide
            stats.end_owner();
        };
        let mut stats = Stats::default();
        (0..16).for_each(|i| push_owner(&mut stats, i));
        let room = |s: &Stats| (s.tags.capacity(), s.values.capacity(), s.wide.capacity());
        // Never more than `most`, however many owners are said to come.
        let mut capped = Stats::default();
        push_owner(&mut capped, 0);
        capped.reserve_like(1, usize::MAX, 1000);
        assert!(room(&capped).0 < 1100, "{:?}", room(&capped));

        stats.reserve_like(16, 1600, usize::MAX);
        let reserved = room(&stats);
        assert!(reserved.0 >= 32 + 3200 && reserved.2 >= 16 + 1600, "{reserved:?}");
        (16..1616).for_each(|i| push_owner(&mut stats, i));
        assert_eq!(room(&stats), reserved, "no column grew");
        assert_eq!(stats.owners(), 1616);
        let last: Vec<_> = stats.of(1615).map(|s| stats.value(s, &strings)).collect();
        assert_eq!(last, vec![StatValue::Int(1615), StatValue::Int(-1616)]);
    }
}
