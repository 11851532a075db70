//! HLO modules of XLA programs, from the `/host:metadata` plane.
//!
//! The profiler stores one event metadata per XLA program in that plane: id =
//! program id, name = module name, stat `Hlo Proto` = a serialized
//! `xla.HloProto` (module plus buffer assignment). The model keeps those
//! bytes as they are; [`hlo_modules`] decodes them on demand into the plain
//! types of [`proflens_model::hlo`].

use crate::xla_proto as pb;
use crate::Error;
use proflens_model::hlo::{
    AssignedBuffer, BufferAllocation, BufferAssignment, ConvolutionDimensions, DotDimensions, FileLocation, HeapEvent,
    HeapEventKind, HeapSimulatorTrace, HloComputation, HloInstruction, HloModule, Layout, LogicalBuffer, OpMetadata,
    ReplicaGroups, Shape, StackFrame, StackFrameIndex, WindowDimension,
};
use proflens_model::{Profile, StatValue};
use prost::Message;

/// Name of the plane that holds the HLO protos.
pub const METADATA_PLANE: &str = "/host:metadata";
/// Name of the stat that holds one module's serialized `xla.HloProto`.
pub const HLO_PROTO_STAT: &str = "Hlo Proto";

/// The modules of a profile, in program-id order, and the ones that failed.
#[derive(Debug, Default)]
pub struct HloModules {
    pub modules: Vec<HloModule>,
    /// One per module whose bytes did not decode (the others still load).
    pub errors: Vec<Error>,
}

/// Decodes every HLO proto of the profile's `/host:metadata` plane.
pub fn hlo_modules(profile: &Profile) -> HloModules {
    let mut out = HloModules::default();
    let (Some(plane), Some(key)) = (profile.plane_by_name(METADATA_PLANE), profile.strings.lookup(HLO_PROTO_STAT))
    else {
        return out;
    };
    let program_id_key = profile.strings.lookup("program_id");
    for meta in &plane.event_metadata {
        let Some(StatValue::Bytes(bytes)) = meta.stats.get(key, &profile.strings) else {
            continue;
        };
        // The `program_id` stat when present (JAX on CPU), else the id, which
        // holds uint64 fingerprints (TPU) in an int64 field.
        let program_id = program_id_key
            .and_then(|k| meta.stats.get(k, &profile.strings))
            .and_then(|v| v.as_u64())
            .unwrap_or(meta.id as u64);
        match decode_hlo_proto(bytes, program_id) {
            Ok(mut module) => {
                module.profile_name = profile.str(meta.name).to_string();
                if module.name.is_empty() {
                    module.name = profile.str(meta.name).to_string();
                }
                out.modules.push(module);
            }
            Err(e) => out.errors.push(e),
        }
    }
    out.modules.sort_by_key(|m| m.program_id);
    out
}

/// Decodes one serialized `xla.HloProto` of the program `program_id`.
pub fn decode_hlo_proto(bytes: &[u8], program_id: u64) -> Result<HloModule, Error> {
    let proto = pb::HloProto::decode(bytes).map_err(|e| Error::Corrupt {
        detail: format!("the HLO proto of XLA program {program_id} does not decode ({e})"),
    })?;
    let module = proto.hlo_module.unwrap_or_default();
    let attributes = crate::hlo_attributes::module_attributes(&module);
    let entry_layout = crate::hlo_attributes::entry_layout(&module, shape);
    Ok(HloModule {
        attributes,
        entry_layout,
        name: module.name,
        program_id,
        module_id: module.id as u64,
        profile_name: String::new(),
        entry_computation_name: module.entry_computation_name,
        entry_computation_id: module.entry_computation_id,
        computations: module.computations.into_iter().map(computation).collect(),
        stack_frames: module.stack_frame_index.map(stack_frames).unwrap_or_default(),
        buffer_assignment: proto.buffer_assignment.map(buffer_assignment),
    })
}

fn computation(c: pb::HloComputationProto) -> HloComputation {
    HloComputation {
        name: c.name,
        id: c.id,
        root_id: c.root_id,
        instructions: c.instructions.into_iter().map(instruction).collect(),
    }
}

fn replica_groups(legacy: Vec<pb::ReplicaGroup>, list: Option<pb::CollectiveDeviceListProto>) -> ReplicaGroups {
    let explicit =
        |groups: Vec<pb::ReplicaGroup>| ReplicaGroups::List(groups.into_iter().map(|g| g.replica_ids).collect());
    match list {
        Some(pb::CollectiveDeviceListProto { iota_replica_group_list: Some(iota), .. }) => ReplicaGroups::Iota {
            num_groups: iota.num_replica_groups,
            group_size: iota.num_devices_per_group,
            reshape_dims: iota.iota_reshape_dims,
            transpose: iota.iota_transpose_perm,
        },
        Some(list) if !list.replica_groups.is_empty() => explicit(list.replica_groups),
        _ if !legacy.is_empty() => explicit(legacy),
        _ => ReplicaGroups::None,
    }
}

/// A scalar constant's value as XLA prints it; `None` for anything else.
fn scalar_literal(l: &pb::LiteralProto) -> Option<String> {
    let one = |n: usize| n == 1;
    if one(l.preds.len()) {
        Some(l.preds[0].to_string())
    } else if one(l.s32s.len()) {
        Some(l.s32s[0].to_string())
    } else if one(l.s64s.len()) {
        Some(l.s64s[0].to_string())
    } else if one(l.u32s.len()) {
        Some(l.u32s[0].to_string())
    } else if one(l.u64s.len()) {
        Some(l.u64s[0].to_string())
    } else if one(l.f32s.len()) {
        Some(float_text(f64::from(l.f32s[0])))
    } else if one(l.f64s.len()) {
        Some(float_text(l.f64s[0]))
    } else {
        None
    }
}

/// XLA's float text: shortest round-trip digits, `inf`/`-inf`/`nan`.
fn float_text(x: f64) -> String {
    if x.is_nan() {
        "nan".into()
    } else if x.is_infinite() {
        if x > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        }
    } else {
        x.to_string()
    }
}

fn instruction(mut i: pb::HloInstructionProto) -> HloInstruction {
    let attributes = Box::new(crate::hlo_attributes::instruction_attributes(&mut i, shape));
    let metadata = i.metadata.unwrap_or_default();
    HloInstruction {
        attributes,
        name: i.name,
        opcode: i.opcode,
        shape: i.shape.map(shape).unwrap_or_default(),
        id: i.id,
        operand_ids: i.operand_ids,
        called_computation_ids: i.called_computation_ids,
        metadata: OpMetadata {
            op_type: metadata.op_type,
            op_name: metadata.op_name,
            source_file: metadata.source_file,
            source_line: metadata.source_line,
            deduplicated_name: metadata.deduplicated_name,
            stack_frame_id: metadata.stack_frame_id,
        },
        fusion_kind: i.fusion_kind,
        custom_call_target: i.custom_call_target,
        operand_shapes_with_layout: i.operand_shapes_with_layout.into_iter().map(shape).collect(),
        parameter_number: i.parameter_number,
        tuple_index: i.tuple_index,
        dimensions: i.dimensions,
        channel_id: i.channel_id,
        window: i.window.map_or_else(Vec::new, |w| {
            w.dimensions
                .into_iter()
                .map(|d| WindowDimension {
                    size: d.size,
                    stride: d.stride,
                    padding_low: d.padding_low,
                    padding_high: d.padding_high,
                    window_dilation: d.window_dilation,
                    base_dilation: d.base_dilation,
                    window_reversal: d.window_reversal,
                })
                .collect()
        }),
        convolution: i.convolution_dimension_numbers.map(|c| ConvolutionDimensions {
            input_batch: c.input_batch_dimension,
            input_feature: c.input_feature_dimension,
            input_spatial: c.input_spatial_dimensions,
            kernel_input_feature: c.kernel_input_feature_dimension,
            kernel_output_feature: c.kernel_output_feature_dimension,
            kernel_spatial: c.kernel_spatial_dimensions,
            output_batch: c.output_batch_dimension,
            output_feature: c.output_feature_dimension,
            output_spatial: c.output_spatial_dimensions,
        }),
        feature_group_count: i.feature_group_count,
        batch_group_count: i.batch_group_count,
        dot: i.dot_dimension_numbers.map(|d| DotDimensions {
            lhs_contracting: d.lhs_contracting_dimensions,
            rhs_contracting: d.rhs_contracting_dimensions,
            lhs_batch: d.lhs_batch_dimensions,
            rhs_batch: d.rhs_batch_dimensions,
        }),
        replica_groups: replica_groups(i.replica_groups, i.collective_device_list),
        scalar_literal: i.literal.as_ref().and_then(scalar_literal),
        use_global_device_ids: i.use_global_device_ids,
    }
}

fn shape(s: pb::ShapeProto) -> Shape {
    Shape {
        element_type: s.element_type,
        dimensions: s.dimensions,
        dynamic_dimensions: s.is_dynamic_dimension,
        tuple_shapes: s.tuple_shapes.into_iter().map(shape).collect(),
        layout: s.layout.map(|l| Layout {
            minor_to_major: l.minor_to_major,
            tiles: l.tiles.into_iter().map(|t| t.dimensions).collect(),
            tail_padding_alignment_in_elements: l.tail_padding_alignment_in_elements,
            element_size_in_bits: l.element_size_in_bits,
            memory_space: l.memory_space,
        }),
    }
}

fn stack_frames(s: pb::StackFrameIndexProto) -> StackFrameIndex {
    StackFrameIndex {
        file_names: s.file_names,
        function_names: s.function_names,
        file_locations: s
            .file_locations
            .into_iter()
            .map(|l| FileLocation {
                file_name_id: l.file_name_id,
                function_name_id: l.function_name_id,
                line: l.line,
                column: l.column,
            })
            .collect(),
        frames: s
            .stack_frames
            .into_iter()
            .map(|f| StackFrame { file_location_id: f.file_location_id, parent_frame_id: f.parent_frame_id })
            .collect(),
    }
}

fn buffer_assignment(b: pb::BufferAssignmentProto) -> BufferAssignment {
    BufferAssignment {
        logical_buffers: b
            .logical_buffers
            .into_iter()
            .map(|l| {
                let at = l.defined_at.unwrap_or_default();
                LogicalBuffer {
                    id: l.id,
                    size: l.size,
                    instruction_id: at.instruction_id,
                    instruction_name: at.instruction_name,
                    shape_index: at.shape_index,
                    color: l.color,
                }
            })
            .collect(),
        allocations: b
            .buffer_allocations
            .into_iter()
            .map(|a| BufferAllocation {
                index: a.index,
                size: a.size,
                is_thread_local: a.is_thread_local,
                is_tuple: a.is_tuple,
                is_entry_computation_parameter: a.is_entry_computation_parameter,
                is_constant: a.is_constant,
                parameter_number: a.parameter_number,
                maybe_live_out: a.maybe_live_out,
                color: a.color,
                assigned: a
                    .assigned
                    .into_iter()
                    .map(|x| AssignedBuffer { logical_buffer_id: x.logical_buffer_id, offset: x.offset, size: x.size })
                    .collect(),
            })
            .collect(),
        heap_traces: b
            .heap_simulator_traces
            .into_iter()
            .map(|t| HeapSimulatorTrace {
                events: t
                    .events
                    .into_iter()
                    .map(|e| HeapEvent {
                        kind: match e.kind {
                            1 => HeapEventKind::Free,
                            2 => HeapEventKind::ShareWith,
                            _ => HeapEventKind::Alloc,
                        },
                        buffer_id: e.buffer_id,
                        computation_name: e.computation_name,
                        instruction_name: e.instruction_name,
                        share_with_canonical_id: e.share_with_canonical_id,
                    })
                    .collect(),
                whole_module_simulation: t.whole_module_simulation,
                buffer_allocation_index: t.buffer_allocation_index,
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_bytes_are_an_error_not_a_panic() {
        let err = decode_hlo_proto(&[0x0a, 0xff, 0xff, 0xff], 7).unwrap_err();
        assert!(matches!(err, Error::Corrupt { .. }), "{err:?}");
        assert!(err.to_string().contains("program 7"));
    }

    #[test]
    fn decodes_a_module() {
        let proto = pb::HloProto {
            hlo_module: Some(pb::HloModuleProto {
                name: "jit_f".into(),
                entry_computation_name: "main".into(),
                entry_computation_id: 3,
                computations: vec![pb::HloComputationProto {
                    name: "main".into(),
                    id: 3,
                    root_id: 1,
                    instructions: vec![pb::HloInstructionProto {
                        name: "add.1".into(),
                        opcode: "add".into(),
                        id: 1,
                        shape: Some(pb::ShapeProto { element_type: 11, dimensions: vec![4], ..Default::default() }),
                        ..Default::default()
                    }],
                }],
                ..Default::default()
            }),
            buffer_assignment: None,
        };
        let m = decode_hlo_proto(&proto.encode_to_vec(), 42).unwrap();
        assert_eq!(m.display_name(), "jit_f(42)");
        assert_eq!(m.entry_computation().unwrap().instructions[0].shape.dimensions, vec![4]);
    }
}
