//! GPU kernel stats: the kernels of [`crate::passes::kernels`] as a table,
//! as XProf's JSON and as CSV.

pub mod legacy;
pub mod pytorch;
mod tool;

pub use tool::{rank_part, HostKernelRow, KernelStats, KernelStatsTool};

use crate::common::datatable::DataTable;
use crate::passes::kernels::KernelRow;
use serde_json::{json, Value};

/// The table as CSV.
pub fn to_csv(rows: &[KernelRow]) -> String {
    let mut out = String::from("rank,kernel_name,registers_per_thread,shmem_bytes,block_dim,grid_dim,occupancy_pct,op_tensor_core_eligible,kernel_uses_tensor_core,op_name,occurrences,total_duration_us,avg_duration_us,min_duration_us,max_duration_us\n");
    for (rank, r) in rows.iter().enumerate() {
        let us = |ns: u64| ns as f64 / 1000.0;
        out += &format!(
            "{},{},{},{},\"{}\",\"{}\",{},{},{},{},{},{},{},{},{}\n",
            rank + 1,
            crate::common::csv::csv_field(&r.name),
            r.registers_per_thread,
            r.static_shmem_bytes + r.dynamic_shmem_bytes,
            dims(&r.block),
            dims(&r.grid),
            r.occupancy_pct,
            r.op_tensor_core_eligible,
            r.uses_tensor_core,
            crate::common::csv::csv_field(&r.op_name),
            r.occurrences,
            us(r.total_ns),
            if r.occurrences == 0 { 0.0 } else { us(r.total_ns) / r.occurrences as f64 },
            us(r.min_ns),
            us(r.max_ns)
        );
    }
    out
}

/// XProf's all-hosts rows as CSV: the table of [`to_csv`] with the host of
/// each row first.
pub fn to_csv_by_host(rows: &[HostKernelRow]) -> String {
    let kernels: Vec<KernelRow> = rows.iter().map(|r| r.kernel.clone()).collect();
    let table = to_csv(&kernels);
    let mut lines = table.lines();
    let mut out = format!("host,{}\n", lines.next().unwrap_or_default());
    for (row, line) in rows.iter().zip(lines) {
        out += &format!("{},{line}\n", crate::common::csv::csv_field(&row.host));
    }
    out
}

fn dims(d: &[u64; 3]) -> String {
    format!("{},{},{}", d[0], d[1], d[2])
}

/// XProf 2.24's `kernel_stats` JSON.
pub fn to_xprof_json(rows: &[KernelRow]) -> Value {
    let mut t = DataTable::new()
        .column("rank", "number", "Rank")
        .column("kernel_name", "string", "Kernel Name")
        .column("registers_per_thread", "number", "Registers per thread")
        .column("shmem_bytes", "number", "Shared Mem bytes")
        .column("block_dim", "string", "Block dim")
        .column("grid_dim", "string", "Grid dim")
        .column("occupancy_pct", "number", "Theoretical Occupancy %")
        .column("is_op_tensor_core_eligible", "boolean", "Op is TensorCore eligible")
        .column("is_kernel_using_tensor_core", "boolean", "Kernel uses TensorCore")
        .column("op_name", "string", "Op Name")
        .column("occurrences", "number", "Occurrences")
        .column("total_duration_us", "number", "Total Duration (μs)")
        .column("avg_duration_us", "number", "Avg Duration (μs)")
        .column("min_duration_us", "number", "Min Duration (μs)")
        .column("max_duration_us", "number", "Max Duration (μs)");
    for (rank, r) in rows.iter().enumerate() {
        let us = |ns: u64| ns as f64 / 1000.0;
        t.row(vec![
            json!((rank + 1) as f64),
            json!(r.name),
            json!(r.registers_per_thread as f64),
            json!((r.static_shmem_bytes + r.dynamic_shmem_bytes) as f64),
            json!(dims(&r.block)),
            json!(dims(&r.grid)),
            json!(r.occupancy_pct),
            json!(r.op_tensor_core_eligible),
            json!(r.uses_tensor_core),
            json!(r.op_name),
            json!(r.occurrences as f64),
            json!(us(r.total_ns)),
            // XProf divides whole nanoseconds.
            json!(us(r.total_ns.checked_div(r.occurrences).unwrap_or(0))),
            json!(us(r.min_ns)),
            json!(us(r.max_ns)),
        ]);
    }
    t.into_json()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_by_host_name_their_host() {
        let kernel = KernelRow {
            name: "k, with a comma".into(),
            registers_per_thread: 32,
            static_shmem_bytes: 0,
            dynamic_shmem_bytes: 0,
            block: [128, 1, 1],
            grid: [4, 1, 1],
            occupancy_pct: 50.0,
            op_tensor_core_eligible: false,
            uses_tensor_core: false,
            op_name: String::new(),
            occurrences: 2,
            total_ns: 3000,
            min_ns: 1000,
            max_ns: 2000,
        };
        let rows =
            [HostKernelRow { host: "a".into(), kernel: kernel.clone() }, HostKernelRow { host: "b".into(), kernel }];
        let csv = to_csv_by_host(&rows);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(lines[0].starts_with("host,rank,kernel_name,"));
        assert!(lines[1].starts_with("a,1,\"k, with a comma\",32,"), "{}", lines[1]);
        assert!(lines[2].starts_with("b,2,"), "{}", lines[2]);
    }
}
