//! Framework op stats from `tensorflow_stats.pb` and kernel stats from
//! `kernel_stats.pb` (or XProf's JSON of those tools): row for row, the
//! numbers the profiler stored.

use crate::common::legacy::shape;
use crate::tools::framework_op_stats::{FrameworkOpStats, OpRow, OpTable, Side};
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
        return Err(shape(LegacyTool::TensorflowStats, "it has no op table"));
    };
    Ok(FrameworkOpStats {
        gpu: first.column("gpu_tensorcore_utilization").is_some(),
        with_idle: op_table(Some(first)),
        without_idle: op_table(ops.get(1).copied()),
    })
}
