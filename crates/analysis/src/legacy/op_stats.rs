//! Framework op stats from `tensorflow_stats.pb` and kernel stats from
//! `kernel_stats.pb` (or XProf's JSON of those tools): row for row, the
//! numbers the profiler stored.

use crate::framework_op_stats::{FrameworkOpStats, OpRow, OpTable, Side};
use crate::kernel_stats::KernelRow;
use proflens_format::legacy::{GvizTable, LegacyError, LegacyTool};
use proflens_format::proto;

fn row(r: &proto::TfStatsRecord) -> OpRow {
    OpRow {
        rank: u32::try_from(r.rank).unwrap_or(u32::MAX),
        side: if r.host_or_device == "Host" { Side::Host } else { Side::Device },
        op_type: r.op_type.clone(),
        operation: r.op_name.clone(),
        occurrences: r.occurrences.max(0) as u64,
        total_time_us: r.total_time_in_us,
        avg_time_us: r.avg_time_in_us,
        total_self_time_us: r.total_self_time_in_us,
        avg_self_time_us: r.avg_self_time_in_us,
        device_self_time_fraction: r.device_total_self_time_as_fraction,
        device_cumulative_self_time_fraction: r.device_cumulative_total_self_time_as_fraction,
        host_self_time_fraction: r.host_total_self_time_as_fraction,
        host_cumulative_self_time_fraction: r.host_cumulative_total_self_time_as_fraction,
        measured_flop_rate: r.measured_flop_rate,
        model_flop_rate: r.model_flop_rate,
        measured_memory_bw: r.measured_memory_bw,
        operational_intensity: r.operational_intensity,
        gpu_tensorcore_utilization: r.gpu_tensorcore_utilization,
        bound_by: r.bound_by.clone(),
        is_eager: r.is_eager,
    }
}

fn table(t: Option<&proto::TfStatsTable>) -> OpTable {
    OpTable {
        rows: t.map(|t| t.tf_stats_record.iter().map(row).collect()).unwrap_or_default(),
        // Not stored in legacy files.
        task_type: String::new(),
        architecture_type: String::new(),
    }
}

/// Both tables of a `TfStatsDatabase`, every row in the file's order.
///
/// Unlike XProf 2.24 (500 rows per side) the legacy file's rows are all kept:
/// they are what the profiler stored. Dropped: pprof keys and the TPU
/// memory-bandwidth columns. Left empty: `task_type`, `architecture_type`.
/// `gpu` is the file's device type naming a GPU.
pub fn framework_op_stats_from_proto(db: &proto::TfStatsDatabase) -> FrameworkOpStats {
    FrameworkOpStats {
        gpu: db.device_type.contains("GPU"),
        with_idle: table(db.with_idle.as_ref()),
        without_idle: table(db.without_idle.as_ref()),
    }
}

fn dims(d: &[u32]) -> [u64; 3] {
    let at = |i: usize| d.get(i).copied().map_or(1, u64::from);
    [at(0), at(1), at(2)]
}

/// The rows of a `KernelStatsDb`, in the file's order (already ranked by the
/// profiler). Missing block/grid dimensions are 1.
pub fn kernel_stats_from_proto(db: &proto::KernelStatsDb) -> Vec<KernelRow> {
    db.reports
        .iter()
        .map(|r| KernelRow {
            name: r.name.clone(),
            registers_per_thread: r.registers_per_thread.into(),
            static_shmem_bytes: r.static_shmem_bytes.into(),
            dynamic_shmem_bytes: r.dynamic_shmem_bytes.into(),
            block: dims(&r.block_dim),
            grid: dims(&r.grid_dim),
            occupancy_pct: f64::from(r.occupancy_pct),
            op_tensor_core_eligible: r.is_op_tensor_core_eligible,
            uses_tensor_core: r.is_kernel_using_tensor_core,
            op_name: r.op_name.clone(),
            occurrences: r.occurrences.into(),
            total_ns: r.total_duration_ns,
            min_ns: r.min_duration_ns,
            max_ns: r.max_duration_ns,
        })
        .collect()
}

fn op_row(t: &GvizTable, row: &[serde_json::Value]) -> OpRow {
    let n = |id: &str| t.number(row, id).unwrap_or(0.0);
    OpRow {
        rank: n("rank").max(0.0) as u32,
        side: if t.text(row, "host_or_device").as_deref() == Some("Host") { Side::Host } else { Side::Device },
        op_type: t.text(row, "type").unwrap_or_default(),
        operation: t.text(row, "operation").unwrap_or_default(),
        occurrences: n("occurrences").max(0.0) as u64,
        total_time_us: n("total_time"),
        avg_time_us: n("avg_time"),
        total_self_time_us: n("total_self_time"),
        avg_self_time_us: n("avg_self_time"),
        device_self_time_fraction: n("device_total_self_time_percent"),
        device_cumulative_self_time_fraction: n("device_cumulative_total_self_time_percent"),
        host_self_time_fraction: n("host_total_self_time_percent"),
        host_cumulative_self_time_fraction: n("Host_cumulative_total_self_time_percent"),
        measured_flop_rate: n("measured_flop_rate"),
        model_flop_rate: n("model_flop_rate"),
        measured_memory_bw: n("measured_memory_bw"),
        operational_intensity: n("operational_intensity"),
        gpu_tensorcore_utilization: n("gpu_tensorcore_utilization"),
        bound_by: t.text(row, "bound_by").unwrap_or_default(),
        is_eager: t.text(row, "eager").as_deref() == Some("Eager"),
    }
}

fn op_table(t: Option<&GvizTable>) -> OpTable {
    let Some(t) = t else {
        return OpTable { rows: Vec::new(), task_type: String::new(), architecture_type: String::new() };
    };
    OpTable {
        rows: t.rows.iter().map(|r| op_row(t, r)).collect(),
        task_type: t.property("task_type").unwrap_or_default().to_string(),
        architecture_type: t.property("architecture_type").unwrap_or_default().to_string(),
    }
}

/// XProf's framework_op_stats JSON (`[with IDLE, without IDLE]`), row for
/// row. `gpu` is the TensorCore column being present.
pub fn framework_op_stats_from_tables(tables: &[GvizTable]) -> Result<FrameworkOpStats, LegacyError> {
    let ops: Vec<&GvizTable> = tables.iter().filter(|t| t.column("host_or_device").is_some()).collect();
    let Some(first) = ops.first() else {
        return Err(super::shape(LegacyTool::TensorflowStats, "it has no op table"));
    };
    Ok(FrameworkOpStats {
        gpu: first.column("gpu_tensorcore_utilization").is_some(),
        with_idle: op_table(Some(first)),
        without_idle: op_table(ops.get(1).copied()),
    })
}

/// `"x,y,z"` → `[x, y, z]` (missing parts 1).
fn dims_text(text: Option<String>) -> [u64; 3] {
    let text = text.unwrap_or_default();
    let mut parts = text.split(',').map(|p| p.trim().parse::<u64>().unwrap_or(1));
    [parts.next().unwrap_or(1), parts.next().unwrap_or(1), parts.next().unwrap_or(1)]
}

/// XProf's kernel_stats JSON, row for row. The table gives shared memory as
/// one sum: it becomes `static_shmem_bytes` (dynamic 0). Durations are µs in
/// the table and ns in the view model (rounded to whole ns, as recorded).
pub fn kernel_stats_from_tables(tables: &[GvizTable]) -> Result<Vec<KernelRow>, LegacyError> {
    let t = tables
        .iter()
        .find(|t| t.column("kernel_name").is_some())
        .ok_or_else(|| super::shape(LegacyTool::KernelStats, "it has no kernel table"))?;
    Ok(t.rows
        .iter()
        .map(|row| {
            let n = |id: &str| t.number(row, id).unwrap_or(0.0);
            let ns = |id: &str| (n(id) * 1000.0).round().max(0.0) as u64;
            KernelRow {
                name: t.text(row, "kernel_name").unwrap_or_default(),
                registers_per_thread: n("registers_per_thread").max(0.0) as u64,
                static_shmem_bytes: n("shmem_bytes").max(0.0) as u64,
                dynamic_shmem_bytes: 0,
                block: dims_text(t.text(row, "block_dim")),
                grid: dims_text(t.text(row, "grid_dim")),
                occupancy_pct: n("occupancy_pct"),
                op_tensor_core_eligible: t.boolean(row, "is_op_tensor_core_eligible").unwrap_or(false),
                uses_tensor_core: t.boolean(row, "is_kernel_using_tensor_core").unwrap_or(false),
                op_name: t.text(row, "op_name").unwrap_or_default(),
                occurrences: n("occurrences").max(0.0) as u64,
                total_ns: ns("total_duration_us"),
                min_ns: ns("min_duration_us"),
                max_ns: ns("max_duration_us"),
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_reports_become_rows() {
        let db = proto::KernelStatsDb {
            reports: vec![proto::KernelReport {
                name: "volta_sgemm_128x64_nn".into(),
                registers_per_thread: 126,
                static_shmem_bytes: 16384,
                dynamic_shmem_bytes: 0,
                block_dim: vec![256, 1, 1],
                grid_dim: vec![8, 4],
                total_duration_ns: 3000,
                min_duration_ns: 900,
                max_duration_ns: 1100,
                is_kernel_using_tensor_core: false,
                is_op_tensor_core_eligible: true,
                op_name: "model/dense/MatMul".into(),
                occurrences: 3,
                occupancy_pct: 25.0,
            }],
        };
        let rows = kernel_stats_from_proto(&db);
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].grid, [8, 4, 1]);
        assert_eq!((rows[0].occurrences, rows[0].total_ns, rows[0].occupancy_pct), (3, 3000, 25.0));
        let json = crate::kernel_stats::to_xprof_json(&rows);
        assert_eq!(json["rows"][0]["c"][11]["v"], 3.0, "total µs");
        assert_eq!(json["rows"][0]["c"][3]["v"], 16384.0, "shared memory");
    }
}
