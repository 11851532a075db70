//! A counter's samples for a window as they cross from the worker to the
//! page: (time ps, value) as 16-byte records in one byte array.

use proflens_analysis::passes::trace::counters::Sample;

const STRIDE: usize = 8 + 8;

pub fn pack(samples: &[Sample]) -> Vec<u8> {
    let mut out = Vec::with_capacity(samples.len() * STRIDE);
    for s in samples {
        out.extend_from_slice(&s.time_ps.to_le_bytes());
        out.extend_from_slice(&s.value.to_le_bytes());
    }
    out
}

/// The samples of [`pack`]; a truncated last record is dropped.
pub fn unpack(bytes: &[u8]) -> Vec<Sample> {
    bytes
        .chunks_exact(STRIDE)
        .map(|r| {
            let word = |o: usize| {
                let mut a = [0u8; 8];
                a.copy_from_slice(&r[o..o + 8]);
                a
            };
            Sample { time_ps: i64::from_le_bytes(word(0)), value: f64::from_le_bytes(word(8)) }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_round_trip() {
        let samples = vec![Sample { time_ps: -5, value: 1.5 }, Sample { time_ps: i64::MAX, value: 1e12 }];
        let mut bytes = pack(&samples);
        bytes.push(7);
        assert_eq!(unpack(&bytes), samples);
    }
}
