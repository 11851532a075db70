//! What XProf knows of a GPU from its capabilities (vendor, compute
//! capability or gfx architecture, cores, clock): the peak FLOP rate, the
//! shared memory / LDS bandwidth and the model name. One table per vendor:
//! [`nvidia`] (compute capabilities) and [`amd`] (gfx architectures).
//!
//! Ported from XProf's `xprof/utils/hardware_type_utils.cc`, which
//! dispatches on the device vendor to `cuda_type_utils.cc` and
//! `rocm_type_utils.cc`. A vendor XProf does not know has no FLOP rate, no
//! shared memory bandwidth and no model name.

pub mod amd;
pub mod nvidia;

pub use crate::passes::tensor_core::{VENDOR_AMD, VENDOR_NVIDIA};
use serde::{Deserialize, Serialize};

/// A GPU's capability stats as the profile records them (XProf's `DeviceCapabilities`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct DeviceCaps {
    pub vendor: String,
    /// Streaming multiprocessors (NVIDIA) or compute units (AMD).
    pub core_count: u64,
    pub clock_rate_khz: u64,
    pub memory_bytes: u64,
    pub memory_bandwidth_bytes_per_second: u64,
    /// `major.minor`, when recorded.
    pub compute_capability: Option<String>,
    /// The `gpu_device_name` stat: an AMD GPU's gfx architecture (`gfx942`)
    /// from the ROCm collector; a product name on NVIDIA.
    #[serde(default)]
    pub device_name: String,
}

impl DeviceCaps {
    /// (major, minor) of the compute capability, (0, 0) when not recorded
    /// (XProf's proto defaults).
    pub fn compute_capability_numbers(&self) -> (i64, i64) {
        let Some((major, minor)) = self.compute_capability.as_deref().and_then(|c| c.split_once('.')) else {
            return (0, 0);
        };
        (major.parse().unwrap_or(0), minor.parse().unwrap_or(0))
    }
}

/// The most FLOPs one core (NVIDIA SM, AMD CU) does per clock cycle: the
/// best of the vector and matrix units' FP32 and FP16 rates, as XProf's
/// `GetFlopMaxThroughputPerCore` takes it. 0 for an unknown vendor or AMD
/// architecture.
pub fn flops_per_core_cycle(caps: &DeviceCaps) -> f64 {
    match caps.vendor.as_str() {
        VENDOR_NVIDIA => {
            let (major, minor) = caps.compute_capability_numbers();
            nvidia::flop_rates(major, minor).max_dense()
        }
        VENDOR_AMD => amd::flop_rates(amd::gfx_version(caps)).map_or(0.0, |r| r.max_dense()),
        _ => 0.0,
    }
}

/// Peak FLOP rate of the whole device, GFLOP/s: cores × clock × the
/// per-core-per-cycle rate.
pub fn peak_gflops(caps: &DeviceCaps) -> f64 {
    caps.core_count as f64 * clock_ghz(caps) * flops_per_core_cycle(caps)
}

/// Shared memory (NVIDIA) or LDS (AMD) bytes one core moves per cycle, 0
/// where XProf knows none (other vendors, RDNA and unknown AMD archs).
pub fn shared_memory_bytes_per_core_cycle(caps: &DeviceCaps) -> f64 {
    match caps.vendor.as_str() {
        VENDOR_NVIDIA => nvidia::shared_memory_bytes_per_cycle(caps.compute_capability_numbers().0),
        VENDOR_AMD => amd::lds_bytes_per_cycle(amd::gfx_version(caps)),
        _ => 0.0,
    }
}

/// All cores' shared memory / LDS bandwidth, GB/s.
pub fn shared_memory_gb_per_s(caps: &DeviceCaps) -> f64 {
    caps.core_count as f64 * shared_memory_bytes_per_core_cycle(caps) * clock_ghz(caps)
}

/// XProf's `GpuModelName`: `Nvidia GPU (Hopper)`, `AMD GPU - gfx942`…;
/// empty for an unknown vendor (XProf then says `GPU`).
pub fn model_name(caps: &DeviceCaps) -> String {
    match caps.vendor.as_str() {
        VENDOR_NVIDIA => {
            let (major, minor) = caps.compute_capability_numbers();
            nvidia::model_name(major, minor).to_string()
        }
        VENDOR_AMD => amd::model_name(caps),
        _ => String::new(),
    }
}

fn clock_ghz(caps: &DeviceCaps) -> f64 {
    caps.clock_rate_khz as f64 / 1e6
}

/// One core's dense FLOPs per cycle on the precisions XProf's peak looks at.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct FlopRates {
    pub vector_fp32: f64,
    pub vector_fp16: f64,
    pub matrix_fp32: f64,
    pub matrix_fp16: f64,
}

impl FlopRates {
    /// The peak XProf reports: the best of the four.
    pub fn max_dense(&self) -> f64 {
        self.vector_fp32.max(self.vector_fp16).max(self.matrix_fp32).max(self.matrix_fp16)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caps(vendor: &str, cc: Option<&str>, name: &str, cores: u64, clock_khz: u64) -> DeviceCaps {
        DeviceCaps {
            vendor: vendor.into(),
            core_count: cores,
            clock_rate_khz: clock_khz,
            compute_capability: cc.map(str::to_string),
            device_name: name.into(),
            ..DeviceCaps::default()
        }
    }

    fn tflops(caps: &DeviceCaps) -> f64 {
        peak_gflops(caps) / 1000.0
    }

    /// The devices of XProf's `hardware_type_utils_test.cc`, same numbers.
    #[test]
    fn xprofs_reference_devices() {
        let near = |got: f64, want: f64| assert!((got - want).abs() < 1.0, "{got} vs {want}");
        near(tflops(&caps("Nvidia", Some("10.0"), "", 148, 1_830_000)), 2218.0); // B200
        near(tflops(&caps("Nvidia", Some("10.9"), "", 148, 1_830_000)), 2218.0); // a future Blackwell
        near(tflops(&caps("Nvidia", Some("9.0"), "", 114, 1_620_000)), 756.0); // H100 PCIe
        near(tflops(&caps("Nvidia", Some("8.0"), "", 108, 1_410_000)), 312.0); // A100 SXM4
        near(tflops(&caps("AMD", None, "gfx942", 304, 2_100_000)), 1307.4); // MI300X
        near(tflops(&caps("AMD", None, "gfx908", 120, 1_502_000)), 184.6); // MI100
        near(tflops(&caps("AMD", None, "gfx90a", 104, 1_700_000)), 181.0); // MI250, one GCD
        near(tflops(&caps("AMD", None, "gfx950", 256, 2_400_000)), 2516.6); // MI355X
                                                                            // 9.0 is gfx908 or gfx90a: XProf picks neither.
        assert_eq!(peak_gflops(&caps("AMD", Some("9.0"), "", 104, 1_700_000)), 0.0);
        near(shared_memory_gb_per_s(&caps("AMD", None, "gfx942", 304, 2_100_000)), 81_715.2);
        near(shared_memory_gb_per_s(&caps("AMD", Some("9.4"), "", 304, 2_100_000)), 81_715.2);
        near(shared_memory_gb_per_s(&caps("AMD", None, "gfx950", 256, 2_400_000)), 157_286.4);
        assert_eq!(shared_memory_gb_per_s(&caps("AMD", Some("9.0"), "", 104, 1_700_000)), 0.0);
        let h100 = caps("Nvidia", Some("9.0"), "NVIDIA H100 80GB HBM3", 132, 1_980_000);
        assert_eq!(model_name(&h100), "Nvidia GPU (Hopper)");
        assert_eq!(model_name(&caps("AMD", None, "gfx950", 0, 0)), "AMD GPU - gfx950");
        assert_eq!(model_name(&caps("AMD", None, "gfx942:sramecc+:xnack-", 0, 0)), "AMD GPU");
        assert_eq!(model_name(&caps("AMD", Some("9.4"), "", 0, 0)), "AMD GPU - gfx942");
        assert_eq!(model_name(&caps("AMD", Some("9.0"), "", 0, 0)), "AMD GPU - gfx-9XX series");
    }

    /// A vendor XProf does not know has no peaks and no model name (the
    /// run environment then says `GPU`).
    #[test]
    fn unknown_vendors_have_nothing() {
        for vendor in ["", "Intel", "NVIDIA"] {
            let c = caps(vendor, Some("8.0"), "", 108, 1_410_000);
            assert_eq!((peak_gflops(&c), shared_memory_gb_per_s(&c), model_name(&c)), (0.0, 0.0, String::new()));
        }
        // Unknown AMD architectures: no peaks, but a name.
        let rdna = caps("AMD", Some("11.0"), "gfx1100", 48, 2_500_000);
        assert_eq!((peak_gflops(&rdna), shared_memory_gb_per_s(&rdna)), (0.0, 0.0));
        assert_eq!(model_name(&rdna), "AMD GPU - gfx1100");
    }
}
