//! The memory view as XProf 2.24 serves it (JSON) and the peak buffers as CSV.

use super::model::{HeapObject, MemoryViewer, Source};
use serde_json::{json, Map, Value};

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
