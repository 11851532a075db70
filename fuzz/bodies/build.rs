//! Structure-aware inputs: an XSpace (with XLA programs' HLO in its
//! `/host:metadata` plane) built from fuzzed choices, with names drawn from
//! what the profilers write, ids that dangle and references that cycle.
//! Shared by `tools_hlo` and `tools_xspace_built` (see `common.rs`).
#![allow(dead_code)]

use crate::common::{Pb, Reader};

#[path = "build_hlo.rs"]
mod hlo;
pub use hlo::hlo_proto;
use proflens_format::proto::{x_event, x_stat, XEvent, XEventMetadata, XLine, XPlane, XSpace, XStat, XStatMetadata};
use prost::Message;

/// Instruction (and device event) names: the XLA ops line names its events
/// after the instructions.
pub const INSTRUCTIONS: &[&str] = &[
    "fusion",
    "fusion.1",
    "dot.2",
    "convolution.3",
    "copy.4",
    "param.0",
    "add.5",
    "while.6",
    "all-reduce.7",
    "custom-call.8",
    "tuple.9",
    "get-tuple-element.10",
    "call.11",
    "conditional.12",
    "reduce.13",
];

const OPCODES: &[&str] = &[
    "parameter",
    "constant",
    "add",
    "multiply",
    "fusion",
    "call",
    "while",
    "conditional",
    "dot",
    "convolution",
    "all-reduce",
    "all-gather",
    "reduce-scatter",
    "collective-permute",
    "tuple",
    "get-tuple-element",
    "custom-call",
    "copy",
    "copy-start",
    "copy-done",
    "reduce",
    "broadcast",
    "reshape",
    "transpose",
    "bitcast",
    "send",
    "recv",
    "infeed",
    "outfeed",
    "async-start",
    "async-done",
    "",
];

const COMPUTATIONS: &[&str] = &["main", "fused_computation", "body", "cond", "region_0", "main.1", ""];
const MODULES: &[&str] = &["jit_f", "jit_train_step", "cluster_0", "a_inference_step_1__XlaMustCompile", ""];
const OP_NAMES: &[&str] =
    &["jit(f)/jit(main)/dot_general", "dense/MatMul", "model/conv2d/Conv2D", "jit(f)/add", "while/body/add", ""];
const OP_TYPES: &[&str] = &["MatMul", "Conv2D", "AddV2", "dot_general", "", "Relu"];
const FUSION_KINDS: &[&str] = &["kLoop", "kInput", "kOutput", "kCustom", ""];
const TARGETS: &[&str] = &["__cublas$gemm", "__cudnn$convForward", "tpu_custom_call", "", "Sharding"];

const PLANES: &[&str] = &[
    "/host:CPU",
    "/device:GPU:0",
    "/device:GPU:1",
    "/device:TPU:0",
    "/device:TPU:1",
    "/device:TPU:0 SparseCore 0",
    "/host:metadata",
    "Task Environment",
    "/device:CUSTOM:0",
];
const LINES: &[&str] = &[
    "XLA Ops",
    "XLA Modules",
    "Steps",
    "Framework Ops",
    "TensorFlow Ops",
    "Sparse Core Ops",
    "Sparse Core Steps",
    "Stream #1",
    "Stream #7(Compute)",
    "Launch Stats",
    "python3",
    "tf_data_iterator",
    "XLA TraceMe",
];
/// Line ids: plain, and the profiler's derived ones (0xdeadbeef + n).
const LINE_IDS: &[i64] =
    &[0, 1, 2, 7, 0xdead_beef_u32 as i32 as i64, 0xdead_beef_u32 as i32 as i64 + 1, -559038736, 0xdeadbeef];
const EVENTS: &[&str] = &[
    "TraceContext",
    "SessionRun",
    "FunctionRun",
    "RunGraph",
    "ExecutorState::Process",
    "EagerExecute",
    "IteratorGetNextOp::DoCompute",
    "IteratorGetNextAsOptionalOp::DoCompute",
    "InstantiatedCapturedFunction::Run",
    "Iterator::Root::Prefetch::MapAndBatch",
    "Iterator::Root::ParallelMap",
    "MemoryAllocation",
    "MemoryDeallocation",
    "dense/MatMul:MatMul",
    "model/conv2d/Conv2D:Conv2D",
    "cudaLaunchKernel",
    "cuLaunchKernel",
    "MemcpyH2D",
    "MemcpyD2H",
    "volta_sgemm_128x64_nn",
    "ncclAllReduceRingLLKernel",
    "train_step",
    "jit_f",
    "jit_train_step(12)",
    "1",
    "",
];
const STATS: &[&str] = &[
    "Hlo Proto",
    "_r",
    "_a",
    "_pt",
    "_p",
    "_ct",
    "_c",
    "_pid",
    "process_id",
    "id",
    "iter_num",
    "step_num",
    "graph_type",
    "correlation_id",
    "group_id",
    "step_name",
    "is_func",
    "is_eager",
    "tf_op",
    "kernel_details",
    "shape",
    "flops",
    "model_flops",
    "bytes_accessed",
    "memory_access_breakdown",
    "device_id",
    "memcpy_details",
    "hlo_op",
    "hlo_module",
    "hlo_category",
    "program_id",
    "symbol_id",
    "run_id",
    "device_duration_ps",
    "device_offset_ps",
    "step_idle_time_ps",
    "_ipl_stage_id",
    "_ipl_stage_name",
    "_ipl_stage_cat",
    "clock_rate",
    "core_count",
    "memory_bandwidth",
    "memory_size",
    "compute_cap_major",
    "compute_cap_minor",
    "peak_teraflops_per_second",
    "peak_hbm_bw_gigabytes_per_second",
    "device_type_string",
    "device_vendor",
    "gpu_device_name",
    "tf_function_call",
    "tracing_count",
    "bytes_allocated",
    "bytes_reserved",
    "peak_bytes_in_use",
    "requested_bytes",
    "allocation_bytes",
    "addr",
    "region_type",
    "data_type",
    "tensor_shape",
    "python_function",
    "source_stack",
    "deduplicated_name",
    "occ_pct",
    "static_shared",
    "dynamic_shared",
    "grid",
    "block",
];
const STRINGS: &[&str] = &[
    "",
    "fusion",
    "dot.2",
    "jit_f",
    "MatMul",
    "regs:32 static_shared:0 dynamic_shared:0 grid:1,1,1 block:128,1,1 occ_pct:50",
    "kind:HtoD size:1024 dest:0 async:0",
    "convolution",
    "[1,2,3]",
    "float",
    "H100",
    "NVIDIA",
    "TPU v4",
    "0",
    "-1",
    "train",
    "dense/MatMul:MatMul",
];

/// The stat metadata id of `name` in every plane built here.
fn stat_id(name: &str) -> i64 {
    STATS.iter().position(|s| *s == name).map_or(0, |i| i as i64 + 1)
}

fn stat_metadata() -> std::collections::HashMap<i64, XStatMetadata> {
    STATS
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let id = i as i64 + 1;
            (id, XStatMetadata { id, name: name.to_string(), description: String::new() })
        })
        .collect()
}

/// A stat named `name`, or any known name.
fn stat(r: &mut Reader, name: Option<&str>) -> XStat {
    // Ids that refer to nothing make the decoder refuse the whole profile
    // (the decoder targets cover that): every id here is defined.
    let metadata_id = match name {
        Some(n) => stat_id(n),
        None => r.below(STATS.len()) as i64 + 1,
    };
    let value = match r.below(8) {
        0 => x_stat::Value::DoubleValue(f64::from(r.u16()) / 7.0),
        1 | 2 => x_stat::Value::Uint64Value(r.amount() as u64),
        3 | 4 => x_stat::Value::Int64Value(r.amount()),
        5 => x_stat::Value::StrValue(r.pick(STRINGS).to_string()),
        6 => x_stat::Value::RefValue(r.below(STATS.len()) as u64 + 1),
        _ => x_stat::Value::StrValue(r.pick(INSTRUCTIONS).to_string()),
    };
    XStat { metadata_id, value: Some(value) }
}

/// An XSpace from the choices of two readers: `programs` builds the XLA
/// programs' HLO, `events` the planes of lines of events (two streams, so
/// that a long HLO does not starve the events of choices).
pub fn xspace(events: &mut Reader, programs: &mut Reader) -> Vec<u8> {
    let mut planes = Vec::new();
    // The XLA programs.
    let mut metadata =
        XPlane { id: 0, name: "/host:metadata".into(), stat_metadata: stat_metadata(), ..XPlane::default() };
    let r = programs;
    let modules = r.len(2) + usize::from(r.bool());
    for m in 0..modules {
        let id = if m == 0 { 1 } else { r.id() };
        let bytes = hlo_proto(r);
        let mut stats =
            vec![XStat { metadata_id: stat_id("Hlo Proto"), value: Some(x_stat::Value::BytesValue(bytes)) }];
        if r.bool() {
            stats.push(XStat {
                metadata_id: stat_id("program_id"),
                value: Some(x_stat::Value::Uint64Value(r.id() as u64)),
            });
        }
        let name = r.pick(MODULES).to_string();
        metadata.event_metadata.insert(id, XEventMetadata { id, name, stats, ..XEventMetadata::default() });
    }
    planes.push(metadata);
    // Planes of events.
    let r = events;
    for p in 0..r.len(3) + 1 {
        let name = if p == 0 { r.pick(&PLANES[..4]) } else { r.pick(PLANES) };
        let mut plane =
            XPlane { id: p as i64 + 1, name: name.into(), stat_metadata: stat_metadata(), ..XPlane::default() };
        let names = r.len(12) + 1;
        for m in 1..=names as i64 {
            let name = if r.bool() { r.pick(INSTRUCTIONS) } else { r.pick(EVENTS) };
            let mut meta = XEventMetadata { id: m, name: name.into(), ..XEventMetadata::default() };
            for _ in 0..r.len(2) {
                meta.stats.push(stat(r, None));
            }
            if r.below(8) == 0 {
                meta.child_id = (0..r.len(2)).map(|_| r.id()).collect();
            }
            plane.event_metadata.insert(m, meta);
        }
        for _ in 0..r.len(3) {
            plane.stats.push(stat(r, None));
        }
        for _ in 0..r.len(4) + 1 {
            let mut line = XLine {
                id: r.pick(LINE_IDS),
                display_id: r.id(),
                name: r.pick(LINES).into(),
                timestamp_ns: if r.bool() { 1_000 } else { r.amount() },
                duration_ps: r.amount(),
                ..XLine::default()
            };
            let mut offset = 0i64;
            for _ in 0..r.len(12) {
                // Mostly in order and nested, as the profiler writes them.
                offset = if r.below(8) == 0 { r.amount() } else { offset.saturating_add(r.u8() as i64 * 1000) };
                let duration = if r.below(8) == 0 { r.amount() } else { r.u8() as i64 * 3000 };
                let metadata_id = r.below(names) as i64 + 1;
                let data = if r.below(32) == 0 {
                    x_event::Data::NumOccurrences(r.amount())
                } else {
                    x_event::Data::OffsetPs(offset)
                };
                let mut event = XEvent { metadata_id, data: Some(data), duration_ps: duration, stats: Vec::new() };
                for _ in 0..r.len(4) {
                    event.stats.push(stat(r, None));
                }
                line.events.push(event);
            }
            plane.lines.push(line);
        }
        planes.push(plane);
    }
    if r.bool() {
        planes.reverse();
    }
    XSpace { planes, hostnames: vec!["host".into()], ..XSpace::default() }.encode_to_vec()
}

/// A plane of named events on named lines, for [`around_hlo`].
struct PlaneBuilder {
    plane: XPlane,
    names: Vec<String>,
}

impl PlaneBuilder {
    fn new(id: i64, name: &str) -> PlaneBuilder {
        let plane = XPlane { id, name: name.into(), stat_metadata: stat_metadata(), ..XPlane::default() };
        PlaneBuilder { plane, names: Vec::new() }
    }

    fn line(&mut self, id: i64, name: &str) -> usize {
        self.plane.lines.push(XLine { id, display_id: id, name: name.into(), timestamp_ns: 1_000, ..XLine::default() });
        self.plane.lines.len() - 1
    }

    fn event(&mut self, line: usize, name: &str, offset_ps: i64, duration_ps: i64, stats: Vec<XStat>) {
        self.event_with(line, name, Vec::new(), offset_ps, duration_ps, stats);
    }

    /// An event whose metadata (made at its name's first event) has `meta_stats`.
    fn event_with(
        &mut self,
        line: usize,
        name: &str,
        meta_stats: Vec<XStat>,
        offset_ps: i64,
        duration_ps: i64,
        stats: Vec<XStat>,
    ) {
        let id = match self.names.iter().position(|n| n == name) {
            Some(i) => i as i64 + 1,
            None => {
                self.names.push(name.to_string());
                let id = self.names.len() as i64;
                let meta = XEventMetadata { id, name: name.into(), stats: meta_stats, ..XEventMetadata::default() };
                self.plane.event_metadata.insert(id, meta);
                id
            }
        };
        let data = Some(x_event::Data::OffsetPs(offset_ps));
        self.plane.lines[line].events.push(XEvent { metadata_id: id, data, duration_ps, stats });
    }
}

fn int(name: &str, v: i64) -> XStat {
    XStat { metadata_id: stat_id(name), value: Some(x_stat::Value::Int64Value(v)) }
}

fn text(name: &str, v: &str) -> XStat {
    XStat { metadata_id: stat_id(name), value: Some(x_stat::Value::StrValue(v.into())) }
}

/// The device whose events [`around_hlo`] builds around the HLO.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Device {
    Tpu,
    Gpu,
}

/// An XSpace around one XLA program whose `xla.HloProto` is `hlo`: the
/// program in `/host:metadata`, and (when the bytes decode) a TPU's or a
/// GPU's events named after its instructions, launched from the host, so
/// that the HLO joins the device's ops as in a real profile.
pub fn around_hlo(hlo: &[u8], device: Device) -> Vec<u8> {
    let module = proflens_format::hlo::decode_hlo_proto(hlo, 1).ok();
    let module_name = module.as_ref().map(|m| m.name.clone()).filter(|n| !n.is_empty()).unwrap_or("jit_f".into());
    let instructions: Vec<(String, String)> = module
        .iter()
        .flat_map(|m| m.computations.iter().rev())
        .flat_map(|c| c.instructions.iter().map(|i| (i.name.clone(), i.opcode.clone())))
        .take(24)
        .collect();

    let mut metadata =
        XPlane { id: 0, name: "/host:metadata".into(), stat_metadata: stat_metadata(), ..XPlane::default() };
    let stats = vec![
        XStat { metadata_id: stat_id("Hlo Proto"), value: Some(x_stat::Value::BytesValue(hlo.to_vec())) },
        int("program_id", 1),
    ];
    metadata
        .event_metadata
        .insert(1, XEventMetadata { id: 1, name: module_name.clone(), stats, ..XEventMetadata::default() });

    let mut host = PlaneBuilder::new(1, "/host:CPU");
    let python = host.line(1, "python3");
    let mut dev = PlaneBuilder::new(2, if device == Device::Tpu { "/device:TPU:0" } else { "/device:GPU:0" });
    let derived = 0xdead_beef_u32 as i32 as i64;
    let (steps, modules, ops) =
        (dev.line(derived, "Steps"), dev.line(derived + 1, "XLA Modules"), dev.line(derived + 2, "XLA Ops"));
    let stream = dev.line(7, "Stream #7(Compute)");
    for step in 0..2i64 {
        let at = step * 1_000_000;
        host.event(python, "train_step", at, 900_000, vec![int("step_num", step), int("_r", 1)]);
        dev.event(steps, &step.to_string(), at, 900_000, vec![int("group_id", step), int("step_num", step)]);
        let module_stats = vec![int("program_id", 1), int("run_id", step), int("group_id", step)];
        dev.event(modules, &format!("{module_name}(1)"), at, 800_000, module_stats);
        for (i, (name, opcode)) in instructions.iter().enumerate() {
            let t = at + 1_000 + i as i64 * 20_000;
            let correlation = step * 100 + i as i64;
            if device == Device::Tpu {
                let meta = vec![
                    int("program_id", 1),
                    int("symbol_id", i as i64 + 1),
                    text("hlo_category", opcode),
                    int("flops", 1 << (i % 40)),
                    int("bytes_accessed", 4096),
                    text("tf_op", "dense/MatMul"),
                    text("deduplicated_name", name),
                ];
                dev.event_with(ops, name, meta, t, 15_000, vec![int("group_id", step)]);
            } else {
                dev.event(ops, name, t, 15_000, vec![int("program_id", 1), int("group_id", step)]);
                let launch = vec![int("correlation_id", correlation), int("group_id", step)];
                host.event(python, "cudaLaunchKernel", t - 500, 400, launch);
                let kernel_stats = vec![
                    int("correlation_id", correlation),
                    text("hlo_op", name),
                    text("hlo_module", &module_name),
                    int("program_id", 1),
                    int("group_id", step),
                    text(
                        "kernel_details",
                        "regs:32 static_shared:0 dynamic_shared:0 grid:1,1,1 block:128,1,1 occ_pct:50",
                    ),
                ];
                dev.event(stream, "fusion_kernel", t, 12_000, kernel_stats);
            }
        }
    }
    dev.plane.stats = vec![int("clock_rate", 1_410_000), int("core_count", 108), int("compute_cap_major", 8)];
    let planes = vec![metadata, host.plane, dev.plane];
    XSpace { planes, hostnames: vec!["host".into()], ..XSpace::default() }.encode_to_vec()
}
