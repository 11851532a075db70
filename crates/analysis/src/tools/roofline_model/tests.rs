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
