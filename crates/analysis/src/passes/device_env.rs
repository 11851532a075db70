//! The device's peaks, for the roofline columns of the op tables.

use crate::common::schema::{plane_stat, GPU_PLANE_PREFIX, TPU_PLANE_PREFIX};
use proflens_model::Profile;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Hardware {
    #[default]
    Cpu,
    Gpu,
    Tpu,
}

/// Device peaks for the roofline columns (0 = unknown).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct DeviceEnv {
    pub hardware: Hardware,
    pub peak_tera_flops_per_second: f64,
    pub peak_hbm_bw_giga_bytes_per_second: f64,
    /// GPU shared memory / L1 bandwidth, all SMs.
    pub peak_shm_bw_giga_bytes_per_second: f64,
    /// TPU on-chip memories.
    pub peak_cmem_read_bw_giga_bytes_per_second: f64,
    pub peak_cmem_write_bw_giga_bytes_per_second: f64,
    pub peak_vmem_read_bw_giga_bytes_per_second: f64,
    pub peak_vmem_write_bw_giga_bytes_per_second: f64,
}

impl DeviceEnv {
    /// From the first device plane's capability stats. GPU FLOP and shared
    /// memory peaks need per-architecture tables and stay 0 for now.
    pub fn of(profile: &Profile) -> DeviceEnv {
        let keys = |name: &str| profile.strings.lookup(name);
        let double = |plane, name: &str| plane_stat(profile, plane, keys(name)).and_then(|v| v.as_f64()).unwrap_or(0.0);
        let named = |prefix: &str| profile.planes.iter().find(|p| profile.str(p.name).starts_with(prefix));
        if let Some(tpu) = named(TPU_PLANE_PREFIX) {
            return DeviceEnv {
                hardware: Hardware::Tpu,
                peak_tera_flops_per_second: double(tpu, "peak_teraflops_per_second"),
                peak_hbm_bw_giga_bytes_per_second: double(tpu, "peak_hbm_bw_gigabytes_per_second"),
                peak_shm_bw_giga_bytes_per_second: 0.0,
                peak_cmem_read_bw_giga_bytes_per_second: double(tpu, "peak_cmem_rd_bw_gigabytes_per_second"),
                peak_cmem_write_bw_giga_bytes_per_second: double(tpu, "peak_cmem_wr_bw_gigabytes_per_second"),
                peak_vmem_read_bw_giga_bytes_per_second: double(tpu, "peak_vmem_rd_bw_gigabytes_per_second"),
                peak_vmem_write_bw_giga_bytes_per_second: double(tpu, "peak_vmem_wr_bw_gigabytes_per_second"),
            };
        }
        if let Some(gpu) = named(GPU_PLANE_PREFIX) {
            return DeviceEnv {
                hardware: Hardware::Gpu,
                peak_tera_flops_per_second: 0.0,
                peak_hbm_bw_giga_bytes_per_second: double(gpu, "memory_bandwidth") / 1e9,
                ..DeviceEnv::default()
            };
        }
        DeviceEnv::default()
    }
}
