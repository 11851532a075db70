//! The memory viewer's view model (XProf's PreprocessResult), and why a
//! module may have none.

use serde::{Deserialize, Serialize};

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
