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

//!
//! Files: `model` holds the view model, `buffer` what the tool reads of a
//! logical buffer and its allocation, `heap` the trace replay, `layout` the
//! view of one module built from those, `xprof` its XProf JSON and CSV.

mod buffer;
mod heap;
mod layout;
pub mod legacy;
mod model;
#[cfg(test)]
mod tests;
mod tool;
mod xprof;

pub use layout::{memory_viewer, select_module, SMALL_BUFFER_SIZE};
pub use model::{
    AllocatedBuffer, BufferBlock, HeapObject, IndefiniteAllocation, MemoryViewer, MemoryViewerError, Source,
};
pub use tool::{MemoryViewerPage, MemoryViewerTool, NO_MODULE};
pub use xprof::{max_heap_csv, to_xprof_json};
