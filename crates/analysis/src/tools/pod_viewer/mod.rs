//! Pod viewer: one step-time breakdown per step and per core (here: per host's
//! device set), to compare the workers of a job step by step
//! (op_stats_to_pod_stats.cc, op_stats_to_pod_viewer.cc).

pub mod legacy;
mod tool;
pub mod tpu;

pub use tool::PodViewerTool;

use crate::passes::host_analysis::HostAnalysis;
use crate::passes::steps::{SpanType, StepInfo};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, HashMap};

/// The breakdown buckets, in XProf's order and with its ids (GenericEventType).
pub const BUCKETS: [(u32, &str); 9] = [
    (1, "Device compute"),
    (2, "Device to device"),
    (3, "Device collective communication"),
    (4, "Host compute"),
    (5, "Kernel launch"),
    (6, "Input"),
    (7, "Output"),
    (8, "Compilation"),
    (9, "All others"),
];

/// The buckets in TPU terms, index for index with [`BUCKETS`]: XProf fills
/// the generic buckets of a TPU step from its TPU categories
/// (op_stats_to_pod_stats.cc): compute is TensorCore busy time less
/// collectives and send/recv, device to device is send, recv and megacore
/// fusion, collectives are all-reduce and all-to-all, input is infeed and
/// host recv, output is outfeed and host send, all others is idle time.
pub const TPU_BUCKET_LABELS: [&str; 9] = [
    "TensorCore compute",
    "Device to device (send, recv, megacore)",
    "All-reduce and all-to-all",
    "Host compute",
    "Kernel launch",
    "Infeed (input)",
    "Outfeed (output)",
    "Compilation",
    "TensorCore idle",
];

impl PodViewer {
    pub fn is_tpu(&self) -> bool {
        self.device_type.starts_with("TPU")
    }

    /// The label of bucket `index` (into [`BUCKETS`]) for this profile's hardware.
    pub fn bucket_label(&self, index: usize) -> &'static str {
        if self.is_tpu() { TPU_BUCKET_LABELS.get(index).copied() } else { BUCKETS.get(index).map(|b| b.1) }
            .unwrap_or("")
    }
}

/// XProf numbers the cores of host `h` from `h * 1000`; a GPU host's steps are on core 1.
const CORES_PER_HOST: u32 = 1000;
const GPU_CORE: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CoreStep {
    pub core: u32,
    pub host_name: String,
    pub total_us: f64,
    /// Time per bucket id, µs.
    pub breakdown_us: BTreeMap<u32, f64>,
    /// Name of the largest bucket.
    pub bottleneck: String,
    /// A TPU pod viewer file's named times of this core.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tpu: Option<tpu::TpuCoreStats>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PodStep {
    pub step_num: i64,
    pub step_name: String,
    pub cores: Vec<CoreStep>,
    /// A TPU pod viewer file's all-reduce ops of this step.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub all_reduce: Vec<tpu::AllReduceRow>,
    /// A TPU pod viewer file's send/recv channels of this step.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub channels: Vec<tpu::ChannelRow>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PodViewer {
    /// The run environment's device type (`GPU`, `TPU v6 Lite`, `AMD GPU - gfx942`, `CPU`).
    pub device_type: String,
    pub steps: Vec<PodStep>,
    /// Why there may be nothing to compare (no step markers).
    pub warnings: Vec<String>,
}

fn buckets(step: &StepInfo) -> BTreeMap<u32, f64> {
    use SpanType::*;
    let us = |types: &[SpanType]| types.iter().map(|&t| step.ps(t)).sum::<i64>() as f64 / 1e6;
    BTreeMap::from([
        (1, us(&[DeviceCompute16, DeviceCompute32])),
        (2, us(&[DeviceToDevice, DeviceWaitDevice])),
        (3, us(&[DeviceCollectives])),
        (4, us(&[HostCompute])),
        (5, us(&[HostPrepare])),
        (6, us(&[HostWaitInput, HostToDevice, DeviceWaitHost])),
        (7, us(&[DeviceToHost])),
        (8, us(&[HostCompile])),
        (9, us(&[Unknown])),
    ])
}

/// `hosts` with the names to show for them (the name recorded in each file,
/// else the file's host name). Steps are those every host has, by step number.
pub fn pod_viewer(hosts: &[(&HostAnalysis, String)]) -> PodViewer {
    let device_type = hosts.first().map_or("CPU", |(h, _)| h.environment.device_type.as_str());
    let mut steps = Vec::new();
    // Each host's steps by number (its first of a number): a pod has
    // thousands of steps on each of tens of hosts.
    let by_group: Vec<HashMap<i64, &StepInfo>> = hosts
        .iter()
        .map(|(analysis, _)| {
            let mut steps = HashMap::with_capacity(analysis.steps.steps.len());
            for s in &analysis.steps.steps {
                steps.entry(s.group).or_insert(s);
            }
            steps
        })
        .collect();
    if let Some((first, _)) = hosts.first() {
        for step in &first.steps.steps {
            let mut cores = Vec::new();
            for (h, (_, name)) in hosts.iter().enumerate() {
                let Some(&own) = by_group[h].get(&step.group) else { continue };
                let breakdown = buckets(own);
                let bottleneck = BUCKETS
                    .iter()
                    .max_by(|a, b| breakdown[&a.0].total_cmp(&breakdown[&b.0]).then(b.0.cmp(&a.0)))
                    .map(|b| b.1.to_string())
                    .unwrap_or_default();
                cores.push(CoreStep {
                    core: h as u32 * CORES_PER_HOST + GPU_CORE,
                    host_name: name.clone(),
                    total_us: own.duration_ps as f64 / 1e6,
                    breakdown_us: breakdown,
                    bottleneck,
                    tpu: None,
                });
            }
            if cores.len() == hosts.len() {
                steps.push(PodStep {
                    step_num: step.group,
                    step_name: step.name.clone(),
                    cores,
                    all_reduce: Vec::new(),
                    channels: Vec::new(),
                });
            }
        }
    }
    let warnings = if hosts.iter().all(|(h, _)| h.steps.steps.is_empty()) {
        vec![crate::passes::input_pipeline::NO_STEP_MARKER_WARNING.to_string()]
    } else {
        Vec::new()
    };
    PodViewer { device_type: device_type.to_string(), steps, warnings }
}

/// One line per (step, host) with each bucket in µs.
pub fn to_csv(view: &PodViewer) -> String {
    let mut out = String::from("step,core,host,total_us,bottleneck");
    for (_, name) in BUCKETS {
        out += &format!(",{}", crate::common::csv::csv_field(&format!("{name} (us)")));
    }
    out.push('\n');
    for s in &view.steps {
        for c in &s.cores {
            out += &format!(
                "{},{},{},{},{}",
                crate::common::csv::csv_field(&s.step_name),
                c.core,
                crate::common::csv::csv_field(&c.host_name),
                c.total_us,
                crate::common::csv::csv_field(&c.bottleneck)
            );
            for (id, _) in BUCKETS {
                out += &format!(",{}", c.breakdown_us.get(&id).copied().unwrap_or(0.0));
            }
            out.push('\n');
        }
    }
    out
}

/// XProf 2.24's `pod_viewer` JSON (PodViewerDatabase).
pub fn to_xprof_json(view: &PodViewer) -> Value {
    let steps: Vec<Value> = view
        .steps
        .iter()
        .map(|s| {
            let mut per_core = Map::new();
            for c in &s.cores {
                let breakdown: Map<String, Value> = c.breakdown_us.iter().map(|(k, v)| (k.to_string(), json!(v))).collect();
                per_core.insert(
                    c.core.to_string(),
                    json!({
                        "hostName": c.host_name,
                        "chipId": 0,
                        "nodeId": 0,
                        "stepNum": s.step_num,
                        "totalDurationUs": c.total_us,
                        "bottleneck": c.bottleneck,
                        "stepBreakdownUs": breakdown,
                    }),
                );
            }
            json!({"stepNum": s.step_num, "podStatsPerCore": per_core, "channelDb": [], "coreIdToReplicaIdMap": {}, "allReduceOpDb": []})
        })
        .collect();
    json!({
        "podStatsSequence": {"podStatsMap": steps},
        "diagnostics": {"info": [], "warnings": view.warnings, "errors": []},
        "stepBreakdownEvents": BUCKETS.iter().map(|(id, name)| json!({"id": id, "name": name})).collect::<Vec<_>>(),
        "deviceType": view.device_type,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tpu_buckets_use_tpu_terms() {
        let view = |device: &str| PodViewer { device_type: device.into(), steps: Vec::new(), warnings: Vec::new() };
        assert_eq!(view("TPU v6 Lite").bucket_label(0), "TensorCore compute");
        assert_eq!(view("TPU v6 Lite").bucket_label(5), "Infeed (input)");
        assert_eq!(view("GPU").bucket_label(0), "Device compute");
        assert_eq!(view("GPU").bucket_label(9), "");
    }

    #[test]
    fn steps_are_matched_by_number_and_kept_where_every_host_ran_them() {
        use crate::passes::steps::{StepInfo, SPAN_TYPES};
        let host = |steps: &[(i64, i64)]| {
            let mut analysis = HostAnalysis::new(&proflens_model::Profile::default());
            analysis.steps.steps = steps
                .iter()
                .map(|&(group, us)| StepInfo {
                    group,
                    name: group.to_string(),
                    begin_ps: 0,
                    duration_ps: us * 1_000_000,
                    type_ps: [0; SPAN_TYPES],
                })
                .collect();
            analysis
        };
        // Host b lists its steps in another order and has no step 3.
        let (a, b) = (host(&[(1, 10), (2, 20), (3, 30)]), host(&[(2, 25), (1, 15)]));
        let view = pod_viewer(&[(&a, "a".into()), (&b, "b".into())]);
        let totals: Vec<(i64, Vec<f64>)> =
            view.steps.iter().map(|s| (s.step_num, s.cores.iter().map(|c| c.total_us).collect())).collect();
        assert_eq!(totals, vec![(1, vec![10.0, 15.0]), (2, vec![20.0, 25.0])]);
    }
}
