//! Memory profile: allocator activity over time, the peak, and what was
//! allocated at the peak (xprof/convert/xplane_to_memory_profile.cc).

pub mod legacy;
mod tool;

pub use tool::MemoryProfileTool;

use crate::common::schema::{StatKeys, StatPicker, HOST_PLANE};
use crate::passes::grouping::Grouping;
use proflens_model::{Profile, StatValue};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, HashMap};

/// Timeline points kept per allocator (XProf's sampling).
const MAX_TIMELINE_POINTS: usize = 1000;

#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct AllocatorStats {
    pub stack_reserved_bytes: i64,
    pub heap_allocated_bytes: i64,
    pub free_memory_bytes: i64,
    pub fragmentation: f64,
    pub peak_bytes_in_use: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Activity {
    pub allocation: bool,
    pub requested_bytes: i64,
    pub allocation_bytes: i64,
    pub address: u64,
    pub op: String,
    pub step: i64,
    pub region: String,
    pub data_type: String,
    pub shape: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    /// Time from the start of the event's thread line, ps (as XProf reports it).
    pub time_offset_ps: i64,
    pub stats: AllocatorStats,
    pub activity: Activity,
}

/// One row of the breakdown at the peak.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActiveAllocation {
    /// Index into `snapshots`, or `None` for a special row.
    pub snapshot: Option<usize>,
    /// Index into `special`, for special rows.
    pub special: Option<usize>,
    pub occurrences: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AllocatorProfile {
    pub peak_bytes_usage_lifetime: i64,
    pub peak: AllocatorStats,
    pub peak_time_ps: i64,
    pub capacity_bytes: i64,
    /// Snapshots referenced by the breakdown.
    pub snapshots: Vec<Snapshot>,
    pub active: Vec<ActiveAllocation>,
    /// Rows that are no single allocation: unused preallocated memory, stack.
    pub special: Vec<Activity>,
    /// Up to 1000 points of the whole timeline.
    pub timeline: Vec<Snapshot>,
    pub allocations: u64,
    pub deallocations: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemoryProfile {
    /// Allocator (memory id) → its profile, sorted by id.
    pub allocators: BTreeMap<String, AllocatorProfile>,
}

fn data_type_name(code: i64) -> &'static str {
    const NAMES: [&str; 24] = [
        "INVALID",
        "float",
        "double",
        "int32",
        "uint8",
        "int16",
        "int8",
        "string",
        "complex64",
        "int64",
        "bool",
        "qint8",
        "quint8",
        "qint32",
        "bfloat16",
        "qint16",
        "quint16",
        "uint16",
        "complex128",
        "half",
        "resource",
        "variant",
        "uint32",
        "uint64",
    ];
    usize::try_from(code).ok().and_then(|i| NAMES.get(i)).copied().unwrap_or("INVALID")
}

pub fn memory_profile(profile: &Profile, grouping: &Grouping) -> MemoryProfile {
    let Some(p) = profile.planes.iter().position(|pl| profile.str(pl.name) == HOST_PLANE) else {
        return MemoryProfile { allocators: BTreeMap::new() };
    };
    let plane = &profile.planes[p];
    let k = StatKeys::new(profile);
    let key = |name: &str| profile.strings.lookup(name);
    let picker = StatPicker::new(
        profile,
        &[
            key("allocator_name"),
            key("index_on_host"),
            key("device_ordinal"),
            key("bytes_reserved"),
            key("bytes_allocated"),
            key("bytes_available"),
            key("fragmentation"),
            key("peak_bytes_in_use"),
            key("requested_bytes"),
            key("allocation_bytes"),
            key("addr"),
            k.tf_op,
            key("region_type"),
            key("data_type"),
            k.shape,
        ],
    );
    let mut values: [Option<StatValue>; 15] = [None; 15];
    let mut per_allocator: BTreeMap<String, Vec<Snapshot>> = BTreeMap::new();
    for (l, line) in plane.lines.iter().enumerate() {
        let ev = &line.events;
        for i in 0..ev.len() {
            let name = profile.str(plane.event_metadata[ev.metadata[i] as usize].name);
            let allocation = match name {
                "MemoryAllocation" => true,
                "MemoryDeallocation" => false,
                _ => continue,
            };
            picker.pick(profile, plane, line, i, &mut values);
            let int = |s: usize| values[s].and_then(|v| v.as_i64()).unwrap_or(0);
            let text = |s: usize| values[s].map(|v| v.to_string()).unwrap_or_default();
            let id = values[0].or(values[1]).or(values[2]).map(|v| v.to_string()).unwrap_or_default();
            let snapshot = Snapshot {
                time_offset_ps: ev.start_ps.at(i) - line.timestamp_ps,
                stats: AllocatorStats {
                    stack_reserved_bytes: int(3),
                    heap_allocated_bytes: int(4),
                    free_memory_bytes: int(5),
                    fragmentation: values[6].and_then(|v| v.as_f64()).unwrap_or(0.0),
                    peak_bytes_in_use: int(7),
                },
                activity: Activity {
                    allocation,
                    requested_bytes: int(8),
                    allocation_bytes: int(9),
                    address: values[10].and_then(|v| v.as_u64()).unwrap_or(0),
                    op: text(11),
                    step: grouping.group(p, l, i).map_or(-1, i64::from),
                    region: text(12),
                    data_type: data_type_name(int(13)).to_string(),
                    shape: text(14),
                },
            };
            per_allocator.entry(id).or_default().push(snapshot);
        }
    }
    MemoryProfile { allocators: per_allocator.into_iter().map(|(id, snaps)| (id, allocator_profile(snaps))).collect() }
}

fn allocator_profile(mut snaps: Vec<Snapshot>) -> AllocatorProfile {
    // Summary over the events in arrival order.
    let mut peak = AllocatorStats::default();
    let (mut lifetime_peak, mut peak_time, mut capacity) = (0, 0, 0);
    for s in &snaps {
        lifetime_peak = s.stats.peak_bytes_in_use;
        let in_use = s.stats.stack_reserved_bytes + s.stats.heap_allocated_bytes;
        if in_use >= peak.peak_bytes_in_use {
            peak = AllocatorStats { peak_bytes_in_use: in_use, ..s.stats };
            peak_time = s.time_offset_ps;
            capacity = in_use + s.stats.free_memory_bytes;
        }
    }
    snaps.sort_by_key(|s| s.time_offset_ps);
    // Events outside any step belong to the step after the last known one.
    let mut last_step = -1;
    for s in &mut snaps {
        if s.activity.step < 0 {
            s.activity.step = last_step + 1;
        } else {
            last_step = s.activity.step;
        }
    }
    // A deallocation describes what it frees: copy it from the allocation at its address.
    let mut live: HashMap<u64, usize> = HashMap::new();
    for i in 0..snaps.len() {
        if snaps[i].activity.allocation {
            live.insert(snaps[i].activity.address, i);
        } else if let Some(&a) = live.get(&snaps[i].activity.address) {
            let (op, region, dtype, shape) = {
                let from = &snaps[a].activity;
                (from.op.clone(), from.region.clone(), from.data_type.clone(), from.shape.clone())
            };
            let to = &mut snaps[i].activity;
            (to.op, to.region, to.data_type, to.shape) = (op, region, dtype, shape);
        }
    }
    let allocations = snaps.iter().filter(|s| s.activity.allocation).count() as u64;
    let deallocations = snaps.len() as u64 - allocations;
    let timeline = sample(&snaps);

    // The step of the last snapshot at the peak, replayed up to the peak time.
    let in_use = |s: &Snapshot| s.stats.stack_reserved_bytes + s.stats.heap_allocated_bytes;
    let peak_step = snaps.iter().rev().find(|s| in_use(s) == peak.peak_bytes_in_use).map_or(0, |s| s.activity.step);
    let mut unmapped = peak.heap_allocated_bytes;
    let mut unmatched = 0;
    let mut active: BTreeMap<u64, usize> = BTreeMap::new();
    for (i, s) in snaps.iter().enumerate() {
        if s.activity.step != peak_step || s.time_offset_ps > peak_time {
            continue;
        }
        if s.activity.allocation {
            active.insert(s.activity.address, i);
            unmapped -= s.activity.allocation_bytes;
        } else {
            if active.remove(&s.activity.address).is_none() {
                unmatched += s.activity.allocation_bytes;
            }
            unmapped += s.activity.allocation_bytes;
        }
    }
    unmapped -= unmatched;
    let mut special = Vec::new();
    let special_row = |bytes: i64, op: &str, region: &str, dtype: &str, shape: &str| Activity {
        allocation: true,
        requested_bytes: bytes,
        allocation_bytes: bytes,
        address: 0,
        op: op.into(),
        step: peak_step,
        region: region.into(),
        data_type: dtype.into(),
        shape: shape.into(),
    };
    if unmapped > 0 {
        special.push(special_row(
            unmapped,
            "unused preallocated device memory",
            "persist/dynamic",
            "INVALID",
            "unknown",
        ));
    }
    if peak.stack_reserved_bytes > 0 {
        special.push(special_row(peak.stack_reserved_bytes, "stack", "stack", "INVALID", "unknown"));
    }
    // Rows: live allocations and special rows, largest first; identical neighbours merge.
    enum Row {
        Live(usize),
        Special(usize),
    }
    let activity_of = |r: &Row| match *r {
        Row::Live(i) => &snaps[i].activity,
        Row::Special(i) => &special[i],
    };
    let mut rows: Vec<Row> =
        active.values().map(|&i| Row::Live(i)).chain((0..special.len()).map(Row::Special)).collect();
    rows.sort_by(|a, b| {
        let (a, b) = (activity_of(a), activity_of(b));
        b.allocation_bytes
            .cmp(&a.allocation_bytes)
            .then(b.requested_bytes.cmp(&a.requested_bytes))
            .then_with(|| a.op.cmp(&b.op))
            .then_with(|| a.region.cmp(&b.region))
            .then_with(|| a.data_type.cmp(&b.data_type))
            .then_with(|| a.shape.cmp(&b.shape))
    });
    let same = |a: &Activity, b: &Activity| {
        (a.allocation_bytes, a.requested_bytes, &a.op, &a.region, &a.data_type, &a.shape)
            == (b.allocation_bytes, b.requested_bytes, &b.op, &b.region, &b.data_type, &b.shape)
    };
    let mut kept: Vec<Snapshot> = Vec::new();
    let mut out: Vec<ActiveAllocation> = Vec::new();
    let mut previous: Option<&Row> = None;
    for row in &rows {
        if let (Some(prev), Some(last)) = (previous, out.last_mut()) {
            if same(activity_of(prev), activity_of(row)) {
                last.occurrences += 1;
                continue;
            }
        }
        let entry = match *row {
            Row::Live(i) => {
                kept.push(snaps[i].clone());
                ActiveAllocation { snapshot: Some(kept.len() - 1), special: None, occurrences: 1 }
            }
            Row::Special(i) => ActiveAllocation { snapshot: None, special: Some(i), occurrences: 1 },
        };
        out.push(entry);
        previous = Some(row);
    }
    AllocatorProfile {
        peak_bytes_usage_lifetime: lifetime_peak,
        peak,
        peak_time_ps: peak_time,
        capacity_bytes: capacity,
        snapshots: kept,
        active: out,
        special,
        timeline,
        allocations,
        deallocations,
    }
}

/// At most 1000 points: the snapshots are cut into consecutive boxes and the
/// one using the most memory in each box is kept.
fn sample(snaps: &[Snapshot]) -> Vec<Snapshot> {
    let n = snaps.len();
    if n <= MAX_TIMELINE_POINTS {
        return snaps.to_vec();
    }
    let width = n / MAX_TIMELINE_POINTS;
    let narrow_boxes = MAX_TIMELINE_POINTS * (width + 1) - n;
    let mut out = Vec::with_capacity(MAX_TIMELINE_POINTS);
    let mut start = 0;
    for b in 0..MAX_TIMELINE_POINTS {
        let w = if b < narrow_boxes { width } else { width + 1 };
        let chunk = &snaps[start..(start + w).min(n)];
        if let Some(best) = chunk.iter().max_by_key(|s| s.stats.stack_reserved_bytes + s.stats.heap_allocated_bytes) {
            out.push(best.clone());
        }
        start += w;
    }
    out
}

/// The breakdown at the peak of every allocator, as CSV.
pub fn breakdown_csv(view: &MemoryProfile) -> String {
    use crate::common::csv::csv_field;
    let mut out =
        String::from("allocator,op,allocation_bytes,requested_bytes,occurrences,region_type,data_type,shape,step\n");
    for (id, a) in &view.allocators {
        for row in &a.active {
            let activity = match (row.snapshot, row.special) {
                (Some(i), _) => a.snapshots.get(i).map(|s| &s.activity),
                (None, Some(i)) => a.special.get(i),
                (None, None) => None,
            };
            let Some(x) = activity else { continue };
            out += &format!(
                "{},{},{},{},{},{},{},{},{}\n",
                csv_field(id),
                csv_field(&x.op),
                x.allocation_bytes,
                x.requested_bytes,
                row.occurrences,
                csv_field(&x.region),
                csv_field(&x.data_type),
                csv_field(&x.shape),
                x.step
            );
        }
    }
    out
}

fn stats_json(s: &AllocatorStats) -> Value {
    // Proto3 JSON: NaN as a string, whole numbers without a fraction.
    let fragmentation = match s.fragmentation {
        f if f.is_nan() => json!("NaN"),
        f if f.fract() == 0.0 && f.abs() < 1e15 => json!(f as i64),
        f => json!(f),
    };
    json!({
        "stackReservedBytes": s.stack_reserved_bytes.to_string(),
        "heapAllocatedBytes": s.heap_allocated_bytes.to_string(),
        "freeMemoryBytes": s.free_memory_bytes.to_string(),
        "fragmentation": fragmentation,
        "peakBytesInUse": s.peak_bytes_in_use.to_string(),
    })
}

fn activity_json(a: &Activity) -> Value {
    json!({
        "memoryActivity": if a.allocation { "ALLOCATION" } else { "DEALLOCATION" },
        "requestedBytes": a.requested_bytes.to_string(),
        "allocationBytes": a.allocation_bytes.to_string(),
        "address": a.address.to_string(),
        "tfOpName": a.op,
        "stepId": a.step.to_string(),
        "regionType": a.region,
        "dataType": a.data_type,
        "tensorShape": a.shape,
    })
}

fn snapshot_json(s: &Snapshot) -> Value {
    json!({"timeOffsetPs": s.time_offset_ps.to_string(), "aggregationStats": stats_json(&s.stats), "activityMetadata": activity_json(&s.activity)})
}

/// XProf 2.24's `memory_profile` JSON (proto3 JSON of MemoryProfile).
pub fn to_xprof_json(view: &MemoryProfile) -> Value {
    let mut per_allocator = Map::new();
    for (id, a) in &view.allocators {
        let active: Vec<Value> = a
            .active
            .iter()
            .map(|r| {
                json!({
                    "snapshotIndex": r.snapshot.map_or(-1, |i| i as i64).to_string(),
                    "specialIndex": r.special.map_or(-1, |i| i as i64).to_string(),
                    "numOccurrences": r.occurrences.to_string(),
                })
            })
            .collect();
        per_allocator.insert(
            id.clone(),
            json!({
                "memoryProfileSnapshots": a.snapshots.iter().map(snapshot_json).collect::<Vec<_>>(),
                "profileSummary": {
                    "peakBytesUsageLifetime": a.peak_bytes_usage_lifetime.to_string(),
                    "peakStats": stats_json(&a.peak),
                    "peakStatsTimePs": a.peak_time_ps.to_string(),
                    "memoryCapacity": a.capacity_bytes.to_string(),
                },
                "activeAllocations": active,
                "specialAllocations": a.special.iter().map(activity_json).collect::<Vec<_>>(),
                "sampledTimelineSnapshots": a.timeline.iter().map(snapshot_json).collect::<Vec<_>>(),
            }),
        );
    }
    json!({
        "memoryProfilePerAllocator": per_allocator,
        "numHosts": 1,
        "memoryIds": view.allocators.keys().collect::<Vec<_>>(),
        "version": 1,
        "hloModules": [],
    })
}
