//! A column of picosecond times in about 4 bytes each.
//!
//! Starts and durations are most of what a profile holds: 16 bytes an event
//! as two `i64`s, three quarters of an XSpace file's size. Yet 64 neighbouring
//! starts of a line lie within a few milliseconds of each other (2^32 ps is
//! 4.3 ms), and most durations are shorter than that. So the column is cut
//! into blocks of [`BLOCK`] values: a block whose values lie within 2^32 ps of
//! their smallest keeps that base and each value as a `u32` offset from it; a
//! block that does not (a sparse line, a long step) is marked by the base
//! [`WIDE`] and each of its `u32`s is the index of the value kept whole. A
//! value is two loads and a branch away: hot loops read millions of them.

/// Values per block.
const BLOCK: usize = 64;

/// The base of a block whose values are kept whole (a narrow block never
/// has it: a value of `i64::MIN` makes its block wide).
const WIDE: i64 = i64::MIN;

/// Times (ps) in the order they were pushed.
#[derive(Debug, Default, Clone)]
pub struct Times {
    /// Per block: the base of its offsets, or [`WIDE`].
    bases: Vec<i64>,
    /// Per value: its offset from its block's base, or its index in `wide`.
    offsets: Vec<u32>,
    wide: Vec<i64>,
}

impl Times {
    /// No times (usable in a `static`).
    pub const fn new() -> Times {
        Times { bases: Vec::new(), offsets: Vec::new(), wide: Vec::new() }
    }

    /// Room for `n` times (as narrow ones).
    pub fn with_capacity(n: usize) -> Times {
        Times { bases: Vec::with_capacity(n.div_ceil(BLOCK)), offsets: Vec::with_capacity(n), wide: Vec::new() }
    }

    /// Room for `additional` more times (as narrow ones), at once.
    pub fn reserve(&mut self, additional: usize) {
        let blocks = (self.len() + additional).div_ceil(BLOCK).saturating_sub(self.bases.len());
        self.bases.reserve_exact(blocks);
        self.offsets.reserve_exact(additional);
    }

    pub fn len(&self) -> usize {
        self.offsets.len()
    }

    pub fn is_empty(&self) -> bool {
        self.offsets.is_empty()
    }

    /// Time `i`; panics past the end, as indexing does.
    #[inline]
    pub fn at(&self, i: usize) -> i64 {
        let offset = self.offsets[i];
        match self.bases[i / BLOCK] {
            WIDE => self.wide[offset as usize],
            base => base + i64::from(offset),
        }
    }

    /// Time `i`, if there is one.
    pub fn get(&self, i: usize) -> Option<i64> {
        (i < self.len()).then(|| self.at(i))
    }

    pub fn first(&self) -> Option<i64> {
        self.get(0)
    }

    pub fn iter(&self) -> Iter<'_> {
        Iter { times: self, front: 0, back: self.len() }
    }

    /// The times as a list of `i64`.
    pub fn to_vec(&self) -> Vec<i64> {
        self.iter().collect()
    }

    /// The index of the first time for which `pred` is false, the times
    /// being partitioned by it (as [`slice::partition_point`]).
    pub fn partition_point(&self, mut pred: impl FnMut(i64) -> bool) -> usize {
        let (mut low, mut high) = (0, self.len());
        while low < high {
            let mid = low + (high - low) / 2;
            if pred(self.at(mid)) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        low
    }

    #[inline]
    pub fn push(&mut self, value: i64) {
        let len = self.offsets.len();
        // Most values go on the last block as an offset from its base.
        if !len.is_multiple_of(BLOCK) {
            let base = self.bases[len / BLOCK];
            if base != WIDE {
                if let Some(offset) = value.checked_sub(base).and_then(|d| u32::try_from(d).ok()) {
                    self.offsets.push(offset);
                    return;
                }
            }
        }
        self.push_slow(value);
    }

    /// [`Times::push`] of a value that starts a block, goes on a wide one, or
    /// does not fit the last block as it is.
    fn push_slow(&mut self, value: i64) {
        let len = self.offsets.len();
        if len.is_multiple_of(BLOCK) {
            self.bases.push(value);
            if value == WIDE {
                self.push_wide(value);
            } else {
                self.offsets.push(0);
            }
            return;
        }
        let b = len / BLOCK;
        let base = self.bases[b];
        if base == WIDE {
            self.push_wide(value);
            return;
        }
        // Below the base: the block stays narrow if its values, based at this
        // one, all fit.
        let held = &mut self.offsets[b * BLOCK..];
        let shift = base.checked_sub(value).and_then(|s| u32::try_from(s).ok()).filter(|_| value != WIDE);
        let largest = held.iter().max().copied().unwrap_or(0);
        if let Some(shift) = shift.filter(|&s| largest.checked_add(s).is_some()) {
            held.iter_mut().for_each(|o| *o += shift);
            self.bases[b] = value;
            self.offsets.push(0);
            return;
        }
        self.widen(b);
        self.push_wide(value);
    }

    fn push_wide(&mut self, value: i64) {
        self.offsets.push(self.wide.len() as u32);
        self.wide.push(value);
    }

    /// Keeps block `b`'s values whole from now on.
    fn widen(&mut self, b: usize) {
        let base = self.bases[b];
        let end = self.len().min((b + 1) * BLOCK);
        for offset in &mut self.offsets[b * BLOCK..end] {
            self.wide.push(base + i64::from(*offset));
            *offset = (self.wide.len() - 1) as u32;
        }
        self.bases[b] = WIDE;
    }

    /// Sets time `i` (derived tracks stretch events already pushed).
    pub fn set(&mut self, i: usize, value: i64) {
        let b = i / BLOCK;
        let base = self.bases[b];
        if base != WIDE && value != WIDE {
            if let Some(offset) = value.checked_sub(base).and_then(|d| u32::try_from(d).ok()) {
                self.offsets[i] = offset;
                return;
            }
        }
        if self.bases[b] != WIDE {
            self.widen(b);
        }
        self.wide[self.offsets[i] as usize] = value;
    }

    /// Releases the room that growing the column left unused.
    pub fn shrink_to_fit(&mut self) {
        self.bases.shrink_to_fit();
        self.offsets.shrink_to_fit();
        self.wide.shrink_to_fit();
    }
}

impl FromIterator<i64> for Times {
    fn from_iter<I: IntoIterator<Item = i64>>(iter: I) -> Times {
        let iter = iter.into_iter();
        let mut times = Times::with_capacity(iter.size_hint().0);
        iter.for_each(|t| times.push(t));
        times
    }
}

impl From<Vec<i64>> for Times {
    fn from(values: Vec<i64>) -> Times {
        values.into_iter().collect()
    }
}

impl<const N: usize> From<[i64; N]> for Times {
    fn from(values: [i64; N]) -> Times {
        values.into_iter().collect()
    }
}

/// Equal when they hold the same times, however packed (a block widened by
/// [`Times::set`] stays wide).
impl PartialEq for Times {
    fn eq(&self, other: &Times) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for Times {}

impl PartialEq<Vec<i64>> for Times {
    fn eq(&self, values: &Vec<i64>) -> bool {
        self.len() == values.len() && self.iter().eq(values.iter().copied())
    }
}

impl<'a> IntoIterator for &'a Times {
    type Item = i64;
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

/// The times in order.
#[derive(Clone)]
pub struct Iter<'a> {
    times: &'a Times,
    front: usize,
    back: usize,
}

impl Iterator for Iter<'_> {
    type Item = i64;

    #[inline]
    fn next(&mut self) -> Option<i64> {
        (self.front < self.back).then(|| {
            self.front += 1;
            self.times.at(self.front - 1)
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.back - self.front, Some(self.back - self.front))
    }

    fn nth(&mut self, n: usize) -> Option<i64> {
        self.front = self.front.saturating_add(n).min(self.back);
        self.next()
    }
}

impl DoubleEndedIterator for Iter<'_> {
    fn next_back(&mut self) -> Option<i64> {
        (self.front < self.back).then(|| {
            self.back -= 1;
            self.times.at(self.back)
        })
    }
}

impl ExactSizeIterator for Iter<'_> {}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(values: &[i64]) -> Times {
        let times: Times = values.iter().copied().collect();
        assert_eq!(times.len(), values.len());
        assert_eq!(times.to_vec(), values);
        assert_eq!(times.iter().rev().collect::<Vec<_>>(), values.iter().rev().copied().collect::<Vec<_>>());
        for (i, &v) in values.iter().enumerate() {
            assert_eq!(times.at(i), v, "time {i}");
        }
        times
    }

    #[test]
    fn close_times_take_four_bytes_each() {
        let values: Vec<i64> = (0..1000).map(|i| 5_000_000_000_000 + i * 1_000_000).collect();
        let times = round_trip(&values);
        assert!(times.wide.is_empty());
        assert_eq!(times.offsets.len(), 1000);
    }

    #[test]
    fn far_apart_times_are_kept_whole_per_block() {
        // Block 0 spans 2^40 ps; block 1 is close times.
        let mut values: Vec<i64> = (0..64).map(|i| i << 34).collect();
        values.extend((0..64).map(|i| (1 << 41) + i));
        let times = round_trip(&values);
        assert_eq!(times.wide.len(), 64);
        assert_eq!(times.bases[0], WIDE);
    }

    #[test]
    fn a_smaller_value_rebases_its_block_when_it_can() {
        // Durations are not sorted: a short one after long ones.
        let times = round_trip(&[4_000_000_000, 3_000_000_000, 10, i64::MAX, -5, 0]);
        // The fourth made the block wide; its values stay exact.
        assert_eq!(times.wide.len(), 6);
        let narrow = round_trip(&[4_000_000_000, 3_000_000_000, 10, 7]);
        assert!(narrow.wide.is_empty());
        round_trip(&[i64::MAX, i64::MIN, 0, i64::MAX]);
        // i64::MIN, the mark of a wide block, is a value like any other.
        round_trip(&[i64::MIN, 0, 5]);
        round_trip(&[3, i64::MIN + 1, i64::MIN]);
        round_trip(&[]);
    }

    #[test]
    fn set_widens_a_block_where_it_must_and_pushes_go_on() {
        let mut values: Vec<i64> = (0..200).map(|i| i * 10).collect();
        let mut times: Times = values.iter().copied().collect();
        // The last block goes wide, then a middle block: the last keeps growing.
        for (i, v) in [(190, 1 << 40), (5, 7), (70, 1 << 41), (71, 3), (192, 1)] {
            times.set(i, v);
            values[i] = v;
            assert_eq!(times.to_vec(), values);
        }
        for v in [5, 1 << 42, 6] {
            times.push(v);
            values.push(v);
        }
        assert_eq!(times.to_vec(), values);
        times.set(0, -1);
        values[0] = -1;
        assert_eq!(times.to_vec(), values);
        // Packed differently, the same times.
        assert_eq!(times, Times::from(values));
    }

    #[test]
    fn partition_point_is_a_binary_search() {
        let values: Vec<i64> = (0..300).map(|i| i * 7).collect();
        let times = round_trip(&values);
        for x in [-1, 0, 6, 7, 700, 2093, 5000] {
            assert_eq!(times.partition_point(|t| t < x), values.partition_point(|&t| t < x), "{x}");
        }
    }
}
