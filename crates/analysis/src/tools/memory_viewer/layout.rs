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

/// XProf's palette for buffers (xprof/frontend/app/common/utils/utils.ts),
/// the first entries: colours repeat past them.
const BUFFER_COLORS: &[&str] = &[
    "#e91e63", "#2196f3", "#81c784", "#4dd0e1", "#3f51b5", "#e53935", "#ff9100", "#b39ddb", "#90a4ae", "#26c6da",
    "#ad1457", "#03a9f4", "#2196f3", "#c2185b", "#795548", "#f9a825", "#00bfa5", "#880e4f", "#d500f9", "#ce93d8",
    "#ec407a", "#4caf50", "#ff8f00", "#ffca28", "#ab47bc", "#00e5ff", "#ff9800", "#40c4ff", "#1e88e5", "#9fa8da",
];

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

/// The allocation-timeline rectangles of the traced (non-indefinite) allocations.
fn buffer_blocks(
    module: &HloModule,
    allocations: &[&BufferAllocation],
    trace_of_allocation: &FxHashMap<i64, usize>,
    buffers: &FxHashMap<i64, Buffer<'_>>,
    colors: &FxHashMap<i64, i32>,
    sim: &Simulation,
) -> Vec<BufferBlock> {
    let steps = sim.event_count;
    let mut blocks = Vec::new();
    for allocation in allocations.iter().filter(|a| !is_indefinite(a) && trace_of_allocation.contains_key(&a.index)) {
        let category = allocation_category(allocation).to_string();
        blocks.push(BufferBlock {
            logical_buffer_id: -1,
            name: category.clone(),
            size: allocation.size,
            end_step: steps,
            category: category.clone(),
            color: "#ffffff".into(),
            ..BufferBlock::default()
        });
        for assigned in &allocation.assigned {
            let Some(b) = buffers.get(&assigned.logical_buffer_id) else { continue };
            let Some((start, end)) = b.span else { continue };
            let color = colors.get(&b.proto.id).map_or(blocks.len(), |&c| usize::try_from(c).unwrap_or(0));
            blocks.push(BufferBlock {
                logical_buffer_id: b.proto.id,
                name: b.name_with_index(),
                offset: b.offset,
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
        }
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
