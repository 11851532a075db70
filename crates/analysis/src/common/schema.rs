//! The names the profilers write (event and stat metadata names) and a
//! per-profile lookup of them, so that hot loops compare interned ids.

use proflens_model::{Line, Plane, Profile, StatValue, StrId};

/// Host event types that the analyses treat specially.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EventType {
    Other,
    TraceContext,
    SessionRun,
    FunctionRun,
    RunGraph,
    ExecutorStateProcess,
    EagerKernelExecute,
    IteratorGetNextOp,
    IteratorGetNextAsOptionalOp,
    CapturedFunctionRun,
    LoopOp,
    /// A framework op (`name:Type`).
    TfOpRun,
    /// A tf.data iterator (`Iterator::…`).
    Iterator,
    MemoryAllocation,
    MemoryDeallocation,
    /// A host event with a `correlation_id`: it launched device work.
    KernelLaunch,
    /// A device event with a `correlation_id`: the launched work.
    KernelExecute,
}

impl EventType {
    pub fn of_name(name: &str) -> EventType {
        match name {
            "TraceContext" => EventType::TraceContext,
            "SessionRun" => EventType::SessionRun,
            "FunctionRun" => EventType::FunctionRun,
            "RunGraph" => EventType::RunGraph,
            "ExecutorState::Process" => EventType::ExecutorStateProcess,
            "EagerExecute" => EventType::EagerKernelExecute,
            "IteratorGetNextOp::DoCompute" => EventType::IteratorGetNextOp,
            "IteratorGetNextAsOptionalOp::DoCompute" => EventType::IteratorGetNextAsOptionalOp,
            "InstantiatedCapturedFunction::Run"
            | "InstantiatedCapturedFunction::RunWithBorrowedArgs"
            | "InstantiatedCapturedFunction::RunInstantiated"
            | "InstantiatedCapturedFunction::RunAsync" => EventType::CapturedFunctionRun,
            "ParallelForOp" | "ForeverOp" | "WhileOp-EvalCond" | "WhileOp-StartBody" | "ForOp" => EventType::LoopOp,
            "MemoryAllocation" => EventType::MemoryAllocation,
            "MemoryDeallocation" => EventType::MemoryDeallocation,
            "Iterator" => EventType::Iterator,
            _ => match crate::common::tf_op::category(name) {
                crate::common::tf_op::OpCategory::TensorFlow => EventType::TfOpRun,
                crate::common::tf_op::OpCategory::TfData => EventType::Iterator,
                _ => EventType::Other,
            },
        }
    }

    /// Roots that name their group without the event name ("3", not "FunctionRun 3").
    pub fn is_implicit_root(self) -> bool {
        matches!(
            self,
            EventType::FunctionRun | EventType::SessionRun | EventType::RunGraph | EventType::ExecutorStateProcess
        )
    }
}

pub const HOST_PLANE: &str = "/host:CPU";
pub const GPU_PLANE_PREFIX: &str = "/device:GPU:";
pub const TPU_PLANE_PREFIX: &str = "/device:TPU:";
pub const STEPS_LINE: &str = "Steps";

/// First id of the lines the profiler derives (Steps, TF ops, XLA ops…):
/// `0xdeadbeef` as a C `int`; XProf compares the 32-bit truncation of the id.
pub const DERIVED_LINE_ID_MIN: i32 = 0xdead_beef_u32 as i32;
/// Last derived id: host XLA regions end at +289, then 100 device-derived ids.
const DERIVED_LINE_ID_MAX: i32 = DERIVED_LINE_ID_MIN + 389;

/// Lines derived from other lines; op metrics skip them.
pub fn is_derived_line(line: &Line) -> bool {
    (DERIVED_LINE_ID_MIN..=DERIVED_LINE_ID_MAX).contains(&(line.id as i32))
}

/// The derived `Steps` line of a device plane.
pub fn is_step_info_line(line: &Line) -> bool {
    line.id as i32 == DERIVED_LINE_ID_MIN
}

/// Interned ids of the stat names the analyses read (None: the profile never uses it).
#[derive(Debug, Clone, Copy, Default)]
pub struct StatKeys {
    pub is_root: Option<StrId>,
    pub is_async: Option<StrId>,
    pub producer_type: Option<StrId>,
    pub producer_id: Option<StrId>,
    pub consumer_type: Option<StrId>,
    pub consumer_id: Option<StrId>,
    pub consumer_pid: Option<StrId>,
    pub process_id: Option<StrId>,
    pub step_id: Option<StrId>,
    pub iter_num: Option<StrId>,
    pub step_num: Option<StrId>,
    pub graph_type: Option<StrId>,
    pub correlation_id: Option<StrId>,
    pub group_id: Option<StrId>,
    pub step_name: Option<StrId>,
    pub is_func: Option<StrId>,
    pub is_eager: Option<StrId>,
    pub tf_op: Option<StrId>,
    pub kernel_details: Option<StrId>,
    pub shape: Option<StrId>,
    pub flops: Option<StrId>,
    pub bytes_accessed: Option<StrId>,
    pub ipl_stage_id: Option<StrId>,
    pub ipl_stage_name: Option<StrId>,
    pub ipl_stage_cat: Option<StrId>,
    pub device_id: Option<StrId>,
    pub memcpy_details: Option<StrId>,
    pub hlo_op: Option<StrId>,
    pub hlo_module: Option<StrId>,
    pub program_id: Option<StrId>,
}

impl StatKeys {
    pub fn new(profile: &Profile) -> StatKeys {
        let k = |name: &str| profile.strings.lookup(name);
        StatKeys {
            is_root: k("_r"),
            is_async: k("_a"),
            producer_type: k("_pt"),
            producer_id: k("_p"),
            consumer_type: k("_ct"),
            consumer_id: k("_c"),
            consumer_pid: k("_pid"),
            process_id: k("process_id"),
            step_id: k("id"),
            iter_num: k("iter_num"),
            step_num: k("step_num"),
            graph_type: k("graph_type"),
            correlation_id: k("correlation_id"),
            group_id: k("group_id"),
            step_name: k("step_name"),
            is_func: k("is_func"),
            is_eager: k("is_eager"),
            tf_op: k("tf_op"),
            kernel_details: k("kernel_details"),
            shape: k("shape"),
            flops: k("flops"),
            bytes_accessed: k("bytes_accessed"),
            ipl_stage_id: k("_ipl_stage_id"),
            ipl_stage_name: k("_ipl_stage_name"),
            ipl_stage_cat: k("_ipl_stage_cat"),
            device_id: k("device_id"),
            memcpy_details: k("memcpy_details"),
            hlo_op: k("hlo_op"),
            hlo_module: k("hlo_module"),
            program_id: k("program_id"),
        }
    }
}

/// A stat of event `i` of `line`: the event's own stats first, then its metadata's.
pub fn event_stat<'a>(
    profile: &'a Profile,
    plane: &'a Plane,
    line: &'a proflens_model::Line,
    i: usize,
    key: Option<StrId>,
) -> Option<StatValue<'a>> {
    let key = key?;
    let events = &line.events;
    if let Some(s) = events.stats.of(i).find(|s| s.key == key) {
        return Some(events.stats.value(s, &profile.strings));
    }
    let meta = plane.event_metadata.get(events.metadata[i] as usize)?;
    meta.stats.get(key, &profile.strings)
}

/// A plane-level stat.
pub fn plane_stat<'a>(profile: &'a Profile, plane: &'a Plane, key: Option<StrId>) -> Option<StatValue<'a>> {
    plane.stats.get(key?, &profile.strings)
}

/// Reads several stats of an event in one pass over its stats (and its
/// metadata's), instead of one scan per stat: the hot loops over millions of
/// events use it.
pub struct StatPicker {
    /// Slot + 1 of each interned string that is a wanted key, else 0.
    slot_of: Vec<u8>,
    slots: usize,
    /// Some event metadata of the profile holds a wanted stat; when none
    /// does (most profiles keep such stats on the events), `pick` reads
    /// the event's own stats only.
    in_metadata: bool,
}

impl StatPicker {
    /// `keys[s]` is the key read into slot `s` (absent keys never match).
    pub fn new(profile: &Profile, keys: &[Option<StrId>]) -> StatPicker {
        let mut slot_of = vec![0u8; profile.strings.len()];
        for (slot, key) in keys.iter().enumerate() {
            if let Some(k) = key {
                if let Some(entry) = slot_of.get_mut(k.0 as usize) {
                    *entry = u8::try_from(slot + 1).expect("fewer than 255 keys");
                }
            }
        }
        let wanted = |key: StrId| slot_of.get(key.0 as usize).is_some_and(|&slot| slot > 0);
        let in_metadata =
            profile.planes.iter().flat_map(|p| &p.event_metadata).any(|m| m.stats.iter().any(|s| wanted(s.key)));
        StatPicker { slot_of, slots: keys.len(), in_metadata }
    }

    /// Fills `out[slot]` for each wanted stat of event `i`: the event's own
    /// value first, else its metadata's (XProf's precedence).
    pub fn pick<'a>(
        &self,
        profile: &'a Profile,
        plane: &'a Plane,
        line: &'a Line,
        i: usize,
        out: &mut [Option<StatValue<'a>>],
    ) {
        out[..self.slots].fill(None);
        let stats = &line.events.stats;
        for j in stats.range_of(i) {
            if let Some(&slot @ 1..) = self.slot_of.get(stats.key_at(j).0 as usize) {
                let cell = &mut out[slot as usize - 1];
                if cell.is_none() {
                    *cell = Some(stats.value(stats.stat_at(j), &profile.strings));
                }
            }
        }
        if !self.in_metadata {
            return;
        }
        let events = &line.events;
        let Some(meta) = plane.event_metadata.get(events.metadata[i] as usize) else { return };
        for s in meta.stats.iter() {
            if let Some(&slot @ 1..) = self.slot_of.get(s.key.0 as usize) {
                let cell = &mut out[slot as usize - 1];
                if cell.is_none() {
                    *cell = Some(meta.stats.value(s, &profile.strings));
                }
            }
        }
    }
}
