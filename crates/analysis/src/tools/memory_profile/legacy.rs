//! Memory profile from a legacy `memory_profile.json(.gz)` (proto3 JSON of
//! `MemoryProfile`, as the profiler wrote it and XProf's server returned it).

use crate::common::legacy::{number, shape};
use crate::tools::memory_profile::{
    ActiveAllocation, Activity, AllocatorProfile, AllocatorStats, MemoryProfile, Snapshot,
};
use proflens_format::legacy::{LegacyError, LegacyTool};
use serde_json::Value;
use std::collections::BTreeMap;

fn int(v: &Value, key: &str) -> i64 {
    number(v.get(key)).unwrap_or(0.0) as i64
}

/// int64 fields arrive as decimal strings; parse those exactly.
fn exact_i64(v: &Value, key: &str) -> i64 {
    match v.get(key) {
        Some(Value::String(s)) => s.parse().unwrap_or(0),
        Some(Value::Number(n)) => n.as_i64().unwrap_or_else(|| n.as_f64().unwrap_or(0.0) as i64),
        _ => 0,
    }
}

fn text(v: &Value, key: &str) -> String {
    v.get(key).and_then(Value::as_str).unwrap_or_default().to_string()
}

fn stats(v: Option<&Value>) -> AllocatorStats {
    let Some(v) = v else { return AllocatorStats::default() };
    AllocatorStats {
        stack_reserved_bytes: exact_i64(v, "stackReservedBytes"),
        heap_allocated_bytes: exact_i64(v, "heapAllocatedBytes"),
        free_memory_bytes: exact_i64(v, "freeMemoryBytes"),
        fragmentation: match v.get("fragmentation") {
            Some(Value::String(s)) if s == "NaN" => f64::NAN,
            other => number(other).unwrap_or(0.0),
        },
        peak_bytes_in_use: exact_i64(v, "peakBytesInUse"),
    }
}

fn activity(v: Option<&Value>) -> Activity {
    let empty = Value::Null;
    let v = v.unwrap_or(&empty);
    Activity {
        // proto3 JSON omits the zero enum value (UNKNOWN_ACTIVITY); only ALLOCATION counts.
        allocation: v.get("memoryActivity").and_then(Value::as_str) == Some("ALLOCATION"),
        requested_bytes: exact_i64(v, "requestedBytes"),
        allocation_bytes: exact_i64(v, "allocationBytes"),
        address: text(v, "address").parse().unwrap_or(0),
        op: text(v, "tfOpName"),
        step: exact_i64(v, "stepId"),
        region: text(v, "regionType"),
        data_type: text(v, "dataType"),
        shape: text(v, "tensorShape"),
    }
}

fn snapshot(v: &Value) -> Snapshot {
    Snapshot {
        time_offset_ps: exact_i64(v, "timeOffsetPs"),
        stats: stats(v.get("aggregationStats")),
        activity: activity(v.get("activityMetadata")),
    }
}

fn list<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key).and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default()
}

fn index(v: &Value, key: &str) -> Option<usize> {
    usize::try_from(int(v, key)).ok()
}

fn allocator(v: &Value) -> AllocatorProfile {
    let summary = v.get("profileSummary").cloned().unwrap_or(Value::Null);
    AllocatorProfile {
        peak_bytes_usage_lifetime: exact_i64(&summary, "peakBytesUsageLifetime"),
        peak: stats(summary.get("peakStats")),
        peak_time_ps: exact_i64(&summary, "peakStatsTimePs"),
        capacity_bytes: exact_i64(&summary, "memoryCapacity"),
        snapshots: list(v, "memoryProfileSnapshots").iter().map(snapshot).collect(),
        active: list(v, "activeAllocations")
            .iter()
            .map(|a| ActiveAllocation {
                // Negative indices mark special rows (XProf writes -1, -2, …).
                snapshot: index(a, "snapshotIndex"),
                special: index(a, "specialIndex"),
                occurrences: int(a, "numOccurrences").max(0) as u64,
            })
            .collect(),
        special: list(v, "specialAllocations").iter().map(|s| activity(Some(s))).collect(),
        timeline: list(v, "sampledTimelineSnapshots").iter().map(snapshot).collect(),
        // Counted over every allocator event, which the file does not keep.
        allocations: 0,
        deallocations: 0,
    }
}

/// Every allocator's summary, breakdown at the peak and sampled timeline, as
/// stored. Left at 0: `allocations` and `deallocations` (the file keeps only
/// the snapshots the breakdown references). Dropped: `numHosts`, `version`,
/// `hloModules`.
pub fn memory_profile_from_json(v: &Value) -> Result<MemoryProfile, LegacyError> {
    let per_allocator = v
        .get("memoryProfilePerAllocator")
        .and_then(Value::as_object)
        .ok_or_else(|| shape(LegacyTool::MemoryProfile, "memoryProfilePerAllocator is not an object"))?;
    let allocators: BTreeMap<String, AllocatorProfile> =
        per_allocator.iter().map(|(id, a)| (id.clone(), allocator(a))).collect();
    Ok(MemoryProfile { allocators })
}
