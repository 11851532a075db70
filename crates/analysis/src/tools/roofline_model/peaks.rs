//! The device's ceilings as XProf's roofline database holds them
//! (InitializeRooflineModelDatabaseFromOpStats): FLOP/s in GFLOP/s,
//! bandwidths in GiB/s.

use crate::common::schema::{plane_stat, TPU_PLANE_PREFIX};
use crate::passes::device_env::DeviceEnv;
use crate::passes::run_environment::RunEnvironment;
use crate::passes::xla_ops::XlaOpDb;
use proflens_model::Profile;
use serde::{Deserialize, Serialize};

const GIB_PER_GB: f64 = 1e9 / (1u64 << 30) as f64;

/// Which of XProf's two tables the model is (its columns differ).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum RooflineDevice {
    /// CPU only: XProf writes an empty database.
    #[default]
    None,
    Gpu,
    Tpu,
}

/// Peaks of the device, 0 when unknown.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Peaks {
    pub device: RooflineDevice,
    /// XProf's `device_type` (`TPU v6 Lite`, `AMD GPU - gfx942`, `GPU`).
    pub device_type: String,
    /// GFLOP/s.
    pub flop_rate: f64,
    /// GiB/s.
    pub hbm_bw: f64,
    pub cmem_read_bw: f64,
    pub cmem_write_bw: f64,
    /// TPU VMEM, or the GPU's shared memory / L1 (read and write alike).
    pub vmem_read_bw: f64,
    pub vmem_write_bw: f64,
    pub megacore: bool,
    pub has_cmem: bool,
    pub has_merged_vmem: bool,
}

impl Peaks {
    /// The peaks of a host's first device.
    pub fn of(profile: &Profile, ops: &XlaOpDb, env: &RunEnvironment, device_env: &DeviceEnv) -> Peaks {
        use crate::common::hardware::HardwareType;
        let base = Peaks {
            device_type: env.device_type.clone(),
            flop_rate: ops.peak_gflops,
            hbm_bw: ops.peak_hbm_gibps,
            ..Peaks::default()
        };
        match env.hardware_type {
            HardwareType::Tpu => {
                let flag = |name: &str| {
                    let key = profile.strings.lookup(name);
                    let tpu = profile.planes.iter().find(|p| profile.str(p.name).starts_with(TPU_PLANE_PREFIX));
                    tpu.and_then(|p| plane_stat(profile, p, key)).and_then(|v| v.as_u64()).is_some_and(|v| v != 0)
                };
                let gib = |gb: f64| gb * GIB_PER_GB;
                let has_cmem = device_env.peak_cmem_read_bw_giga_bytes_per_second > 0.0
                    || device_env.peak_cmem_write_bw_giga_bytes_per_second > 0.0;
                let has_merged_vmem = flag("has_merged_vmem");
                let mut peaks = Peaks {
                    device: RooflineDevice::Tpu,
                    megacore: flag("has_megacore"),
                    has_cmem,
                    has_merged_vmem,
                    ..base
                };
                // XProf keeps the CMEM peaks when the chip has CMEM, else the VMEM ones.
                if has_cmem {
                    peaks.cmem_read_bw = gib(device_env.peak_cmem_read_bw_giga_bytes_per_second);
                    peaks.cmem_write_bw = gib(device_env.peak_cmem_write_bw_giga_bytes_per_second);
                } else if has_merged_vmem {
                    peaks.vmem_read_bw = gib(device_env.peak_vmem_read_bw_giga_bytes_per_second);
                    peaks.vmem_write_bw = gib(device_env.peak_vmem_write_bw_giga_bytes_per_second);
                }
                peaks
            }
            HardwareType::Gpu => {
                let shm = gpu_shared_memory_gb_per_s(env) * GIB_PER_GB;
                // XProf knows the FLOP rates of NVIDIA and AMD GPUs only: a
                // device that names no vendor (older TensorFlow) has none.
                let vendor = env.device.as_ref().map_or("", |d| d.vendor.as_str());
                let flop_rate = if matches!(vendor, "Nvidia" | "AMD") { base.flop_rate } else { 0.0 };
                Peaks {
                    device: RooflineDevice::Gpu,
                    flop_rate,
                    has_merged_vmem: true,
                    vmem_read_bw: shm,
                    vmem_write_bw: shm,
                    ..base
                }
            }
            HardwareType::CpuOnly => Peaks::default(),
        }
    }

    /// FLOPs per byte where the compute roof meets a bandwidth's roof
    /// (XProf's RidgePoint: GFLOP/s over GB/s), 0 when unknown.
    pub fn ridge_point(&self, bw_gib: f64) -> f64 {
        let gb = bw_gib / GIB_PER_GB;
        if gb > 0.0 {
            self.flop_rate / gb
        } else {
            0.0
        }
    }
}

/// All SMs' (CUs') shared memory / L1 bandwidth, GB/s: bytes per cycle per
/// SM × SMs × clock. NVIDIA: 32 banks of 8 bytes (4 bytes per 2 cycles up
/// to compute capability 2); AMD CDNA 3: 32 banks of 4 bytes, CDNA 4
/// (gfx950) 64. 0 without the clock or the core count.
fn gpu_shared_memory_gb_per_s(env: &RunEnvironment) -> f64 {
    let Some(caps) = &env.device else { return 0.0 };
    let clock_ghz = caps.clock_rate_khz as f64 / 1e6;
    let bytes_per_cycle = match caps.vendor.as_str() {
        "AMD" if env.device_type.contains("gfx950") => 256.0,
        "AMD" => 128.0,
        "Nvidia" => {
            let major = caps.compute_capability.as_deref().and_then(|cc| cc.split('.').next()?.parse::<u32>().ok());
            if major.is_some_and(|m| m <= 2) {
                64.0
            } else {
                256.0
            }
        }
        // XProf knows no other vendor's banks.
        _ => 0.0,
    };
    caps.core_count as f64 * bytes_per_cycle * clock_ghz
}
