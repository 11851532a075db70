//! Profiles recorded on a real NVIDIA H100 (tests/data/gpu_h100, see its
//! README) by `proflens-collect run`: the PyTorch loop of the H200 run
//! again, the same loop as a non-root user, two processes under one `run`,
//! and a run cut by `--duration-ms`. Step counts follow from the recording
//! script (tests/scripts/gpu/run_all.sh); kernel counts are read from the
//! CUPTI records the same process dumped, without the collector's parser.
//! No GPU is needed to run these.

use proflens_analysis::passes::host_analysis::HostAnalysis;
use proflens_analysis::passes::kernels::kernel_stats;
use proflens_model::Profile;
use proflens_tests::{data_dir, load};
use std::path::{Path, PathBuf};

fn dir(case: &str) -> PathBuf {
    data_dir().join("gpu_h100").join(case)
}

/// Every host file (`*.xplane.pb`, raw or gzip) below `dir`, sorted.
fn host_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            let name = path.to_string_lossy();
            if path.is_dir() {
                stack.push(path);
            } else if name.ends_with(".xplane.pb") || name.ends_with(".xplane.pb.gz") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

fn only_host(case: &str) -> Profile {
    let files = host_files(&dir(case));
    assert_eq!(files.len(), 1, "{case}: {files:?}");
    load(&files[0]).expect("the CUPTI XSpace decodes")
}

/// CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL records in a dump (`R len bytes` /
/// `S ptr len bytes` entries), counted from each record's kind field.
fn raw_kernel_records(case: &str) -> u64 {
    let gz = std::fs::read(dir(case).join("cupti_records.bin.gz")).unwrap();
    let bytes = proflens_format::inflate::gunzip(&gz, 1 << 30, &mut |_| {}).unwrap();
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    let (mut at, mut kernels) = (0, 0);
    while at < bytes.len() {
        match bytes[at] {
            b'R' => {
                let len = u32_at(at + 1) as usize;
                kernels += u64::from(u32_at(at + 5) == 10);
                at += 5 + len;
            }
            b'S' => at += 13 + u32_at(at + 9) as usize,
            other => panic!("unknown dump entry {other}"),
        }
    }
    kernels
}

/// The steps the overview lists: XProf drops the first and the last.
fn overview_steps(profile: &Profile) -> usize {
    let analysis = HostAnalysis::new(profile);
    assert!(analysis.steps.steps.is_empty() || analysis.steps.has_device);
    analysis.steps.steps.len()
}

fn kernels(profile: &Profile) -> u64 {
    kernel_stats(profile).iter().map(|r| r.occurrences).sum()
}

#[test]
fn the_h100_torch_run_holds_every_kernel_and_its_steps() {
    let profile = only_host("torch_cupti");
    let raw = raw_kernel_records("torch_cupti");
    assert!(raw > 0);
    assert_eq!(kernels(&profile), raw, "one kernel event per CUPTI kernel record");
    assert_eq!(overview_steps(&profile), 12 - 2, "torch_train.py --steps 12");
    let analysis = HostAnalysis::new(&profile);
    assert_eq!(analysis.environment.device_type, "Nvidia GPU (Hopper)");
}

#[test]
fn a_non_root_user_s_run_is_traced_like_root_s() {
    let profile = only_host("nonroot");
    assert!(kernels(&profile) > 0);
    assert_eq!(overview_steps(&profile), 6 - 2, "torch_train.py --steps 6");
}

#[test]
fn two_processes_under_one_run_are_two_hosts_of_the_run() {
    let files = host_files(&dir("multi/p2"));
    let names: Vec<String> = files.iter().map(|f| f.file_name().unwrap().to_string_lossy().into_owned()).collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert_eq!(files[0].parent(), files[1].parent(), "one run directory");
    // The first to finish has the host's name, the other adds its pid.
    assert!(names.contains(&"vm.xplane.pb.gz".to_string()), "{names:?}");
    assert!(names.iter().any(|n| n
        .strip_prefix("vm_")
        .and_then(|n| n.strip_suffix(".xplane.pb.gz"))
        .is_some_and(|pid| pid.parse::<u32>().is_ok())));
    for f in &files {
        let profile = load(f).unwrap();
        assert!(kernels(&profile) > 0, "{}", f.display());
        assert_eq!(overview_steps(&profile), 8 - 2, "{}: torch_train.py --steps 8", f.display());
    }
}

#[test]
fn a_duration_cut_profile_is_whole_and_no_longer_than_the_duration() {
    // --duration-ms 1500 on a program that ran 6 s after its start-up.
    let profile = only_host("duration");
    let (start, end) = profile.span_ps().unwrap();
    assert!(end > start);
    assert!(end - start <= 1_500_000_000_000, "{} ps", end - start);
    assert!(profile.plane_by_name("/device:GPU:0").is_some());
}
