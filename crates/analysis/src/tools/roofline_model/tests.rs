use super::xprof::six_digits;
use super::*;
use crate::passes::xla_ops::{DeviceKind, XlaOp, XlaOpDb};

fn op(name: &str, category: &str, time_ps: u64, flops: u64, bytes: u64) -> XlaOp {
    XlaOp {
        program_id: 3,
        name: name.into(),
        category: category.into(),
        occurrences: 2,
        time_ps,
        self_time_ps: time_ps,
        flops,
        model_flops: flops,
        bytes_accessed: bytes,
        ..XlaOp::default()
    }
}

fn gpu_peaks() -> Peaks {
    Peaks {
        device: RooflineDevice::Gpu,
        device_type: "AMD GPU - gfx942".into(),
        flop_rate: 1000.0,
        hbm_bw: 100.0,
        vmem_read_bw: 1000.0,
        vmem_write_bw: 1000.0,
        has_merged_vmem: true,
        ..Peaks::default()
    }
}

fn model(ops: Vec<XlaOp>, peaks: Peaks, steps: Vec<i64>) -> RooflineModel {
    let db = XlaOpDb { device: DeviceKind::Gpu, ops, total_time_ps: 10_000_000, ..XlaOpDb::default() };
    roofline_model(&Inputs { ops: &db, peaks, device_core_count: 2, steps })
}

#[test]
fn records_come_in_xprofs_order_with_and_without_infeed() {
    let ops = vec![
        op("small", "loop fusion", 1_000_000, 0, 1000),
        op("big", "convolution", 4_000_000, 8_000_000, 1000),
        op("feed", "infeed", 2_000_000, 0, 10),
        op("loop", "while", 9_000_000, 8_000_000, 1000),
    ];
    let m = model(ops, gpu_peaks(), vec![7]);
    let names: Vec<(&str, &str, bool)> =
        m.records.iter().map(|r| (r.step.as_str(), r.operation.as_str(), r.include_infeed_outfeed)).collect();
    assert_eq!(
        names,
        [
            ("Total", "Program", true),
            ("Total", "loop", true),
            ("Total", "big", true),
            ("Total", "feed", true),
            ("Total", "small", true),
            ("7", "Program", true),
            ("Total", "Program", false),
            ("Total", "loop", false),
            ("Total", "big", false),
            ("Total", "small", false),
            ("7", "Program", false),
        ]
    );
    assert_eq!(m.records.iter().map(|r| r.rank).take(5).collect::<Vec<_>>(), [0, 1, 2, 3, 4]);
    // Without infeed the program's time loses the infeed's 2 µs.
    assert_eq!(m.records[0].total_time_us, 10.0);
    assert_eq!(m.records[6].total_time_us, 8.0);
    // The `while` op's FLOPs are its inner ops': the program counts them once.
    assert_eq!(m.records[0].measured_flop_rate, 8_000_000.0 / 10_000.0);
    // Self time is a fraction of the (infeed-less) device time.
    assert_eq!(m.records[8].self_time_fraction, 4.0 / 8.0);
    assert_eq!(m.records[0].total_time_per_core_us, 5.0);
    assert!(m.diagnostics.is_empty());
}

#[test]
fn bound_by_is_the_resource_nearest_its_peak() {
    let ops = vec![
        // 8 MFLOP in 4 µs = 2000 GFLOP/s (200% of 1000); 1 kB: memory is no limit.
        op("compute", "convolution", 4_000_000, 8_000_000, 1000),
        // 1 GB in 1 µs: far above the HBM peak.
        op("memory", "loop fusion", 1_000_000, 10, 1 << 30),
        op("nothing", "custom-call", 1_000_000, 0, 0),
    ];
    let m = model(ops, gpu_peaks(), Vec::new());
    let by_name = |n: &str| m.records.iter().find(|r| r.operation == n).unwrap();
    assert_eq!(by_name("compute").bound_by, "Compute");
    assert_eq!(by_name("compute").bottleneck_operational_intensity, 8000.0);
    assert!((by_name("compute").roofline_efficiency - 2.0).abs() < 1e-12);
    assert_eq!(by_name("memory").bound_by, "HBM");
    assert_eq!(by_name("nothing").bound_by, "Unknown");
    assert_eq!(by_name("nothing").optimal_flop_rate, 0.0);
    assert_eq!(m.diagnostics[0].severity, "WARNING");
}

#[test]
fn tpus_get_an_average_record_and_cpus_nothing() {
    let tpu = Peaks { device: RooflineDevice::Tpu, device_type: "TPU v6 Lite".into(), ..Peaks::default() };
    let m = model(vec![op("a", "loop fusion", 1_000_000, 0, 8)], tpu, Vec::new());
    let steps: Vec<&str> = m.records.iter().map(|r| r.step.as_str()).collect();
    assert_eq!(steps, ["Total", "Total", "Average", "Total", "Total", "Average"]);
    assert_eq!(m.records[2].total_time_us, 0.0);
    let cpu = model(vec![op("a", "loop fusion", 1_000_000, 0, 8)], Peaks::default(), Vec::new());
    assert!(cpu.records.is_empty() && cpu.diagnostics.is_empty());
    let json = to_xprof_json(&cpu);
    assert_eq!(json[0]["rows"].as_array().map(Vec::len), Some(0));
    assert_eq!(json[0]["p"]["device_type"], "");
}

#[test]
fn gpu_table_drops_tpu_columns_and_renames_shared_memory() {
    let m = model(vec![op("a", "loop fusion", 1_000_000, 0, 8)], gpu_peaks(), Vec::new());
    let json = to_xprof_json(&m);
    let cols = json[0]["cols"].as_array().unwrap();
    assert_eq!(cols.len(), 30);
    assert!(cols.iter().any(|c| c["label"] == "SHM/L1 BW (GiB/s)"));
    assert!(!cols.iter().any(|c| c["id"] == "cmem_read_bw"));
    assert_eq!(json[0]["p"]["hbm_ridge_point"], six_digits(1000.0 / (100.0 / GIB)));
    let csv = to_csv(&m);
    assert_eq!(csv.lines().count(), 1 + m.records.len());
    assert!(csv.starts_with("Step,Rank,Category,Operation,"));
}

const GIB: f64 = 1e9 / (1u64 << 30) as f64;

#[test]
fn six_digits_writes_like_absl() {
    assert_eq!(six_digits(0.0), "0");
    assert_eq!(six_digits(918000.0), "918000");
    assert_eq!(six_digits(1_307_440.0), "1.30744e+06");
    assert_eq!(six_digits(2479.5512), "2479.55");
    assert_eq!(six_digits(16.0000001), "16");
    assert_eq!(six_digits(0.000123456), "0.000123456");
    assert_eq!(six_digits(0.0000123456), "1.23456e-05");
}

/// The GPU peaks of a one-plane profile with these capability stats.
fn gpu_plane_peaks(stats: &[(&str, crate::passes::op_metrics::test_builder::V)]) -> Peaks {
    let mut b = crate::passes::op_metrics::test_builder::Builder::new();
    let p = b.plane("/device:GPU:0");
    b.plane_stats(p, stats);
    let profile = b.build();
    let env = crate::passes::run_environment::run_environment(&profile);
    let (peak_gflops, peak_hbm_gibps) = crate::passes::xla_ops::device_peaks(&profile);
    let ops = XlaOpDb { peak_gflops, peak_hbm_gibps, ..XlaOpDb::default() };
    Peaks::of(&profile, &ops, &env, &crate::passes::device_env::DeviceEnv::of(&profile))
}

/// MI355X (gfx950) and MI300X (gfx942) at the same CU count and clock:
/// XProf's CDNA 4 rate per CU and clock is twice CDNA 3's, so the roof and
/// the ridge point are twice as high (GEMMs stay compute-bound), and so is
/// the LDS roof (64 banks instead of 32). An architecture XProf does not
/// know has no roof; a vendor it does not know, no name either.
#[test]
fn amd_peaks_follow_the_gfx_architecture() {
    use crate::passes::op_metrics::test_builder::V;
    let amd = |minor: i64, name: &'static str| {
        gpu_plane_peaks(&[
            ("device_vendor", V::S("AMD")),
            ("compute_cap_major", V::I(9)),
            ("compute_cap_minor", V::I(minor)),
            ("gpu_device_name", V::S(name)),
            ("core_count", V::I(256)),
            ("clock_rate", V::I(2_400_000)),
            ("memory_bandwidth", V::I(8_000_000_000_000)),
        ])
    };
    let (mi300, mi355) = (amd(4, ""), amd(5, ""));
    assert_eq!((mi300.device_type.as_str(), mi355.device_type.as_str()), ("AMD GPU - gfx942", "AMD GPU - gfx950"));
    assert!((mi300.flop_rate - 256.0 * 2.4 * 2048.0).abs() < 1e-6);
    assert!((mi355.flop_rate - 2.0 * mi300.flop_rate).abs() < 1e-6);
    assert!((mi355.ridge_point(mi355.hbm_bw) - 2.0 * mi300.ridge_point(mi300.hbm_bw)).abs() < 1e-9);
    assert!((mi355.vmem_read_bw - 2.0 * mi300.vmem_read_bw).abs() < 1e-6);
    // The device name, when a bare gfx version, says the architecture.
    let mi250 = amd(0, "gfx90a");
    assert_eq!(mi250.device_type, "AMD GPU - gfx90a");
    assert!((mi250.flop_rate - 256.0 * 2.4 * 1024.0).abs() < 1e-6);
    let rdna = amd(0, "gfx1100");
    assert_eq!((rdna.device_type.as_str(), rdna.flop_rate, rdna.vmem_read_bw), ("AMD GPU - gfx1100", 0.0, 0.0));
    let unresolved = amd(0, "");
    assert_eq!((unresolved.device_type.as_str(), unresolved.flop_rate), ("AMD GPU - gfx-9XX series", 0.0));
    let other =
        gpu_plane_peaks(&[("compute_cap_major", V::I(8)), ("core_count", V::I(108)), ("clock_rate", V::I(1_410_000))]);
    assert_eq!((other.device_type.as_str(), other.flop_rate, other.vmem_read_bw), ("GPU", 0.0, 0.0));
}

/// Peaks a GPU plane states win over the tables, whatever the vendor
/// (XProf's GetPerfEnvFromXPlane): the FLOP rate and the SRAM bandwidths.
#[test]
fn stated_gpu_peaks_win() {
    use crate::passes::op_metrics::test_builder::V;
    let peaks = gpu_plane_peaks(&[
        ("device_vendor", V::S("AMD")),
        ("compute_cap_major", V::I(9)),
        ("compute_cap_minor", V::I(4)),
        ("core_count", V::I(304)),
        ("clock_rate", V::I(2_100_000)),
        ("peak_teraflops_per_second", V::I(1300)),
        ("peak_sram_rd_bw_gigabytes_per_second", V::I(80_000)),
    ]);
    let gib_per_gb = 1e9 / (1u64 << 30) as f64;
    assert_eq!(peaks.flop_rate, 1_300_000.0);
    assert!((peaks.vmem_read_bw / gib_per_gb - 80_000.0).abs() < 1e-6);
    // Not stated: the gfx942 LDS table's.
    assert!((peaks.vmem_write_bw / gib_per_gb - 304.0 * 128.0 * 2.1).abs() < 1e-6);
}
