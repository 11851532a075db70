//! Op profile from a legacy `op_profile.json` (proto3 JSON of
//! `op_profile.Profile`, as the profiler wrote it and XProf's server returned it).

use crate::common::legacy::{number, shape};
use crate::passes::xla_ops::SourceInfo;
use crate::tools::op_profile::{Metrics, Node, OpProfile, XlaInfo};
use proflens_format::legacy::{LegacyError, LegacyTool};
use serde_json::Value;

fn text(v: &Value, key: &str) -> String {
    v.get(key).and_then(Value::as_str).unwrap_or_default().to_string()
}

fn f(v: &Value, key: &str) -> f64 {
    number(v.get(key)).unwrap_or(0.0)
}

/// Up to three entries (HBM, SRAM read, SRAM write); proto3 JSON leaves out
/// an empty list, and missing entries are 0.
fn triple(v: &Value, key: &str) -> [f64; 3] {
    let items = v.get(key).and_then(Value::as_array);
    let at = |i: usize| number(items.and_then(|a| a.get(i))).unwrap_or(0.0);
    [at(0), at(1), at(2)]
}

/// `key`'s list, else the TPU tools' single HBM figure `old` as its first entry.
fn triple_or_single(v: &Value, key: &str, old: &str) -> [f64; 3] {
    match (v.get(key), number(v.get(old))) {
        (None, Some(hbm)) => [hbm, 0.0, 0.0],
        _ => triple(v, key),
    }
}

/// XProf's metrics; the first TPU tools' `memoryBandwidth` (HBM utilisation)
/// and `rawBytesAccessed` (HBM bytes) stand in for the lists they became.
fn metrics(m: Option<&Value>) -> Metrics {
    let Some(m) = m else { return Metrics::default() };
    Metrics {
        flops: f(m, "flops"),
        uncapped_flops: f(m, "uncappedFlops"),
        bandwidth_utils: triple_or_single(m, "bandwidthUtils", "memoryBandwidth"),
        raw_time: f(m, "rawTime"),
        raw_flops: f(m, "rawFlops"),
        bf16_flops: f(m, "bf16Flops"),
        raw_bytes_accessed: triple_or_single(m, "rawBytesAccessedArray", "rawBytesAccessed"),
        occurrences: f(m, "occurrences").max(0.0) as u64,
        avg_time_ps: f(m, "avgTimePs"),
        normalized_time_ps: f(m, "normalizedTimePs"),
    }
}

fn xla(x: &Value) -> XlaInfo {
    let source = x.get("sourceInfo").cloned().unwrap_or(Value::Null);
    XlaInfo {
        expression: text(x, "expression"),
        provenance: text(x, "provenance"),
        category: text(x, "category"),
        program_id: text(x, "programId").parse().unwrap_or_else(|_| f(x, "programId") as u64),
        source_info: SourceInfo {
            file_name: text(&source, "fileName"),
            line_number: f(&source, "lineNumber") as i32,
            stack_frame: text(&source, "stackFrame"),
        },
        empty_layout: false,
    }
}

/// serde_json stops nesting at 128 levels, so this recursion is bounded.
fn node(v: &Value) -> Node {
    let children: Vec<Node> =
        v.get("children").and_then(Value::as_array).map(|c| c.iter().map(node).collect()).unwrap_or_default();
    Node {
        name: text(v, "name"),
        metrics: metrics(v.get("metrics")),
        num_children: number(v.get("numChildren")).map_or(children.len(), |n| n.max(0.0) as usize),
        children,
        xla: v.get("xla").filter(|x| x.is_object()).map(xla),
    }
}

/// All four trees where the file has them (XProf's server returned either
/// the by-program or the by-category pair; the other pair is left empty).
/// Dropped: `by_provenance`, the XLA node's layout, fingerprint and kernel
/// metadata, and a category node's name-only payload.
pub fn op_profile_from_json(v: &Value) -> Result<OpProfile, LegacyError> {
    if !v.is_object() {
        return Err(shape(LegacyTool::OpProfile, "the JSON is not an object"));
    }
    let tree = |key: &str| v.get(key).map(node).unwrap_or_default();
    Ok(OpProfile {
        device_type: text(v, "deviceType"),
        by_program: tree("byProgram"),
        by_program_exclude_idle: tree("byProgramExcludeIdle"),
        by_category: tree("byCategory"),
        by_category_exclude_idle: tree("byCategoryExcludeIdle"),
        agg_dvfs_time_scale_multiplier: f(v, "aggDvfsTimeScaleMultiplier"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_tpu_tools_bandwidth_fields() {
        let old =
            serde_json::json!({"flops": 0.25, "memoryBandwidth": 0.5, "rawBytesAccessed": "1024", "rawTime": 7.0});
        let m = metrics(Some(&old));
        assert_eq!((m.flops, m.raw_time), (0.25, 7.0));
        assert_eq!(m.bandwidth_utils, [0.5, 0.0, 0.0]);
        assert_eq!(m.raw_bytes_accessed, [1024.0, 0.0, 0.0]);
        let new = serde_json::json!({"bandwidthUtils": [0.1, 0.2], "memoryBandwidth": 0.5});
        assert_eq!(metrics(Some(&new)).bandwidth_utils, [0.1, 0.2, 0.0]);
    }
}
