//! What the memory viewer reads of a logical buffer and of its allocation.

use crate::hlo::text::byte_size;
use proflens_model::hlo::{BufferAllocation, HloInstruction, LogicalBuffer, Shape};

/// A logical buffer with what the tool needs of it.
pub(super) struct Buffer<'a> {
    pub(super) proto: &'a LogicalBuffer,
    pub(super) allocation: &'a BufferAllocation,
    pub(super) instruction: &'a HloInstruction,
    pub(super) offset: i64,
    pub(super) shape: Shape,
    pub(super) ref_count: i64,
    pub(super) canonical: Option<i64>,
    pub(super) span: Option<(i64, i64)>,
}

impl Buffer<'_> {
    pub(super) fn unpadded_size(&self) -> i64 {
        i64::try_from(unpadded_bytes(&self.shape)).unwrap_or(i64::MAX)
    }

    pub(super) fn name_with_index(&self) -> String {
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
pub(super) fn resolve_shape(shape: &Shape, index: &[i64]) -> Shape {
    match index.last().and_then(|&i| usize::try_from(i).ok()).and_then(|i| shape.tuple_shapes.get(i)) {
        Some(s) => s.clone(),
        None => shape.clone(),
    }
}

/// Live for the whole program. XProf 2.24 leaves thread-local allocations
/// (CPU scratch) out of both the timeline and this list.
pub(super) fn is_indefinite(a: &BufferAllocation) -> bool {
    !a.is_thread_local && (a.is_entry_computation_parameter || a.is_constant || a.maybe_live_out)
}

pub(super) fn is_reusable(a: &BufferAllocation) -> bool {
    !a.is_thread_local && !a.is_tuple
}

pub(super) fn allocation_category(a: &BufferAllocation) -> &'static str {
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
