//! XLA programs as compiled: the HLO modules the profiler records in the
//! `/host:metadata` plane, as plain types (no protobuf types), for the op
//! profile, HLO stats and memory viewer tools.
//!
//! `proflens_format::hlo` fills these from the `Hlo Proto` bytes; tools only
//! read them.

pub use crate::hlo_attributes::{InstructionAttributes, ModuleAttributes};

/// One XLA program: its HLO and, when recorded, its buffer assignment.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HloModule {
    /// Module name (`jit_train_step`).
    pub name: String,
    /// Program id: the id of the module's event metadata in `/host:metadata`
    /// (what device events carry as `program_id`).
    pub program_id: u64,
    /// XLA's own module id (`HloModuleProto.id`), often the program id.
    pub module_id: u64,
    /// The name the profile gives the module (`jit_f(42)`), empty if none.
    pub profile_name: String,
    pub entry_computation_name: String,
    pub entry_computation_id: i64,
    /// Callees before callers.
    pub computations: Vec<HloComputation>,
    pub stack_frames: StackFrameIndex,
    pub buffer_assignment: Option<BufferAssignment>,
    /// The entry's parameter shapes and result with their layouts, when
    /// recorded (the text's `entry_computation_layout`).
    pub entry_layout: Option<(Vec<Shape>, Shape)>,
    /// Schedule, aliasing: what the module's text header shows.
    pub attributes: ModuleAttributes,
}

impl HloModule {
    /// XProf's name for a module in its module lists and file names: the
    /// profile's name for it, else `<name>(<program id>)`.
    pub fn display_name(&self) -> String {
        if self.profile_name.is_empty() {
            format!("{}({})", self.name, self.program_id)
        } else {
            self.profile_name.clone()
        }
    }

    pub fn computation(&self, id: i64) -> Option<&HloComputation> {
        self.computations.iter().find(|c| c.id == id)
    }

    pub fn entry_computation(&self) -> Option<&HloComputation> {
        self.computation(self.entry_computation_id)
            .or_else(|| self.computations.iter().find(|c| c.name == self.entry_computation_name))
            .or_else(|| self.computations.last())
    }

    /// Every instruction of every computation.
    pub fn instructions(&self) -> impl Iterator<Item = (&HloComputation, &HloInstruction)> {
        self.computations.iter().flat_map(|c| c.instructions.iter().map(move |i| (c, i)))
    }

    /// The stack frames (innermost first) of a 1-based frame id, as
    /// `file:line:column` strings.
    pub fn stack_frame_lines(&self, frame_id: i32) -> Vec<String> {
        self.stack_frames_of(frame_id).iter().map(|(file, line, column)| format!("{file}:{line}:{column}")).collect()
    }

    /// The stack frames (innermost first) of a 1-based frame id, as
    /// (file, line, column).
    pub fn stack_frames_of(&self, frame_id: i32) -> Vec<(&str, i32, i32)> {
        let index = &self.stack_frames;
        let one_based = |id: i32| usize::try_from(id).ok().and_then(|i| i.checked_sub(1));
        let mut out = Vec::new();
        let mut id = frame_id;
        // Parent ids point outward. A file may make them loop, through frames
        // with or without a location: the walk is bounded in steps, not in
        // frames found.
        for _ in 0..MAX_STACK_DEPTH {
            let Some(frame) = one_based(id).and_then(|i| index.frames.get(i)) else { break };
            if let Some(loc) = one_based(frame.file_location_id).and_then(|l| index.file_locations.get(l)) {
                let file = one_based(loc.file_name_id).and_then(|f| index.file_names.get(f)).map_or("", String::as_str);
                out.push((file, loc.line, loc.column));
            }
            id = frame.parent_frame_id;
        }
        out
    }

    /// File and line of an instruction: its metadata's, else its innermost
    /// stack frame's (newer XLA only records the stack).
    pub fn source_location<'a>(&'a self, instr: &'a HloInstruction) -> (&'a str, i32) {
        if instr.metadata.source_file.is_empty() {
            if let Some(&(file, line, _)) = self.stack_frames_of(instr.metadata.stack_frame_id).first() {
                return (file, line);
            }
        }
        (&instr.metadata.source_file, instr.metadata.source_line)
    }
}

/// Most frames of one stack: deeper than any real Python stack.
const MAX_STACK_DEPTH: usize = 1000;

/// A computation: the entry, a fused computation, a loop body, …
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HloComputation {
    pub name: String,
    pub id: i64,
    pub root_id: i64,
    /// Operands before users.
    pub instructions: Vec<HloInstruction>,
}

/// One HLO instruction.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HloInstruction {
    pub name: String,
    /// `fusion`, `custom-call`, `add`, …
    pub opcode: String,
    pub shape: Shape,
    pub id: i64,
    pub operand_ids: Vec<i64>,
    /// Fused, called, body/condition computations.
    pub called_computation_ids: Vec<i64>,
    pub metadata: OpMetadata,
    /// `kLoop`, `kInput`, `kOutput`, `kCustom` for fusions.
    pub fusion_kind: String,
    pub custom_call_target: String,
    /// Custom calls that constrain layouts: each operand's shape with the
    /// layout the call requires.
    pub operand_shapes_with_layout: Vec<Shape>,
    pub parameter_number: i64,
    pub tuple_index: i64,
    pub dimensions: Vec<i64>,
    pub channel_id: i64,
    pub window: Vec<WindowDimension>,
    pub convolution: Option<ConvolutionDimensions>,
    pub feature_group_count: i64,
    pub batch_group_count: i64,
    pub dot: Option<DotDimensions>,
    pub replica_groups: ReplicaGroups,
    pub use_global_device_ids: bool,
    /// Constants: their values as XLA prints them, when they are scalars of
    /// a common type (`1`, `0.5`, `true`).
    pub scalar_literal: Option<String>,
    /// The rest of what XLA's text printer shows (the graph viewer's long_txt).
    pub attributes: Box<InstructionAttributes>,
}

/// The device groups of a collective.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum ReplicaGroups {
    #[default]
    None,
    /// Explicit groups of replica ids.
    List(Vec<Vec<i64>>),
    /// XLA's compact form: `num_groups` groups of `group_size` devices taken
    /// from iota(reshape_dims) transposed by `transpose`.
    Iota { num_groups: i64, group_size: i64, reshape_dims: Vec<i64>, transpose: Vec<i32> },
}

/// Where an instruction came from in the framework program.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OpMetadata {
    pub op_type: String,
    /// Framework op (`jit(f)/jit(main)/add`).
    pub op_name: String,
    pub source_file: String,
    pub source_line: i32,
    pub deduplicated_name: String,
    /// 1-based index into [`StackFrameIndex::frames`], 0 = none.
    pub stack_frame_id: i32,
}

/// XLA's PrimitiveType numbers for the types whose names we print.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Shape {
    /// XLA PrimitiveType (11 = F32, 13 = TUPLE, …).
    pub element_type: i32,
    pub dimensions: Vec<i64>,
    pub dynamic_dimensions: Vec<bool>,
    pub tuple_shapes: Vec<Shape>,
    pub layout: Option<Layout>,
}

/// XLA PrimitiveType of tuples.
pub const TUPLE_TYPE: i32 = 13;
/// XLA PrimitiveType of tokens.
pub const TOKEN_TYPE: i32 = 17;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Layout {
    pub minor_to_major: Vec<i64>,
    /// Tiles, first applied first; each is its dimensions.
    pub tiles: Vec<Vec<i64>>,
    pub tail_padding_alignment_in_elements: i64,
    pub element_size_in_bits: i64,
    pub memory_space: i64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WindowDimension {
    pub size: i64,
    pub stride: i64,
    pub padding_low: i64,
    pub padding_high: i64,
    pub window_dilation: i64,
    pub base_dilation: i64,
    pub window_reversal: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConvolutionDimensions {
    pub input_batch: i64,
    pub input_feature: i64,
    pub input_spatial: Vec<i64>,
    pub kernel_input_feature: i64,
    pub kernel_output_feature: i64,
    pub kernel_spatial: Vec<i64>,
    pub output_batch: i64,
    pub output_feature: i64,
    pub output_spatial: Vec<i64>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DotDimensions {
    pub lhs_contracting: Vec<i64>,
    pub rhs_contracting: Vec<i64>,
    pub lhs_batch: Vec<i64>,
    pub rhs_batch: Vec<i64>,
}

/// Source locations shared by a module's instructions (1-based ids).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StackFrameIndex {
    pub file_names: Vec<String>,
    pub function_names: Vec<String>,
    pub file_locations: Vec<FileLocation>,
    pub frames: Vec<StackFrame>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileLocation {
    pub file_name_id: i32,
    pub function_name_id: i32,
    pub line: i32,
    pub column: i32,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StackFrame {
    pub file_location_id: i32,
    pub parent_frame_id: i32,
}

/// Where XLA placed every buffer of the module.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BufferAssignment {
    pub logical_buffers: Vec<LogicalBuffer>,
    pub allocations: Vec<BufferAllocation>,
    pub heap_traces: Vec<HeapSimulatorTrace>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LogicalBuffer {
    pub id: i64,
    pub size: i64,
    /// The defining instruction (by id; `instruction_name` for old protos).
    pub instruction_id: i64,
    pub instruction_name: String,
    pub shape_index: Vec<i64>,
    /// Memory space (0 = device memory).
    pub color: i64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BufferAllocation {
    pub index: i64,
    pub size: i64,
    pub is_thread_local: bool,
    pub is_tuple: bool,
    pub is_entry_computation_parameter: bool,
    pub is_constant: bool,
    pub parameter_number: i64,
    pub maybe_live_out: bool,
    pub color: i64,
    pub assigned: Vec<AssignedBuffer>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AssignedBuffer {
    pub logical_buffer_id: i64,
    pub offset: i64,
    pub size: i64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HeapSimulatorTrace {
    pub events: Vec<HeapEvent>,
    pub whole_module_simulation: bool,
    pub buffer_allocation_index: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeapEventKind {
    Alloc,
    Free,
    ShareWith,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeapEvent {
    pub kind: HeapEventKind,
    pub buffer_id: i64,
    pub computation_name: String,
    pub instruction_name: String,
    pub share_with_canonical_id: i64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(location: i32, parent: i32) -> StackFrame {
        StackFrame { file_location_id: location, parent_frame_id: parent }
    }

    #[test]
    fn stack_frames_that_loop_end() {
        // 1 → 2 → 1, without locations: the walk used to spin for ever.
        let mut module = HloModule::default();
        module.stack_frames.frames = vec![frame(0, 2), frame(0, 1)];
        assert!(module.stack_frames_of(1).is_empty());
        // With a location on one of them: a bounded list, not an endless one.
        module.stack_frames.file_names = vec!["a.py".into()];
        module.stack_frames.file_locations = vec![FileLocation { file_name_id: 1, line: 3, ..FileLocation::default() }];
        module.stack_frames.frames = vec![frame(1, 2), frame(0, 1)];
        let frames = module.stack_frames_of(1);
        assert_eq!(frames.first(), Some(&("a.py", 3, 0)));
        assert_eq!(frames.len(), MAX_STACK_DEPTH / 2);
    }
}
