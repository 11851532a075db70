//! Framework (TensorFlow) op stats: the tool view and its XProf JSON.
//!
//! One row per framework op, device ops first then host ops, each side sorted
//! by self time (longest first, ties by name) and cut to its 500 longest ops,
//! as XProf's `framework_op_stats` (op_stats_to_tf_stats.cc) does. Two
//! tables: with the `IDLE` op, and without it (then the self-time shares are
//! of the op time only).

pub mod legacy;
pub mod pytorch;
mod tool;

pub use tool::{rank_part, stats_of, FrameworkOpStatsTool, OperatorStats};

use crate::common::csv::csv_field;
pub use crate::passes::device_env::{DeviceEnv, Hardware};
use crate::passes::grouping::Grouping;
use crate::passes::op_metrics::{device_op_metrics, host_op_metrics, MemoryBreakdown, OpMetrics, OpMetricsDb};
use crate::passes::training::ModelTracker;
use proflens_model::Profile;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// Most ops shown per side (device, host), the idle op included.
pub const MAX_OPS_PER_SIDE: usize = 500;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Side {
    Device,
    Host,
}

impl Side {
    pub fn label(self) -> &'static str {
        match self {
            Side::Device => "Device",
            Side::Host => "Host",
        }
    }
}

/// One framework op.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OpRow {
    /// 1-based, continuing from the device rows into the host rows.
    pub rank: u32,
    pub side: Side,
    pub op_type: String,
    pub operation: String,
    pub occurrences: u64,
    pub total_time_us: f64,
    pub avg_time_us: f64,
    pub total_self_time_us: f64,
    pub avg_self_time_us: f64,
    /// Share (0..1) of the device's total self time; 0 on host rows.
    pub device_self_time_fraction: f64,
    pub device_cumulative_self_time_fraction: f64,
    /// Share (0..1) of the host's total self time; 0 on device rows.
    pub host_self_time_fraction: f64,
    pub host_cumulative_self_time_fraction: f64,
    /// GFLOP/s (flops per ns; XProf labels it "Normalized FLOP Rate (FLOPs/s)").
    pub measured_flop_rate: f64,
    pub model_flop_rate: f64,
    /// GiB/s.
    pub measured_memory_bw: f64,
    /// FLOPs per byte.
    pub operational_intensity: f64,
    /// Share of the op's kernel time on TensorCores (device rows, GPU only).
    pub gpu_tensorcore_utilization: f64,
    /// `Compute`, `HBM`, `Shm/L1` or `Unknown`.
    pub bound_by: String,
    pub is_eager: bool,
}

/// One table: rows and the model classification XProf attaches to it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OpTable {
    pub rows: Vec<OpRow>,
    /// `Training` (gradient ops seen) or `Inference`.
    pub task_type: String,
    pub architecture_type: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FrameworkOpStats {
    /// The device is a GPU: tables carry the TensorCore utilization column.
    pub gpu: bool,
    pub with_idle: OpTable,
    pub without_idle: OpTable,
}

impl FrameworkOpStats {
    pub fn table(&self, include_idle: bool) -> &OpTable {
        if include_idle {
            &self.with_idle
        } else {
            &self.without_idle
        }
    }
}

/// The tool for one host's profile.
pub fn framework_op_stats(profile: &Profile, grouping: &Grouping) -> FrameworkOpStats {
    let host = host_op_metrics(profile, grouping);
    let device = device_op_metrics(profile, grouping);
    from_op_metrics(&host, &device, &DeviceEnv::of(profile))
}

/// The tool from op metrics DBs (device ops as [`device_op_metrics`] gives them).
pub fn from_op_metrics(host: &OpMetricsDb, device: &OpMetricsDb, env: &DeviceEnv) -> FrameworkOpStats {
    let device_framework = device.framework_ops(true);
    FrameworkOpStats {
        gpu: env.hardware == Hardware::Gpu,
        with_idle: build_table(host, &device_framework, env, false),
        without_idle: build_table(host, &device_framework, env, true),
    }
}

fn picos_to_micros(ps: u64) -> f64 {
    ps as f64 / 1e6
}

/// XProf's SafeDivide: 0 when the divisor is (nearly) 0.
fn safe_divide(a: f64, b: f64) -> f64 {
    if b.abs() < 1e-10 {
        0.0
    } else {
        a / b
    }
}

fn giga_to_gibi(giga: f64) -> f64 {
    giga * 1e9 / (1u64 << 30) as f64
}

fn build_table(host: &OpMetricsDb, device: &OpMetricsDb, env: &DeviceEnv, exclude_idle: bool) -> OpTable {
    let mut rows = Vec::new();
    let mut model = ModelTracker::default();
    let mut rank = 0u32;
    for (side, db) in [(Side::Device, device), (Side::Host, host)] {
        let total_ps = if exclude_idle { db.total_op_time_ps } else { db.total_time_ps };
        let total_us = picos_to_micros(total_ps);
        let mut cumulative = 0.0;
        for op in db.sorted_by_self_time().into_iter().take(MAX_OPS_PER_SIDE) {
            if exclude_idle && op.is_idle() {
                continue;
            }
            rank += 1;
            let mut row = op_row(rank, side, op, env);
            let fraction = safe_divide(row.total_self_time_us, total_us);
            cumulative += fraction;
            match side {
                Side::Device => {
                    row.device_self_time_fraction = fraction;
                    row.device_cumulative_self_time_fraction = cumulative;
                }
                Side::Host => {
                    row.host_self_time_fraction = fraction;
                    row.host_cumulative_self_time_fraction = cumulative;
                }
            }
            model.process_op(&row.operation, &row.op_type);
            rows.push(row);
        }
    }
    OpTable { rows, task_type: model.task_type().to_string(), architecture_type: "Unknown".to_string() }
}

fn op_row(rank: u32, side: Side, op: &OpMetrics, env: &DeviceEnv) -> OpRow {
    let total_us = picos_to_micros(op.time_ps);
    let self_us = picos_to_micros(op.self_time_ps);
    let occurrences = op.occurrences as f64;
    let time_ns = op.time_ps as f64 / 1e3;
    let flops = op.flops as f64;
    let bytes = op.bytes_accessed as f64;
    let measured_flop_rate = safe_divide(flops, time_ns);
    let memory_bw = giga_to_gibi(safe_divide(bytes, time_ns));
    let operational_intensity = safe_divide(flops, bytes);
    let breakdown = op.memory_breakdown.unwrap_or(MemoryBreakdown { hbm: op.bytes_accessed, ..Default::default() });
    let bw = |bytes: u64| giga_to_gibi(safe_divide(bytes as f64, time_ns));
    let hbm_bw = bw(breakdown.hbm);
    // Roofline: the resource closest to its peak bounds the op.
    let mut candidates = vec![
        ("Compute", safe_divide(measured_flop_rate, env.peak_tera_flops_per_second * 1e3)),
        ("HBM", safe_divide(hbm_bw, giga_to_gibi(env.peak_hbm_bw_giga_bytes_per_second))),
    ];
    if env.hardware == Hardware::Tpu {
        for (resource, bytes, peak) in [
            ("CMEM Read", breakdown.cmem_read, env.peak_cmem_read_bw_giga_bytes_per_second),
            ("CMEM Write", breakdown.cmem_write, env.peak_cmem_write_bw_giga_bytes_per_second),
            ("VMEM Read", breakdown.vmem_read, env.peak_vmem_read_bw_giga_bytes_per_second),
            ("VMEM Write", breakdown.vmem_write, env.peak_vmem_write_bw_giga_bytes_per_second),
        ] {
            if bytes > 0 && peak != 0.0 {
                candidates.push((resource, safe_divide(bw(bytes), giga_to_gibi(peak))));
            }
        }
    }
    if env.hardware == Hardware::Gpu && env.peak_shm_bw_giga_bytes_per_second != 0.0 {
        candidates.push(("Shm/L1", safe_divide(hbm_bw, giga_to_gibi(env.peak_shm_bw_giga_bytes_per_second))));
    }
    let mut bound_by = "Unknown";
    let mut utilization = 0.0;
    for (resource, u) in candidates {
        if utilization < u {
            bound_by = resource;
            utilization = u;
        }
    }
    OpRow {
        rank,
        side,
        op_type: op.category.clone(),
        operation: op.name.clone(),
        occurrences: op.occurrences,
        total_time_us: total_us,
        avg_time_us: safe_divide(total_us, occurrences),
        total_self_time_us: self_us,
        avg_self_time_us: safe_divide(self_us, occurrences),
        device_self_time_fraction: 0.0,
        device_cumulative_self_time_fraction: 0.0,
        host_self_time_fraction: 0.0,
        host_cumulative_self_time_fraction: 0.0,
        measured_flop_rate,
        model_flop_rate: safe_divide(op.model_flops as f64, time_ns),
        measured_memory_bw: memory_bw,
        operational_intensity,
        gpu_tensorcore_utilization: match side {
            Side::Device => safe_divide(op.tensor_core_time_ps as f64, op.kernel_time_ps as f64),
            Side::Host => 0.0,
        },
        bound_by: bound_by.to_string(),
        is_eager: op.is_eager,
    }
}

/// (id, label, type) of the columns, the TensorCore one only for GPUs.
fn columns(gpu: bool) -> Vec<(&'static str, &'static str, &'static str)> {
    let mut cols = vec![
        ("rank", "Rank", "number"),
        ("host_or_device", "Host/device", "string"),
        ("type", "Operation Type", "string"),
        ("operation", "Operation Name", "string"),
        ("occurrences", "#Occurrences", "number"),
        ("total_time", "Total time (us)", "number"),
        ("avg_time", "Avg. time (us)", "number"),
        ("total_self_time", "Total self-time (us)", "number"),
        ("avg_self_time", "Avg. self-time (us)", "number"),
        ("device_total_self_time_percent", "Total self-time on Device (%)", "number"),
        ("device_cumulative_total_self_time_percent", "Cumulative total-self time on Device (%)", "number"),
        ("host_total_self_time_percent", "Total self-time on Host (%)", "number"),
        ("Host_cumulative_total_self_time_percent", "Cumulative total-self time on Host (%)", "number"),
        ("measured_flop_rate", "Normalized FLOP Rate (FLOPs/s)", "number"),
        ("model_flop_rate", "Model FLOP Rate (GFLOP/s)", "number"),
        ("measured_memory_bw", "Measured Memory BW (GBytes/Sec)", "number"),
        ("operational_intensity", "Operational Intensity (FLOPs/Byte)", "number"),
    ];
    if gpu {
        cols.push(("gpu_tensorcore_utilization", "GPU TensorCore utilization", "number"));
    }
    cols.push(("bound_by", "Bound by", "string"));
    cols.push(("eager", "Execution mode", "string"));
    cols
}

enum Cell<'a> {
    Number(f64),
    Text(&'a str),
}

fn cells(row: &OpRow, gpu: bool) -> Vec<Cell<'_>> {
    let mut out = vec![
        Cell::Number(f64::from(row.rank)),
        Cell::Text(row.side.label()),
        Cell::Text(&row.op_type),
        Cell::Text(&row.operation),
        Cell::Number(row.occurrences as f64),
        Cell::Number(row.total_time_us),
        Cell::Number(row.avg_time_us),
        Cell::Number(row.total_self_time_us),
        Cell::Number(row.avg_self_time_us),
        Cell::Number(row.device_self_time_fraction),
        Cell::Number(row.device_cumulative_self_time_fraction),
        Cell::Number(row.host_self_time_fraction),
        Cell::Number(row.host_cumulative_self_time_fraction),
        Cell::Number(row.measured_flop_rate),
        Cell::Number(row.model_flop_rate),
        Cell::Number(row.measured_memory_bw),
        Cell::Number(row.operational_intensity),
    ];
    if gpu {
        out.push(Cell::Number(row.gpu_tensorcore_utilization));
    }
    out.push(Cell::Text(&row.bound_by));
    out.push(Cell::Text(if row.is_eager { "Eager" } else { "Function" }));
    out
}

fn data_table(table: &OpTable, gpu: bool) -> Value {
    let cols: Vec<Value> =
        columns(gpu).into_iter().map(|(id, label, ty)| json!({"id": id, "label": label, "type": ty})).collect();
    let rows: Vec<Value> = table
        .rows
        .iter()
        .map(|row| {
            let c: Vec<Value> = cells(row, gpu)
                .into_iter()
                .map(|cell| match cell {
                    // Non-finite numbers cannot occur (all divisions are guarded); null if they ever did.
                    Cell::Number(v) => json!({ "v": v }),
                    Cell::Text(s) => json!({ "v": s }),
                })
                .collect();
            json!({ "c": c })
        })
        .collect();
    json!({
        "cols": cols,
        "rows": rows,
        "p": {"architecture_type": table.architecture_type, "task_type": table.task_type},
    })
}

/// XProf 2.24's `framework_op_stats` JSON: `[with IDLE, without IDLE]` DataTables.
pub fn to_xprof_json(view: &FrameworkOpStats) -> Value {
    Value::Array(vec![data_table(&view.with_idle, view.gpu), data_table(&view.without_idle, view.gpu)])
}

/// The table as CSV (RFC 4180): a header of the column labels, then one line per row.
pub fn to_csv(view: &FrameworkOpStats, include_idle: bool) -> String {
    let mut out = String::new();
    let header: Vec<&str> = columns(view.gpu).into_iter().map(|(_, label, _)| label).collect();
    for (i, label) in header.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&csv_field(label));
    }
    out.push_str("\r\n");
    for row in &view.table(include_idle).rows {
        for (i, cell) in cells(row, view.gpu).into_iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            match cell {
                Cell::Number(v) => out.push_str(&v.to_string()),
                Cell::Text(s) => out.push_str(&csv_field(s)),
            }
        }
        out.push_str("\r\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passes::op_metrics::test_builder::{Builder, V};
    use crate::passes::op_metrics::IDLE;

    fn op(name: &str, category: &str, occurrences: u64, time_ps: u64, self_time_ps: u64) -> OpMetrics {
        OpMetrics {
            name: name.into(),
            category: category.into(),
            occurrences,
            time_ps,
            self_time_ps,
            ..OpMetrics::default()
        }
    }

    fn idle(ps: u64) -> OpMetrics {
        op(IDLE, IDLE, 0, ps, ps)
    }

    fn host_db() -> OpMetricsDb {
        OpMetricsDb {
            ops: vec![
                op("b", "B", 2, 3_000_000, 1_000_000),
                idle(6_000_000),
                op("a", "A", 4, 2_000_000, 1_000_000),
                op("model/gradient_tape/x", "Mul", 1, 2_000_000, 2_000_000),
            ],
            total_time_ps: 10_000_000,
            total_op_time_ps: 4_000_000,
        }
    }

    #[test]
    fn rows_rank_and_fractions() {
        let view = from_op_metrics(&host_db(), &OpMetricsDb::default(), &DeviceEnv::default());
        let rows = &view.with_idle.rows;
        let names: Vec<&str> = rows.iter().map(|r| r.operation.as_str()).collect();
        // Self time descending, ties by name.
        assert_eq!(names, vec![IDLE, "model/gradient_tape/x", "a", "b"]);
        assert_eq!(rows.iter().map(|r| r.rank).collect::<Vec<_>>(), vec![1, 2, 3, 4]);
        let b = &rows[3];
        assert_eq!((b.occurrences, b.total_time_us, b.avg_time_us, b.avg_self_time_us), (2, 3.0, 1.5, 0.5));
        assert!((b.host_self_time_fraction - 0.1).abs() < 1e-12);
        assert!((b.host_cumulative_self_time_fraction - 1.0).abs() < 1e-12);
        assert_eq!((rows[0].avg_time_us, rows[0].bound_by.as_str(), rows[0].is_eager), (0.0, "Unknown", false));

        let rows = &view.without_idle.rows;
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0].rank, 1);
        assert!((rows[0].host_self_time_fraction - 0.5).abs() < 1e-12);
        assert_eq!(view.with_idle.task_type, "Training");
        assert_eq!(view.with_idle.architecture_type, "Unknown");
    }

    #[test]
    fn device_rows_come_first_and_sides_are_capped() {
        let mut device = OpMetricsDb::default();
        for i in 0..600u64 {
            device.ops.push(OpMetrics {
                provenance: format!("op{i:03}:Add"),
                ..op(&format!("op{i:03}/kernel"), "Add", 1, 1_000 + i, 1_000 + i)
            });
        }
        device.ops.push(idle(1));
        device.total_op_time_ps = device.ops.iter().map(|o| o.self_time_ps).sum::<u64>() - 1;
        device.total_time_ps = device.total_op_time_ps + 1;
        let env = DeviceEnv { hardware: Hardware::Gpu, ..DeviceEnv::default() };
        let view = from_op_metrics(&host_db(), &device, &env);
        let rows = &view.with_idle.rows;
        assert_eq!(rows.len(), MAX_OPS_PER_SIDE + 4);
        assert!(rows[..MAX_OPS_PER_SIDE].iter().all(|r| r.side == Side::Device));
        assert_eq!((rows[0].operation.as_str(), rows[0].op_type.as_str()), ("op599", "Add"));
        assert_eq!(rows[MAX_OPS_PER_SIDE].rank as usize, MAX_OPS_PER_SIDE + 1);
        assert_eq!(rows[MAX_OPS_PER_SIDE].host_cumulative_self_time_fraction, 0.6);
        // The tiny idle op falls outside the device's 500 longest ops.
        assert!(rows.iter().all(|r| !(r.side == Side::Device && r.operation == IDLE)));
        assert_eq!(view.without_idle.rows.len(), MAX_OPS_PER_SIDE + 3);
        let json = to_xprof_json(&view);
        assert_eq!(json[0]["cols"][17]["id"], "gpu_tensorcore_utilization");
        assert_eq!(json[0]["rows"][0]["c"].as_array().map(Vec::len), Some(20));
        assert_eq!(json[1]["p"]["task_type"], "Training");
    }

    #[test]
    fn json_matches_xprof_shape() {
        let view = from_op_metrics(&host_db(), &OpMetricsDb::default(), &DeviceEnv::default());
        let json = to_xprof_json(&view);
        let tables = json.as_array().expect("array");
        assert_eq!(tables.len(), 2);
        let cols = tables[0]["cols"].as_array().expect("cols");
        assert_eq!(cols.len(), 19);
        assert_eq!(
            cols[12],
            serde_json::json!({"id": "Host_cumulative_total_self_time_percent", "label": "Cumulative total-self time on Host (%)", "type": "number"})
        );
        let first = &tables[0]["rows"][0]["c"];
        assert_eq!(first[0]["v"], 1.0);
        assert_eq!(first[1]["v"], "Host");
        assert_eq!(first[2]["v"], IDLE);
        assert_eq!(first[18]["v"], "Function");
        assert_eq!(tables[1]["rows"].as_array().map(Vec::len), Some(3));
        assert_eq!(tables[0]["p"], serde_json::json!({"architecture_type": "Unknown", "task_type": "Training"}));
    }

    #[test]
    fn csv_quotes_fields() {
        let mut host = host_db();
        host.ops[0].name = "say \"hi\", twice".into();
        let view = from_op_metrics(&host, &OpMetricsDb::default(), &DeviceEnv::default());
        let csv = to_csv(&view, false);
        let lines: Vec<&str> = csv.split("\r\n").collect();
        assert_eq!(lines.len(), 5, "header, 3 rows and the final line break: {csv}");
        assert!(lines[0].starts_with("Rank,Host/device,Operation Type,"));
        assert!(lines[0].ends_with(",Bound by,Execution mode"));
        assert!(lines[3].starts_with("3,Host,B,\"say \"\"hi\"\", twice\",2,3,1.5,1,0.5,0,0,"), "{}", lines[3]);
        assert!(to_csv(&view, true).contains("\r\n1,Host,IDLE,IDLE,0,6,0,6,0,"));
    }

    #[test]
    fn roofline_picks_the_busiest_resource() {
        let env = DeviceEnv {
            hardware: Hardware::Tpu,
            peak_tera_flops_per_second: 1.0,
            peak_hbm_bw_giga_bytes_per_second: 100.0,
            peak_vmem_read_bw_giga_bytes_per_second: 10.0,
            ..DeviceEnv::default()
        };
        // 1 µs: 500 GFLOP/s (half the peak), 10 GB/s of HBM.
        let compute = OpMetrics { flops: 500_000, bytes_accessed: 10_000, ..op("c", "x", 1, 1_000_000, 1_000_000) };
        let row = op_row(1, Side::Device, &compute, &env);
        assert_eq!(row.bound_by, "Compute");
        assert!((row.measured_flop_rate - 500.0).abs() < 1e-9);
        assert!((row.operational_intensity - 50.0).abs() < 1e-9);
        let vmem = OpMetrics {
            memory_breakdown: Some(MemoryBreakdown { hbm: 1_000, vmem_read: 9_000, ..MemoryBreakdown::default() }),
            ..compute.clone()
        };
        assert_eq!(op_row(1, Side::Device, &vmem, &env).bound_by, "VMEM Read");
        let gpu = DeviceEnv { hardware: Hardware::Gpu, ..env };
        assert_eq!(op_row(1, Side::Device, &vmem, &gpu).bound_by, "Compute");
    }

    #[test]
    fn model_tracker_spots_gradients() {
        let mut m = ModelTracker::default();
        m.process_op("Iterator::Root", "Dataset");
        m.process_op("model/gradientsless/x", "Mul");
        assert_eq!(m.task_type(), "Training", "`gradients…` scopes count");
        let mut m = ModelTracker::default();
        m.process_op("model/gradient/x", "Mul");
        m.process_op("gradient_tape", "Mul");
        assert_eq!(m.task_type(), "Inference", "a bare `gradient` scope or op name does not");
        m.process_op("jit(f)/transpose(jvp(g))/dot_general", "dot_general");
        assert_eq!(m.task_type(), "Training");
    }

    #[test]
    fn device_env_reads_plane_caps() {
        let mut b = Builder::new();
        let p = b.plane("/device:GPU:0");
        b.plane_stat(p, "memory_bandwidth", V::I(900_000_000_000));
        let env = DeviceEnv::of(&b.build());
        assert_eq!((env.hardware, env.peak_hbm_bw_giga_bytes_per_second), (Hardware::Gpu, 900.0));
        assert_eq!(DeviceEnv::of(&Builder::new().build()).hardware, Hardware::Cpu);
    }
}
