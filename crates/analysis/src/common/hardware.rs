//! What a profile ran on, as XProf's tools classify it.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum HardwareType {
    CpuOnly,
    Gpu,
    Tpu,
}

impl HardwareType {
    pub fn xprof_name(self) -> &'static str {
        match self {
            HardwareType::CpuOnly => "CPU_ONLY",
            HardwareType::Gpu => "GPU",
            HardwareType::Tpu => "TPU",
        }
    }
}
