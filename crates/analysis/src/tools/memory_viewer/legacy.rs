//! Memory viewer from a legacy `memory_viewer.json` (XProf's
//! `PreprocessResult` as proto3 JSON, as its server returned it).

use crate::common::legacy::{number, shape};
use crate::tools::memory_viewer::{
    AllocatedBuffer, BufferBlock, HeapObject, IndefiniteAllocation, MemoryViewer, Source,
};
use proflens_format::legacy::{LegacyError, LegacyTool};
use serde_json::Value;

fn text(v: &Value, key: &str) -> String {
    v.get(key).and_then(Value::as_str).unwrap_or_default().to_string()
}

fn f(v: &Value, key: &str) -> f64 {
    number(v.get(key)).unwrap_or(0.0)
}

/// int64 fields arrive as decimal strings (proto3 JSON) or numbers.
fn int(v: Option<&Value>) -> i64 {
    match v {
        Some(Value::String(s)) => s.parse().unwrap_or(0),
        Some(Value::Number(n)) => n.as_i64().unwrap_or_else(|| n.as_f64().unwrap_or(0.0) as i64),
        _ => 0,
    }
}

fn i(v: &Value, key: &str) -> i64 {
    int(v.get(key))
}

fn list<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key).and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default()
}

fn source(v: &Value) -> Source {
    let Some(s) = v.get("sourceInfo") else { return Source::default() };
    Source {
        file_name: text(s, "fileName"),
        line_number: i(s, "lineNumber") as i32,
        stack_frame: text(s, "stackFrame"),
    }
}

fn heap_object(o: &Value) -> HeapObject {
    HeapObject {
        numbered: i(o, "numbered") as i32,
        label: text(o, "label"),
        logical_buffer_id: i(o, "logicalBufferId"),
        logical_buffer_size_mib: f(o, "logicalBufferSizeMib"),
        unpadded_shape_mib: f(o, "unpaddedShapeMib"),
        instruction_name: text(o, "instructionName"),
        shape_string: text(o, "shapeString"),
        tf_op_name: text(o, "tfOpName"),
        group_name: text(o, "groupName"),
        op_code: text(o, "opCode"),
        source: source(o),
    }
}

fn indices(v: &Value, key: &str) -> Vec<usize> {
    list(v, key).iter().map(|x| usize::try_from(int(Some(x))).unwrap_or(0)).collect()
}

fn allocation(a: &Value) -> IndefiniteAllocation {
    IndefiniteAllocation {
        id: i(a, "id"),
        size_mib: f(a, "sizeMib"),
        attributes: list(a, "attributes").iter().filter_map(Value::as_str).map(str::to_string).collect(),
        logical_buffers: list(a, "logicalBuffers")
            .iter()
            .map(|b| AllocatedBuffer {
                id: i(b, "id"),
                shape: text(b, "shape"),
                size_mib: f(b, "sizeMib"),
                hlo_name: text(b, "hloName"),
                shape_index: list(b, "shapeIndex").iter().map(|x| int(Some(x))).collect(),
            })
            .collect(),
        common_shape: text(a, "commonShape"),
    }
}

fn block(b: &Value) -> BufferBlock {
    BufferBlock {
        logical_buffer_id: i(b, "logicalBufferId"),
        name: text(b, "name"),
        offset: i(b, "offset"),
        size: i(b, "size"),
        start_step: i(b, "startStep"),
        end_step: i(b, "endStep"),
        tf_op_name: text(b, "tfOpName"),
        category: text(b, "category"),
        source: source(b),
        shape_string: text(b, "shapeString"),
        unpadded_size: i(b, "unpaddedSize"),
        color: text(b, "color"),
    }
}

/// One module's memory viewer, field for field. `maxHeapBySize` is not read:
/// the view model derives it from `maxHeap` and `bySizeToMaxHeap`.
pub fn memory_viewer_from_json(v: &Value) -> Result<MemoryViewer, LegacyError> {
    if !v.is_object() {
        return Err(shape(LegacyTool::MemoryViewer, "the JSON is not an object"));
    }
    let numbers = |key: &str| list(v, key).iter().map(|x| number(Some(x)).unwrap_or(0.0)).collect::<Vec<f64>>();
    let mut spans: Vec<(i64, i64, i64)> = v
        .get("logicalBufferSpans")
        .and_then(Value::as_object)
        .map(|m| m.iter().filter_map(|(id, s)| Some((id.parse().ok()?, i(s, "start"), i(s, "limit")))).collect())
        .unwrap_or_default();
    spans.sort_unstable();
    Ok(MemoryViewer {
        module_name: text(v, "moduleName"),
        entry_computation_name: text(v, "entryComputationName"),
        heap_sizes: numbers("heapSizes"),
        unpadded_heap_sizes: numbers("unpaddedHeapSizes"),
        hlo_instruction_names: list(v, "hloInstructionNames")
            .iter()
            .map(|x| x.as_str().unwrap_or_default().to_string())
            .collect(),
        peak_heap_mib: f(v, "peakHeapMib"),
        peak_unpadded_heap_mib: f(v, "peakUnpaddedHeapMib"),
        peak_heap_size_position: i(v, "peakHeapSizePosition"),
        max_heap: list(v, "maxHeap").iter().map(heap_object).collect(),
        by_size_to_max_heap: indices(v, "bySizeToMaxHeap"),
        max_heap_to_by_size: indices(v, "maxHeapToBySize"),
        logical_buffer_spans: spans,
        entry_computation_parameters_mib: f(v, "entryComputationParametersMib"),
        non_reusable_mib: f(v, "nonReusableMib"),
        maybe_live_out_mib: f(v, "maybeLiveOutMib"),
        total_buffer_allocation_mib: f(v, "totalBufferAllocationMib"),
        indefinite_buffer_allocation_mib: f(v, "indefiniteBufferAllocationMib"),
        indefinite_lifetimes: list(v, "indefiniteLifetimes").iter().map(allocation).collect(),
        buffer_blocks: list(v, "bufferBlocks").iter().map(block).collect(),
    })
}
