//! AMD GPUs by gfx architecture, as XProf's `xprof/utils/rocm_type_utils.cc`
//! knows them (FLOPS/clock/CU from Table 1 of AMD's CDNA 1–4 whitepapers;
//! LDS banks from the CDNA 4 whitepaper). XProf knows only the CDNA
//! architectures: any other (RDNA, unresolved) has no FLOP rate and no LDS
//! bandwidth, though its model name still names it.

use super::FlopRates;
use crate::passes::device_caps::DeviceCaps;

/// Per CU per cycle: vector FP32 / FP16, matrix (MFMA) FP32 / FP16, dense.
const FLOPS_PER_CU_CYCLE: [(&str, FlopRates); 4] = [
    ("gfx908", rates(128.0, 0.0, 256.0, 1024.0)),   // CDNA 1, MI100
    ("gfx90a", rates(128.0, 0.0, 256.0, 1024.0)),   // CDNA 2, MI250X
    ("gfx942", rates(256.0, 256.0, 256.0, 2048.0)), // CDNA 3, MI300X
    ("gfx950", rates(256.0, 256.0, 256.0, 4096.0)), // CDNA 4, MI355X
];

/// LDS bytes per CU per cycle: banks × 4 bytes, each bank one access a cycle.
const LDS_BYTES_PER_CU_CYCLE: [(&str, f64); 4] = [
    ("gfx908", 128.0), // 32 banks
    ("gfx90a", 128.0), // 32 banks
    ("gfx942", 128.0), // 32 banks
    ("gfx950", 256.0), // 64 banks
];

const fn rates(vector_fp32: f64, vector_fp16: f64, matrix_fp32: f64, matrix_fp16: f64) -> FlopRates {
    FlopRates { vector_fp32, vector_fp16, matrix_fp32, matrix_fp16 }
}

/// The rates of a gfx architecture; None where XProf knows none (its peak
/// is then 0).
pub fn flop_rates(gfx: &str) -> Option<FlopRates> {
    FLOPS_PER_CU_CYCLE.iter().find(|(g, _)| *g == gfx).map(|(_, r)| *r)
}

/// LDS bytes per CU per cycle, 0 where XProf knows none.
pub fn lds_bytes_per_cycle(gfx: &str) -> f64 {
    LDS_BYTES_PER_CU_CYCLE.iter().find(|(g, _)| *g == gfx).map_or(0.0, |(_, b)| *b)
}

/// The device's gfx architecture (XProf's `ResolveAmdGfxVersion`): the
/// device name when it is a bare `gfx` + at least three hex digits, as
/// rocprofiler-sdk names agents (`gfx942`, `gfx90a`); else what the compute
/// capability alone pins down (9.4 is gfx942, 9.5 gfx950); else empty. A
/// name with target features (`gfx942:sramecc+:xnack-`) is not well formed.
pub fn gfx_version(caps: &DeviceCaps) -> &str {
    if is_well_formed_gfx(&caps.device_name) {
        return &caps.device_name;
    }
    match caps.compute_capability_numbers() {
        (9, 4) => "gfx942",
        (9, 5) => "gfx950",
        _ => "",
    }
}

fn is_well_formed_gfx(name: &str) -> bool {
    name.strip_prefix("gfx").is_some_and(|arch| arch.len() >= 3 && arch.chars().all(|c| c.is_ascii_hexdigit()))
}

/// `AMD GPU - gfx942`, or the family by compute capability major when the
/// architecture is not resolved.
pub fn model_name(caps: &DeviceCaps) -> String {
    let gfx = gfx_version(caps);
    if !gfx.is_empty() {
        return format!("AMD GPU - {gfx}");
    }
    match caps.compute_capability_numbers().0 {
        9 => "AMD GPU - gfx-9XX series",
        10 => "AMD GPU - gfx-10XX series",
        11 => "AMD GPU - gfx-11XX series",
        _ => "AMD GPU",
    }
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caps(cc: Option<&str>, name: &str) -> DeviceCaps {
        DeviceCaps {
            vendor: "AMD".into(),
            compute_capability: cc.map(str::to_string),
            device_name: name.into(),
            ..DeviceCaps::default()
        }
    }

    #[test]
    fn every_architecture_xprof_knows() {
        let peak = |gfx: &str| flop_rates(gfx).map(|r| r.max_dense());
        assert_eq!(peak("gfx908"), Some(1024.0));
        assert_eq!(peak("gfx90a"), Some(1024.0));
        assert_eq!(peak("gfx942"), Some(2048.0));
        // CDNA 4 doubles CDNA 3's dense FP16 MFMA rate.
        assert_eq!(peak("gfx950"), Some(4096.0));
        assert_eq!(peak("gfx1100"), None);
        assert_eq!(peak(""), None);
        assert_eq!(lds_bytes_per_cycle("gfx908"), 128.0);
        assert_eq!(lds_bytes_per_cycle("gfx90a"), 128.0);
        assert_eq!(lds_bytes_per_cycle("gfx942"), 128.0);
        assert_eq!(lds_bytes_per_cycle("gfx950"), 256.0);
        assert_eq!(lds_bytes_per_cycle("gfx1201"), 0.0);
    }

    #[test]
    fn resolves_the_architecture_like_xprof() {
        assert_eq!(gfx_version(&caps(Some("9.0"), "gfx90a")), "gfx90a");
        assert_eq!(gfx_version(&caps(None, "gfx1100")), "gfx1100");
        // The name wins over the compute capability.
        assert_eq!(gfx_version(&caps(Some("9.4"), "gfx950")), "gfx950");
        // Names that are not bare gfx versions fall back to the capability.
        assert_eq!(gfx_version(&caps(Some("9.4"), "gfx942:sramecc+:xnack-")), "gfx942");
        assert_eq!(gfx_version(&caps(Some("9.5"), "AMD Instinct MI355X")), "gfx950");
        assert_eq!(gfx_version(&caps(Some("9.0"), "gfx9")), "");
        assert_eq!(gfx_version(&caps(Some("9.0"), "gfx90g")), "");
        assert_eq!(gfx_version(&caps(None, "")), "");
    }

    #[test]
    fn model_names() {
        assert_eq!(model_name(&caps(Some("9.4"), "")), "AMD GPU - gfx942");
        assert_eq!(model_name(&caps(Some("11.0"), "gfx1100")), "AMD GPU - gfx1100");
        assert_eq!(model_name(&caps(Some("9.0"), "")), "AMD GPU - gfx-9XX series");
        assert_eq!(model_name(&caps(Some("10.3"), "")), "AMD GPU - gfx-10XX series");
        assert_eq!(model_name(&caps(Some("11.0"), "")), "AMD GPU - gfx-11XX series");
        assert_eq!(model_name(&caps(Some("12.0"), "")), "AMD GPU");
        assert_eq!(model_name(&caps(None, "")), "AMD GPU");
    }
}
