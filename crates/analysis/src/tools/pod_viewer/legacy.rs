//! Pod viewer from a legacy `pod_viewer.json` (proto3 JSON of `PodViewerDatabase`).

use crate::common::legacy::{number, shape};
use crate::tools::pod_viewer::tpu::{all_reduce_rows, buckets_of, channel_rows, core_stats};
use crate::tools::pod_viewer::{CoreStep, PodStep, PodViewer, BUCKETS};
use proflens_format::legacy::{LegacyError, LegacyTool};
use serde_json::Value;
use std::collections::BTreeMap;

fn text(v: Option<&Value>) -> String {
    v.and_then(Value::as_str).unwrap_or_default().to_string()
}

/// Steps and cores as stored, XProf's (`stepBreakdownUs` by event type) and
/// the TPU tools' (named times: `highFlopsComputeUs`, `crsDurationUs`, …,
/// kept as they are and also put in the generic buckets, see
/// [`buckets_of`]), with each step's all-reduce and channel tables.
/// Dropped: the replica map, info and error diagnostics (the view shows
/// warnings). `step_name` is the step number (the file has no names).
pub fn pod_viewer_from_json(db: &Value) -> Result<PodViewer, LegacyError> {
    let tool = LegacyTool::PodViewer;
    let steps_json = db
        .get("podStatsSequence")
        .and_then(|s| s.get("podStatsMap"))
        .map(|m| m.as_array().ok_or_else(|| shape(tool, "podStatsMap is not a list")))
        .transpose()?
        .map(Vec::as_slice)
        .unwrap_or_default();
    let mut steps = Vec::with_capacity(steps_json.len());
    for step in steps_json {
        let step_num = number(step.get("stepNum")).unwrap_or(0.0) as i64;
        let mut cores = Vec::new();
        if let Some(per_core) = step.get("podStatsPerCore").and_then(Value::as_object) {
            for (core, record) in per_core {
                let core: u32 = core.parse().map_err(|_| shape(tool, format!("core id '{core}' is not a number")))?;
                let total_us = number(record.get("totalDurationUs")).unwrap_or(0.0);
                let tpu = core_stats(record);
                let mut breakdown_us: BTreeMap<u32, f64> = record
                    .get("stepBreakdownUs")
                    .and_then(Value::as_object)
                    .map(|m| {
                        m.iter().filter_map(|(k, v)| Some((k.parse().ok()?, number(Some(v)).unwrap_or(0.0)))).collect()
                    })
                    .unwrap_or_default();
                if let (true, Some(stats)) = (breakdown_us.is_empty(), &tpu) {
                    breakdown_us = buckets_of(stats, total_us);
                }
                let mut bottleneck = text(record.get("bottleneck"));
                if bottleneck.is_empty() && !breakdown_us.is_empty() {
                    bottleneck = largest_bucket(&breakdown_us);
                }
                cores.push(CoreStep {
                    core,
                    host_name: text(record.get("hostName")),
                    total_us,
                    breakdown_us,
                    bottleneck,
                    tpu,
                });
            }
        }
        cores.sort_by_key(|c| c.core);
        steps.push(PodStep {
            step_num,
            step_name: step_num.to_string(),
            cores,
            all_reduce: all_reduce_rows(step),
            channels: channel_rows(step),
        });
    }
    let warnings = db
        .get("diagnostics")
        .and_then(|d| d.get("warnings"))
        .and_then(Value::as_array)
        .map(|w| w.iter().filter_map(Value::as_str).map(str::to_string).collect())
        .unwrap_or_default();
    Ok(PodViewer { device_type: text(db.get("deviceType")), steps, warnings })
}

/// The name of the largest bucket (the first on a tie).
fn largest_bucket(breakdown: &BTreeMap<u32, f64>) -> String {
    let mut best: Option<(u32, f64)> = None;
    for (&id, &us) in breakdown {
        if best.is_none_or(|(_, b)| us > b) {
            best = Some((id, us));
        }
    }
    best.and_then(|(id, _)| BUCKETS.iter().find(|b| b.0 == id)).map(|b| b.1.to_string()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::pod_viewer::to_xprof_json;

    #[test]
    fn reads_back_what_xprof_json_writes() {
        let view = PodViewer {
            device_type: "GPU".into(),
            steps: vec![PodStep {
                step_num: 7,
                step_name: "7".into(),
                cores: vec![
                    CoreStep {
                        core: 1,
                        host_name: "a".into(),
                        total_us: 21310.352,
                        breakdown_us: BTreeMap::from([(1, 20000.0), (9, 1310.352)]),
                        bottleneck: "Device compute".into(),
                        tpu: None,
                    },
                    CoreStep {
                        core: 1001,
                        host_name: "b".into(),
                        total_us: 5.0,
                        breakdown_us: BTreeMap::from([(6, 5.0)]),
                        bottleneck: "Input".into(),
                        tpu: None,
                    },
                ],
                all_reduce: Vec::new(),
                channels: Vec::new(),
            }],
            warnings: vec!["w".into()],
        };
        assert_eq!(pod_viewer_from_json(&to_xprof_json(&view)).unwrap(), view);
        assert!(pod_viewer_from_json(&serde_json::json!({"podStatsSequence": {"podStatsMap": 3}})).is_err());
    }
}
