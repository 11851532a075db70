//! Memory viewer (XProf's memory_viewer,
//! hlo_proto_to_memory_visualization_utils.cc): how one XLA module's buffers
//! fill device memory over its program order, from the buffer assignment
//! XLA recorded with the HLO.
//!
//! The heap simulator trace of the module's temporary allocation is
//! replayed (ALLOC adds a buffer, FREE removes it once every sharer let go,
//! SHARE_WITH reuses a canonical buffer); the heap size before each event is
//! the timeline, and the buffers live at the first maximum are the peak.
//! Allocations with indefinite lifetime (parameters, outputs, constants,
//! thread-local) are live throughout and add to every point. Buffers under
//! 16 KiB are summed into one `small` entry.

pub mod legacy;
mod tool;

pub use tool::{MemoryViewerPage, MemoryViewerTool};

use crate::hlo::text::{byte_size, shape_text, ModuleIndex};
use proflens_model::hlo::{BufferAllocation, HeapEventKind, HloInstruction, HloModule, LogicalBuffer, Shape};
use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

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

/// Where an instruction came from (file empty when unknown).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Source {
    pub file_name: String,
    pub line_number: i32,
    /// Frames innermost first, separated by newlines.
    pub stack_frame: String,
}

/// A buffer live at the peak (XProf's HeapObject).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HeapObject {
    /// Colour index.
    pub numbered: i32,
    /// `name: shape # framework op`, or `small (<16384 bytes)`.
    pub label: String,
    /// -1 for the small-buffers entry.
    pub logical_buffer_id: i64,
    pub logical_buffer_size_mib: f64,
    pub unpadded_shape_mib: f64,
    /// Instruction with its shape index (`custom-call.1{1}`).
    pub instruction_name: String,
    pub shape_string: String,
    pub tf_op_name: String,
    /// `Parameter`, `Output`, `Thread-local`, `Constant` or `Temporary`.
    pub group_name: String,
    pub op_code: String,
    pub source: Source,
}

/// One logical buffer of an allocation.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AllocatedBuffer {
    pub id: i64,
    pub shape: String,
    pub size_mib: f64,
    pub hlo_name: String,
    pub shape_index: Vec<i64>,
}

/// An allocation live for the whole program.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct IndefiniteAllocation {
    pub id: i64,
    pub size_mib: f64,
    /// `entry computation parameter`, `may-be live out`, `reusable`.
    pub attributes: Vec<String>,
    pub logical_buffers: Vec<AllocatedBuffer>,
    /// The shape all its buffers share, or empty.
    pub common_shape: String,
}

/// A rectangle of the allocation timeline: an allocation (id -1) or a buffer
/// over the steps it is live.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BufferBlock {
    pub logical_buffer_id: i64,
    pub name: String,
    pub offset: i64,
    pub size: i64,
    pub start_step: i64,
    pub end_step: i64,
    pub tf_op_name: String,
    pub category: String,
    pub source: Source,
    pub shape_string: String,
    pub unpadded_size: i64,
    pub color: String,
}

/// The tool's view model for one module.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MemoryViewer {
    pub module_name: String,
    pub entry_computation_name: String,
    /// Heap size (MiB, indefinite allocations included) before each heap
    /// event, then after the last.
    pub heap_sizes: Vec<f64>,
    pub unpadded_heap_sizes: Vec<f64>,
    /// Instruction of each heap event (empty for the final point).
    pub hlo_instruction_names: Vec<String>,
    pub peak_heap_mib: f64,
    pub peak_unpadded_heap_mib: f64,
    /// Index into `heap_sizes` of the peak.
    pub peak_heap_size_position: i64,
    /// Buffers live at the peak: indefinite ones first, then in program order.
    pub max_heap: Vec<HeapObject>,
    /// `max_heap` indices, largest first.
    pub by_size_to_max_heap: Vec<usize>,
    /// Position of each `max_heap` entry in the by-size order.
    pub max_heap_to_by_size: Vec<usize>,
    /// Live range (heap event indices) per logical buffer.
    pub logical_buffer_spans: Vec<(i64, i64, i64)>,
    pub entry_computation_parameters_mib: f64,
    pub non_reusable_mib: f64,
    pub maybe_live_out_mib: f64,
    pub total_buffer_allocation_mib: f64,
    pub indefinite_buffer_allocation_mib: f64,
    pub indefinite_lifetimes: Vec<IndefiniteAllocation>,
    pub buffer_blocks: Vec<BufferBlock>,
}

impl MemoryViewer {
    /// `max_heap` sorted by size, largest first.
    pub fn max_heap_by_size(&self) -> Vec<&HeapObject> {
        self.by_size_to_max_heap.iter().filter_map(|&i| self.max_heap.get(i)).collect()
    }
}

/// A logical buffer with what the tool needs of it.
struct Buffer<'a> {
    proto: &'a LogicalBuffer,
    allocation: &'a BufferAllocation,
    instruction: &'a HloInstruction,
    offset: i64,
    shape: Shape,
    ref_count: i64,
    canonical: Option<i64>,
    span: Option<(i64, i64)>,
}

impl Buffer<'_> {
    fn unpadded_size(&self) -> i64 {
        i64::try_from(unpadded_bytes(&self.shape)).unwrap_or(i64::MAX)
    }

    fn name_with_index(&self) -> String {
        if self.proto.shape_index.is_empty() {
            self.instruction.name.clone()
        } else {
            let index: Vec<String> = self.proto.shape_index.iter().map(i64::to_string).collect();
            format!("{}{{{}}}", self.instruction.name, index.join(","))
        }
    }
}

/// Bytes of a shape without layout padding; tuples count a pointer per element.
fn unpadded_bytes(shape: &Shape) -> u64 {
    if shape.element_type == proflens_model::hlo::TUPLE_TYPE {
        8 * shape.tuple_shapes.len() as u64
    } else {
        byte_size(shape)
    }
}

/// XProf resolves a buffer's shape by the last element of its shape index
/// only (a historical quirk kept for parity).
fn resolve_shape(shape: &Shape, index: &[i64]) -> Shape {
    match index.last().and_then(|&i| usize::try_from(i).ok()).and_then(|i| shape.tuple_shapes.get(i)) {
        Some(s) => s.clone(),
        None => shape.clone(),
    }
}

/// Live for the whole program. XProf 2.24 leaves thread-local allocations
/// (CPU scratch) out of both the timeline and this list.
fn is_indefinite(a: &BufferAllocation) -> bool {
    !a.is_thread_local && (a.is_entry_computation_parameter || a.is_constant || a.maybe_live_out)
}

fn is_reusable(a: &BufferAllocation) -> bool {
    !a.is_thread_local && !a.is_tuple
}

fn allocation_category(a: &BufferAllocation) -> &'static str {
    if a.is_entry_computation_parameter {
        "Parameter"
    } else if a.maybe_live_out {
        "Output"
    } else if a.is_thread_local {
        "Thread-local"
    } else if a.is_constant {
        "Constant"
    } else {
        "Temporary"
    }
}

fn source_of(module: &HloModule, instr: &HloInstruction) -> Source {
    let (file, line) = module.source_location(instr);
    Source {
        file_name: file.to_string(),
        line_number: line,
        stack_frame: module.stack_frame_lines(instr.metadata.stack_frame_id).join("\n"),
    }
}

/// Why a module has no memory view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MemoryViewerError {
    /// The profile recorded the module's HLO without its buffer assignment.
    NoBufferAssignment,
    /// The heap simulator trace contradicts itself.
    InconsistentTrace(String),
}

impl std::fmt::Display for MemoryViewerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MemoryViewerError::NoBufferAssignment => {
                write!(f, "The profile has no buffer assignment for this module, so its memory use is unknown.")
            }
            MemoryViewerError::InconsistentTrace(why) => {
                write!(f, "The module's heap simulator trace is inconsistent ({why}).")
            }
        }
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
            indefinite_bytes += allocation.size;
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

    let sum = |f: &dyn Fn(&BufferAllocation) -> bool| mib(allocations.iter().filter(|a| f(a)).map(|a| a.size).sum());
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

/// Replay of a heap simulator trace.
#[derive(Default)]
struct Simulation {
    heap_bytes: i64,
    unpadded_bytes: i64,
    peak_bytes: i64,
    peak_unpadded_bytes: i64,
    peak_position: i64,
    /// Live canonical buffers in program order.
    live: Vec<i64>,
    peak_buffers: Vec<i64>,
    heap_timeline: Vec<i64>,
    unpadded_timeline: Vec<i64>,
    names: Vec<String>,
    seen: FxHashSet<i64>,
    event_count: i64,
    /// Per canonical buffer, the buffer whose allocation put its memory on
    /// the heap: the allocated one, or the sharer that revived it after it
    /// was freed (XProf 2.24 gives such a sharer its own live range).
    holder: FxHashMap<i64, i64>,
}

impl Simulation {
    fn run(
        &mut self,
        trace: &proflens_model::hlo::HeapSimulatorTrace,
        buffers: &mut FxHashMap<i64, Buffer<'_>>,
    ) -> Result<(), MemoryViewerError> {
        self.event_count = trace.events.len() as i64;
        for event in &trace.events {
            self.heap_timeline.push(self.heap_bytes);
            self.unpadded_timeline.push(self.unpadded_bytes);
            self.names.push(event.instruction_name.clone());
            if !buffers.contains_key(&event.buffer_id) {
                continue;
            }
            self.seen.insert(event.buffer_id);
            match event.kind {
                HeapEventKind::Alloc => {
                    let root = canonical(buffers, event.buffer_id);
                    if let Some(b) = buffers.get_mut(&root) {
                        b.ref_count += 1;
                    }
                    self.holder.insert(root, event.buffer_id);
                    self.increase(buffers, event.buffer_id, true);
                }
                HeapEventKind::Free => {
                    let root = canonical(buffers, event.buffer_id);
                    let Some(b) = buffers.get_mut(&root) else { continue };
                    b.ref_count -= 1;
                    if b.ref_count < 0 {
                        return Err(MemoryViewerError::InconsistentTrace(format!(
                            "buffer {} is freed more often than allocated",
                            event.buffer_id
                        )));
                    }
                    if b.ref_count == 0 {
                        let holder = self.holder.remove(&root).unwrap_or(root);
                        self.decrease(buffers, holder)?;
                    }
                }
                HeapEventKind::ShareWith => {
                    let target = event.share_with_canonical_id;
                    if !buffers.contains_key(&target) || target == event.buffer_id {
                        continue;
                    }
                    if let Some(b) = buffers.get_mut(&event.buffer_id) {
                        b.canonical = Some(target);
                    }
                    let root = canonical(buffers, target);
                    let count = buffers.get_mut(&root).map_or(0, |b| {
                        b.ref_count += 1;
                        b.ref_count
                    });
                    if count == 1 {
                        self.holder.insert(root, event.buffer_id);
                        self.increase(buffers, event.buffer_id, true);
                    }
                }
            }
        }
        self.heap_timeline.push(self.heap_bytes);
        self.unpadded_timeline.push(self.unpadded_bytes);
        self.names.push(String::new());
        Ok(())
    }

    /// XProf's IncreaseMemoryUsage on the buffer that holds the memory.
    fn increase(&mut self, buffers: &mut FxHashMap<i64, Buffer<'_>>, id: i64, start_span: bool) {
        let Some(b) = buffers.get_mut(&id) else { return };
        self.live.push(id);
        self.heap_bytes += b.proto.size;
        self.unpadded_bytes += b.unpadded_size();
        if self.heap_bytes > self.peak_bytes {
            self.peak_bytes = self.heap_bytes;
            self.peak_position = self.heap_timeline.len() as i64 - 1;
            self.peak_unpadded_bytes = self.unpadded_bytes;
            self.peak_buffers.clone_from(&self.live);
        }
        if start_span {
            b.span = Some((self.heap_timeline.len() as i64 - 1, self.event_count - 1));
        }
    }

    fn decrease(&mut self, buffers: &mut FxHashMap<i64, Buffer<'_>>, id: i64) -> Result<(), MemoryViewerError> {
        let Some(b) = buffers.get_mut(&id) else { return Ok(()) };
        self.live.retain(|&x| x != id);
        self.heap_bytes -= b.proto.size;
        if self.heap_bytes < 0 {
            return Err(MemoryViewerError::InconsistentTrace("the heap size goes negative".into()));
        }
        self.unpadded_bytes -= b.unpadded_size();
        if let Some(span) = b.span.as_mut() {
            span.1 = self.heap_timeline.len() as i64 - 1;
        }
        Ok(())
    }
}

/// The buffer a buffer shares its memory with, following the chain (bounded).
fn canonical(buffers: &FxHashMap<i64, Buffer<'_>>, id: i64) -> i64 {
    let mut id = id;
    for _ in 0..buffers.len() {
        match buffers.get(&id).and_then(|b| b.canonical) {
            Some(next) => id = next,
            None => break,
        }
    }
    id
}

/// Picks a module by XProf's name (`jit_f(42)`), by plain name, or the one
/// with the largest buffer assignment when `name` is `None`.
pub fn select_module<'a>(modules: &'a [HloModule], name: Option<&str>) -> Option<&'a HloModule> {
    match name {
        Some(n) => modules.iter().find(|m| m.display_name() == n).or_else(|| modules.iter().find(|m| m.name == n)),
        None => modules.iter().max_by_key(|m| {
            m.buffer_assignment.as_ref().map_or(0, |b| b.allocations.iter().map(|a| a.size).sum::<i64>())
        }),
    }
}

/// proto3 JSON leaves out default values; these helpers follow it.
fn put(map: &mut Map<String, Value>, key: &str, value: Value) {
    let default = match &value {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
    };
    if !default {
        map.insert(key.to_string(), value);
    }
}

fn number(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        json!(x as i64)
    } else {
        json!(x)
    }
}

fn source_json(map: &mut Map<String, Value>, s: &Source) {
    if s.file_name.is_empty() {
        return;
    }
    let mut src = Map::new();
    put(&mut src, "fileName", json!(s.file_name));
    put(&mut src, "lineNumber", json!(s.line_number));
    put(&mut src, "stackFrame", json!(s.stack_frame));
    put(map, "sourceInfo", Value::Object(src));
}

fn heap_object_json(o: &HeapObject) -> Value {
    let mut m = Map::new();
    m.insert("numbered".into(), json!(o.numbered));
    put(&mut m, "label", json!(o.label));
    put(&mut m, "logicalBufferId", json!(o.logical_buffer_id));
    put(&mut m, "logicalBufferSizeMib", number(o.logical_buffer_size_mib));
    put(&mut m, "unpaddedShapeMib", number(o.unpadded_shape_mib));
    put(&mut m, "instructionName", json!(o.instruction_name));
    put(&mut m, "shapeString", json!(o.shape_string));
    put(&mut m, "tfOpName", json!(o.tf_op_name));
    put(&mut m, "groupName", json!(o.group_name));
    put(&mut m, "opCode", json!(o.op_code));
    source_json(&mut m, &o.source);
    Value::Object(m)
}

/// XProf 2.24's JSON (its PreprocessResult proto as proto3 JSON).
pub fn to_xprof_json(v: &MemoryViewer) -> Value {
    let mut m = Map::new();
    put(&mut m, "heapSizes", Value::Array(v.heap_sizes.iter().map(|&x| number(x)).collect()));
    put(&mut m, "unpaddedHeapSizes", Value::Array(v.unpadded_heap_sizes.iter().map(|&x| number(x)).collect()));
    put(&mut m, "maxHeap", Value::Array(v.max_heap.iter().map(heap_object_json).collect()));
    put(&mut m, "maxHeapBySize", Value::Array(v.max_heap_by_size().into_iter().map(heap_object_json).collect()));
    let mut spans = Map::new();
    for &(id, start, limit) in &v.logical_buffer_spans {
        let mut s = Map::new();
        put(&mut s, "start", json!(start));
        put(&mut s, "limit", json!(limit));
        spans.insert(id.to_string(), Value::Object(s));
    }
    put(&mut m, "logicalBufferSpans", Value::Object(spans));
    put(&mut m, "maxHeapToBySize", json!(v.max_heap_to_by_size));
    put(&mut m, "bySizeToMaxHeap", json!(v.by_size_to_max_heap));
    put(&mut m, "moduleName", json!(v.module_name));
    put(&mut m, "entryComputationName", json!(v.entry_computation_name));
    put(&mut m, "peakHeapMib", number(v.peak_heap_mib));
    put(&mut m, "peakUnpaddedHeapMib", number(v.peak_unpadded_heap_mib));
    put(&mut m, "peakHeapSizePosition", json!(v.peak_heap_size_position));
    put(&mut m, "entryComputationParametersMib", number(v.entry_computation_parameters_mib));
    put(&mut m, "nonReusableMib", number(v.non_reusable_mib));
    put(&mut m, "maybeLiveOutMib", number(v.maybe_live_out_mib));
    let lifetimes = v
        .indefinite_lifetimes
        .iter()
        .map(|a| {
            let mut o = Map::new();
            if a.id != 0 {
                o.insert("id".into(), json!(a.id.to_string()));
            }
            put(&mut o, "sizeMib", number(a.size_mib));
            put(&mut o, "attributes", json!(a.attributes));
            let buffers = a
                .logical_buffers
                .iter()
                .map(|b| {
                    let mut l = Map::new();
                    if b.id != 0 {
                        l.insert("id".into(), json!(b.id.to_string()));
                    }
                    put(&mut l, "shape", json!(b.shape));
                    put(&mut l, "sizeMib", number(b.size_mib));
                    put(&mut l, "hloName", json!(b.hlo_name));
                    put(&mut l, "shapeIndex", json!(b.shape_index.iter().map(i64::to_string).collect::<Vec<_>>()));
                    Value::Object(l)
                })
                .collect();
            put(&mut o, "logicalBuffers", Value::Array(buffers));
            put(&mut o, "commonShape", json!(a.common_shape));
            Value::Object(o)
        })
        .collect();
    put(&mut m, "indefiniteLifetimes", Value::Array(lifetimes));
    put(&mut m, "totalBufferAllocationMib", number(v.total_buffer_allocation_mib));
    put(&mut m, "indefiniteBufferAllocationMib", number(v.indefinite_buffer_allocation_mib));
    put(&mut m, "hloInstructionNames", json!(v.hlo_instruction_names));
    let blocks = v
        .buffer_blocks
        .iter()
        .map(|b| {
            let mut o = Map::new();
            put(&mut o, "logicalBufferId", json!(b.logical_buffer_id));
            put(&mut o, "name", json!(b.name));
            put(&mut o, "offset", json!(b.offset));
            put(&mut o, "size", json!(b.size));
            put(&mut o, "startStep", json!(b.start_step));
            put(&mut o, "endStep", json!(b.end_step));
            put(&mut o, "tfOpName", json!(b.tf_op_name));
            put(&mut o, "category", json!(b.category));
            source_json(&mut o, &b.source);
            put(&mut o, "shapeString", json!(b.shape_string));
            put(&mut o, "unpaddedSize", json!(b.unpadded_size));
            put(&mut o, "color", json!(b.color));
            Value::Object(o)
        })
        .collect();
    put(&mut m, "bufferBlocks", Value::Array(blocks));
    Value::Object(m)
}

/// The buffers at the peak as CSV (RFC 4180), largest first.
pub fn max_heap_csv(v: &MemoryViewer) -> String {
    let field = crate::common::csv::csv_field;
    let mut out = String::from("Buffer,Size (MiB),Unpadded size (MiB),Shape,Op,Framework op,Allocation type\r\n");
    for o in v.max_heap_by_size() {
        let name = if o.instruction_name.is_empty() { &o.label } else { &o.instruction_name };
        out.push_str(&format!(
            "{},{},{},{},{},{},{}\r\n",
            field(name),
            o.logical_buffer_size_mib,
            o.unpadded_shape_mib,
            field(&o.shape_string),
            field(&o.op_code),
            field(&o.tf_op_name),
            field(&o.group_name)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proflens_model::hlo::{
        AssignedBuffer, BufferAssignment, HeapEvent, HeapSimulatorTrace, HloComputation, Layout,
    };

    fn f32_array(n: i64) -> Shape {
        Shape {
            element_type: 11,
            dimensions: vec![n],
            layout: Some(Layout { minor_to_major: vec![0], ..Layout::default() }),
            ..Shape::default()
        }
    }

    fn event(kind: HeapEventKind, buffer_id: i64, share: i64) -> HeapEvent {
        HeapEvent {
            kind,
            buffer_id,
            computation_name: "main".into(),
            instruction_name: format!("i{buffer_id}"),
            share_with_canonical_id: share,
        }
    }

    /// Three 64 KiB temporaries in one allocation: 1 and 2 overlap, 3 reuses
    /// 2's memory after 2 is freed; plus a 64 KiB parameter.
    fn module(events: Vec<HeapEvent>) -> HloModule {
        let instrs = (1..=4)
            .map(|id| HloInstruction {
                name: format!("i{id}"),
                opcode: if id == 4 { "parameter".into() } else { "add".into() },
                id,
                shape: f32_array(16384),
                ..HloInstruction::default()
            })
            .collect();
        let buffer = |id| LogicalBuffer { id, size: 65536, instruction_id: id, ..LogicalBuffer::default() };
        let assigned = |id, offset| AssignedBuffer { logical_buffer_id: id, offset, size: 65536 };
        HloModule {
            name: "jit_f".into(),
            program_id: 1,
            entry_computation_name: "main".into(),
            computations: vec![HloComputation { name: "main".into(), id: 1, root_id: 3, instructions: instrs }],
            buffer_assignment: Some(BufferAssignment {
                logical_buffers: (1..=4).map(buffer).collect(),
                allocations: vec![
                    BufferAllocation {
                        index: 0,
                        size: 131072,
                        assigned: vec![assigned(1, 0), assigned(2, 65536), assigned(3, 65536)],
                        ..BufferAllocation::default()
                    },
                    BufferAllocation {
                        index: 1,
                        size: 65536,
                        is_entry_computation_parameter: true,
                        assigned: vec![assigned(4, 0)],
                        ..BufferAllocation::default()
                    },
                ],
                heap_traces: vec![HeapSimulatorTrace { events, ..HeapSimulatorTrace::default() }],
            }),
            ..HloModule::default()
        }
    }

    #[test]
    fn replays_the_heap_to_its_peak() {
        use HeapEventKind::{Alloc, Free, ShareWith};
        let m = module(vec![
            event(Alloc, 1, 0),
            event(Alloc, 2, 0),
            event(Free, 2, 0),
            event(ShareWith, 3, 2),
            event(Free, 3, 0),
            event(Free, 1, 0),
        ]);
        let v = memory_viewer(&m, 0).unwrap();
        // Parameter (64 KiB) + two live temporaries at the peak.
        assert_eq!(v.peak_heap_mib, 0.1875);
        assert_eq!(v.heap_sizes, vec![0.0625, 0.125, 0.1875, 0.125, 0.1875, 0.125, 0.0625]);
        assert_eq!(v.peak_heap_size_position, 1);
        let peak: Vec<i64> = v.max_heap.iter().map(|o| o.logical_buffer_id).collect();
        assert_eq!(peak, vec![4, 1, 2]);
        assert_eq!(v.max_heap[0].group_name, "Parameter");
        // The sharer gets its own live range once it revives freed memory.
        assert_eq!(v.logical_buffer_spans, vec![(1, 0, 5), (2, 1, 2), (3, 3, 4)]);
        assert_eq!(v.entry_computation_parameters_mib, 0.0625);
    }

    #[test]
    fn a_double_free_is_an_error() {
        use HeapEventKind::{Alloc, Free};
        let m = module(vec![event(Alloc, 1, 0), event(Free, 1, 0), event(Free, 1, 0)]);
        assert!(matches!(memory_viewer(&m, 0), Err(MemoryViewerError::InconsistentTrace(_))));
        let mut no_assignment = m.clone();
        no_assignment.buffer_assignment = None;
        assert_eq!(memory_viewer(&no_assignment, 0), Err(MemoryViewerError::NoBufferAssignment));
    }
}
