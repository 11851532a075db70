//! The memory view of a small synthetic module, end to end.

use super::{memory_viewer, MemoryViewerError};
use proflens_model::hlo::{
    AssignedBuffer, BufferAllocation, BufferAssignment, HeapEvent, HeapEventKind, HeapSimulatorTrace, HloComputation,
    HloInstruction, HloModule, Layout, LogicalBuffer, Shape,
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
    // The timeline: the allocation, then its buffers, the sharer too.
    let blocks: Vec<i64> = v.buffer_blocks.iter().map(|b| b.logical_buffer_id).collect();
    assert_eq!(blocks, vec![-1, 1, 2, 3]);
}

#[test]
fn timeline_colours_count_only_the_blocks_xprof_draws() {
    use HeapEventKind::{Alloc, Free};
    // Buffer 2 (16 bytes) is under one unit of XProf's 4096-high drawing of
    // the 128 KiB allocation, so it is not drawn and does not advance the
    // colour; buffer 3 (32 KiB, live after the peak) takes the counter's
    // colour: the allocation and buffer 1 were drawn, so the third colour.
    let mut m = module(vec![
        event(Alloc, 1, 0),
        event(Alloc, 2, 0),
        event(Free, 2, 0),
        event(Free, 1, 0),
        event(Alloc, 3, 0),
        event(Free, 3, 0),
    ]);
    let buffers = &mut m.buffer_assignment.as_mut().unwrap().logical_buffers;
    buffers[1].size = 16;
    buffers[2].size = 32768;
    let v = memory_viewer(&m, 0).unwrap();
    let peak: Vec<i64> = v.max_heap.iter().map(|o| o.logical_buffer_id).collect();
    assert_eq!(peak, vec![4, 1, -1], "parameter, buffer 1 and the small ones");
    let colors: Vec<(i64, &str)> = v.buffer_blocks.iter().map(|b| (b.logical_buffer_id, b.color.as_str())).collect();
    // Buffer 1 has its peak entry's colour (1); 2 and 3 the counter's (2).
    assert_eq!(colors, vec![(-1, "#ffffff"), (1, "#2196f3"), (2, "#81c784"), (3, "#81c784")]);
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
