//! Pod viewer: one step-time breakdown per step and per core (here: per host's
//! device set), to compare the workers of a job step by step
//! (op_stats_to_pod_stats.cc, op_stats_to_pod_viewer.cc).

pub mod legacy;
mod model;
mod tool;
pub mod tpu;

pub use model::{CoreColumns, CoreStep, NewCore, PodBuilder, PodStep, PodViewer};
pub use tool::PodViewerTool;

use crate::common::csv::csv_field;
use crate::passes::host_analysis::HostAnalysis;
use crate::passes::steps::{SpanType, StepInfo};
use serde_json::{json, Map, Value};
use std::collections::HashMap;

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

/// XProf numbers the cores of host `h` from `h * 1000`; a GPU host's steps are on core 1.
const CORES_PER_HOST: u32 = 1000;
const GPU_CORE: u32 = 1;

fn buckets(step: &StepInfo) -> [f64; BUCKETS.len()] {
    use SpanType::*;
    let us = |types: &[SpanType]| types.iter().map(|&t| step.ps(t)).sum::<i64>() as f64 / 1e6;
    [
        us(&[DeviceCompute16, DeviceCompute32]),
        us(&[DeviceToDevice, DeviceWaitDevice]),
        us(&[DeviceCollectives]),
        us(&[HostCompute]),
        us(&[HostPrepare]),
        us(&[HostWaitInput, HostToDevice, DeviceWaitHost]),
        us(&[DeviceToHost]),
        us(&[HostCompile]),
        us(&[Unknown]),
    ]
}

/// The name of the largest bucket with a time (the first on a tie), or "".
pub fn largest_bucket(breakdown_us: &[f64]) -> &'static str {
    let mut best: Option<(usize, f64)> = None;
    for (i, &us) in breakdown_us.iter().enumerate() {
        if !us.is_nan() && best.is_none_or(|(_, b)| us > b) {
            best = Some((i, us));
        }
    }
    best.and_then(|(i, _)| BUCKETS.get(i)).map_or("", |b| b.1)
}

/// `hosts` with the names to show for them (the name recorded in each file,
/// else the file's host name). Steps are those every host has, by step number.
pub fn pod_viewer(hosts: &[(&HostAnalysis, String)]) -> PodViewer {
    let device_type = hosts.first().map_or("CPU", |(h, _)| h.environment.device_type.as_str());
    let warnings = if hosts.iter().all(|(h, _)| h.steps.steps.is_empty()) {
        vec![crate::passes::input_pipeline::NO_STEP_MARKER_WARNING.to_string()]
    } else {
        Vec::new()
    };
    let mut pod = PodBuilder::new(device_type.to_string(), warnings);
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
    let Some((first, _)) = hosts.first() else { return pod.finish() };
    for step in &first.steps.steps {
        let Some(own) = by_group.iter().map(|steps| steps.get(&step.group).copied()).collect::<Option<Vec<_>>>() else {
            continue;
        };
        let mut pod_step = PodStep::new(step.group, step.name.clone());
        for (h, (own, (_, name))) in own.iter().zip(hosts).enumerate() {
            let breakdown_us = buckets(own);
            let core = NewCore {
                core: h as u32 * CORES_PER_HOST + GPU_CORE,
                host_name: name,
                total_us: own.duration_ps as f64 / 1e6,
                breakdown_us,
                bottleneck: largest_bucket(&breakdown_us),
                tpu: None,
            };
            pod.push_core(&mut pod_step, core);
        }
        pod.push_step(pod_step);
    }
    pod.finish()
}

/// One line per (step, host) with each bucket in µs.
pub fn to_csv(view: &PodViewer) -> String {
    let mut out = String::from("step,core,host,total_us,bottleneck");
    for (_, name) in BUCKETS {
        out += &format!(",{}", csv_field(&format!("{name} (us)")));
    }
    out.push('\n');
    for s in &view.steps {
        for c in view.core_steps(s) {
            out += &format!(
                "{},{},{},{},{}",
                csv_field(&s.step_name),
                c.core,
                csv_field(c.host_name),
                c.total_us,
                csv_field(c.bottleneck)
            );
            for b in 0..BUCKETS.len() {
                out += &format!(",{}", c.bucket_us(b));
            }
            out.push('\n');
        }
    }
    out
}

/// A core's buckets that have a time, keyed by bucket id.
fn breakdown_json(core: &CoreStep) -> Map<String, Value> {
    core.buckets().map(|(id, us)| (id.to_string(), json!(us))).collect()
}

/// `--format json`: the model with one object per core step (the model
/// itself keeps the cores as columns for the page).
pub fn to_json(view: &PodViewer) -> Result<Value, serde_json::Error> {
    serde_json::to_value(json_shape::Pod(view))
}

/// The shape of `--format json`, serialised straight from the columns.
mod json_shape {
    use super::{CoreStep, PodStep, PodViewer};
    use serde::ser::{Serialize, SerializeStruct, Serializer};

    pub struct Pod<'a>(pub &'a PodViewer);
    struct Step<'a>(&'a PodViewer, &'a PodStep);
    struct Core<'a>(CoreStep<'a>);
    struct Buckets<'a>(&'a CoreStep<'a>);

    impl Serialize for Pod<'_> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let pod = self.0;
            let mut out = serializer.serialize_struct("PodViewer", 3)?;
            out.serialize_field("device_type", &pod.device_type)?;
            out.serialize_field("steps", &Steps(pod))?;
            out.serialize_field("warnings", &pod.warnings)?;
            out.end()
        }
    }

    struct Steps<'a>(&'a PodViewer);

    impl Serialize for Steps<'_> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            serializer.collect_seq(self.0.steps.iter().map(|s| Step(self.0, s)))
        }
    }

    impl Serialize for Step<'_> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let Step(pod, step) = *self;
            let mut out = serializer.serialize_struct("PodStep", 5)?;
            out.serialize_field("step_num", &step.step_num)?;
            out.serialize_field("step_name", &step.step_name)?;
            out.serialize_field("cores", &Cores(pod, step))?;
            if !step.all_reduce.is_empty() {
                out.serialize_field("all_reduce", &step.all_reduce)?;
            }
            if !step.channels.is_empty() {
                out.serialize_field("channels", &step.channels)?;
            }
            out.end()
        }
    }

    struct Cores<'a>(&'a PodViewer, &'a PodStep);

    impl Serialize for Cores<'_> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            serializer.collect_seq(self.0.core_steps(self.1).map(Core))
        }
    }

    impl Serialize for Core<'_> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let c = &self.0;
            let mut out = serializer.serialize_struct("CoreStep", 6)?;
            out.serialize_field("core", &c.core)?;
            out.serialize_field("host_name", c.host_name)?;
            out.serialize_field("total_us", &c.total_us)?;
            out.serialize_field("breakdown_us", &Buckets(c))?;
            out.serialize_field("bottleneck", c.bottleneck)?;
            if let Some(tpu) = c.tpu {
                out.serialize_field("tpu", tpu)?;
            }
            out.end()
        }
    }

    impl Serialize for Buckets<'_> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            serializer.collect_map(self.0.buckets())
        }
    }
}

/// XProf 2.24's `pod_viewer` JSON (PodViewerDatabase).
pub fn to_xprof_json(view: &PodViewer) -> Value {
    let steps: Vec<Value> = view
        .steps
        .iter()
        .map(|s| {
            let mut per_core = Map::new();
            for c in view.core_steps(s) {
                per_core.insert(
                    c.core.to_string(),
                    json!({
                        "hostName": c.host_name,
                        "chipId": 0,
                        "nodeId": 0,
                        "stepNum": s.step_num,
                        "totalDurationUs": c.total_us,
                        "bottleneck": c.bottleneck,
                        "stepBreakdownUs": breakdown_json(&c),
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
        let view = |device: &str| PodViewer::new(device.into(), Vec::new());
        assert_eq!(view("TPU v6 Lite").bucket_label(0), "TensorCore compute");
        assert_eq!(view("TPU v6 Lite").bucket_label(5), "Infeed (input)");
        assert_eq!(view("GPU").bucket_label(0), "Device compute");
        assert_eq!(view("GPU").bucket_label(9), "");
    }

    #[test]
    fn format_json_writes_one_object_per_core() {
        let mut pod = PodBuilder::new("GPU".into(), Vec::new());
        let mut step = PodStep::new(3, "3".into());
        let mut breakdown_us = [f64::NAN; BUCKETS.len()];
        (breakdown_us[0], breakdown_us[5]) = (2.0, 1.0);
        let core =
            NewCore { core: 1, host_name: "a", total_us: 3.0, breakdown_us, bottleneck: "Device compute", tpu: None };
        pod.push_core(&mut step, core);
        pod.push_step(step);
        let written = to_json(&pod.finish()).unwrap();
        let core = json!({"core": 1, "host_name": "a", "total_us": 3.0, "breakdown_us": {"1": 2.0, "6": 1.0}, "bottleneck": "Device compute"});
        let step = json!({"step_num": 3, "step_name": "3", "cores": [core]});
        assert_eq!(written, json!({"device_type": "GPU", "steps": [step], "warnings": []}));
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
        let totals: Vec<(i64, Vec<f64>)> = view.steps.iter().map(|s| (s.step_num, s.cores.total_us.clone())).collect();
        assert_eq!(totals, vec![(1, vec![10.0, 15.0]), (2, vec![20.0, 25.0])]);
    }
}
