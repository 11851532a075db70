//! The device's XLA ops with their HLO: the shared input of the op profile
//! and HLO stats tools (XProf's device OpMetricsDb joined with the
//! `/host:metadata` HLO modules).
//!
//! * TPU: the ops of [`device_op_metrics`] (costs from the `XLA Ops`
//!   metadata), each joined with its HLO instruction by (program id, name);
//!   fusions list their fused instructions from the metadata's children.
//! * GPU: every kernel with an `hlo_op` and a `program_id` is one occurrence
//!   of that instruction; time adds up, FLOPs and bytes come from
//!   [`crate::hlo::cost`] per occurrence. The measured time runs from the first
//!   to the last event of each GPU's non-derived lines, summed over GPUs.

use crate::common::schema::{event_stat, is_derived_line, plane_stat, GPU_PLANE_PREFIX, TPU_PLANE_PREFIX};
use crate::hlo::cost::gpu_cost;
use crate::hlo::gpu::{innermost, provenance};
use crate::hlo::text::{category, ModuleIndex};
use crate::passes::grouping::Grouping;
use crate::passes::op_metrics::{device_op_metrics, MemoryBreakdown, OpMetrics};
use proflens_model::hlo::{HloInstruction, HloModule};
use proflens_model::{Profile, StatValue};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

/// Where an op came from in the user's program.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceInfo {
    pub file_name: String,
    pub line_number: i32,
    /// `file:line:column` frames, innermost first, each ending in a newline.
    pub stack_frame: String,
}

/// One XLA instruction as the device ran it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct XlaOp {
    pub program_id: u64,
    /// HLO instruction name (`fusion.3`).
    pub name: String,
    /// `loop fusion`, `custom-call`, `data formatting`, …
    pub category: String,
    /// HLO text of the instruction.
    pub expression: String,
    /// Framework op as `op_name:` (XProf's provenance), empty when unknown.
    pub provenance: String,
    /// Name of the op this one duplicates (fusions XLA compiled the same), or empty.
    pub deduplicated_name: String,
    pub source: SourceInfo,
    pub occurrences: u64,
    pub time_ps: u64,
    /// Time minus nested ops (TPU), ps.
    pub self_time_ps: u64,
    /// Executed FLOPs (XProf's bf16-normalised `flops`).
    pub flops: u64,
    pub model_flops: u64,
    pub bytes_accessed: u64,
    /// Bytes moved to/from HBM according to the op's memory breakdown (0
    /// without one).
    pub hbm_bytes: u64,
    /// Whether the op has a memory breakdown (GPU cost model: always).
    pub has_memory_breakdown: bool,
    /// The TPU op's bytes per memory space (on-chip ones included), when
    /// its metadata has a breakdown; GPUs give HBM bytes only.
    #[serde(default)]
    pub memory_breakdown: Option<MemoryBreakdown>,
    /// Fused instructions (fusions on TPU): symbol and FLOPs only.
    pub children: Vec<XlaOp>,
}

/// Device kind, as XProf names it in `deviceType`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum DeviceKind {
    #[default]
    Unknown,
    Gpu,
    Tpu,
}

impl DeviceKind {
    pub fn label(self) -> &'static str {
        match self {
            DeviceKind::Gpu => "GPU",
            DeviceKind::Tpu => "TPU",
            DeviceKind::Unknown => "",
        }
    }
}

/// The XLA ops of a profile with the device's peaks.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct XlaOpDb {
    pub device: DeviceKind,
    /// IDLE excluded.
    pub ops: Vec<XlaOp>,
    /// Measured device time, ps (ops + idle).
    pub total_time_ps: u64,
    pub idle_time_ps: u64,
    pub peak_gflops: f64,
    /// HBM peak, GiB/s.
    pub peak_hbm_gibps: f64,
}

/// Builds the XLA op database of one host's profile.
pub fn xla_ops(profile: &Profile, grouping: &Grouping, modules: &[HloModule]) -> XlaOpDb {
    let indexes: FxHashMap<u64, ModuleIndex<'_>> =
        modules.iter().map(|m| (m.program_id, ModuleIndex::new(m))).collect();
    let is_tpu = profile.planes.iter().any(|p| profile.str(p.name).starts_with(TPU_PLANE_PREFIX));
    let mut db = if is_tpu { tpu_ops(profile, grouping, &indexes) } else { gpu_ops(profile, &indexes) };
    let (peak_gflops, peak_hbm_gibps) = device_peaks(profile);
    db.peak_gflops = peak_gflops;
    db.peak_hbm_gibps = peak_hbm_gibps;
    db
}

/// The HLO-derived fields of an op.
fn describe(index: Option<&ModuleIndex<'_>>, name: &str, op: &mut XlaOp, index_is_gpu: bool) {
    let Some(index) = index else { return };
    let Some(instr) = index.by_name(name) else { return };
    op.expression = index.expression(instr);
    if op.category.is_empty() {
        op.category = category(instr);
    }
    op.provenance = provenance(instr);
    if op.deduplicated_name.is_empty() {
        op.deduplicated_name.clone_from(&instr.metadata.deduplicated_name);
    }
    op.source = source_info(index.module, instr);
    // XProf reads GPU source lines from the HLO, where "unknown" is -1.
    if op.source.file_name.is_empty() && index_is_gpu {
        op.source.line_number = -1;
    }
}

/// File, line and stack of an instruction (XProf's SourceInfo).
pub fn source_info(module: &HloModule, instr: &HloInstruction) -> SourceInfo {
    let frames = module.stack_frame_lines(instr.metadata.stack_frame_id);
    let (file, line) = module.source_location(instr);
    SourceInfo {
        file_name: file.to_string(),
        line_number: line,
        stack_frame: frames.iter().map(|f| format!("{f}\n")).collect(),
    }
}

fn tpu_ops(profile: &Profile, grouping: &Grouping, indexes: &FxHashMap<u64, ModuleIndex<'_>>) -> XlaOpDb {
    let metrics = device_op_metrics(profile, grouping);
    let info = tpu_op_info(profile);
    let mut ops = Vec::new();
    for m in metrics.ops.iter().filter(|m| !m.is_idle() && m.id != u64::MAX) {
        let mut op = from_op_metrics(m);
        let index = indexes.get(&m.id);
        let extra = info.get(&(m.id, m.name.clone()));
        if let Some(extra) = extra {
            op.deduplicated_name.clone_from(&extra.deduplicated_name);
        }
        describe(index, &m.name, &mut op, false);
        if let Some(source) = extra.and_then(|e| e.source.clone()) {
            op.source = source;
        }
        if let Some(index) = index {
            op.children = fused_children(index, &info, m.id, &m.name);
        }
        ops.push(op);
    }
    XlaOpDb {
        device: DeviceKind::Tpu,
        ops,
        total_time_ps: metrics.total_time_ps,
        idle_time_ps: metrics.idle_time_ps(),
        ..XlaOpDb::default()
    }
}

/// The instructions of a TPU fusion's computation (parameters left out),
/// described by their own `XLA Ops` metadata where the profile has it.
fn fused_children(
    index: &ModuleIndex<'_>,
    info: &FxHashMap<(u64, String), TpuOpInfo>,
    program: u64,
    name: &str,
) -> Vec<XlaOp> {
    let Some(fusion) = index.by_name(name).filter(|i| i.opcode == "fusion") else { return Vec::new() };
    let computations = fusion.called_computation_ids.iter().filter_map(|&id| index.module.computation(id));
    computations
        .flat_map(|c| c.instructions.iter())
        .filter(|i| i.opcode != "parameter")
        .map(|instr| {
            let meta = info.get(&(program, instr.name.clone()));
            XlaOp {
                name: instr.name.clone(),
                category: meta.map_or_else(|| category(instr), |m| m.category.clone()),
                expression: index.expression(instr),
                provenance: format!("{}:", instr.metadata.op_name),
                flops: meta.map_or(0, |m| m.flops),
                model_flops: meta.map_or(0, |m| m.model_flops),
                occurrences: 1,
                ..XlaOp::default()
            }
        })
        .collect()
}

fn from_op_metrics(m: &OpMetrics) -> XlaOp {
    XlaOp {
        program_id: m.id,
        name: m.name.clone(),
        category: m.category.clone(),
        occurrences: m.occurrences,
        time_ps: m.time_ps,
        self_time_ps: m.self_time_ps,
        flops: m.flops,
        model_flops: m.model_flops,
        bytes_accessed: m.bytes_accessed,
        // TPU ops without a breakdown moved no HBM bytes that XProf counts.
        hbm_bytes: m.memory_breakdown.map_or(0, |b| b.hbm),
        has_memory_breakdown: m.memory_breakdown.is_some(),
        memory_breakdown: m.memory_breakdown,
        ..XlaOp::default()
    }
}

/// What the TPU `XLA Ops` metadata says per (program id, op name), for ops
/// and fused instructions alike.
#[derive(Default)]
struct TpuOpInfo {
    category: String,
    flops: u64,
    model_flops: u64,
    deduplicated_name: String,
    /// From the `source` (`file:line`) and `source_stack` stats, which XProf
    /// prefers to the HLO's (their stack runs outermost first).
    source: Option<SourceInfo>,
}

fn stat<'a>(
    profile: &'a Profile,
    m: &'a proflens_model::EventMetadata,
    k: Option<proflens_model::StrId>,
) -> Option<StatValue<'a>> {
    k.and_then(|k| m.stats.get(k, &profile.strings))
}

fn tpu_op_info(profile: &Profile) -> FxHashMap<(u64, String), TpuOpInfo> {
    let key = |name: &str| profile.strings.lookup(name);
    let (program_id, hlo_category, flops, model_flops, dedup, source, source_stack) = (
        key("program_id"),
        key("hlo_category"),
        key("flops"),
        key("model_flops"),
        key("deduplicated_name"),
        key("source"),
        key("source_stack"),
    );
    let text = |v: Option<StatValue<'_>>| v.and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
    let mut out: FxHashMap<(u64, String), TpuOpInfo> = FxHashMap::default();
    for plane in profile.planes.iter().filter(|p| profile.str(p.name).starts_with(TPU_PLANE_PREFIX)) {
        for meta in &plane.event_metadata {
            let Some(program) = stat(profile, meta, program_id).and_then(|v| v.as_u64()) else { continue };
            let name = profile.str(meta.display_name.unwrap_or(meta.name)).to_string();
            let source = text(stat(profile, meta, source));
            let source = (!source.is_empty()).then(|| {
                let (file, line) = source.rsplit_once(':').unwrap_or((source.as_str(), ""));
                SourceInfo {
                    file_name: file.to_string(),
                    line_number: line.parse().unwrap_or(0),
                    stack_frame: text(stat(profile, meta, source_stack)),
                }
            });
            out.entry((program, name)).or_insert(TpuOpInfo {
                category: text(stat(profile, meta, hlo_category)),
                flops: stat(profile, meta, flops).and_then(|v| v.as_u64()).unwrap_or(0),
                model_flops: stat(profile, meta, model_flops).and_then(|v| v.as_u64()).unwrap_or(0),
                deduplicated_name: text(stat(profile, meta, dedup)),
                source,
            });
        }
    }
    out
}

fn gpu_ops(profile: &Profile, indexes: &FxHashMap<u64, ModuleIndex<'_>>) -> XlaOpDb {
    let key = |name: &str| profile.strings.lookup(name);
    let (hlo_op, program_id) = (key("hlo_op"), key("program_id"));
    let mut ops: Vec<XlaOp> = Vec::new();
    let mut slots: FxHashMap<(u64, String), usize> = FxHashMap::default();
    let mut total_time_ps = 0u64;
    for plane in profile.planes.iter().filter(|p| profile.str(p.name).starts_with(GPU_PLANE_PREFIX)) {
        let mut span: Option<(i64, i64)> = None;
        for line in plane.lines.iter().filter(|l| !is_derived_line(l)) {
            let ev = &line.events;
            for i in 0..ev.len() {
                let (start, end) = (ev.start_ps.at(i), ev.end_ps(i));
                span = Some(span.map_or((start, end), |(a, b)| (a.min(start), b.max(end))));
                let Some(name) =
                    event_stat(profile, plane, line, i, hlo_op).and_then(|v| v.as_str().map(str::to_string))
                else {
                    continue;
                };
                let Some(program) = event_stat(profile, plane, line, i, program_id).and_then(|v| v.as_u64()) else {
                    continue;
                };
                let name = innermost(&name).to_string();
                let slot = *slots.entry((program, name.clone())).or_insert_with(|| {
                    let mut op = XlaOp { program_id: program, name: name.clone(), ..XlaOp::default() };
                    describe(indexes.get(&program), &name, &mut op, true);
                    ops.push(op);
                    ops.len() - 1
                });
                let duration = u64::try_from(ev.duration_ps.at(i)).unwrap_or(0);
                if let Some(op) = ops.get_mut(slot) {
                    op.occurrences += 1;
                    op.time_ps = op.time_ps.saturating_add(duration);
                    op.self_time_ps = op.self_time_ps.saturating_add(duration);
                }
            }
        }
        total_time_ps =
            total_time_ps.saturating_add(span.map_or(0, |(a, b)| u64::try_from(b.saturating_sub(a)).unwrap_or(0)));
    }
    // XProf counts every kernel of an instruction as one occurrence and
    // charges the instruction's cost per occurrence.
    for op in &mut ops {
        let Some(index) = indexes.get(&op.program_id) else { continue };
        let Some(instr) = index.by_name(&op.name) else { continue };
        let cost = gpu_cost(index, instr);
        // XProf's op FLOPs are the device-normalized ones; the model FLOPs
        // are XLA's count.
        op.flops = cost.device_flops.saturating_mul(op.occurrences);
        op.model_flops = cost.flops.saturating_mul(op.occurrences);
        op.bytes_accessed = cost.bytes_accessed.saturating_mul(op.occurrences);
        op.hbm_bytes = cost.hbm_bytes.saturating_mul(op.occurrences);
        op.has_memory_breakdown = true;
    }
    let op_time: u64 = ops.iter().map(|o| o.self_time_ps).sum();
    let total_time_ps = total_time_ps.max(op_time);
    XlaOpDb { device: DeviceKind::Gpu, ops, total_time_ps, idle_time_ps: total_time_ps - op_time, ..XlaOpDb::default() }
}

/// Peak FLOP rate (GFLOP/s) and HBM bandwidth (GiB/s) of the first device.
///
/// TPUs record both as plane stats. A GPU plane's stated FLOP peak wins, as
/// in XProf's GetPerfEnvFromXPlane; without one it is cores × clock × the
/// per-core-per-cycle rate of the architecture
/// ([`crate::passes::device_caps`]; 0 for a vendor or AMD architecture
/// XProf does not know).
pub fn device_peaks(profile: &Profile) -> (f64, f64) {
    let key = |name: &str| profile.strings.lookup(name);
    let gib = |gb: f64| gb * 1e9 / (1u64 << 30) as f64;
    let named = |prefix: &str| profile.planes.iter().find(|p| profile.str(p.name).starts_with(prefix));
    let num = |plane, name: &str| plane_stat(profile, plane, key(name)).and_then(|v| v.as_f64()).unwrap_or(0.0);
    if let Some(tpu) = named(TPU_PLANE_PREFIX) {
        return (num(tpu, "peak_teraflops_per_second") * 1000.0, gib(num(tpu, "peak_hbm_bw_gigabytes_per_second")));
    }
    let Some(gpu) = named(GPU_PLANE_PREFIX) else { return (0.0, 0.0) };
    let hbm = gib(num(gpu, "memory_bandwidth") / 1e9);
    let stated = num(gpu, "peak_teraflops_per_second");
    if stated > 0.0 {
        return (stated * 1000.0, hbm);
    }
    let caps = crate::passes::run_environment::device_caps(profile, gpu);
    (crate::passes::device_caps::peak_gflops(&caps), hbm)
}

/// [`xla_ops`] with the profile's own event grouping.
pub fn xla_ops_of(profile: &Profile, modules: &[HloModule]) -> XlaOpDb {
    xla_ops(profile, &crate::passes::grouping::group_events(profile), modules)
}

/// Module name per program id.
pub fn program_names(modules: &[HloModule]) -> FxHashMap<u64, String> {
    modules.iter().map(|m| (m.program_id, m.name.clone())).collect()
}
