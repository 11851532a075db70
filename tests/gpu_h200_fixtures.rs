//! Profiles recorded on a real NVIDIA H200 (tests/data/gpu_h200, see its
//! README): the CUPTI XSpace of `proflens-collect run`, a torch.profiler
//! (Kineto) trace and two JAX XSpaces. Counts asserted here are read from the
//! raw files (the CUPTI records dumped by the same process, the Kineto JSON)
//! or follow from the recording scripts (tests/scripts/gpu), never copied
//! from Proflens's own output. No GPU is needed to run these.

use proflens_analysis::passes::grouping::group_events;
use proflens_analysis::passes::host_analysis::HostAnalysis;
use proflens_analysis::passes::kernels::kernel_stats;
use proflens_analysis::passes::kineto::KinetoIndex;
use proflens_analysis::tools::kernel_stats::pytorch as torch_kernels;
use proflens_analysis::tools::overview::{self, pytorch as torch_overview};
use proflens_model::{Origin, Profile};
use proflens_tests::{data_dir, load, xplane_files};
use std::path::PathBuf;

/// `torch_train.py --steps 12`: one NVTX range `train N` per step.
const TORCH_STEPS: usize = 12;

fn dir(case: &str) -> PathBuf {
    data_dir().join("gpu_h200").join(case)
}

fn only_xspace(case: &str) -> PathBuf {
    let files = xplane_files(&dir(case));
    assert_eq!(files.len(), 1, "{case}: {files:?}");
    files[0].clone()
}

/// The CUPTI records the traced process dumped (`PROFLENS_CUPTI_DUMP`):
/// (kind, bytes) of each record and the strings by pointer. Read here
/// without the collector's parser: entries are `R len bytes` / `S ptr len bytes`.
struct RawRecords {
    records: Vec<(u32, Vec<u8>)>,
    strings: std::collections::HashMap<u64, String>,
}

fn raw_records() -> RawRecords {
    let bytes = std::fs::read(dir("torch_cupti").join("cupti_records.bin")).unwrap();
    let (mut records, mut strings) = (Vec::new(), std::collections::HashMap::new());
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'R' => {
                let len = u32_at(at + 1) as usize;
                let record = bytes[at + 5..at + 5 + len].to_vec();
                records.push((u32::from_le_bytes(record[..4].try_into().unwrap()), record));
                at += 5 + len;
            }
            b'S' => {
                let ptr = u64::from_le_bytes(bytes[at + 1..at + 9].try_into().unwrap());
                let len = u32_at(at + 9) as usize;
                strings.insert(ptr, String::from_utf8_lossy(&bytes[at + 13..at + 13 + len]).into_owned());
                at += 13 + len;
            }
            other => panic!("unknown dump entry {other}"),
        }
    }
    RawRecords { records, strings }
}

impl RawRecords {
    fn count(&self, kind: u32) -> u64 {
        self.records.iter().filter(|(k, _)| *k == kind).count() as u64
    }
    /// Names of the kernel records (CUpti_ActivityKernel*: `name` at byte 104).
    fn kernel_names(&self) -> Vec<&str> {
        let name = |r: &Vec<u8>| u64::from_le_bytes(r[104..112].try_into().unwrap());
        self.records.iter().filter(|(k, _)| *k == 10).map(|(_, r)| self.strings[&name(r)].as_str()).collect()
    }
}

fn torch_cupti() -> Profile {
    load(&only_xspace("torch_cupti")).expect("the CUPTI XSpace decodes")
}

#[test]
fn the_cupti_xspace_holds_every_kernel_copy_and_memset_cupti_recorded() {
    let raw = raw_records();
    let profile = torch_cupti();
    let gpu = profile.plane_by_name("/device:GPU:0").expect("a GPU plane");
    let host = profile.plane_by_name("/host:CPU").expect("a host plane");
    assert!(!host.lines.is_empty());
    let rows = kernel_stats(&profile);
    let kernels: u64 = rows.iter().map(|r| r.occurrences).sum();
    // CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL = 10, MEMCPY = 1, MEMSET = 2.
    assert_eq!(kernels, raw.count(10), "one kernel event per CUPTI kernel record");
    let named = |prefix: &str| -> u64 {
        gpu.lines
            .iter()
            .flat_map(|l| l.events.metadata.iter())
            .filter(|&&m| profile.str(gpu.event_metadata[m as usize].name).starts_with(prefix))
            .count() as u64
    };
    assert_eq!(named("Memcpy"), raw.count(1));
    assert_eq!(named("Memset"), raw.count(2));
    assert!(raw.count(10) > 0 && raw.count(1) > 0);
}

#[test]
fn kernel_stats_list_the_gemm_kernels_with_positive_durations() {
    let raw = raw_records();
    let mut raw_gemms: Vec<&str> = raw.kernel_names().into_iter().filter(|n| n.contains("gemm")).collect();
    let raw_gemm_count = raw_gemms.len() as u64;
    raw_gemms.sort();
    raw_gemms.dedup();
    assert!(!raw_gemms.is_empty(), "cuBLAS ran GEMMs for the Linear layers");
    let rows = kernel_stats(&torch_cupti());
    let gemm_rows: Vec<_> = rows.iter().filter(|r| r.name.contains("gemm")).collect();
    let mut names: Vec<&str> = gemm_rows.iter().map(|r| r.name.as_str()).collect();
    names.sort();
    names.dedup();
    assert_eq!(names, raw_gemms);
    assert_eq!(gemm_rows.iter().map(|r| r.occurrences).sum::<u64>(), raw_gemm_count);
    for r in &rows {
        assert!(r.min_ns > 0 && r.total_ns >= r.min_ns * r.occurrences, "{}: {} ns", r.name, r.min_ns);
        assert!(r.block.iter().all(|&b| b > 0) && r.grid.iter().all(|&g| g > 0), "{}", r.name);
    }
}

#[test]
fn the_overview_finds_the_nvtx_train_steps() {
    let raw = raw_records();
    // NVTX range starts (MARKER = 12, flag START = 2; name pointer at byte 40).
    let starts: Vec<&str> = raw
        .records
        .iter()
        .filter(|(k, r)| *k == 12 && u32::from_le_bytes(r[4..8].try_into().unwrap()) & 2 != 0)
        .map(|(_, r)| raw.strings[&u64::from_le_bytes(r[40..48].try_into().unwrap())].as_str())
        .collect();
    let expected: Vec<String> = (0..TORCH_STEPS).map(|i| format!("train {i}")).collect();
    assert_eq!(starts, expected);

    let profile = torch_cupti();
    let grouping = group_events(&profile);
    let group_names: Vec<&str> = grouping.names.values().map(String::as_str).collect();
    assert_eq!(group_names, expected);
    // The step analysis drops the first and last of more than five steps, as
    // XProf does (usually cut by the capture): `train 1` … `train 10`, named
    // by group id.
    let analysis = HostAnalysis::new(&profile);
    let steps: Vec<&str> = analysis.steps.steps.iter().map(|s| s.name.as_str()).collect();
    let kept: Vec<String> = (1..TORCH_STEPS - 1).map(|i| i.to_string()).collect();
    assert_eq!(steps, kept);
    assert!(analysis.steps.has_device);
    for step in &analysis.steps.steps {
        let device_ps: i64 = step.type_ps[14] + step.type_ps[15]; // DeviceCompute32 + 16
        assert!(device_ps > 0, "step {}: device compute {device_ps}", step.name);
    }
    assert_eq!(overview::page_of(&analysis, false).input.steps.len(), TORCH_STEPS - 2);
    assert_eq!(analysis.environment.device_type, "Nvidia GPU (Hopper)");
}

#[test]
fn launches_are_named_as_the_runtime_symbols() {
    let profile = torch_cupti();
    let host = profile.plane_by_name("/host:CPU").unwrap();
    let names: std::collections::BTreeSet<&str> = host.event_metadata.iter().map(|m| profile.str(m.name)).collect();
    assert!(names.contains("cudaLaunchKernel"), "{names:?}");
    assert!(!names.iter().any(|n| n.starts_with("cuda") && n.contains("_v")), "{names:?}");
}

#[test]
fn the_nvidia_smi_log_joins_the_gpu_plane_as_counters() {
    let run = only_xspace("torch_cupti").parent().unwrap().to_path_buf();
    let csv = std::fs::read_to_string(run.join("nvidia-smi.csv")).unwrap();
    let samples = csv.lines().skip(1).filter(|l| !l.trim().is_empty()).count();
    let mut profile = torch_cupti();
    assert_eq!(proflens_format::nvidia_smi::attach(&mut profile, &csv), Ok(3), "three columns, one GPU");
    let gpu = profile.plane_by_name("/device:GPU:0").unwrap();
    assert_eq!(gpu.counters.len(), 3);
    for c in &gpu.counters {
        assert_eq!(c.len(), samples, "{}", c.name);
    }
    // The log ran from before the program started to after it ended: its
    // samples fall before, in and after the capture (times from its start).
    let memory = gpu.counters.iter().find(|c| c.name.starts_with("memory.used")).unwrap();
    let (_, end) = profile.span_ps().unwrap();
    let times = &memory.times_ps;
    assert!(times[0] < 0 && *times.last().unwrap() > end, "{:?} … {:?}", times.first(), times.last());
    assert!(memory.values.iter().any(|&v| v > 0.0), "the training loop holds GPU memory");
}

#[test]
fn the_kineto_trace_opens_as_pytorch_with_its_profiler_steps() {
    let path = dir("torch_kineto").join("torch_mlp.pt.trace.json.gz");
    let bytes = std::fs::read(&path).unwrap();
    let json = proflens_format::inflate::gunzip(&bytes, 1 << 30, &mut |_| {}).unwrap();
    let raw: serde_json::Value = serde_json::from_slice(&json).unwrap();
    let events = raw["traceEvents"].as_array().unwrap();
    let raw_gemms =
        events.iter().filter(|e| e["cat"] == "kernel" && e["name"].as_str().unwrap().contains("gemm")).count();

    let profile = proflens_format::load_profile(&bytes, &Default::default(), &mut |_| {}).unwrap();
    assert_eq!(profile.origin, Origin::Kineto);
    let index = KinetoIndex::new(&profile);
    let ov = torch_overview::overview(&index);
    // schedule(wait=1, warmup=1, active=3): steps 0 and 1 are not recorded.
    let steps: Vec<i64> = ov.steps.iter().map(|s| s.step).collect();
    assert_eq!(steps, [2, 3, 4]);
    assert!(!ov.whole_trace);
    assert!(ov.steps.iter().all(|s| s.kernel_ps > 0), "{:?}", ov.steps);
    let rows = torch_kernels::kernel_stats(&index);
    let gemms: u64 = rows.iter().filter(|r| r.name.contains("gemm")).map(|r| r.occurrences).sum();
    assert_eq!(gemms, raw_gemms as u64);
    assert!(rows.iter().all(|r| r.min_ns > 0));
}

/// `jax_train.py --trace`: ten steps, each in StepTraceAnnotation("train", step_num=i).
#[test]
fn the_jax_xspace_has_a_gpu_plane_kernels_and_its_steps() {
    let profile = load(&only_xspace("jax_trace")).expect("JAX 0.11.2's GPU XSpace decodes");
    let gpu = profile.plane_by_name("/device:GPU:0").expect("a GPU plane");
    assert!(gpu.lines.iter().any(|l| !l.events.start_ps.is_empty()));
    let rows = kernel_stats(&profile);
    assert!(!rows.is_empty() && rows.iter().all(|r| r.min_ns > 0 && r.occurrences > 0));
    assert!(rows.iter().any(|r| r.name.contains("gemm")), "{:?}", rows.iter().map(|r| &r.name).collect::<Vec<_>>());
    let host = profile.plane_by_name("/host:CPU").expect("a host plane");
    let train = host.event_metadata.iter().position(|m| profile.str(m.name) == "train").expect("train steps");
    let step_num = profile.strings.lookup("step_num").expect("a step_num stat");
    let mut numbers = Vec::new();
    for line in &host.lines {
        for (i, &m) in line.events.metadata.iter().enumerate() {
            if m as usize == train {
                let stats = &line.events.stats;
                let n = stats.of(i).find(|s| s.key == step_num).and_then(|s| stats.value(s, &profile.strings).as_i64());
                numbers.push(n.expect("each train event has its step_num"));
            }
        }
    }
    numbers.sort();
    assert_eq!(numbers, (0..10).collect::<Vec<i64>>());
}

#[test]
fn the_jax_grpc_capture_decodes_with_gpu_kernels() {
    let path = only_xspace("jax_grpc");
    assert!(path.file_name().unwrap().to_string_lossy().starts_with("localhost_9999"));
    let profile = load(&path).expect("the captured XSpace decodes");
    assert!(profile.plane_by_name("/device:GPU:0").is_some());
    assert!(!kernel_stats(&profile).is_empty());
}
