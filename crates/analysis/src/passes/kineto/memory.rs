//! The PyTorch memory timeline: every `[memory]` event of the trace as a
//! point per allocator (the importer turns them into `MemoryAllocation` /
//! `MemoryDeallocation` events on `/host:CPU`; see
//! `proflens_format::chrome_trace`). Unlike XProf's memory profile (which
//! samples 1000 points and explains the peak) it keeps every point and the
//! caching allocator's reserved bytes.

use crate::common::schema::{StatPicker, HOST_PLANE};
use proflens_model::{Profile, StatValue};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryPoint {
    pub time_ps: i64,
    /// Bytes held by tensors (`Total Allocated`).
    pub allocated_bytes: i64,
    /// Bytes the caching allocator holds (`Total Reserved`; 0 when the
    /// trace does not record it, as PyTorch 1.9 did not).
    pub reserved_bytes: i64,
    /// This event's size: positive for an allocation, negative for a free.
    pub delta_bytes: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AllocatorSeries {
    /// `GPU_<n>`, `CPU`, …
    pub allocator: String,
    pub points: Vec<MemoryPoint>,
    pub peak_allocated_bytes: i64,
    pub peak_reserved_bytes: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemoryTimeline {
    /// Sorted by allocator name.
    pub allocators: Vec<AllocatorSeries>,
}

pub fn memory_timeline(profile: &Profile) -> MemoryTimeline {
    let Some(plane) = profile.planes.iter().find(|p| profile.str(p.name) == HOST_PLANE) else {
        return MemoryTimeline { allocators: Vec::new() };
    };
    let key = |k: &str| profile.strings.lookup(k);
    let picker = StatPicker::new(
        profile,
        // `Total Reserved` is kept under its Kineto name by the importer.
        &[key("allocator_name"), key("bytes_allocated"), key("Total Reserved"), key("allocation_bytes")],
    );
    let mut values: [Option<StatValue>; 4] = [None; 4];
    let mut series: BTreeMap<String, Vec<MemoryPoint>> = BTreeMap::new();
    for line in &plane.lines {
        let ev = &line.events;
        for i in 0..ev.len() {
            let sign = match profile.str(plane.event_metadata[ev.metadata[i] as usize].name) {
                "MemoryAllocation" => 1,
                "MemoryDeallocation" => -1,
                _ => continue,
            };
            picker.pick(profile, plane, line, i, &mut values);
            let int = |s: usize| values[s].and_then(|v| v.as_i64()).unwrap_or(0);
            let allocator = values[0].map(|v| v.to_string()).unwrap_or_default();
            series.entry(allocator).or_default().push(MemoryPoint {
                time_ps: ev.start_ps.at(i),
                allocated_bytes: int(1),
                reserved_bytes: int(2),
                delta_bytes: sign * int(3),
            });
        }
    }
    let allocators = series
        .into_iter()
        .map(|(allocator, mut points)| {
            points.sort_by_key(|p| p.time_ps);
            AllocatorSeries {
                peak_allocated_bytes: points.iter().map(|p| p.allocated_bytes).max().unwrap_or(0),
                peak_reserved_bytes: points.iter().map(|p| p.reserved_bytes).max().unwrap_or(0),
                allocator,
                points,
            }
        })
        .collect();
    MemoryTimeline { allocators }
}
