//! A step's typed spans made disjoint: where spans overlap, the type of
//! highest priority holds the time (XProf's event_span.cc).

/// Kinds of time within a step, in priority order (a higher value wins where
/// events overlap). The values are XProf's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum SpanType {
    Unknown = 0,
    HostCompute = 1,
    HostPreprocess = 2,
    HostPostprocess = 3,
    HostBatchFormation = 4,
    HostRuntime = 5,
    HostCompile = 6,
    HostToHost = 7,
    HostToDevice = 8,
    HostPrepare = 9,
    DeviceCollectives = 10,
    HostWaitInput = 11,
    DeviceToDevice = 12,
    DeviceToHost = 13,
    DeviceCompute32 = 14,
    DeviceCompute16 = 15,
    DeviceWaitDevice = 16,
    DeviceWaitHost = 17,
}

pub const SPAN_TYPES: usize = 18;

impl SpanType {
    /// Every type, by value.
    const ALL: [SpanType; SPAN_TYPES] = {
        use SpanType::*;
        [
            Unknown,
            HostCompute,
            HostPreprocess,
            HostPostprocess,
            HostBatchFormation,
            HostRuntime,
            HostCompile,
            HostToHost,
            HostToDevice,
            HostPrepare,
            DeviceCollectives,
            HostWaitInput,
            DeviceToDevice,
            DeviceToHost,
            DeviceCompute32,
            DeviceCompute16,
            DeviceWaitDevice,
            DeviceWaitHost,
        ]
    };

    pub(crate) fn from_index(i: usize) -> SpanType {
        SpanType::ALL[i.min(SPAN_TYPES - 1)]
    }
}

/// Splits overlapping typed spans into disjoint pieces, each taking the
/// highest-priority type active over it (gaps get [`SpanType::Unknown`]),
/// and hands each piece (type, from, to) to `piece`.
pub(crate) fn for_each_piece(events: &[(SpanType, i64, i64)], piece: impl FnMut(SpanType, i64, i64)) {
    let lo = events.iter().map(|&(_, s, e)| s.min(e)).min().unwrap_or(0);
    let hi = events.iter().map(|&(_, s, e)| s.max(e)).max().unwrap_or(0);
    // A step's times fit 54 bits from its earliest (5 hours in ps): one u64
    // per bound then, which sorts about twice as fast as u128 (in wasm more).
    if hi.checked_sub(lo).is_some_and(|span| span < 1 << 54) {
        let pack = |time: i64, is_start: bool, ty: SpanType| {
            ((time - lo) as u64) << 9 | u64::from(is_start) << 8 | u64::from(u8::MAX - ty as u8)
        };
        let unpack = |b: u64| ((b >> 9) as i64 + lo, (b >> 8) & 1 == 1, usize::from(u8::MAX - b as u8));
        sweep(events, pack, unpack, piece);
    } else {
        sweep(events, pack_bound, unpack_bound, piece);
    }
}

/// [`for_each_piece`] with bounds packed by `pack` (see [`pack_bound`]).
fn sweep<B: Ord + Copy>(
    events: &[(SpanType, i64, i64)],
    pack: impl Fn(i64, bool, SpanType) -> B,
    unpack: impl Fn(B) -> (i64, bool, usize),
    mut piece: impl FnMut(SpanType, i64, i64),
) {
    let mut bounds: Vec<B> = Vec::with_capacity(events.len() * 2);
    for &(t, s, e) in events {
        bounds.push(pack(s, true, t));
        bounds.push(pack(e, false, t));
    }
    // Equal bounds are equal integers, so an unstable sort gives the one order.
    bounds.sort_unstable();
    let mut counts = [0i64; SPAN_TYPES];
    let mut current = 0usize;
    for w in bounds.windows(2) {
        let (time, is_start, t) = unpack(w[0]);
        if is_start {
            counts[t] += 1;
            current = current.max(t);
        } else {
            counts[t] -= 1;
            if t == current && counts[t] == 0 {
                current = (0..t).rev().find(|&i| counts[i] > 0).unwrap_or(0);
            }
        }
        piece(SpanType::from_index(current), time, unpack(w[1]).0);
    }
}

/// A span's start or end as one integer that sorts as XProf orders them:
/// by time, ends before starts at equal times, and higher types first
/// among equal boundaries (one integer compares faster than the tuple).
fn pack_bound(time: i64, is_start: bool, ty: SpanType) -> u128 {
    let time = u128::from(time as u64 ^ (1 << 63));
    time << 64 | u128::from(is_start) << 8 | u128::from(u8::MAX - ty as u8)
}

/// (time, is_start, type index) of a [`pack_bound`] value.
fn unpack_bound(bound: u128) -> (i64, bool, usize) {
    let time = ((bound >> 64) as u64 ^ (1 << 63)) as i64;
    (time, (bound >> 8) & 1 == 1, usize::from(u8::MAX - bound as u8))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlaps_take_the_higher_type() {
        let mut pieces = Vec::new();
        for_each_piece(&[(SpanType::HostCompute, 0, 10), (SpanType::HostWaitInput, 2, 5)], |t, s, e| {
            pieces.push((t, s, e))
        });
        let total = |t: SpanType| pieces.iter().filter(|p| p.0 == t).map(|p| p.2 - p.1).sum::<i64>();
        assert_eq!(total(SpanType::HostWaitInput), 3);
        assert_eq!(total(SpanType::HostCompute), 7);
    }

    #[test]
    fn steps_too_long_for_u64_bounds_split_alike() {
        let spans = |far: i64| {
            let events = [
                (SpanType::HostCompute, 0, 10),
                (SpanType::HostWaitInput, 2, 5),
                (SpanType::HostCompute, far, far + 4),
            ];
            let mut pieces = Vec::new();
            for_each_piece(&events, |t, s, e| {
                pieces.push((t, s - (s >= far) as i64 * far, e - (e >= far) as i64 * far))
            });
            pieces
        };
        // The same pieces whether the last span is near (u64 bounds) or past 2^54 ps (u128 bounds).
        assert_eq!(spans(1 << 40), spans(1 << 60));
    }

    #[test]
    fn packed_bounds_sort_as_the_tuples_do() {
        let tuples = [
            (-5, true, SpanType::HostCompute),
            (3, false, SpanType::HostCompute),
            (3, true, SpanType::DeviceWaitHost),
            (3, true, SpanType::HostCompute),
            (3, false, SpanType::DeviceCompute16),
            (i64::MIN, false, SpanType::Unknown),
            (i64::MAX, true, SpanType::Unknown),
        ];
        let mut expected = tuples.to_vec();
        expected.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)).then(b.2.cmp(&a.2)));
        let mut packed: Vec<u128> = tuples.iter().map(|&(t, s, ty)| pack_bound(t, s, ty)).collect();
        packed.sort_unstable();
        let unpacked: Vec<_> = packed.into_iter().map(unpack_bound).collect();
        let expected: Vec<_> = expected.into_iter().map(|(t, s, ty)| (t, s, ty as usize)).collect();
        assert_eq!(unpacked, expected);
    }
}
