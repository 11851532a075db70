//! Where the profile ran: host, device kind and model, core count.

use crate::common::schema::{plane_stat, GPU_PLANE_PREFIX, TPU_PLANE_PREFIX};
use crate::passes::device_caps::DeviceCaps;
use crate::passes::input_pipeline::HardwareType;
use proflens_model::{Plane, Profile};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunEnvironment {
    pub hardware_type: HardwareType,
    /// `CPU`, `GPU`, `Nvidia GPU (Volta)`, `AMD GPU - gfx942`, a TPU type…
    pub device_type: String,
    /// Devices (GPU planes or TPU cores); 0 on CPU-only profiles.
    pub device_core_count: u64,
    pub host_count: u64,
    pub task_count: u64,
    pub hostnames: Vec<String>,
    /// The first device's capabilities, when recorded.
    pub device: Option<DeviceCaps>,
    /// Whether the XLA programs train (set from their HLO; false without).
    #[serde(default)]
    pub is_training: bool,
}

pub fn run_environment(profile: &Profile) -> RunEnvironment {
    let planes_with = |prefix: &str| -> Vec<&Plane> {
        profile.planes.iter().filter(|p| profile.str(p.name).starts_with(prefix)).collect()
    };
    let gpus = planes_with(GPU_PLANE_PREFIX);
    let tpus: Vec<&Plane> =
        planes_with(TPU_PLANE_PREFIX).into_iter().filter(|p| !profile.str(p.name).contains("SparseCore")).collect();
    let hostnames = profile.hostnames.clone();
    let base = RunEnvironment {
        hardware_type: HardwareType::CpuOnly,
        device_type: "CPU".into(),
        device_core_count: 0,
        host_count: 1,
        task_count: 1,
        hostnames,
        device: None,
        is_training: false,
    };
    if let Some(first) = gpus.first() {
        let caps = device_caps(profile, first);
        let model = crate::passes::device_caps::model_name(&caps);
        return RunEnvironment {
            hardware_type: HardwareType::Gpu,
            device_type: if model.is_empty() { "GPU".into() } else { model },
            device_core_count: gpus.len() as u64,
            device: Some(caps),
            ..base
        };
    }
    if let Some(first) = tpus.first() {
        let key = profile.strings.lookup("device_type_string");
        let device_type = plane_stat(profile, first, key).map(|v| v.to_string()).unwrap_or_default();
        return RunEnvironment {
            hardware_type: HardwareType::Tpu,
            device_type,
            device_core_count: tpus.len() as u64,
            ..base
        };
    }
    base
}

/// A GPU plane's capability stats (XProf's `GetDeviceCaps`).
pub fn device_caps(profile: &Profile, plane: &Plane) -> DeviceCaps {
    let stat = |name: &str| plane_stat(profile, plane, profile.strings.lookup(name));
    let int = |name: &str| stat(name).and_then(|v| v.as_u64()).unwrap_or(0);
    let major = stat("compute_cap_major").and_then(|v| v.as_i64());
    let minor = stat("compute_cap_minor").and_then(|v| v.as_i64());
    DeviceCaps {
        vendor: stat("device_vendor").map(|v| v.to_string()).unwrap_or_default(),
        core_count: int("core_count"),
        clock_rate_khz: int("clock_rate"),
        memory_bytes: int("memory_size"),
        memory_bandwidth_bytes_per_second: int("memory_bandwidth"),
        compute_capability: major.map(|m| format!("{m}.{}", minor.unwrap_or(0))),
        device_name: stat("gpu_device_name").map(|v| v.to_string()).unwrap_or_default(),
    }
}
