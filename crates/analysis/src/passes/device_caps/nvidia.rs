//! NVIDIA GPUs by compute capability, as XProf's
//! `xprof/utils/cuda_type_utils.cc` knows them (per-SM-per-cycle FLOP
//! tables from NVIDIA's architecture whitepapers, dense tensor-core rates).

use super::FlopRates;

/// Per SM per cycle, by compute capability (major, minor), newest first.
/// Each entry: CUDA-core FP32 / FP16, tensor-core FP32 (TF32) / FP16.
const FLOPS_PER_SM_CYCLE: [((i64, i64), FlopRates); 12] = [
    ((10, 0), rates(296.0, 592.0, 4096.0, 8192.0)), // Blackwell (B200), dense
    ((9, 0), rates(256.0, 512.0, 2048.0, 4096.0)),  // Hopper
    ((8, 9), rates(256.0, 256.0, 512.0, 1024.0)),   // Ada Lovelace
    ((8, 6), rates(256.0, 256.0, 256.0, 1024.0)),   // Ampere GA10x
    ((8, 0), rates(128.0, 512.0, 1024.0, 2048.0)),  // Ampere A100
    ((7, 5), rates(128.0, 256.0, 0.0, 1024.0)),     // Turing
    ((7, 0), rates(128.0, 256.0, 0.0, 1024.0)),     // Volta
    ((6, 1), rates(256.0, 4.0, 0.0, 0.0)),          // Pascal GP10x
    ((6, 0), rates(128.0, 256.0, 0.0, 0.0)),        // Pascal GP100
    ((5, 0), rates(256.0, 0.0, 0.0, 0.0)),          // Maxwell
    ((3, 0), rates(384.0, 0.0, 0.0, 0.0)),          // Kepler
    ((2, 0), rates(64.0, 0.0, 0.0, 0.0)),           // Fermi
];

const fn rates(vector_fp32: f64, vector_fp16: f64, matrix_fp32: f64, matrix_fp16: f64) -> FlopRates {
    FlopRates { vector_fp32, vector_fp16, matrix_fp32, matrix_fp16 }
}

/// The rates of a compute capability. XProf keys the table by
/// `major * 1000 + minor * 10` and, for one it lacks, takes the nearest
/// lower entry, or the oldest (2.0) for a capability older than all: an
/// unknown or missing capability never means 0 on NVIDIA.
pub fn flop_rates(major: i64, minor: i64) -> FlopRates {
    let key = |(ma, mi): (i64, i64)| ma * 1000 + mi * 10;
    let wanted = key((major, minor));
    let oldest = FLOPS_PER_SM_CYCLE[FLOPS_PER_SM_CYCLE.len() - 1].1;
    FLOPS_PER_SM_CYCLE.iter().find(|(cc, _)| key(*cc) <= wanted).map_or(oldest, |(_, r)| *r)
}

/// Shared memory bytes per SM per cycle: 32 banks of 4 bytes per 2 cycles
/// up to compute capability 2, of 8 bytes per cycle from 3 on.
pub fn shared_memory_bytes_per_cycle(major: i64) -> f64 {
    if major <= 2 {
        64.0
    } else {
        256.0
    }
}

/// XProf's architecture names, by compute capability.
pub fn model_name(major: i64, minor: i64) -> &'static str {
    match (major, minor) {
        (2, _) => "Nvidia GPU (Fermi)",
        (3, _) => "Nvidia GPU (Kepler)",
        (5, _) => "Nvidia GPU (Maxwell)",
        (6, _) => "Nvidia GPU (Pascal)",
        (7, m) if m < 5 => "Nvidia GPU (Volta)",
        (7, _) => "Nvidia GPU (Turing)",
        (8, m) if m < 9 => "Nvidia GPU (Ampere)",
        (8, _) => "Nvidia GPU (Ada Lovelace)",
        (9, _) => "Nvidia GPU (Hopper)",
        (10, _) => "Nvidia GPU (Blackwell)",
        _ => "Nvidia GPU",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn peak(major: i64, minor: i64) -> f64 {
        flop_rates(major, minor).max_dense()
    }

    #[test]
    fn every_compute_capability_xprof_knows() {
        let known = [
            ((10, 0), 8192.0),
            ((9, 0), 4096.0),
            ((8, 9), 1024.0),
            ((8, 6), 1024.0),
            ((8, 0), 2048.0),
            ((7, 5), 1024.0),
            ((7, 0), 1024.0),
            ((6, 1), 256.0),
            ((6, 0), 256.0),
            ((5, 0), 256.0),
            ((3, 0), 384.0),
            ((2, 0), 64.0),
        ];
        for ((major, minor), want) in known {
            assert_eq!(peak(major, minor), want, "{major}.{minor}");
        }
    }

    #[test]
    fn unknown_capabilities_fall_back_like_xprof() {
        // Between entries: the nearest lower one.
        assert_eq!(peak(8, 7), peak(8, 6));
        assert_eq!(peak(7, 2), peak(7, 0));
        assert_eq!(peak(3, 7), 384.0);
        // Newer than all (XProf's FutureBlackwell test): the newest.
        assert_eq!(peak(10, 9), 8192.0);
        assert_eq!(peak(12, 0), 8192.0);
        // Older than all, or not recorded: the oldest.
        assert_eq!(peak(1, 3), 64.0);
        assert_eq!(peak(0, 0), 64.0);
    }

    #[test]
    fn shared_memory_and_names() {
        assert_eq!(shared_memory_bytes_per_cycle(2), 64.0);
        assert_eq!(shared_memory_bytes_per_cycle(9), 256.0);
        assert_eq!(model_name(7, 0), "Nvidia GPU (Volta)");
        assert_eq!(model_name(7, 5), "Nvidia GPU (Turing)");
        assert_eq!(model_name(8, 0), "Nvidia GPU (Ampere)");
        assert_eq!(model_name(9, 0), "Nvidia GPU (Hopper)");
        assert_eq!(model_name(10, 0), "Nvidia GPU (Blackwell)");
        assert_eq!(model_name(4, 0), "Nvidia GPU");
        assert_eq!(model_name(12, 0), "Nvidia GPU");
    }
}
