//! Hash maps keyed by profiler ids (correlation, producer/consumer, step
//! ids). FxHash keeps little of the high bits of such keys in the bits a
//! table uses: 4096 ids (7, i << 40) fill 1024 of 4096 buckets and all get
//! the same control tag, so every lookup compares keys along long chains.
//! This hasher mixes every word it is fed and finishes with a full
//! avalanche, so each key bit reaches the bucket bits. Iteration order
//! still depends on the hash: readers that need an order sort, as they did
//! with FxHash.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// A hasher for small integer keys (ids and tuples of ids).
#[derive(Default, Clone, Copy)]
pub struct IdHasher(u64);

impl IdHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

impl Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
    }

    fn write_u8(&mut self, v: u8) {
        self.add(u64::from(v));
    }

    fn write_u32(&mut self, v: u32) {
        self.add(u64::from(v));
    }

    fn write_u64(&mut self, v: u64) {
        self.add(v);
    }

    fn write_usize(&mut self, v: usize) {
        self.add(v as u64);
    }

    /// MurmurHash3's 64-bit finaliser: every input bit flips about half
    /// of the output bits.
    fn finish(&self) -> u64 {
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }
}

pub type IdHashMap<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;
pub type IdHashSet<K> = HashSet<K, BuildHasherDefault<IdHasher>>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::{BuildHasher, Hash};

    fn hash<T: Hash>(v: T) -> u64 {
        BuildHasherDefault::<IdHasher>::default().hash_one(v)
    }

    #[test]
    fn ids_differing_in_high_bits_spread_over_buckets() {
        // 4096 ids that differ only above bit 40: with 4096 buckets (12 low
        // bits), a good hash fills most of them.
        let mut buckets = std::collections::BTreeSet::new();
        for i in 0..4096u64 {
            buckets.insert(hash((7i64, i << 40)) & 0xfff);
        }
        assert!(buckets.len() > 2500, "{} buckets", buckets.len());
    }

    #[test]
    fn equal_keys_hash_alike_and_maps_work() {
        assert_eq!(hash((1i64, 2u64, Some(3i64))), hash((1i64, 2u64, Some(3i64))));
        assert_ne!(hash((1i64, 2u64, Some(3i64))), hash((1i64, 2u64, None::<i64>)));
        let mut set: IdHashSet<(i64, u64)> = IdHashSet::default();
        set.insert((1, 2));
        assert!(set.contains(&(1, 2)) && !set.contains(&(2, 1)));
    }
}
