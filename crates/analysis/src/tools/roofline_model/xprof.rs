//! XProf 2.24's JSON (`[roofline table, diagnostics table]`) and the CSV.
//! GPUs get XProf's GPU table (no DMA, CMEM or VMEM read columns; the
//! shared memory / L1 in the VMEM write columns), TPUs and CPU-only
//! profiles the full one.

use super::peaks::Peaks;
use super::record::RooflineRecord;
use super::RooflineModel;
use crate::common::datatable::DataTable;
use crate::common::html::escape;
use serde_json::{json, Value};

/// A column: id, type, label, and its cell of a record.
type Column = (&'static str, &'static str, &'static str, fn(&RooflineRecord) -> Value);

fn num(x: f64) -> Value {
    json!(x)
}

const COLUMNS: &[Column] = &[
    ("step", "string", "Step", |r| json!(r.step)),
    ("rank", "number", "Rank", |r| num(f64::from(r.rank))),
    ("category", "string", "Category", |r| json!(r.category)),
    ("operation", "string", "Operation", |r| json!(r.operation)),
    ("occurrences", "number", "# Occurrences", |r| num(r.occurrences as f64)),
    ("total_time", "number", "Total Time (us)", |r| num(r.total_time_us)),
    ("avg_time", "number", "Avg. time (us)", |r| num(r.avg_time_us)),
    ("total_self_time", "number", "Total self time (us)", |r| num(r.total_self_time_us)),
    ("avg_self_time", "number", "Avg. self time (us)", |r| num(r.avg_self_time_us)),
    ("total_self_time_percent", "number", "Total self time (%)", |r| num(r.self_time_fraction)),
    ("cumulative_total_self_time_percent", "number", "Cumulative total self time (%)", |r| {
        num(r.cumulative_self_time_fraction)
    }),
    ("dma_stall_percent", "number", "%time stalled by DMA", |_| num(0.0)),
    ("measured_flop_rate", "number", "Normalized FLOP Rate (GFLOP/s)", |r| num(r.measured_flop_rate)),
    ("model_flop_rate", "number", "Model FLOP Rate (GFLOP/s)", |r| num(r.model_flop_rate)),
    ("measured_memory_bw", "number", "Memory BW (GiB/s)", |r| num(r.measured_memory_bw)),
    ("hbm_bw", "number", "HBM BW (GiB/s)", |r| num(r.hbm_bw)),
    ("cmem_read_bw", "number", "CMEM Read BW (GiB/s)", |r| num(r.cmem_read_bw)),
    ("cmem_write_bw", "number", "CMEM Write BW (GiB/s)", |r| num(r.cmem_write_bw)),
    ("vmem_read_bw", "number", "VMEM Read BW (GiB/s)", |r| num(r.vmem_read_bw)),
    ("vmem_write_bw", "number", "VMEM Write BW (GiB/s)", |r| num(r.vmem_write_bw)),
    ("operational_intensity", "number", "Operational Intensity (FLOP/Byte)", |r| num(r.operational_intensity)),
    ("hbm_operational_intensity", "number", "HBM Operational Intensity (FLOP/Byte)", |r| {
        num(r.hbm_operational_intensity)
    }),
    ("cmem_read_operational_intensity", "number", "CMEM Read Operational Intensity (FLOP/Byte)", |r| {
        num(r.cmem_read_operational_intensity)
    }),
    ("cmem_write_operational_intensity", "number", "CMEM Write Operational Intensity (FLOP/Byte)", |r| {
        num(r.cmem_write_operational_intensity)
    }),
    ("vmem_read_operational_intensity", "number", "VMEM Read Operational Intensity (FLOP/Byte)", |r| {
        num(r.vmem_read_operational_intensity)
    }),
    ("vmem_write_operational_intensity", "number", "VMEM Write Operational Intensity (FLOP/Byte)", |r| {
        num(r.vmem_write_operational_intensity)
    }),
    ("bottleneck_operational_intensity", "number", "Bottleneck Operational Intensity (FLOP/Byte)", |r| {
        num(r.bottleneck_operational_intensity)
    }),
    ("bound_by", "string", "Bound by", |r| json!(r.bound_by)),
    ("total_time_per_core", "number", "Total Time per core (us)", |r| num(r.total_time_per_core_us)),
    ("total_time_in_percentage", "number", "Total Time (%)", |r| num(r.total_time_fraction)),
    ("optimal_flop_rate", "number", "Optimal FLOP Rate (GFLOP/s)", |r| num(r.optimal_flop_rate)),
    ("roofline_efficiency", "number", "Roofline efficiency (%)", |r| num(r.roofline_efficiency)),
    ("compute_efficiency", "number", "FLOP Rate / Peak (%)", |r| num(r.compute_efficiency)),
    ("max_mem_bw_utilization", "number", "Max memory BW utilization (among supported memories) (%)", |r| {
        num(r.max_mem_bw_utilization)
    }),
    ("include_infeed_outfeed", "boolean", "Include Infeed/Outfeed", |r| json!(r.include_infeed_outfeed)),
    ("hlo_module_id", "string", "Program ID", |r| json!(r.program_id.to_string())),
    ("source_info", "string", "Source Info", |r| json!(source_cell(r))),
];

/// Columns XProf leaves out of its GPU table.
const NOT_ON_GPU: &[&str] = &[
    "dma_stall_percent",
    "cmem_read_bw",
    "cmem_write_bw",
    "vmem_read_bw",
    "cmem_read_operational_intensity",
    "cmem_write_operational_intensity",
    "vmem_read_operational_intensity",
];

/// The GPU table's labels for the shared memory / L1 columns.
fn gpu_label(id: &str, label: &'static str) -> &'static str {
    match id {
        "vmem_write_bw" => "SHM/L1 BW (GiB/s)",
        "vmem_write_operational_intensity" => "SHM/L1 Operational Intensity (FLOP/Byte)",
        _ => label,
    }
}

/// The columns of the model's table, with their labels.
fn columns(peaks: &Peaks) -> Vec<(&'static Column, &'static str)> {
    let gpu = is_gpu_table(peaks);
    COLUMNS
        .iter()
        .filter(|c| !gpu || !NOT_ON_GPU.contains(&c.0))
        .map(|c| (c, if gpu { gpu_label(c.0, c.2) } else { c.2 }))
        .collect()
}

/// XProf picks its GPU table by the device type's name.
fn is_gpu_table(peaks: &Peaks) -> bool {
    peaks.device_type.contains("GPU")
}

/// The `Source Info` cell: file and line, the stack as its tooltip, as
/// XProf 2.24 writes it (HTML-escaped).
fn source_cell(r: &RooflineRecord) -> String {
    let s = &r.source;
    if s.file_name.is_empty() || s.line_number == -1 {
        return String::new();
    }
    format!(
        "<div class='source-info-cell' title='{}'>{}:{}</div>",
        escape(&s.stack_frame),
        escape(&s.file_name),
        s.line_number
    )
}

/// A double as absl::StrCat writes it: `%g` with six significant digits.
pub fn six_digits(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return if x.is_nan() {
            "nan".into()
        } else if x == 0.0 {
            "0".into()
        } else {
            format!("{x}")
        };
    }
    let sci = format!("{x:.5e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let trim = |s: String| {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    if !(-4..6).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(mantissa.to_string()), exp.abs())
    } else {
        let decimals = usize::try_from(5 - exp).unwrap_or(0);
        trim(format!("{x:.decimals$}"))
    }
}

fn properties(table: &mut DataTable, peaks: &Peaks) {
    let ridge = |bw: f64| six_digits(peaks.ridge_point(bw));
    let mut props: Vec<(&str, String)> = vec![("device_type", peaks.device_type.clone())];
    if is_gpu_table(peaks) {
        props.extend([
            ("peak_flop_rate", six_digits(peaks.flop_rate)),
            ("peak_hbm_bw", six_digits(peaks.hbm_bw)),
            ("peak_vmem_write_bw", six_digits(peaks.vmem_write_bw)),
            ("hbm_ridge_point", ridge(peaks.hbm_bw)),
            ("vmem_write_ridge_point", ridge(peaks.vmem_write_bw)),
        ]);
    } else {
        let flag = |b: bool| if b { "1".to_string() } else { "0".to_string() };
        props.extend([
            ("megacore", flag(peaks.megacore)),
            ("has_cmem", flag(peaks.has_cmem)),
            ("has_merged_vmem", flag(peaks.has_merged_vmem)),
            ("peak_flop_rate", six_digits(peaks.flop_rate)),
            ("peak_hbm_bw", six_digits(peaks.hbm_bw)),
            ("peak_cmem_read_bw", six_digits(peaks.cmem_read_bw)),
            ("peak_cmem_write_bw", six_digits(peaks.cmem_write_bw)),
            ("peak_vmem_read_bw", six_digits(peaks.vmem_read_bw)),
            ("peak_vmem_write_bw", six_digits(peaks.vmem_write_bw)),
            ("hbm_ridge_point", ridge(peaks.hbm_bw)),
            ("cmem_read_ridge_point", ridge(peaks.cmem_read_bw)),
            ("cmem_write_ridge_point", ridge(peaks.cmem_write_bw)),
            ("vmem_read_ridge_point", ridge(peaks.vmem_read_bw)),
            ("vmem_write_ridge_point", ridge(peaks.vmem_write_bw)),
            // XProf 2.24 also states its time scale (1: times as measured).
            ("time_scale_multiplier", "1".into()),
        ]);
    }
    for (key, value) in props {
        table.property(key, value);
    }
}

/// XProf 2.24's JSON: the roofline table and the diagnostics table.
pub fn to_xprof_json(model: &RooflineModel) -> Value {
    let cols = columns(&model.peaks);
    let mut table = DataTable::new();
    for ((id, kind, _, _), label) in &cols {
        table = table.column(id, kind, label);
    }
    for r in &model.records {
        table.row(cols.iter().map(|((_, _, _, cell), _)| cell(r)).collect());
    }
    properties(&mut table, &model.peaks);
    let mut diagnostics =
        DataTable::new().column("severity", "string", "Severity").column("message", "string", "Message");
    for d in &model.diagnostics {
        diagnostics.row(vec![json!(d.severity), json!(d.message)]);
    }
    json!([table.into_json(), diagnostics.into_json()])
}

/// The roofline table as CSV (RFC 4180): the column labels, then one line
/// per record; the source column holds `file:line`.
pub fn to_csv(model: &RooflineModel) -> String {
    let cols = columns(&model.peaks);
    let line = |fields: Vec<String>| {
        let mut l = fields.iter().map(|f| crate::common::csv::csv_field(f)).collect::<Vec<_>>().join(",");
        l.push_str("\r\n");
        l
    };
    let mut out = line(cols.iter().map(|(_, label)| (*label).to_string()).collect());
    for r in &model.records {
        out.push_str(&line(
            cols.iter()
                .map(|((id, _, _, cell), _)| {
                    if *id == "source_info" {
                        return if r.source.file_name.is_empty() {
                            String::new()
                        } else {
                            format!("{}:{}", r.source.file_name, r.source.line_number)
                        };
                    }
                    match cell(r) {
                        Value::String(s) => s,
                        // Counts and ranks as integers, not XProf's doubles.
                        Value::Number(n) => match n.as_f64() {
                            Some(x) if x.fract() == 0.0 && x.abs() < 1e15 => format!("{}", x as i64),
                            _ => n.to_string(),
                        },
                        v => v.to_string(),
                    }
                })
                .collect(),
        ));
    }
    out
}
