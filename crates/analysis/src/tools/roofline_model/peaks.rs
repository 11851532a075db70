//! The device's ceilings as XProf's roofline database holds them
//! (InitializeRooflineModelDatabaseFromOpStats): FLOP/s in GFLOP/s,
//! bandwidths in GiB/s.

use crate::common::schema::{plane_stat, GPU_PLANE_PREFIX, TPU_PLANE_PREFIX};
use crate::passes::device_caps;
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
                // The FLOP peak is the op database's (a stated peak, else
                // XProf's per-architecture table, 0 for vendors XProf does
                // not know). Shared memory / LDS likewise: the plane's stated
                // SRAM peaks win over the tables' (GetPerfEnvFromXPlane).
                let derived = env.device.as_ref().map_or(0.0, device_caps::shared_memory_gb_per_s);
                let gpu = profile.planes.iter().find(|p| profile.str(p.name).starts_with(GPU_PLANE_PREFIX));
                let sram = |name: &str| {
                    let stated = gpu.and_then(|p| plane_stat(profile, p, profile.strings.lookup(name)));
                    stated.and_then(|v| v.as_f64()).filter(|gb| *gb > 0.0).unwrap_or(derived) * GIB_PER_GB
                };
                Peaks {
                    device: RooflineDevice::Gpu,
                    has_merged_vmem: true,
                    vmem_read_bw: sram("peak_sram_rd_bw_gigabytes_per_second"),
                    vmem_write_bw: sram("peak_sram_wr_bw_gigabytes_per_second"),
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
