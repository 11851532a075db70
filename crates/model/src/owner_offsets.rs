//! Where each owner's stats start, in about 2 bytes an owner.
//!
//! The positions only grow, and 64 neighbouring events hold far fewer than
//! 2^16 stats between them, so a block of [`BLOCK`] positions keeps its first
//! as a `u32` and each as a `u16` distance from it: 2.06 bytes a position
//! instead of 4 (an event has one, and a TensorFlow host about one stat an
//! event: the positions were a third of what its stats took).

/// Positions per block.
const BLOCK: usize = 64;

/// Non-decreasing stat positions.
#[derive(Debug, PartialEq)]
pub(crate) enum OwnerOffsets {
    Packed {
        bases: Vec<u32>,
        deltas: Vec<u16>,
    },
    /// Once a block spans 2^16 stats or more, or a position goes back (never
    /// in a real profile): every position whole.
    Plain(Vec<u32>),
}

impl Default for OwnerOffsets {
    fn default() -> OwnerOffsets {
        OwnerOffsets::new()
    }
}

impl OwnerOffsets {
    pub(crate) const fn new() -> OwnerOffsets {
        OwnerOffsets::Packed { bases: Vec::new(), deltas: Vec::new() }
    }

    pub(crate) fn with_capacity(n: usize) -> OwnerOffsets {
        OwnerOffsets::Packed { bases: Vec::with_capacity(n.div_ceil(BLOCK)), deltas: Vec::with_capacity(n) }
    }

    #[inline]
    pub(crate) fn len(&self) -> usize {
        match self {
            OwnerOffsets::Packed { deltas, .. } => deltas.len(),
            OwnerOffsets::Plain(all) => all.len(),
        }
    }

    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    #[inline]
    pub(crate) fn get(&self, i: usize) -> Option<u32> {
        match self {
            OwnerOffsets::Packed { bases, deltas } => {
                let delta = *deltas.get(i)?;
                Some(bases[i / BLOCK] + u32::from(delta))
            }
            OwnerOffsets::Plain(all) => all.get(i).copied(),
        }
    }

    #[inline]
    pub(crate) fn push(&mut self, position: u32) {
        match self {
            OwnerOffsets::Packed { bases, deltas } => {
                if deltas.len().is_multiple_of(BLOCK) {
                    bases.push(position);
                    deltas.push(0);
                    return;
                }
                let base = bases[deltas.len() / BLOCK];
                if let Some(delta) = position.checked_sub(base).and_then(|d| u16::try_from(d).ok()) {
                    deltas.push(delta);
                    return;
                }
                let all = (0..deltas.len()).filter_map(|i| self.get(i)).collect();
                *self = OwnerOffsets::Plain(all);
                self.push(position);
            }
            OwnerOffsets::Plain(all) => all.push(position),
        }
    }

    pub(crate) fn reserve(&mut self, additional: usize) {
        match self {
            OwnerOffsets::Packed { bases, deltas } => {
                bases.reserve_exact(additional.div_ceil(BLOCK) + 1);
                deltas.reserve_exact(additional);
            }
            OwnerOffsets::Plain(all) => all.reserve_exact(additional),
        }
    }

    pub(crate) fn shrink_to_fit(&mut self) {
        match self {
            OwnerOffsets::Packed { bases, deltas } => {
                bases.shrink_to_fit();
                deltas.shrink_to_fit();
            }
            OwnerOffsets::Plain(all) => all.shrink_to_fit(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(offsets: &OwnerOffsets) -> Vec<u32> {
        (0..offsets.len()).map(|i| offsets.get(i).unwrap()).collect()
    }

    #[test]
    fn positions_pack_and_read_back() {
        let positions: Vec<u32> = (0..1000).map(|i| i * 3 + (i % 7)).collect::<Vec<_>>();
        let mut sorted = positions.clone();
        sorted.sort();
        let mut offsets = OwnerOffsets::new();
        sorted.iter().for_each(|&p| offsets.push(p));
        assert!(matches!(offsets, OwnerOffsets::Packed { .. }));
        assert_eq!(all(&offsets), sorted);
        // Past the end, in a block of its own too.
        assert_eq!((offsets.get(1000), offsets.get(1024)), (None, None));
        assert_eq!(OwnerOffsets::new().get(0), None);
    }

    #[test]
    fn a_block_past_2_16_stats_keeps_every_position_whole() {
        let mut offsets = OwnerOffsets::with_capacity(3);
        for p in [0, 5, 70_000, 70_001, 4_000_000_000] {
            offsets.push(p);
        }
        assert!(matches!(offsets, OwnerOffsets::Plain(_)));
        assert_eq!(all(&offsets), [0, 5, 70_000, 70_001, 4_000_000_000]);
    }
}
