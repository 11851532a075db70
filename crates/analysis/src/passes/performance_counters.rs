//! The utilisation counters a TPU runtime may record on the host plane: MXU
//! (matrix unit) and HBM utilisation, percent. XProf reads them from the
//! `/host:CPU` plane's `matrix_unit_utilization_percent` and
//! `hbm_utilization_percent` stats into the overview's
//! `mxu_utilization_percent` and `hbm_utilization_percent`.

use crate::common::schema::{plane_stat, HOST_PLANE};
use proflens_model::Profile;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct PerformanceCounters {
    /// `None` when the profile does not record it.
    pub mxu_utilization_percent: Option<f64>,
    pub hbm_utilization_percent: Option<f64>,
}

pub fn performance_counters(profile: &Profile) -> PerformanceCounters {
    let Some(host) = profile.planes.iter().find(|p| profile.str(p.name) == HOST_PLANE) else {
        return PerformanceCounters::default();
    };
    let read = |name: &str| plane_stat(profile, host, profile.strings.lookup(name)).and_then(|v| v.as_f64());
    PerformanceCounters {
        mxu_utilization_percent: read("matrix_unit_utilization_percent"),
        hbm_utilization_percent: read("hbm_utilization_percent"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passes::op_metrics::test_builder::{Builder, V};

    #[test]
    fn reads_the_host_planes_counters() {
        let mut b = Builder::new();
        let host = b.plane(HOST_PLANE);
        b.plane_stat(host, "matrix_unit_utilization_percent", V::I(42));
        let device = b.plane("/device:TPU:0");
        b.plane_stat(device, "hbm_utilization_percent", V::I(7));
        let c = performance_counters(&b.build());
        assert_eq!(c, PerformanceCounters { mxu_utilization_percent: Some(42.0), hbm_utilization_percent: None });
        assert_eq!(performance_counters(&Builder::new().build()), PerformanceCounters::default());
    }
}
