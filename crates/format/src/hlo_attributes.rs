//! The parts of an `xla.HloProto` that only the HLO text shows (attributes,
//! constants' values, schedule, entry layout, aliasing), decoded into
//! [`proflens_model::hlo_attributes`] for the graph viewer's long_txt.

use crate::xla_proto as pb;
use proflens_model::hlo::Shape;
use proflens_model::hlo_attributes::{
    AliasEntry, GatherDimensions, InstructionAttributes, Literal, LiteralValues, ModuleAttributes, ScatterDimensions,
    Sharding,
};

/// The entry's parameter and result shapes with layouts, when recorded.
pub(crate) fn entry_layout(
    m: &pb::HloModuleProto,
    shape: impl Fn(pb::ShapeProto) -> Shape,
) -> Option<(Vec<Shape>, Shape)> {
    m.host_program_shape
        .clone()
        .map(|p| (p.parameters.into_iter().map(&shape).collect(), p.result.map(&shape).unwrap_or_default()))
}

pub(crate) fn module_attributes(m: &pb::HloModuleProto) -> ModuleAttributes {
    let mut schedule: Vec<(i64, Vec<i64>)> = m
        .schedule
        .as_ref()
        .map(|s| s.sequences.iter().map(|(id, seq)| (*id, seq.instruction_ids.clone())).collect())
        .unwrap_or_default();
    schedule.sort_by_key(|(id, _)| *id);
    let mut input_output_alias: Vec<AliasEntry> = m
        .input_output_alias
        .as_ref()
        .map(|a| {
            a.entries
                .iter()
                .map(|e| AliasEntry {
                    output_index: e.output_shape_index.clone(),
                    parameter_number: e.parameter_number,
                    parameter_index: e.parameter_shape_index.clone(),
                    kind: e.kind,
                })
                .collect()
        })
        .unwrap_or_default();
    // XLA walks the aliases in output index order.
    input_output_alias.sort_by(|a, b| a.output_index.cmp(&b.output_index));
    ModuleAttributes {
        is_scheduled: m.schedule.is_some(),
        schedule,
        input_output_alias,
        frontend_attributes: frontend_attributes(m.frontend_attributes.as_ref()),
    }
}

fn frontend_attributes(f: Option<&pb::FrontendAttributes>) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> =
        f.map(|f| f.map.iter().map(|(k, v)| (k.clone(), v.clone())).collect()).unwrap_or_default();
    out.sort();
    out
}

fn sharding(s: &pb::OpSharding) -> Sharding {
    Sharding {
        kind: s.r#type,
        tile_assignment_dimensions: s.tile_assignment_dimensions.clone(),
        tile_assignment_devices: s.tile_assignment_devices.clone(),
        tuple_shardings: s.tuple_shardings.iter().map(sharding).collect(),
        replicate_on_last_tile_dim: s.replicate_on_last_tile_dim,
        last_tile_dims: s.last_tile_dims.clone(),
        iota_reshape_dims: s.iota_reshape_dims.clone(),
        iota_transpose_perm: s.iota_transpose_perm.clone(),
    }
}

/// Little-endian 16-bit words; a trailing odd byte is dropped.
fn words(bytes: &[u8]) -> Vec<u16> {
    bytes.chunks_exact(2).map(|w| u16::from_le_bytes([w[0], w[1]])).collect()
}

fn literal(l: &pb::LiteralProto, shape: Shape) -> Literal {
    let dimensions = shape.dimensions;
    let values = match shape.element_type {
        1 => LiteralValues::Pred(l.preds.clone()),
        2 => LiteralValues::Signed(l.s8s.iter().map(|&b| i64::from(b as i8)).collect()),
        3 => LiteralValues::Signed(words(&l.s16s).into_iter().map(|w| i64::from(w as i16)).collect()),
        4 => LiteralValues::Signed(l.s32s.iter().map(|&v| i64::from(v)).collect()),
        5 => LiteralValues::Signed(l.s64s.clone()),
        6 => LiteralValues::Unsigned(l.u8s.iter().map(|&b| u64::from(b)).collect()),
        7 => LiteralValues::Unsigned(words(&l.u16s).into_iter().map(u64::from).collect()),
        8 => LiteralValues::Unsigned(l.u32s.iter().map(|&v| u64::from(v)).collect()),
        9 => LiteralValues::Unsigned(l.u64s.clone()),
        10 => LiteralValues::Half { bf16: false, bits: words(&l.f16s) },
        11 => LiteralValues::F32(l.f32s.clone()),
        12 => LiteralValues::F64(l.f64s.clone()),
        16 => LiteralValues::Half { bf16: true, bits: words(&l.bf16s) },
        _ => LiteralValues::Other,
    };
    Literal { dimensions, values }
}

pub(crate) fn instruction_attributes(
    i: &mut pb::HloInstructionProto,
    shape: impl Fn(pb::ShapeProto) -> Shape,
) -> InstructionAttributes {
    InstructionAttributes {
        slice: i.slice_dimensions.iter().map(|d| (d.start, d.limit, d.stride)).collect(),
        exponent_bits: i.exponent_bits,
        mantissa_bits: i.mantissa_bits,
        dynamic_slice_sizes: std::mem::take(&mut i.dynamic_slice_sizes),
        padding: i
            .padding_config
            .as_ref()
            .map(|p| {
                p.dimensions.iter().map(|d| (d.edge_padding_low, d.edge_padding_high, d.interior_padding)).collect()
            })
            .unwrap_or_default(),
        distribution: i.distribution,
        epsilon: i.epsilon,
        feature_index: i.feature_index,
        gather: i.gather_dimension_numbers.take().map(|g| GatherDimensions {
            offset_dims: g.offset_dims,
            collapsed_slice_dims: g.collapsed_slice_dims,
            start_index_map: g.start_index_map,
            index_vector_dim: g.index_vector_dim,
            operand_batching_dims: g.operand_batching_dims,
            start_indices_batching_dims: g.start_indices_batching_dims,
        }),
        gather_slice_sizes: std::mem::take(&mut i.gather_slice_sizes),
        scatter: i.scatter_dimension_numbers.take().map(|s| ScatterDimensions {
            update_window_dims: s.update_window_dims,
            inserted_window_dims: s.inserted_window_dims,
            scatter_dims_to_operand_dims: s.scatter_dims_to_operand_dims,
            index_vector_dim: s.index_vector_dim,
            input_batching_dims: s.input_batching_dims,
            scatter_indices_batching_dims: s.scatter_indices_batching_dims,
        }),
        control_predecessor_ids: std::mem::take(&mut i.control_predecessor_ids),
        sharding: i.sharding.as_ref().map(sharding),
        backend_config: String::from_utf8_lossy(&i.backend_config).into_owned(),
        is_host_transfer: i.is_host_transfer,
        source_target_pairs: i.source_target_pairs.iter().map(|p| (p.source, p.target)).collect(),
        legacy_replica_groups: i.replica_groups.iter().map(|g| g.replica_ids.clone()).collect(),
        constrain_layout: i.constrain_layout,
        output_operand_aliasing: std::mem::take(&mut i.output_operand_aliasing)
            .into_iter()
            .map(|a| (a.output_shape_index, a.operand_index, a.operand_shape_index))
            .collect(),
        is_stable: i.is_stable,
        parameter_replication: i
            .parameter_replication
            .as_ref()
            .map(|p| p.replicated_at_leaf_buffers.clone())
            .unwrap_or_default(),
        comparison_direction: std::mem::take(&mut i.comparison_direction),
        comparison_type: std::mem::take(&mut i.comparison_type),
        custom_call_has_side_effect: i.custom_call_has_side_effect,
        custom_call_schedule: i.custom_call_schedule,
        custom_call_api_version: i.custom_call_api_version,
        indices_are_sorted: i.indices_are_sorted,
        unique_indices: i.unique_indices,
        is_composite: i.is_composite,
        frontend_attributes: frontend_attributes(i.frontend_attributes.as_ref()),
        literal: i.literal.as_ref().map(|l| {
            // The literal's own shape, else the instruction's.
            let s = l.shape.clone().or_else(|| i.shape.clone()).map(&shape).unwrap_or_default();
            literal(l, s)
        }),
    }
}
