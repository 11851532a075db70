//! The memory view of one module: its buffers and allocations, the heap
//! replay, the buffers at the peak and the allocation timeline.

use super::buffer::{allocation_category, is_indefinite, is_reusable, resolve_shape, Buffer};
use super::heap::Simulation;
use super::model::{
    AllocatedBuffer, BufferBlock, HeapObject, IndefiniteAllocation, MemoryViewer, MemoryViewerError, Source,
};
use crate::hlo::text::{shape_text, ModuleIndex};
use proflens_model::hlo::{BufferAllocation, HloInstruction, HloModule, LogicalBuffer};
use rustc_hash::FxHashMap;

/// Buffers smaller than this are shown as one `small` entry.
pub const SMALL_BUFFER_SIZE: i64 = 16 * 1024;

/// XProf's palette for the allocation timeline's buffers
/// (`kBufferColors` in xprof/convert/hlo_proto_to_memory_visualization_utils.cc,
/// the same as xprof/frontend/app/common/utils/utils.ts's).
const BUFFER_COLORS: &[&str] = &[
    "#e91e63", "#2196f3", "#81c784", "#4dd0e1", "#3f51b5", "#e53935", "#ff9100", "#b39ddb", "#90a4ae", "#26c6da",
    "#ad1457", "#03a9f4", "#2196f3", "#c2185b", "#795548", "#f9a825", "#00bfa5", "#880e4f", "#d500f9", "#ce93d8",
    "#ec407a", "#4caf50", "#ff8f00", "#ffca28", "#ab47bc", "#00e5ff", "#ff9800", "#40c4ff", "#1e88e5", "#9fa8da",
    "#bf360c", "#00b8d4", "#f57f17", "#64b5f6", "#e040fb", "#ffab91", "#4caf50", "#01579b", "#66bb6a", "#ef9a9a",
    "#558b2f", "#fb8c00", "#ff4081", "#00e676", "#388e3c", "#424242", "#6d4c41", "#c62828", "#616161", "#00897b",
    "#448aff", "#0d47a1", "#607d8b", "#673ab7", "#00c853", "#2e7d32", "#ffa726", "#5e35b1", "#ba68c8", "#8d6e63",
    "#00bcd4", "#ff6f00", "#f4511e", "#ff1744", "#9e9e9e", "#d81b60", "#4a148c", "#26a69a", "#689f38", "#7b1fa2",
    "#b0bec5", "#304ffe", "#f48fb1", "#ffd600", "#ffb74d", "#8bc34a", "#303f9f", "#5d4037", "#80cbc4", "#ffcc80",
    "#00acc1", "#3e2723", "#ff5252", "#ff7043", "#e91e63", "#ea80fc", "#e65100", "#d84315", "#212121", "#ff5722",
    "#1976d2", "#2962ff", "#bdbdbd", "#3949ab", "#69f0ae", "#d50000", "#ffd740", "#c0ca33", "#ff6e40", "#00b0ff",
    "#2979ff", "#e64a19", "#7c4dff", "#607d8b", "#009688", "#ffb300", "#c51162", "#ffc400", "#29b6f6", "#3d5afe",
    "#76ff03", "#cddc39", "#b388ff", "#5c6bc0", "#9e9d24", "#7cb342", "#ef5350", "#fdd835", "#ef6c00", "#4fc3f7",
    "#6200ea", "#004d40", "#ff8a65", "#ffab00", "#80deea", "#0097a7", "#7e57c2", "#ff6d00", "#1565c0", "#455a64",
    "#ffc107", "#4527a0", "#ff5722", "#f44336", "#f57c00", "#827717", "#a5d6a7", "#82b1ff", "#9c27b0", "#ff80ab",
    "#e1bee7", "#78909c", "#311b92", "#00695c", "#4e342e", "#3f51b5", "#651fff", "#9e9e9e", "#81d4fa", "#f8bbd0",
    "#b71c1c", "#0091ea", "#673ab7", "#a1887f", "#4db6ac", "#ffa000", "#6a1b9a", "#43a047", "#bcaaa4", "#546e7a",
    "#aeea00", "#e57373", "#ffccbc", "#006064", "#fbc02d", "#ffeb3b", "#8bc34a", "#039be5", "#8e24aa", "#80d8ff",
    "#009688", "#9ccc65", "#512da8", "#ffc107", "#757575", "#0277bd", "#ff3d00", "#33691e", "#03a9f4", "#00838f",
    "#ff8a80", "#283593", "#f50057", "#1a237e", "#90caf9", "#9c27b0", "#aa00ff", "#aed581", "#afb42b", "#9575cd",
    "#d32f2f", "#64dd17", "#f44336", "#795548", "#cddc39", "#ff9e80", "#7986cb", "#dd2c00", "#0288d1", "#ff9800",
    "#263238", "#00796b", "#42a5f5", "#8c9eff", "#1b5e20", "#ffab40", "#536dfe", "#00bcd4", "#f06292",
];

/// The size of XProf's timeline drawing (`graph_width`, `graph_height`):
/// a block smaller than one unit of it either way is not drawn.
const TIMELINE_EXTENT: f64 = 4096.0;

fn mib(bytes: i64) -> f64 {
    bytes as f64 / (1u64 << 20) as f64
}

fn source_of(module: &HloModule, instr: &HloInstruction) -> Source {
    let (file, line) = module.source_location(instr);
    Source {
        file_name: file.to_string(),
        line_number: line,
        stack_frame: module.stack_frame_lines(instr.metadata.stack_frame_id).join("\n"),
    }
}

/// The memory view of one module's buffers in memory space `color` (0 =
/// device memory).
pub fn memory_viewer(module: &HloModule, color: i64) -> Result<MemoryViewer, MemoryViewerError> {
    let assignment = module.buffer_assignment.as_ref().ok_or(MemoryViewerError::NoBufferAssignment)?;
    let index = ModuleIndex::new(module);
    let logical: FxHashMap<i64, &LogicalBuffer> = assignment.logical_buffers.iter().map(|b| (b.id, b)).collect();
    let mut allocations: Vec<&BufferAllocation> = assignment.allocations.iter().filter(|a| a.color == color).collect();
    allocations.sort_by_key(|a| a.index);

    // Logical buffers that an allocation holds, with their defining instruction.
    let mut buffers: FxHashMap<i64, Buffer<'_>> = FxHashMap::default();
    for allocation in &assignment.allocations {
        for assigned in &allocation.assigned {
            let Some(proto) = logical.get(&assigned.logical_buffer_id) else { continue };
            let instruction = index
                .instruction(proto.instruction_id)
                .filter(|_| proto.instruction_id != 0 || proto.instruction_name.is_empty())
                .or_else(|| index.by_name(&proto.instruction_name));
            let Some(instruction) = instruction else { continue };
            buffers.insert(
                proto.id,
                Buffer {
                    proto,
                    allocation,
                    instruction,
                    offset: assigned.offset,
                    shape: resolve_shape(&instruction.shape, &proto.shape_index),
                    ref_count: 0,
                    canonical: None,
                    span: None,
                },
            );
        }
    }

    // The heap trace of each allocation: the allocation of its first event's buffer.
    let mut trace_of_allocation: FxHashMap<i64, usize> = FxHashMap::default();
    for (i, trace) in assignment.heap_traces.iter().enumerate() {
        let Some(first) = trace.events.first() else { continue };
        if let Some(b) = buffers.get(&first.buffer_id) {
            trace_of_allocation.insert(b.allocation.index, i);
        }
    }
    let trace_id = allocations
        .iter()
        .filter(|a| !is_indefinite(a))
        .find_map(|a| trace_of_allocation.get(&a.index).copied())
        .or_else(|| {
            // Else the trace with the most events on buffers of this colour.
            let count = |t: &proflens_model::hlo::HeapSimulatorTrace| {
                t.events.iter().filter(|e| buffers.get(&e.buffer_id).is_some_and(|b| b.proto.color == color)).count()
            };
            let best = assignment.heap_traces.iter().enumerate().max_by_key(|(i, t)| (count(t), std::cmp::Reverse(*i)));
            best.filter(|(_, t)| count(t) > 0).map(|(i, _)| i)
        });

    let mut sim = Simulation::default();
    if let Some(trace) = trace_id.and_then(|i| assignment.heap_traces.get(i)) {
        sim.run(trace, &mut buffers)?;
    }

    // Indefinite allocations: their largest buffer stands for them at the peak.
    let mut objects = PeakObjects::default();
    let mut indefinite_bytes = 0i64;
    for allocation in allocations.iter().filter(|a| is_indefinite(a)) {
        let best = allocation.assigned.iter().filter_map(|a| buffers.get(&a.logical_buffer_id)).fold(
            None::<&Buffer<'_>>,
            |best, b| match best {
                Some(x) if x.proto.size >= b.proto.size => Some(x),
                _ if b.proto.size > 0 => Some(b),
                other => other,
            },
        );
        if let Some(b) = best {
            indefinite_bytes = indefinite_bytes.saturating_add(allocation.size);
            objects.add(module, b);
        }
    }
    for id in &sim.peak_buffers {
        if let Some(b) = buffers.get(id) {
            objects.add(module, b);
        }
    }
    objects.finish();

    let add = mib(indefinite_bytes);
    let mut by_size: Vec<usize> = (0..objects.heap.len()).collect();
    by_size
        .sort_by(|&a, &b| objects.heap[b].logical_buffer_size_mib.total_cmp(&objects.heap[a].logical_buffer_size_mib));
    let mut max_heap_to_by_size = vec![0; by_size.len()];
    for (pos, &i) in by_size.iter().enumerate() {
        max_heap_to_by_size[i] = pos;
    }
    let mut spans: Vec<(i64, i64, i64)> =
        sim.seen.iter().filter_map(|id| buffers.get(id).and_then(|b| b.span.map(|(s, e)| (*id, s, e)))).collect();
    spans.sort_unstable();

    let sum = |f: &dyn Fn(&BufferAllocation) -> bool| {
        mib(allocations.iter().filter(|a| f(a)).fold(0i64, |t, a| t.saturating_add(a.size)))
    };
    let mut view = MemoryViewer {
        module_name: module.name.clone(),
        entry_computation_name: module.entry_computation_name.clone(),
        heap_sizes: sim.heap_timeline.iter().map(|&b| mib(b) + add).collect(),
        unpadded_heap_sizes: sim.unpadded_timeline.iter().map(|&b| mib(b) + add).collect(),
        hlo_instruction_names: sim.names.clone(),
        peak_heap_mib: mib(sim.peak_bytes) + add,
        peak_unpadded_heap_mib: mib(sim.peak_unpadded_bytes) + add,
        peak_heap_size_position: sim.peak_position,
        max_heap: objects.heap,
        by_size_to_max_heap: by_size,
        max_heap_to_by_size,
        logical_buffer_spans: spans,
        entry_computation_parameters_mib: sum(&|a| a.is_entry_computation_parameter),
        non_reusable_mib: sum(&|a| !is_reusable(a)),
        maybe_live_out_mib: sum(&|a| a.maybe_live_out),
        total_buffer_allocation_mib: sum(&|_| true),
        indefinite_buffer_allocation_mib: sum(&is_indefinite),
        indefinite_lifetimes: Vec::new(),
        buffer_blocks: Vec::new(),
    };
    view.indefinite_lifetimes =
        allocations.iter().filter(|a| is_indefinite(a)).map(|a| indefinite_allocation(a, &buffers)).collect();
    view.buffer_blocks = buffer_blocks(module, &allocations, &trace_of_allocation, &buffers, &objects.colors, &sim);
    Ok(view)
}

fn indefinite_allocation(a: &BufferAllocation, buffers: &FxHashMap<i64, Buffer<'_>>) -> IndefiniteAllocation {
    let mut attributes = Vec::new();
    if a.is_entry_computation_parameter {
        attributes.push("entry computation parameter".to_string());
    }
    if a.maybe_live_out {
        attributes.push("may-be live out".to_string());
    }
    if is_reusable(a) {
        attributes.push("reusable".to_string());
    }
    let logical_buffers: Vec<AllocatedBuffer> = a
        .assigned
        .iter()
        .map(|assigned| {
            let b = buffers.get(&assigned.logical_buffer_id);
            AllocatedBuffer {
                id: assigned.logical_buffer_id,
                shape: b.map(|b| shape_text(&b.shape)).unwrap_or_default(),
                size_mib: mib(assigned.size),
                hlo_name: b.map(|b| b.instruction.name.clone()).unwrap_or_default(),
                shape_index: b.map(|b| b.proto.shape_index.clone()).unwrap_or_default(),
            }
        })
        .collect();
    let common_shape = match logical_buffers.split_first() {
        Some((first, rest)) if rest.iter().all(|b| b.shape == first.shape) => first.shape.clone(),
        _ => String::new(),
    };
    IndefiniteAllocation { id: a.index, size_mib: mib(a.size), attributes, logical_buffers, common_shape }
}

/// The allocation-timeline rectangles of the traced (non-indefinite)
/// allocations, as XProf's ConvertAllocationTimeline lays them out: each
/// allocation a white block, then its buffers that have a live range. A
/// buffer shown at the peak takes that entry's colour; any other takes the
/// colour of XProf's drawing counter, which counts only the blocks big
/// enough to be drawn (at least one unit of a 4096 × 4096 drawing).
fn buffer_blocks(
    module: &HloModule,
    allocations: &[&BufferAllocation],
    trace_of_allocation: &FxHashMap<i64, usize>,
    buffers: &FxHashMap<i64, Buffer<'_>>,
    colors: &FxHashMap<i64, i32>,
    sim: &Simulation,
) -> Vec<BufferBlock> {
    let steps = sim.event_count;
    let traced: Vec<&BufferAllocation> = allocations
        .iter()
        .filter(|a| !is_indefinite(a) && trace_of_allocation.contains_key(&a.index))
        .copied()
        .collect();
    let total_size: i64 = traced.iter().map(|a| a.size).sum();
    if steps <= 0 || total_size <= 0 {
        return Vec::new();
    }
    let (scale_x, scale_y) = (TIMELINE_EXTENT / steps as f64, TIMELINE_EXTENT / total_size as f64);
    let drawable = |width: i64, height: i64| width as f64 * scale_x >= 1.0 && height as f64 * scale_y >= 1.0;
    let mut drawn = 0usize;
    let mut blocks = Vec::new();
    // The allocations are stacked: each starts where the previous ends.
    let mut allocation_offset = 0i64;
    for allocation in traced {
        let category = allocation_category(allocation).to_string();
        blocks.push(BufferBlock {
            logical_buffer_id: -1,
            name: category.clone(),
            offset: allocation_offset,
            size: allocation.size,
            end_step: steps,
            category: category.clone(),
            color: "#ffffff".into(),
            ..BufferBlock::default()
        });
        drawn += usize::from(drawable(steps, allocation.size));
        for assigned in &allocation.assigned {
            let Some(b) = buffers.get(&assigned.logical_buffer_id) else { continue };
            // A sharer that revived freed memory has a live range of its
            // own and is drawn (as in XProf's goldens: the newest source
            // skips sharers, but its canonical link is not set for them).
            let Some((start, end)) = b.span else { continue };
            let color = colors.get(&b.proto.id).map_or(drawn, |&c| usize::try_from(c).unwrap_or(0));
            blocks.push(BufferBlock {
                logical_buffer_id: b.proto.id,
                name: b.name_with_index(),
                offset: allocation_offset + b.offset,
                size: b.proto.size,
                start_step: start,
                end_step: end,
                tf_op_name: b.instruction.metadata.op_name.clone(),
                category: category.clone(),
                source: source_of(module, b.instruction),
                shape_string: shape_text(&b.shape),
                unpadded_size: b.unpadded_size(),
                color: BUFFER_COLORS[color % BUFFER_COLORS.len()].to_string(),
            });
            drawn += usize::from(drawable(end - start, b.proto.size));
        }
        allocation_offset += allocation.size;
    }
    blocks
}

/// The heap objects at the peak, numbered in order.
#[derive(Default)]
struct PeakObjects {
    heap: Vec<HeapObject>,
    small_bytes: i64,
    colors: FxHashMap<i64, i32>,
}

impl PeakObjects {
    fn add(&mut self, module: &HloModule, b: &Buffer<'_>) {
        if b.proto.size < SMALL_BUFFER_SIZE {
            self.small_bytes += b.proto.size;
            return;
        }
        let numbered = self.heap.len() as i32;
        self.colors.insert(b.proto.id, numbered);
        let shape = shape_text(&b.shape);
        let op_name = &b.instruction.metadata.op_name;
        let source = source_of(module, b.instruction);
        self.heap.push(HeapObject {
            numbered,
            label: format!("{}: {} # {}", b.instruction.name, shape, op_name),
            logical_buffer_id: b.proto.id,
            logical_buffer_size_mib: mib(b.proto.size),
            unpadded_shape_mib: mib(b.unpadded_size()),
            instruction_name: b.name_with_index(),
            shape_string: shape,
            tf_op_name: op_name.clone(),
            group_name: allocation_category(b.allocation).to_string(),
            op_code: b.instruction.opcode.clone(),
            source: if source.file_name.is_empty() { Source::default() } else { source },
        });
    }

    fn finish(&mut self) {
        if self.small_bytes != 0 {
            self.heap.push(HeapObject {
                numbered: self.heap.len() as i32,
                label: format!("small (<{SMALL_BUFFER_SIZE} bytes)"),
                logical_buffer_id: -1,
                logical_buffer_size_mib: mib(self.small_bytes),
                ..HeapObject::default()
            });
        }
    }
}

/// Picks a module by XProf's name (`jit_f(42)`), by plain name, or the one
/// with the largest buffer assignment when `name` is `None`.
pub fn select_module<'a>(modules: &'a [HloModule], name: Option<&str>) -> Option<&'a HloModule> {
    match name {
        Some(n) => modules.iter().find(|m| m.display_name() == n).or_else(|| modules.iter().find(|m| m.name == n)),
        None => modules.iter().max_by_key(|m| {
            m.buffer_assignment
                .as_ref()
                .map_or(0, |b| b.allocations.iter().fold(0i64, |total, a| total.saturating_add(a.size)))
        }),
    }
}
