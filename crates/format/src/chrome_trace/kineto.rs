//! PyTorch profiler (Kineto) traces mapped onto XPlane conventions
//! (docs: formats.md §6), so the XProf-style tools read them:
//!
//! * host events (cpu_op, user_annotation, cuda_runtime, python_function, …)
//!   → plane `/host:CPU`, one line per (pid, tid) named from `thread_name`;
//! * device events (kernel, gpu_memcpy, gpu_memset; 1.9 names too; MTIA's
//!   mtia_ccp_events as kernels) → plane
//!   `/device:GPU:<args.device, else pid>`, line `Stream #<stream>(<types>)`;
//!   `gpu_user_annotation` ranges go on a separate derived-range line per
//!   stream so they never count as device ops;
//! * args keep their names except `correlation` → `correlation_id`,
//!   `External id`/`external id` → `external_id`, `device` → `device_id`;
//!   kernels get XProf's `kernel_details`, memcpys `memcpy_details`;
//! * `ProfilerStep#N` host ranges get `step_num` = N and `_r` = 1;
//! * counter (`C`) events → counter series on `/host:CPU`;
//! * `[memory]` instants → `MemoryAllocation`/`MemoryDeallocation` with the
//!   allocator stats XProf's memory profile reads (see [`memory_stats`]);
//! * `deviceProperties` → device-capability plane stats; `distributedInfo`
//!   and version keys → `/host:CPU` plane stats.
//!
//! `Stream Sync` events that Kineto writes on a virtual row (tid = stream +
//! 1,000,000) go on their stream's row ([`super::stream_sync`]).
//!
//! Flow events become flow stats ([`super::flows`]), except launch flows
//! (`ac2g`, `async_cpu_to_gpu`, 1.9's `async`): both ends of a launch
//! already carry the same `correlation_id`. Events of the pseudo-processes
//! `Spans`/`Traces` (non-numeric pids) are dropped.

use super::builder::{push_arg, push_json, PlaneAcc};
use super::counter_events;
use super::event_walk::EventWalk;
use super::flows::{Flows, LAUNCH_FLOW_CATS};
use super::kept::Kept;
use super::stream_sync;
use super::walk::Survey;
use super::{rel_ps, ArgValue, Head, RawEvent};
use crate::{Error, Progress};
use proflens_model::{Interner, Profile, Stats, StrId};
use rustc_hash::FxHashMap;
use serde_json::Value;
use std::collections::BTreeMap;

/// Line ids of the per-stream annotation lines: inside XProf's derived-line
/// range (device-derived ids, 0xdeadbeef + 290 onwards), so op metrics and
/// kernel stats skip them as they skip XProf's own derived lines.
const ANNOTATION_LINE_ID: i64 = 0xdead_beef_u32 as i32 as i64 + 290;

/// Device-side categories (current names and PyTorch 1.9's). MTIA writes its
/// on-device work as `mtia_ccp_events` (Kineto's `MTIA_CCP_EVENTS`, an alias
/// of `CONCURRENT_KERNEL`): kernels on the device's plane, as HTA counts them.
fn device_kind(cat: &str) -> Option<DeviceKind> {
    Some(match cat {
        "kernel" | "Kernel" | "mtia_ccp_events" => DeviceKind::Kernel,
        "gpu_memcpy" | "Memcpy" => DeviceKind::Memcpy,
        "gpu_memset" | "Memset" => DeviceKind::Memset,
        "gpu_user_annotation" => DeviceKind::Annotation,
        _ => return None,
    })
}

#[derive(Clone, Copy, PartialEq)]
enum DeviceKind {
    Kernel,
    Memcpy,
    Memset,
    Annotation,
}

pub(crate) fn build(
    head: &Head,
    survey: &Survey,
    walk: &mut dyn EventWalk,
    progress: &mut dyn FnMut(Progress),
) -> Result<Profile, Error> {
    let mut profile = Profile { strings: Interner::new(), ..Profile::default() };
    let strings = &mut profile.strings;
    // The first kept event (the `Spans` pseudo-process is dropped).
    let t0 = survey.kineto_t0.unwrap_or(0);
    profile.origin_ns = origin_ns(head, t0);

    let thread_names = &survey.thread_names;
    let mut host = PlaneAcc::new(0, "/host:CPU", strings);
    host_stats(head, &mut host, strings);
    let mut devices: BTreeMap<i64, PlaneAcc> = BTreeMap::new();
    for props in &head.device_properties {
        if let Some(id) = props.get("id").and_then(Value::as_i64) {
            let plane = device_plane(&mut devices, id, strings);
            device_stats(head, props, plane, strings);
        }
    }
    // (device, line) → (stream, XProf stream types seen on it).
    let mut line_types: FxHashMap<(i64, usize), (i64, Vec<&'static str>)> = FxHashMap::default();
    let mut memory = Vec::new();
    let keys = Keys::new(strings);
    let flows = Flows::bind(&survey.flow_points, |cat| LAUNCH_FLOW_CATS.contains(&cat), walk, strings)?;
    let total = survey.count as u64;
    walk.each(&mut |n, e| {
        if n % 65_536 == 0 {
            progress(Progress::Building { done: n as u64, total });
        }
        let (ph, pid) = (e.ph(), e.pid());
        let instant = matches!(ph, "i" | "I");
        if ph == "C" && pid.numeric {
            if let Some(ts) = e.ts_ps() {
                counter_events::push(&mut host, e, rel_ps(ts, t0), &pid.text);
            }
            return;
        }
        if !(ph == "X" || instant) || !pid.numeric {
            return;
        }
        let Some(ts) = e.ts_ps() else { return };
        let start = rel_ps(ts, t0);
        if instant && e.name() == "[memory]" {
            memory.push((start, n, Kept::of(e)));
            return;
        }
        let dur = if instant { 0 } else { rel_ps(e.dur_ps(), 0) };
        match device_kind(e.cat()) {
            Some(kind) => {
                let device = e.arg_i64("device").or(pid.number).unwrap_or(0);
                let stream = e.arg_i64("stream").or(e.tid().number).unwrap_or(0);
                let plane = device_plane(&mut devices, device, strings);
                let line = if kind == DeviceKind::Annotation {
                    plane.line(
                        &format!("annotations {stream}"),
                        || (ANNOTATION_LINE_ID.saturating_add(stream), format!("Annotations #{stream}")),
                        strings,
                    )
                } else {
                    plane.line(&format!("stream {stream}"), || (stream, format!("Stream #{stream}")), strings)
                };
                let (_, types) = line_types.entry((device, line)).or_insert((stream, Vec::new()));
                let ty = match kind {
                    DeviceKind::Kernel => "Compute",
                    DeviceKind::Memcpy => memcpy_type(e.name()),
                    DeviceKind::Memset => "Memset",
                    DeviceKind::Annotation => "",
                };
                if !ty.is_empty() && !types.contains(&ty) {
                    types.push(ty);
                }
                let meta = plane.metadata(e.name(), None, e.cat(), strings);
                plane.event(line, start, dur, meta, |stats| {
                    push_args(stats, e, &keys, strings);
                    flows.push_stats(n, stats);
                    match kind {
                        DeviceKind::Kernel => stats.push_str(keys.kernel_details, strings.intern(&kernel_details(e))),
                        DeviceKind::Memcpy => {
                            stats.push_str(keys.memcpy_details, strings.intern(&memcpy_details(e, device)))
                        }
                        _ => {}
                    }
                });
            }
            None => {
                let line = host_line(&mut host, e, thread_names, strings);
                let meta = host.metadata(e.name(), None, e.cat(), strings);
                host.event(line, start, dur, meta, |stats| {
                    push_args(stats, e, &keys, strings);
                    flows.push_stats(n, stats);
                    if let Some(step) = e.name().strip_prefix("ProfilerStep#").and_then(|n| n.parse::<i64>().ok()) {
                        stats.push_int(keys.step_num, step);
                        stats.push_int(keys.is_root, 1);
                    }
                });
            }
        }
    })?;
    memory_events(&mut host, &mut memory, thread_names, &keys, strings);
    for ((device, line), (stream, types)) in line_types {
        if let Some(plane) = devices.get_mut(&device) {
            if !types.is_empty() {
                plane.rename_line(line, &format!("Stream #{stream}({})", types.join(",")), strings);
            }
        }
    }
    profile.planes.push(host.finish());
    profile.planes.extend(devices.into_values().map(PlaneAcc::finish));
    progress(Progress::Building { done: total, total });
    Ok(profile)
}

/// Wall-clock time of the first event: `baseTimeNanoseconds` + the relative
/// µs of newer traces, or the absolute epoch µs of older ones.
fn origin_ns(head: &Head, t0_ps: i128) -> Option<u64> {
    let ns = match head.base_time_ns {
        Some(base) => base + t0_ps / 1000,
        // Epoch µs (after 2001) rather than a monotonic clock.
        None if t0_ps >= 1_000_000_000_000_000_000_000 => t0_ps / 1000,
        None => return None,
    };
    u64::try_from(ns).ok()
}

/// Interned stat keys used on every event.
struct Keys {
    correlation_id: proflens_model::StrId,
    external_id: proflens_model::StrId,
    device_id: proflens_model::StrId,
    kernel_details: proflens_model::StrId,
    memcpy_details: proflens_model::StrId,
    step_num: proflens_model::StrId,
    is_root: proflens_model::StrId,
}

impl Keys {
    fn new(strings: &mut Interner) -> Keys {
        Keys {
            correlation_id: strings.intern("correlation_id"),
            external_id: strings.intern("external_id"),
            device_id: strings.intern("device_id"),
            kernel_details: strings.intern("kernel_details"),
            memcpy_details: strings.intern("memcpy_details"),
            step_num: strings.intern("step_num"),
            is_root: strings.intern("_r"),
        }
    }
}

fn push_args(stats: &mut Stats, e: &RawEvent, keys: &Keys, strings: &mut Interner) {
    for (k, v) in e.args() {
        let key = match k {
            "correlation" => keys.correlation_id,
            "External id" | "external id" => keys.external_id,
            "device" => keys.device_id,
            other => strings.intern(other),
        };
        push_arg(stats, key, v, false, strings);
    }
}

fn host_line(
    host: &mut PlaneAcc,
    e: &RawEvent,
    names: &FxHashMap<(String, String), String>,
    strings: &mut Interner,
) -> usize {
    // A Stream Sync on Kineto's virtual row goes to its stream's row.
    let (pid, tid) = (e.pid(), stream_sync::row_tid(e));
    // The key is written into one buffer, not allocated per event.
    thread_local!(static KEY: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) });
    KEY.with_borrow_mut(|key| {
        key.clear();
        key.push_str(&pid.text);
        key.push('/');
        key.push_str(&tid.text);
        host_line_of(host, key, &pid, &tid, names, strings)
    })
}

fn host_line_of(
    host: &mut PlaneAcc,
    key: &str,
    pid: &super::Id,
    tid: &super::Id,
    names: &FxHashMap<(String, String), String>,
    strings: &mut Interner,
) -> usize {
    host.line(
        key,
        || {
            let name = names.get(&(pid.text.to_string(), tid.text.to_string())).cloned();
            let name = match (name, pid.number) {
                (Some(n), _) => n,
                (None, Some(-1)) => format!("overhead {}", tid.text),
                (None, _) => format!("thread {}", tid.text),
            };
            (tid.number.unwrap_or(0), name)
        },
        strings,
    )
}

fn device_plane<'a>(devices: &'a mut BTreeMap<i64, PlaneAcc>, id: i64, strings: &mut Interner) -> &'a mut PlaneAcc {
    devices.entry(id).or_insert_with(|| PlaneAcc::new(id, &format!("/device:GPU:{id}"), strings))
}

/// XProf's device-capability stats from a `deviceProperties` entry. Kineto
/// records no clock rate, so `clock_rate` is left out.
fn device_stats(head: &Head, props: &Value, plane: &mut PlaneAcc, strings: &mut Interner) {
    let amd = props.get("warpSize").and_then(Value::as_i64) == Some(64)
        || head.versions.iter().any(|(k, _)| k.starts_with("roctracer") || k.starts_with("hip"));
    let pairs = [
        ("core_count", props.get("numSms")),
        ("memory_size", props.get("totalGlobalMem")),
        ("compute_cap_major", props.get("computeMajor")),
        ("compute_cap_minor", props.get("computeMinor")),
        ("gpu_device_name", props.get("name")),
    ];
    for (key, value) in pairs {
        if let Some(v) = value {
            let key = strings.intern(key);
            push_json(plane.stats(), key, v, false, strings);
        }
    }
    let vendor = strings.intern(if amd { "AMD" } else { "Nvidia" });
    let key = strings.intern("device_vendor");
    plane.stats().push_str(key, vendor);
}

/// Rank and versions as `/host:CPU` plane stats.
fn host_stats(head: &Head, host: &mut PlaneAcc, strings: &mut Interner) {
    if let Some(Value::Object(info)) = &head.distributed_info {
        for key in ["rank", "world_size", "backend"] {
            if let Some(v) = info.get(key) {
                let k = strings.intern(key);
                push_json(host.stats(), k, v, false, strings);
            }
        }
    }
    for (key, v) in &head.versions {
        let k = strings.intern(key);
        push_json(host.stats(), k, v, false, strings);
    }
}

/// XProf's stream type of a memcpy from its name (`Memcpy HtoD (Pageable -> Device)`).
fn memcpy_type(name: &str) -> &'static str {
    let kind = name.strip_prefix("Memcpy ").and_then(|r| r.split_whitespace().next()).unwrap_or("");
    match kind {
        "HtoD" => "MemcpyH2D",
        "DtoH" => "MemcpyD2H",
        "DtoD" => "MemcpyD2D",
        "PtoP" => "MemcpyP2P",
        _ => "MemcpyOther",
    }
}

/// `kernel_details` in XProf's text form. Kineto's `shared memory` is the
/// static + dynamic total, so it is reported as static; `occ_pct` is
/// Kineto's estimated achieved occupancy (XProf's is theoretical).
fn kernel_details(e: &RawEvent) -> String {
    let dims = |key: &str| {
        let mut d = [1i64; 3];
        if let Some(Value::Array(a)) = e.arg(key).and_then(ArgValue::json).as_deref() {
            for (slot, v) in d.iter_mut().zip(a) {
                *slot = v.as_i64().unwrap_or(1);
            }
        }
        format!("{},{},{}", d[0], d[1], d[2])
    };
    let mut out = format!(
        "regs:{} static_shared:{} dynamic_shared:0 grid:{} block:{}",
        e.arg_i64("registers per thread").unwrap_or(0),
        e.arg_i64("shared memory").unwrap_or(0),
        dims("grid"),
        dims("block")
    );
    if let Some(occ) = e.arg("est. achieved occupancy %").and_then(ArgValue::as_f64) {
        out += &format!(" occ_pct:{occ}");
    }
    out
}

/// `memcpy_details` in XProf's text form, kinds from the name's `(Src -> Dst)`.
fn memcpy_details(e: &RawEvent, device: i64) -> String {
    let name = e.name();
    let (src, dst) = name
        .split_once('(')
        .and_then(|(_, r)| r.trim_end_matches(')').split_once("->"))
        .map(|(s, d)| (s.trim().to_ascii_lowercase(), d.trim().to_ascii_lowercase()))
        .unwrap_or_else(|| ("unknown".into(), "unknown".into()));
    format!("kind_src:{src} kind_dst:{dst} size:{} dest:{device} async:1", e.arg_i64("bytes").unwrap_or(0))
}

/// `[memory]` instants → MemoryAllocation / MemoryDeallocation events, in
/// time order. PyTorch's caching allocator reports `Total Allocated` (in use
/// by tensors) and `Total Reserved` (held from the driver, a superset), so:
/// `bytes_allocated` = Total Allocated, `bytes_available` = Reserved −
/// Allocated (cached but free), `bytes_reserved` (XProf's *stack*) = 0, and
/// `peak_bytes_in_use` = the running maximum of Total Allocated. PyTorch 1.9
/// traces have only `Bytes`; their totals are the running sum per allocator.
fn memory_events(
    host: &mut PlaneAcc,
    memory: &mut [(i64, usize, Kept)],
    names: &FxHashMap<(String, String), String>,
    keys: &Keys,
    strings: &mut Interner,
) {
    memory.sort_by_key(|&(t, n, _)| (t, n));
    let alloc_key = |s: &mut Interner| {
        [
            "allocator_name",
            "bytes_allocated",
            "bytes_available",
            "peak_bytes_in_use",
            "requested_bytes",
            "allocation_bytes",
            "addr",
        ]
        .map(|k| s.intern(k))
    };
    let mut allocators = Allocators { keys: alloc_key(strings), running: FxHashMap::default() };
    for (start, _, kept) in memory.iter() {
        kept.with(|e| memory_event(host, e, *start, &mut allocators, names, keys, strings));
    }
}

/// The allocator stat keys, and each allocator's (allocated, peak) so far.
struct Allocators {
    keys: [StrId; 7],
    running: FxHashMap<String, (i64, i64)>,
}

/// One `[memory]` instant at `start`.
fn memory_event(
    host: &mut PlaneAcc,
    e: &RawEvent,
    start: i64,
    allocators: &mut Allocators,
    names: &FxHashMap<(String, String), String>,
    keys: &Keys,
    strings: &mut Interner,
) {
    let (k, running) = (&allocators.keys, &mut allocators.running);
    let bytes = e.arg_i64("Bytes").unwrap_or(0);
    let allocator = match (e.arg_i64("Device Type").unwrap_or(0), e.arg_i64("Device Id").unwrap_or(-1)) {
        (0, _) => "CPU".to_string(),
        (1 | 6, id) => format!("GPU_{id}"),
        (ty, id) => format!("device_type_{ty}_{id}"),
    };
    let state = running.entry(allocator.clone()).or_insert((0, 0));
    let allocated = e.arg_i64("Total Allocated").unwrap_or(state.0.saturating_add(bytes));
    state.0 = allocated;
    state.1 = state.1.max(allocated);
    let peak = state.1;
    let reserved = e.arg_i64("Total Reserved");
    let line = host_line(host, e, names, strings);
    let name = if bytes >= 0 { "MemoryAllocation" } else { "MemoryDeallocation" };
    let meta = host.metadata(name, None, e.cat(), strings);
    let allocator = strings.intern(&allocator);
    host.event(line, start, 0, meta, |stats| {
        stats.push_str(k[0], allocator);
        stats.push_int(k[1], allocated);
        stats.push_int(k[2], reserved.map_or(0, |r| r.saturating_sub(allocated).max(0)));
        stats.push_int(k[3], peak);
        stats.push_int(k[4], bytes.saturating_abs());
        stats.push_int(k[5], bytes.saturating_abs());
        if let Some(addr) = e.arg("Addr").and_then(ArgValue::as_u64) {
            stats.push_uint(k[6], addr);
        }
        push_args(stats, e, keys, strings);
    });
}

#[cfg(test)]
mod tests {
    use super::super::decode;
    use proflens_model::{Origin, StatValue};

    const TRACE: &str = r#"{"schemaVersion":1,"baseTimeNanoseconds":1700000000000000000,
      "deviceProperties":[{"id":0,"name":"H100","numSms":132,"computeMajor":9,"computeMinor":0,"totalGlobalMem":85,"warpSize":32}],
      "distributedInfo":{"rank":1,"world_size":2,"backend":"nccl"},
      "traceEvents":[
       {"ph":"M","name":"thread_name","pid":10,"tid":11,"args":{"name":"thread 11 (python)"}},
       {"ph":"X","cat":"user_annotation","name":"ProfilerStep#3","pid":10,"tid":11,"ts":100.001,"dur":50.5,"args":{"External id":1}},
       {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":10,"tid":11,"ts":101.5,"dur":10,"args":{"External id":2}},
       {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":10,"tid":11,"ts":102,"dur":3,"args":{"External id":2,"correlation":77}},
       {"ph":"X","cat":"kernel","name":"sm90_gemm","pid":0,"tid":7,"ts":106.25,"dur":4.125,"args":{"External id":2,"device":0,"stream":7,"correlation":77,"registers per thread":64,"shared memory":1024,"grid":[4,1,1],"block":[128,1,1]}},
       {"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pageable -> Device)","pid":0,"tid":7,"ts":111,"dur":1,"args":{"device":0,"stream":7,"bytes":64}},
       {"ph":"X","cat":"gpu_user_annotation","name":"ProfilerStep#3","pid":0,"tid":7,"ts":106,"dur":6,"args":{}},
       {"ph":"i","cat":"cpu_instant_event","s":"t","name":"[memory]","pid":10,"tid":11,"ts":103,"args":{"Bytes":512,"Total Allocated":1536,"Total Reserved":4096,"Addr":4660,"Device Type":1,"Device Id":0}},
       {"ph":"s","cat":"ac2g","id":77,"pid":10,"tid":11,"ts":102},
       {"ph":"X","cat":"Trace","name":"PyTorch Profiler (0)","pid":"Spans","tid":"PyTorch Profiler","ts":90,"dur":100}
      ]}"#;

    #[test]
    fn maps_kineto_onto_xplane_names() {
        let p = decode(TRACE.as_bytes(), &mut |_| {}).unwrap();
        assert_eq!(p.origin, Origin::Kineto);
        // ts 100.001 µs is the first event: base + 100001 ns.
        assert_eq!(p.origin_ns, Some(1_700_000_000_000_100_001));
        let names: Vec<&str> = p.planes.iter().map(|pl| p.str(pl.name)).collect();
        assert_eq!(names, ["/host:CPU", "/device:GPU:0"]);
        let host = &p.planes[0];
        assert_eq!(p.str(host.lines[0].name), "thread 11 (python)");
        let ev = &host.lines[0].events;
        // Step, mm, launch, memory: exact ps from the first event.
        assert_eq!(ev.start_ps, vec![0, 1_499_000, 1_999_000, 2_999_000]);
        assert_eq!(ev.duration_ps.at(0), 50_500_000);
        assert_eq!(ev.depth, vec![0, 1, 2, 3]);
        let stat = |i: usize, key: &str| {
            ev.stats.of(i).find(|s| p.str(s.key) == key).map(|s| ev.stats.value(s, &p.strings).to_string())
        };
        assert_eq!(stat(0, "step_num").as_deref(), Some("3"));
        assert_eq!(stat(2, "correlation_id").as_deref(), Some("77"));
        assert_eq!(stat(3, "bytes_allocated").as_deref(), Some("1536"));
        assert_eq!(stat(3, "bytes_available").as_deref(), Some("2560"));
        assert_eq!(stat(3, "allocator_name").as_deref(), Some("GPU_0"));
        assert_eq!(p.str(host.event_metadata[ev.metadata[3] as usize].name), "MemoryAllocation");

        let gpu = &p.planes[1];
        let lines: Vec<&str> = gpu.lines.iter().map(|l| p.str(l.name)).collect();
        // The derived-range annotation line sorts first, as XProf's derived lines do.
        assert_eq!(lines, ["Annotations #7", "Stream #7(Compute,MemcpyH2D)"]);
        let k = &gpu.lines[1].events;
        assert_eq!((k.start_ps.at(0), k.duration_ps.at(0)), (6_249_000, 4_125_000));
        let details = k.stats.of(0).find(|s| p.str(s.key) == "kernel_details").unwrap();
        assert_eq!(
            k.stats.value(details, &p.strings),
            StatValue::Str("regs:64 static_shared:1024 dynamic_shared:0 grid:4,1,1 block:128,1,1")
        );
        let caps: Vec<String> = gpu.stats.iter().map(|s| p.str(s.key).to_string()).collect();
        assert!(caps.contains(&"core_count".to_string()) && caps.contains(&"device_vendor".to_string()));
        let rank = host.stats.iter().find(|s| p.str(s.key) == "rank").unwrap();
        assert_eq!(host.stats.value(rank, &p.strings), StatValue::Int(1));
    }

    /// SYNTHETIC: MTIA's on-device work (`mtia_ccp_events`, with or without
    /// a correlation id) goes on the device's plane as kernels; a CUDA
    /// `cuda_sync` event is a wait and stays with the host events.
    #[test]
    fn mtia_device_events_are_device_work() {
        let trace = r#"{"schemaVersion":1,"traceEvents":[
          {"ph":"X","cat":"mtia_runtime","name":"runFunction - job_prep_and_submit_for_execution","pid":1,"tid":1,"ts":10,"dur":5,"args":{"correlation":1}},
          {"ph":"X","cat":"mtia_ccp_events","name":"k1","pid":2,"tid":5,"ts":30,"dur":20,"args":{"device":0,"stream":5,"correlation":1}},
          {"ph":"X","cat":"mtia_ccp_events","name":"dma_in","pid":2,"tid":5,"ts":75,"dur":5,"args":{"device":0,"stream":5}},
          {"ph":"X","cat":"cuda_sync","name":"Context Sync","pid":0,"tid":7,"ts":60,"dur":30,"args":{"device":0,"stream":4294967295,"correlation":4}}
        ]}"#;
        let p = decode(trace.as_bytes(), &mut |_| {}).unwrap();
        let names: Vec<&str> = p.planes.iter().map(|pl| p.str(pl.name)).collect();
        assert_eq!(names, ["/host:CPU", "/device:GPU:0"]);
        let device = &p.planes[1];
        let lines: Vec<(&str, usize)> = device.lines.iter().map(|l| (p.str(l.name), l.events.len())).collect();
        assert_eq!(lines, [("Stream #5(Compute)", 2)]);
        let host_events: usize = p.planes[0].lines.iter().map(|l| l.events.len()).sum();
        assert_eq!(host_events, 2);
    }
}
