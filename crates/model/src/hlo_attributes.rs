//! What XLA's HLO text printer shows of a module beyond what the profiler
//! tools compute with: the instructions' remaining attributes, constants'
//! values, the schedule and the module's aliasing. The
//! graph viewer's `long_txt` prints them (`proflens_analysis::hlo::print`).

/// The attributes of one instruction that only its text shows.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct InstructionAttributes {
    /// `[start:limit:stride]` per dimension (slice).
    pub slice: Vec<(i64, i64, i64)>,
    pub exponent_bits: i32,
    pub mantissa_bits: i32,
    pub dynamic_slice_sizes: Vec<i64>,
    /// Pad: (low, high, interior) per dimension; empty when not a pad.
    pub padding: Vec<(i64, i64, i64)>,
    /// Rng: XLA's RandomDistribution number.
    pub distribution: i32,
    pub epsilon: f32,
    pub feature_index: i64,
    pub gather: Option<GatherDimensions>,
    pub gather_slice_sizes: Vec<i64>,
    pub scatter: Option<ScatterDimensions>,
    pub control_predecessor_ids: Vec<i64>,
    pub sharding: Option<Sharding>,
    /// The backend configuration as stored (JSON for GPU and TPU).
    pub backend_config: String,
    pub is_host_transfer: bool,
    pub source_target_pairs: Vec<(i64, i64)>,
    /// The collective's groups as the legacy `replica_groups` field lists
    /// them (XProf's XLA prints only these, not the newer device list).
    pub legacy_replica_groups: Vec<Vec<i64>>,
    pub constrain_layout: bool,
    /// Custom calls and fusions: (output shape index, operand, operand
    /// shape index) of each output that aliases an operand.
    pub output_operand_aliasing: Vec<(Vec<i64>, i64, Vec<i64>)>,
    pub is_stable: bool,
    /// Parameter: whether each leaf buffer is replicated.
    pub parameter_replication: Vec<bool>,
    /// Compare: `LT`, `EQ`, …
    pub comparison_direction: String,
    /// Compare: `FLOAT`, `TOTALORDER`, `SIGNED`, `UNSIGNED`, or empty.
    pub comparison_type: String,
    pub custom_call_has_side_effect: bool,
    pub custom_call_schedule: i32,
    pub custom_call_api_version: i32,
    pub indices_are_sorted: bool,
    pub unique_indices: bool,
    pub is_composite: bool,
    /// Sorted by key.
    pub frontend_attributes: Vec<(String, String)>,
    /// A constant's elements; `None` for other instructions.
    pub literal: Option<Literal>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GatherDimensions {
    pub offset_dims: Vec<i64>,
    pub collapsed_slice_dims: Vec<i64>,
    pub start_index_map: Vec<i64>,
    pub index_vector_dim: i64,
    pub operand_batching_dims: Vec<i64>,
    pub start_indices_batching_dims: Vec<i64>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScatterDimensions {
    pub update_window_dims: Vec<i64>,
    pub inserted_window_dims: Vec<i64>,
    pub scatter_dims_to_operand_dims: Vec<i64>,
    pub index_vector_dim: i64,
    pub input_batching_dims: Vec<i64>,
    pub scatter_indices_batching_dims: Vec<i64>,
}

/// XLA's OpSharding (type numbers as in the proto: 0 replicated, 1 maximal,
/// 2 tuple, 3 other, 4 manual, 5 unknown, 6 unreduced).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sharding {
    pub kind: i32,
    pub tile_assignment_dimensions: Vec<i64>,
    pub tile_assignment_devices: Vec<i64>,
    pub tuple_shardings: Vec<Sharding>,
    pub replicate_on_last_tile_dim: bool,
    pub last_tile_dims: Vec<i32>,
    pub iota_reshape_dims: Vec<i64>,
    pub iota_transpose_perm: Vec<i32>,
}

/// A constant's elements in row-major order, by element kind.
#[derive(Debug, Clone, PartialEq)]
pub enum LiteralValues {
    Pred(Vec<bool>),
    Signed(Vec<i64>),
    Unsigned(Vec<u64>),
    F32(Vec<f32>),
    F64(Vec<f64>),
    /// bf16 and f16 as their bits (`bf16` says which).
    Half {
        bf16: bool,
        bits: Vec<u16>,
    },
    /// A type whose elements are not kept.
    Other,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Literal {
    /// Its shape's dimensions (none for a scalar).
    pub dimensions: Vec<i64>,
    pub values: LiteralValues,
}

/// The module-level facts of the text's header.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModuleAttributes {
    /// Computation id → its instruction ids in execution order.
    pub schedule: Vec<(i64, Vec<i64>)>,
    /// Whether the module carries a schedule (`is_scheduled=true`).
    pub is_scheduled: bool,
    pub input_output_alias: Vec<AliasEntry>,
    /// Sorted by key.
    pub frontend_attributes: Vec<(String, String)>,
}

impl ModuleAttributes {
    /// The scheduled order of a computation's instructions, if scheduled.
    pub fn sequence(&self, computation_id: i64) -> Option<&[i64]> {
        self.schedule.iter().find(|(id, _)| *id == computation_id).map(|(_, ids)| ids.as_slice())
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AliasEntry {
    pub output_index: Vec<i64>,
    pub parameter_number: i64,
    pub parameter_index: Vec<i64>,
    /// 2 = must alias, anything else may alias.
    pub kind: i32,
}
