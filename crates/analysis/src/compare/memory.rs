//! Memory peaks side by side: per allocator for the memory profile, and
//! the chosen XLA module's heap for the memory viewer.

use super::model::{Delta, Metric};
use crate::context::{Output, ToolError};
use crate::tools::memory_profile::{AllocatorProfile, MemoryProfile};
use crate::tools::memory_viewer::{MemoryViewer, MemoryViewerPage};

const MIB: f64 = (1u64 << 20) as f64;

pub fn compare(base: &Output, candidate: &Output, notes: &mut Vec<String>) -> Result<Vec<Metric>, ToolError> {
    if let (Some(b), Some(c)) = (base.model_as::<MemoryProfile>(), candidate.model_as::<MemoryProfile>()) {
        return Ok(profiles(b, c, notes));
    }
    if let (Some(b), Some(c)) = (base.model_as::<MemoryViewerPage>(), candidate.model_as::<MemoryViewerPage>()) {
        return viewers(b, c, notes);
    }
    Err(ToolError::Failed(format!("the {} view has no memory figures to compare", base.view)))
}

fn metric(name: String, unit: &str, base: f64, candidate: f64) -> Metric {
    Metric { name, unit: unit.into(), value: Delta::new(base, candidate) }
}

/// Every allocator on both sides: its peak, and the heap, stack and
/// fragmentation at the peak (one side's allocators are named in the notes).
fn profiles(b: &MemoryProfile, c: &MemoryProfile, notes: &mut Vec<String>) -> Vec<Metric> {
    let mut out = Vec::new();
    let ids: std::collections::BTreeSet<&String> = b.allocators.keys().chain(c.allocators.keys()).collect();
    for id in ids {
        let (ba, ca) = match (b.allocators.get(id), c.allocators.get(id)) {
            (Some(ba), Some(ca)) => (ba, ca),
            (None, _) => {
                notes.push(format!("Allocator {id} is only in the candidate."));
                continue;
            }
            (_, None) => {
                notes.push(format!("Allocator {id} is only in the baseline."));
                continue;
            }
        };
        let figure = |f: fn(&AllocatorProfile) -> f64| (f(ba), f(ca));
        let rows: [(&str, &str, (f64, f64)); 5] = [
            ("peak memory use", "MiB", figure(|a| a.peak_bytes_usage_lifetime as f64 / MIB)),
            ("heap at the peak", "MiB", figure(|a| a.peak.heap_allocated_bytes as f64 / MIB)),
            ("stack at the peak", "MiB", figure(|a| a.peak.stack_reserved_bytes as f64 / MIB)),
            ("fragmentation at the peak", "%", figure(|a| 100.0 * a.peak.fragmentation)),
            ("allocations", "", figure(|a| a.allocations as f64)),
        ];
        // XProf's fragmentation is NaN when nothing is allocated: no figure to compare.
        out.extend(
            rows.into_iter()
                .filter(|(_, _, (b, c))| b.is_finite() && c.is_finite())
                .map(|(name, unit, (bv, cv))| metric(format!("{id}: {name}"), unit, bv, cv)),
        );
    }
    out
}

fn viewers(b: &MemoryViewerPage, c: &MemoryViewerPage, notes: &mut Vec<String>) -> Result<Vec<Metric>, ToolError> {
    fn viewer<'a>(page: &'a MemoryViewerPage, role: &str) -> Result<&'a MemoryViewer, ToolError> {
        page.viewer.as_deref().ok_or_else(|| {
            ToolError::Failed(format!(
                "the {role} has no memory viewer for {}: {}",
                page.module,
                page.failed.clone().unwrap_or_default()
            ))
        })
    }
    let (bv, cv) = (viewer(b, "baseline")?, viewer(c, "candidate")?);
    if b.module != c.module {
        notes.push(format!("The modules differ: baseline {}, candidate {}.", b.module, c.module));
    }
    Ok(vec![
        metric("Peak heap".into(), "MiB", bv.peak_heap_mib, cv.peak_heap_mib),
        metric("Peak heap without padding".into(), "MiB", bv.peak_unpadded_heap_mib, cv.peak_unpadded_heap_mib),
        metric("Buffers at the peak".into(), "", bv.max_heap.len() as f64, cv.max_heap.len() as f64),
        metric("Total allocation".into(), "MiB", bv.total_buffer_allocation_mib, cv.total_buffer_allocation_mib),
    ])
}
