//! Pod viewer from a legacy `pod_viewer.json` (proto3 JSON of `PodViewerDatabase`).

use crate::common::legacy::{number, shape};
use crate::tools::pod_viewer::tpu::{all_reduce_rows, buckets_of, channel_rows, core_stats};
use crate::tools::pod_viewer::{largest_bucket, NewCore, PodBuilder, PodStep, PodViewer, BUCKETS};
use proflens_format::legacy::{LegacyError, LegacyTool};
use serde_json::Value;

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
    let warnings = db
        .get("diagnostics")
        .and_then(|d| d.get("warnings"))
        .and_then(Value::as_array)
        .map(|w| w.iter().filter_map(Value::as_str).map(str::to_string).collect())
        .unwrap_or_default();
    let mut pod = PodBuilder::new(text(db.get("deviceType")), warnings);
    for step in steps_json {
        let step_num = number(step.get("stepNum")).unwrap_or(0.0) as i64;
        let mut cores = Vec::new();
        if let Some(per_core) = step.get("podStatsPerCore").and_then(Value::as_object) {
            for (core, record) in per_core {
                let core: u32 = core.parse().map_err(|_| shape(tool, format!("core id '{core}' is not a number")))?;
                cores.push((core, record));
            }
        }
        cores.sort_by_key(|(core, _)| *core);
        let mut pod_step = PodStep::new(step_num, step_num.to_string());
        for (core, record) in cores {
            let total_us = number(record.get("totalDurationUs")).unwrap_or(0.0);
            let tpu = core_stats(record);
            let mut breakdown_us = stored_buckets(record);
            if let (true, Some(stats)) = (breakdown_us.iter().all(|v| v.is_nan()), &tpu) {
                breakdown_us = buckets_of(stats, total_us);
            }
            let stored = text(record.get("bottleneck"));
            let bottleneck = if stored.is_empty() { largest_bucket(&breakdown_us) } else { stored.as_str() };
            let host_name = text(record.get("hostName"));
            let new = NewCore { core, host_name: &host_name, total_us, breakdown_us, bottleneck, tpu };
            pod.push_core(&mut pod_step, new);
        }
        pod_step.all_reduce = all_reduce_rows(step);
        pod_step.channels = channel_rows(step);
        pod.push_step(pod_step);
    }
    Ok(pod.finish())
}

/// `stepBreakdownUs` by bucket (NaN where the file has none; ids that are
/// not XProf's generic event types are left out).
fn stored_buckets(record: &Value) -> [f64; BUCKETS.len()] {
    let mut buckets = [f64::NAN; BUCKETS.len()];
    for (id, us) in record.get("stepBreakdownUs").and_then(Value::as_object).into_iter().flatten() {
        if let Some(i) = id.parse::<u32>().ok().and_then(|id| BUCKETS.iter().position(|b| b.0 == id)) {
            buckets[i] = number(Some(us)).unwrap_or(0.0);
        }
    }
    buckets
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::pod_viewer::{to_json, to_xprof_json};

    #[test]
    fn reads_back_what_xprof_json_writes() {
        let mut pod = PodBuilder::new("GPU".into(), vec!["w".into()]);
        let mut step = PodStep::new(7, "7".into());
        let mut a = [f64::NAN; BUCKETS.len()];
        (a[0], a[8]) = (20000.0, 1310.352);
        let a = NewCore {
            core: 1,
            host_name: "a",
            total_us: 21310.352,
            breakdown_us: a,
            bottleneck: "Device compute",
            tpu: None,
        };
        pod.push_core(&mut step, a);
        let mut b = [f64::NAN; BUCKETS.len()];
        b[5] = 5.0;
        let b = NewCore { core: 1001, host_name: "b", total_us: 5.0, breakdown_us: b, bottleneck: "Input", tpu: None };
        pod.push_core(&mut step, b);
        pod.push_step(step);
        let view = pod.finish();
        // Absent buckets are NaN, which no model equals: compared as written.
        let read = pod_viewer_from_json(&to_xprof_json(&view)).unwrap();
        assert_eq!(to_json(&read).unwrap(), to_json(&view).unwrap());
        assert_eq!((read.host_names, read.bottlenecks), (view.host_names, view.bottlenecks));
        assert!(pod_viewer_from_json(&serde_json::json!({"podStatsSequence": {"podStatsMap": 3}})).is_err());
    }
}
