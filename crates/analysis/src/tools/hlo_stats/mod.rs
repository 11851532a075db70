//! HLO stats (XProf's hlo_stats, op_stats_to_hlo_stats.cc): the device's
//! XLA ops as one flat table, longest self time first, with rates, the
//! roofline bound and the source location.

mod tool;

pub use tool::HloStatsTool;

use crate::common::html::escape;
use crate::passes::xla_ops::{DeviceKind, XlaOp, XlaOpDb};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// One HLO instruction's row.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HloStatsRow {
    pub rank: usize,
    pub program_id: u64,
    pub category: String,
    pub hlo_op_name: String,
    pub hlo_op_expression: String,
    /// Framework op (`name:type`).
    pub tf_op_name: String,
    pub occurrences: u64,
    pub total_time_us: f64,
    pub avg_time_us: f64,
    pub total_self_time_us: f64,
    pub avg_self_time_us: f64,
    /// Share of the device time, idle included (percent).
    pub total_self_time_percent: f64,
    pub cumulative_total_self_time_percent: f64,
    /// GFLOP/s.
    pub model_flop_rate: f64,
    pub normalized_flop_rate: f64,
    /// GiB/s.
    pub measured_memory_bw: f64,
    pub hbm_bw: f64,
    /// FLOPs per byte.
    pub operational_intensity: f64,
    /// `Compute`, `HBM` or `Unknown`.
    pub bound_by: String,
    /// Innermost frame first, each ending in a newline.
    pub source_stack: String,
    pub source_file: String,
    pub source_line: i32,
    /// `TensorCore` on TPUs, empty elsewhere.
    pub core_type: String,
}

/// The tool's view model.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HloStats {
    pub rows: Vec<HloStatsRow>,
}

fn safe(a: f64, b: f64) -> f64 {
    if b > 0.0 {
        a / b
    } else {
        0.0
    }
}

fn gib_per_s(bytes: u64, time_ps: u64) -> f64 {
    safe(bytes as f64, time_ps as f64) * 1e12 / (1u64 << 30) as f64
}

fn row(op: &XlaOp, db: &XlaOpDb, total_ps: f64) -> HloStatsRow {
    let us = |ps: u64| ps as f64 / 1e6;
    let flop_rate = safe(op.model_flops as f64 * 1000.0, op.time_ps as f64);
    let normalized_rate = safe(op.flops as f64 * 1000.0, op.time_ps as f64);
    // Without a breakdown XProf takes all bytes as HBM bytes here.
    let hbm_bytes = if op.has_memory_breakdown { op.hbm_bytes } else { op.bytes_accessed };
    let hbm_bw = gib_per_s(hbm_bytes, op.time_ps);
    let compute = safe(normalized_rate, db.peak_gflops);
    let memory = safe(hbm_bw, db.peak_hbm_gibps);
    let bound_by = if compute == 0.0 && memory == 0.0 {
        "Unknown"
    } else if compute >= memory {
        "Compute"
    } else {
        "HBM"
    };
    HloStatsRow {
        rank: 0,
        program_id: op.program_id,
        category: op.category.clone(),
        hlo_op_name: op.name.clone(),
        hlo_op_expression: op.expression.clone(),
        tf_op_name: op.provenance.clone(),
        occurrences: op.occurrences,
        total_time_us: us(op.time_ps),
        avg_time_us: safe(us(op.time_ps), op.occurrences as f64),
        total_self_time_us: us(op.self_time_ps),
        avg_self_time_us: safe(us(op.self_time_ps), op.occurrences as f64),
        total_self_time_percent: 100.0 * safe(op.self_time_ps as f64, total_ps),
        cumulative_total_self_time_percent: 0.0,
        model_flop_rate: flop_rate,
        normalized_flop_rate: normalized_rate,
        measured_memory_bw: gib_per_s(op.bytes_accessed, op.time_ps),
        hbm_bw,
        operational_intensity: safe(op.flops as f64, op.bytes_accessed as f64),
        bound_by: bound_by.to_string(),
        source_stack: op.source.stack_frame.clone(),
        source_file: op.source.file_name.clone(),
        source_line: op.source.line_number,
        core_type: if db.device == DeviceKind::Tpu { "TensorCore".into() } else { String::new() },
    }
}

/// The table of a device's XLA ops.
pub fn hlo_stats(db: &XlaOpDb) -> HloStats {
    let mut ops: Vec<&XlaOp> = db.ops.iter().collect();
    ops.sort_by(|a, b| b.self_time_ps.cmp(&a.self_time_ps).then_with(|| a.name.cmp(&b.name)));
    let total_ps = db.total_time_ps as f64;
    let mut cumulative = 0.0;
    let rows = ops
        .into_iter()
        .enumerate()
        .map(|(i, op)| {
            let mut r = row(op, db, total_ps);
            r.rank = i + 1;
            cumulative += r.total_self_time_percent;
            r.cumulative_total_self_time_percent = cumulative;
            r
        })
        .collect();
    HloStats { rows }
}

/// The `Source Info` cell: the file and line, the stack as its tooltip.
fn source_cell(r: &HloStatsRow) -> String {
    if r.source_file.is_empty() {
        return String::new();
    }
    format!(
        "<div class='source-info-cell' title='{}'>{}:{}</div>",
        escape(&r.source_stack),
        escape(&r.source_file),
        r.source_line
    )
}

/// (id, type, label) of XProf's columns.
const COLUMNS: &[(&str, &str, &str)] = &[
    ("rank", "number", "Rank"),
    ("program_id", "string", "Program id"),
    ("category", "string", "HLO op category"),
    ("hlo_op_name", "string", "HLO op name"),
    ("hlo_op_expression", "string", "HLO op text"),
    ("tf_op_name", "string", "Framework op name"),
    ("occurrences", "number", "#Occurrences"),
    ("total_time", "number", "Total time (us)"),
    ("avg_time", "number", "Avg. time (us)"),
    ("total_self_time", "number", "Total self time (us)"),
    ("avg_self_time", "number", "Avg. self time (us)"),
    ("total_self_time_percent", "number", "Total self time (%)"),
    ("cumulative_total_self_time_percent", "number", "Cumulative total self time (%)"),
    ("dma_stall_percent", "number", "%time stalled by DMA"),
    ("model_flop_rate", "number", "Model GFLOP/s"),
    ("normalized_flop_rate", "number", "Normalized GFLOP/s"),
    ("measured_memory_bw", "number", "Measured memory BW (GiB/s)"),
    ("hbm_bw", "number", "HBM BW (GiB/s)"),
    ("cmem_read_bw", "number", "CMEM Read BW (GiB/s)"),
    ("cmem_write_bw", "number", "CMEM Write BW (GiB/s)"),
    ("operational_intensity", "number", "Operational intensity (FLOPS/Byte)"),
    ("bound_by", "string", "Bound by"),
    ("hlo_rematerialization", "string", "Rematerialization"),
    ("outside_compilation", "string", "Outside Compilation"),
    ("autotuned", "string", "Autotuned"),
    ("source_info", "string", "Source Info"),
    ("core_type", "string", "TPU core type"),
    ("parent_op_name", "string", "Parent op name"),
    ("vdd_energy", "number", "VDD Energy (J)"),
];

fn cells(r: &HloStatsRow) -> Vec<Value> {
    vec![
        json!(r.rank as f64),
        json!(r.program_id.to_string()),
        json!(r.category),
        json!(r.hlo_op_name),
        json!(r.hlo_op_expression),
        json!(r.tf_op_name),
        json!(r.occurrences as f64),
        json!(r.total_time_us),
        json!(r.avg_time_us),
        json!(r.total_self_time_us),
        json!(r.avg_self_time_us),
        json!(r.total_self_time_percent),
        json!(r.cumulative_total_self_time_percent),
        json!(0.0),
        json!(r.model_flop_rate),
        json!(r.normalized_flop_rate),
        json!(r.measured_memory_bw),
        json!(r.hbm_bw),
        json!(0.0),
        json!(0.0),
        json!(r.operational_intensity),
        json!(r.bound_by),
        json!("No"),
        json!("No"),
        json!("No"),
        json!(source_cell(r)),
        json!(r.core_type),
        json!(""),
        json!(0.0),
    ]
}

/// XProf 2.24's JSON: one DataTable.
pub fn to_xprof_json(view: &HloStats) -> Value {
    let mut table = crate::common::datatable::DataTable::new();
    for (id, kind, label) in COLUMNS {
        table = table.column(id, kind, label);
    }
    for r in &view.rows {
        table.row(cells(r));
    }
    table.into_json()
}

/// The table as CSV (RFC 4180): the column labels, then one line per row.
pub fn to_csv(view: &HloStats) -> String {
    let line = |fields: Vec<String>| {
        let mut l = fields.iter().map(|f| crate::common::csv::csv_field(f)).collect::<Vec<_>>().join(",");
        l.push_str("\r\n");
        l
    };
    let mut out = line(COLUMNS.iter().map(|(_, _, label)| (*label).to_string()).collect());
    for r in &view.rows {
        out.push_str(&line(
            cells(r).into_iter().map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string)).collect(),
        ));
    }
    out
}
