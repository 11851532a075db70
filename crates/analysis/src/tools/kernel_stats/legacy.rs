//! Kernel stats from a legacy `kernel_stats.pb` or XProf's kernel stats JSON.

use crate::common::legacy::shape;
use crate::passes::kernels::KernelRow;
use proflens_format::legacy::{GvizTable, LegacyError, LegacyTool};
use proflens_format::proto;

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
        .ok_or_else(|| shape(LegacyTool::KernelStats, "it has no kernel table"))?;
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
        let json = crate::tools::kernel_stats::to_xprof_json(&rows);
        assert_eq!(json["rows"][0]["c"][11]["v"], 3.0, "total µs");
        assert_eq!(json["rows"][0]["c"][3]["v"], 16384.0, "shared memory");
    }
}
