//! The TPU part of a legacy overview page: utilisation of the matrix units,
//! FLOPS and memory bandwidth, duty cycle and idle time, and the TPU
//! properties of the run environment, as the TPU tools' files state them.

use proflens_format::legacy::GvizTable;
use proflens_format::proto;
use serde::{Deserialize, Serialize};

/// What the TPU overview states beside the generic page, percent.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TpuSummary {
    /// Utilisation of the TPU matrix units (MXU).
    pub mxu_utilization_percent: Option<f64>,
    /// FLOPS compared to the program's optimal FLOPS (roofline).
    pub flop_rate_utilization_percent: Option<f64>,
    /// Memory bandwidth compared to the hardware's limit.
    pub memory_bw_utilization_percent: Option<f64>,
    pub hbm_utilization_percent: Option<f64>,
    /// Share of the device time that is busy.
    pub device_duty_cycle_percent: Option<f64>,
    pub device_idle_time_percent: Option<f64>,
    pub host_idle_time_percent: Option<f64>,
    pub remark_text: String,
    /// The run environment's other properties as written (`tpu_type`,
    /// `tpu_core_count` "2 (Replica count = 2, …)", `batch_size`, …).
    pub properties: Vec<(String, String)>,
}

/// Property names of the analysis table, newest first where one was renamed.
const MXU: [&str; 2] = ["mxu_utilization_percent", "matrix_unit_utilization_percent"];

/// Run-environment properties that the generic page shows already.
const SHOWN: [&str; 5] = ["device_type", "device_core_count", "host_count", "task_count", "is_training"];

/// From the analysis table (`p` of the top-ops table) and the run
/// environment table of an overview JSON.
pub fn tpu_summary_from_tables(analysis: Option<&GvizTable>, environment: Option<&GvizTable>) -> TpuSummary {
    let pct = |keys: &[&str]| analysis.and_then(|t| keys.iter().find_map(|k| t.property_number(k)));
    let properties = environment
        .map(|t| {
            t.properties
                .iter()
                .filter(|(k, _)| !SHOWN.contains(&k.as_str()))
                .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
                .filter(|(_, v)| !v.is_empty())
                .collect()
        })
        .unwrap_or_default();
    TpuSummary {
        mxu_utilization_percent: pct(&MXU),
        flop_rate_utilization_percent: pct(&["flop_rate_utilization_relative_to_roofline"]),
        memory_bw_utilization_percent: pct(&["memory_bw_utilization_relative_to_hw_limit"]),
        hbm_utilization_percent: pct(&["hbm_utilization_percent"]),
        device_duty_cycle_percent: pct(&["device_duty_cycle_percent"]),
        device_idle_time_percent: pct(&["device_idle_time_percent"]),
        host_idle_time_percent: pct(&["host_idle_time_percent"]),
        remark_text: analysis.and_then(|t| t.property("remark_text")).unwrap_or_default().to_string(),
        properties,
    }
}

/// From an `overview_page.pb` analysis (a TPU host's).
pub fn tpu_summary_from_proto(
    a: &proto::OverviewPageAnalysis,
    env: Option<&proto::OverviewPageRunEnvironment>,
) -> TpuSummary {
    let mut properties = Vec::new();
    if let Some(env) = env.filter(|e| e.replica_count > 0 || e.num_cores_per_replica > 0) {
        properties.push(("replica_count".to_string(), env.replica_count.to_string()));
        properties.push(("num_cores_per_replica".to_string(), env.num_cores_per_replica.to_string()));
    }
    TpuSummary {
        mxu_utilization_percent: Some(a.mxu_utilization_percent),
        flop_rate_utilization_percent: Some(a.flop_rate_utilization_relative_to_roofline_percent),
        memory_bw_utilization_percent: Some(a.memory_bw_utilization_relative_to_hw_limit_percent),
        hbm_utilization_percent: None,
        device_duty_cycle_percent: Some(a.device_duty_cycle_percent),
        device_idle_time_percent: Some(a.device_idle_time_percent),
        host_idle_time_percent: Some(a.host_idle_time_percent),
        remark_text: a.remark_text.clone(),
        properties,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn old_and_new_property_names() {
        let mut analysis = GvizTable::default();
        analysis.properties.insert("matrix_unit_utilization_percent".into(), json!("12.5%"));
        analysis.properties.insert("host_idle_time_percent".into(), json!("88.0%"));
        let mut env = GvizTable::default();
        env.properties.insert("tpu_type".into(), json!("Cloud TPU"));
        env.properties.insert("host_count".into(), json!("1"));
        env.properties.insert("error_message".into(), json!(""));
        let s = tpu_summary_from_tables(Some(&analysis), Some(&env));
        assert_eq!(s.mxu_utilization_percent, Some(12.5));
        assert_eq!(s.host_idle_time_percent, Some(88.0));
        assert_eq!(s.device_duty_cycle_percent, None);
        assert_eq!(s.properties, vec![("tpu_type".to_string(), "Cloud TPU".to_string())]);
    }
}
