//! CUPTI records → XSpace → Proflens: a recorded training loop (NVTX step
//! ranges, launches on two streams, a copy) converted by `to_xspace`, then
//! decoded and analysed as any profile: kernel stats, steps, trace viewer.

use proflens_analysis::passes::grouping::group_events;
use proflens_analysis::passes::host_analysis::HostAnalysis;
use proflens_analysis::passes::kernels::kernel_stats;
use proflens_analysis::passes::trace::links::{LinkIndex, LinkKind};
use proflens_analysis::passes::trace::search::{search, EventRef, Pattern};
use proflens_analysis::passes::trace::Trace;
use proflens_collector::cupti::*;
use prost::Message;

const T0: u64 = 1_000_000; // CUPTI clock at the start of the capture
const WALL0: u64 = 1_795_413_042_000_000_000;
const TID: u32 = 4242;
const STEPS: u32 = 4;
const STEP_NS: u64 = 10_000;

fn kernel(name: &str, stream: u32, start: u64, dur: u64, correlation: u32) -> Record {
    Record::Kernel(Kernel {
        name: name.into(),
        start_ns: start,
        end_ns: start + dur,
        device_id: 0,
        context_id: 1,
        stream_id: stream,
        correlation_id: correlation,
        grid: [80, 1, 1],
        block: [256, 1, 1],
        registers_per_thread: 32,
        static_shared_memory: 1024,
        dynamic_shared_memory: 0,
    })
}

fn launch(start: u64, correlation: u32) -> Record {
    Record::Api(ApiCall {
        domain: ApiDomain::Runtime,
        name: "cudaLaunchKernel".into(),
        cbid: 211,
        start_ns: start,
        end_ns: start + 500,
        process_id: 1,
        thread_id: TID,
        correlation_id: correlation,
        return_value: 0,
        device_id: Some(0),
    })
}

/// Each step: an NVTX range `train <i>` enclosing two launches, the kernels
/// on streams 7 and 8 and an H2D copy on stream 7.
fn capture() -> Capture {
    let mut records = Vec::new();
    for step in 0..STEPS {
        let base = T0 + 1000 + u64::from(step) * STEP_NS;
        let c = step * 10;
        records.push(Record::Nvtx(NvtxRange {
            name: format!("train {step}"),
            domain: None,
            start_ns: base,
            end_ns: base + 9000,
            thread_id: TID,
        }));
        records.push(launch(base + 100, c + 1));
        records.push(launch(base + 1000, c + 2));
        records.push(kernel("gemm_kernel", 7, base + 2000, 3000, c + 1));
        records.push(kernel("relu_kernel", 8, base + 2500, 1000, c + 2));
        records.push(Record::Memcpy(Memcpy {
            copy_kind: CopyKind::HtoD,
            src_kind: MemoryKind::Pinned,
            dst_kind: MemoryKind::Device,
            bytes: 4096,
            start_ns: base + 6000,
            end_ns: base + 6500,
            device_id: 0,
            context_id: 1,
            stream_id: 7,
            correlation_id: c + 3,
            is_async: true,
            dst_device_id: None,
        }));
    }
    // Outside the window: dropped with a warning.
    records.push(kernel("too_early", 7, T0 - 10, 5, 999));
    Capture {
        records,
        start_walltime_ns: WALL0,
        start_gpu_ns: T0,
        end_gpu_ns: T0 + 1000 + u64::from(STEPS) * STEP_NS,
        dropped_records: 3,
        errors: vec![],
    }
}

fn device() -> DeviceInfo {
    DeviceInfo {
        ordinal: 0,
        name: "NVIDIA H100 80GB HBM3".into(),
        compute_capability: (9, 0),
        clock_rate_khz: 1_980_000,
        core_count: 132,
        memory_bandwidth: 3_350_000_000_000,
        memory_size: 80 << 30,
    }
}

fn decoded() -> proflens_model::Profile {
    let space = to_xspace(&capture(), &[device()], "gpu-host");
    let bytes = space.encode_to_vec();
    proflens_format::load_xspace(&bytes, &Default::default(), &mut |_| {}).expect("Proflens decodes the XSpace")
}

#[test]
fn planes_lines_and_warnings_follow_xla() {
    let space = to_xspace(&capture(), &[device()], "gpu-host");
    let names: Vec<&str> = space.planes.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["/device:GPU:0", "/host:CPU", "Task Environment"]);
    let gpu = &space.planes[0];
    let lines: Vec<&str> = gpu.lines.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(lines, ["Stream #7(Compute,MemcpyH2D)", "Stream #8(Compute)", "Steps"]);
    assert_eq!(gpu.lines[2].id, 0xdead_beef, "the derived Steps line's reserved id");
    assert_eq!(gpu.lines[2].events.len(), STEPS as usize);
    assert_eq!(gpu.lines[0].events.len(), 2 * STEPS as usize);
    let stat_names: Vec<&str> = gpu.stat_metadata.values().map(|m| m.name.as_str()).collect();
    for name in
        ["compute_cap_major", "core_count", "clock_rate", "memory_bandwidth", "kernel_details", "memcpy_details"]
    {
        assert!(stat_names.contains(&name), "{name} in {stat_names:?}");
    }
    assert_eq!(space.hostnames, ["gpu-host"]);
    assert_eq!(space.warnings.len(), 2, "{:?}", space.warnings);
    assert!(space.warnings[0].contains("dropped 3 records"));
    assert!(space.warnings[1].starts_with("1 CUPTI records outside"));
}

#[test]
fn kernel_stats_read_the_launch_parameters() {
    let profile = decoded();
    let rows = kernel_stats(&profile);
    let gemm = rows.iter().find(|r| r.name == "gemm_kernel").expect("gemm_kernel row");
    assert_eq!((gemm.occurrences, gemm.total_ns, gemm.min_ns), (u64::from(STEPS), 3000 * u64::from(STEPS), 3000));
    assert_eq!((gemm.grid, gemm.block), ([80, 1, 1], [256, 1, 1]));
    assert_eq!((gemm.registers_per_thread, gemm.static_shmem_bytes), (32, 1024));
    assert!(rows.iter().any(|r| r.name == "relu_kernel" && r.occurrences == u64::from(STEPS)));
    assert!(!rows.iter().any(|r| r.name == "too_early"), "outside the window");
    assert_eq!(profile.origin_ns, Some(WALL0), "Task Environment sets the wall-clock origin");
}

#[test]
fn nvtx_ranges_become_steps_with_device_time() {
    let profile = decoded();
    let analysis = HostAnalysis::new(&profile);
    // GPU steps are named by group id (as XProf names device steps); the
    // groups carry the NVTX names.
    let names: Vec<&str> = analysis.steps.steps.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["0", "1", "2", "3"]);
    let grouping = group_events(&profile);
    assert!(grouping.from_file, "groups decided at capture time");
    let group_names: Vec<&str> = grouping.names.values().map(String::as_str).collect();
    assert_eq!(group_names, ["train 0", "train 1", "train 2", "train 3"]);
    assert!(analysis.steps.has_device, "the steps reach their kernels through the launches");
    for step in &analysis.steps.steps {
        let device_ps: i64 = step.type_ps[14] + step.type_ps[15]; // DeviceCompute32 + 16
        assert!(device_ps > 0, "{}: device compute time {device_ps}", step.name);
    }
    let env = &analysis.environment;
    assert_eq!(env.device_type, "Nvidia GPU (Hopper)", "the device capabilities are read: {env:?}");
    assert_eq!(proflens_analysis::tools::overview::page_of(&analysis, false).input.steps.len(), STEPS as usize);
}

#[test]
fn trace_viewer_links_launches_to_kernels() {
    let profile = decoded();
    let grouping = group_events(&profile);
    let trace = Trace::new(&profile, &grouping);
    assert!(trace.event_count(&profile) >= (STEPS * 6) as usize);
    let pattern = Pattern::new("cudaLaunchKernel", false).unwrap();
    let (hits, total) = search(&profile, &grouping, &trace, &pattern, 1);
    assert_eq!(total, u64::from(STEPS) * 2);
    let at: EventRef = hits[0].1;
    let linked = LinkIndex::new(&profile, &trace).links(&profile, &trace, at, 10);
    assert!(linked.iter().any(|l| l.kind == LinkKind::LaunchedKernel), "{linked:?}");
}
