//! The boxes of a window as they cross from the worker to the page: fixed
//! records in one byte array (a `Uint8Array` on the way), so that a frame of
//! a hundred thousand boxes costs one copy rather than a hundred thousand
//! JS objects.

use super::TraceHit;

/// A box to draw: one event, or `merged` neighbours narrower than a pixel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DrawBox {
    pub start_ps: i64,
    pub end_ps: i64,
    /// The (first) event's index in its track.
    pub event: u32,
    pub merged: u32,
    /// Index into the window's names: the (first) event's name.
    pub name: u32,
    pub depth: u16,
}

const STRIDE: usize = 8 + 8 + 4 + 4 + 4 + 2;

pub fn pack(boxes: &[DrawBox]) -> Vec<u8> {
    let mut out = Vec::with_capacity(boxes.len() * STRIDE);
    for b in boxes {
        out.extend_from_slice(&b.start_ps.to_le_bytes());
        out.extend_from_slice(&b.end_ps.to_le_bytes());
        out.extend_from_slice(&b.event.to_le_bytes());
        out.extend_from_slice(&b.merged.to_le_bytes());
        out.extend_from_slice(&b.name.to_le_bytes());
        out.extend_from_slice(&b.depth.to_le_bytes());
    }
    out
}

/// The boxes of [`pack`]; a truncated last record is dropped.
pub fn unpack(bytes: &[u8]) -> Vec<DrawBox> {
    bytes
        .chunks_exact(STRIDE)
        .map(|r| {
            let i64_at = |o: usize| i64::from_le_bytes(array(&r[o..o + 8]));
            let u32_at = |o: usize| u32::from_le_bytes(array(&r[o..o + 4]));
            DrawBox {
                start_ps: i64_at(0),
                end_ps: i64_at(8),
                event: u32_at(16),
                merged: u32_at(20),
                name: u32_at(24),
                depth: u16::from_le_bytes(array(&r[28..30])),
            }
        })
        .collect()
}

const HIT_STRIDE: usize = 4 + 4 + 8 + 8 + 2;

/// Search hits packed the same way (a hundred thousand of them cross at once).
pub fn pack_hits(hits: &[TraceHit]) -> Vec<u8> {
    let mut out = Vec::with_capacity(hits.len() * HIT_STRIDE);
    for h in hits {
        out.extend_from_slice(&h.track.to_le_bytes());
        out.extend_from_slice(&h.event.to_le_bytes());
        out.extend_from_slice(&h.start_ps.to_le_bytes());
        out.extend_from_slice(&h.end_ps.to_le_bytes());
        out.extend_from_slice(&h.depth.to_le_bytes());
    }
    out
}

pub fn unpack_hits(bytes: &[u8]) -> Vec<TraceHit> {
    bytes
        .chunks_exact(HIT_STRIDE)
        .map(|r| TraceHit {
            track: u32::from_le_bytes(array(&r[0..4])),
            event: u32::from_le_bytes(array(&r[4..8])),
            start_ps: i64::from_le_bytes(array(&r[8..16])),
            end_ps: i64::from_le_bytes(array(&r[16..24])),
            depth: u16::from_le_bytes(array(&r[24..26])),
        })
        .collect()
}

fn array<const N: usize>(slice: &[u8]) -> [u8; N] {
    let mut out = [0u8; N];
    out.copy_from_slice(&slice[..N]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let boxes = vec![
            DrawBox { start_ps: -5, end_ps: i64::MAX, event: 7, merged: 1, name: 0, depth: 0 },
            DrawBox { start_ps: 1 << 40, end_ps: (1 << 40) + 3, event: u32::MAX, merged: 9, name: 2, depth: 65535 },
        ];
        let bytes = pack(&boxes);
        assert_eq!(bytes.len(), 2 * STRIDE);
        assert_eq!(unpack(&bytes), boxes);
        assert_eq!(unpack(&bytes[..STRIDE + 5]), boxes[..1]);
        let hits = vec![
            TraceHit { track: 3, event: 9, start_ps: -1, end_ps: 1 << 50, depth: 7 },
            TraceHit { track: u32::MAX, event: 0, start_ps: 0, end_ps: 0, depth: 0 },
        ];
        assert_eq!(unpack_hits(&pack_hits(&hits)), hits);
    }
}
