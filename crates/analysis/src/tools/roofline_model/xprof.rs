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

/// XProf's columns (id, type, label), its TPU table's order; [`cells`]
/// gives a record's cells in the same order.
const COLUMNS: &[(&str, &str, &str)] = &[
    ("step", "string", "Step"),
    ("rank", "number", "Rank"),
    ("category", "string", "Category"),
    ("operation", "string", "Operation"),
    ("occurrences", "number", "# Occurrences"),
    ("total_time", "number", "Total Time (us)"),
    ("avg_time", "number", "Avg. time (us)"),
    ("total_self_time", "number", "Total self time (us)"),
    ("avg_self_time", "number", "Avg. self time (us)"),
    ("total_self_time_percent", "number", "Total self time (%)"),
    ("cumulative_total_self_time_percent", "number", "Cumulative total self time (%)"),
    ("dma_stall_percent", "number", "%time stalled by DMA"),
    ("measured_flop_rate", "number", "Normalized FLOP Rate (GFLOP/s)"),
    ("model_flop_rate", "number", "Model FLOP Rate (GFLOP/s)"),
    ("measured_memory_bw", "number", "Memory BW (GiB/s)"),
    ("hbm_bw", "number", "HBM BW (GiB/s)"),
    ("cmem_read_bw", "number", "CMEM Read BW (GiB/s)"),
    ("cmem_write_bw", "number", "CMEM Write BW (GiB/s)"),
    ("vmem_read_bw", "number", "VMEM Read BW (GiB/s)"),
    ("vmem_write_bw", "number", "VMEM Write BW (GiB/s)"),
    ("operational_intensity", "number", "Operational Intensity (FLOP/Byte)"),
    ("hbm_operational_intensity", "number", "HBM Operational Intensity (FLOP/Byte)"),
    ("cmem_read_operational_intensity", "number", "CMEM Read Operational Intensity (FLOP/Byte)"),
    ("cmem_write_operational_intensity", "number", "CMEM Write Operational Intensity (FLOP/Byte)"),
    ("vmem_read_operational_intensity", "number", "VMEM Read Operational Intensity (FLOP/Byte)"),
    ("vmem_write_operational_intensity", "number", "VMEM Write Operational Intensity (FLOP/Byte)"),
    ("bottleneck_operational_intensity", "number", "Bottleneck Operational Intensity (FLOP/Byte)"),
    ("bound_by", "string", "Bound by"),
    ("total_time_per_core", "number", "Total Time per core (us)"),
    ("total_time_in_percentage", "number", "Total Time (%)"),
    ("optimal_flop_rate", "number", "Optimal FLOP Rate (GFLOP/s)"),
    ("roofline_efficiency", "number", "Roofline efficiency (%)"),
    ("compute_efficiency", "number", "FLOP Rate / Peak (%)"),
    ("max_mem_bw_utilization", "number", "Max memory BW utilization (among supported memories) (%)"),
    ("include_infeed_outfeed", "boolean", "Include Infeed/Outfeed"),
    ("hlo_module_id", "string", "Program ID"),
    ("source_info", "string", "Source Info"),
];

/// A record's cells, in [`COLUMNS`]' order.
fn cells(r: &RooflineRecord) -> Vec<Value> {
    let numbers = [
        f64::from(r.rank),
        0.0, // category, operation: text below
        0.0,
        r.occurrences as f64,
        r.total_time_us,
        r.avg_time_us,
        r.total_self_time_us,
        r.avg_self_time_us,
        r.self_time_fraction,
        r.cumulative_self_time_fraction,
        0.0, // DMA stalls: not in the profile
        r.measured_flop_rate,
        r.model_flop_rate,
        r.measured_memory_bw,
        r.hbm_bw,
        r.cmem_read_bw,
        r.cmem_write_bw,
        r.vmem_read_bw,
        r.vmem_write_bw,
        r.operational_intensity,
        r.hbm_operational_intensity,
        r.cmem_read_operational_intensity,
        r.cmem_write_operational_intensity,
        r.vmem_read_operational_intensity,
        r.vmem_write_operational_intensity,
        r.bottleneck_operational_intensity,
    ];
    let mut out = vec![json!(r.step)];
    out.extend(numbers.iter().map(|&x| json!(x)));
    out[2] = json!(r.category);
    out[3] = json!(r.operation);
    out.push(json!(r.bound_by));
    out.extend(
        [
            r.total_time_per_core_us,
            r.total_time_fraction,
            r.optimal_flop_rate,
            r.roofline_efficiency,
            r.compute_efficiency,
            r.max_mem_bw_utilization,
        ]
        .iter()
        .map(|&x| json!(x)),
    );
    out.extend([json!(r.include_infeed_outfeed), json!(r.program_id.to_string()), json!(source_cell(r))]);
    out
}

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

/// The model's table's columns: (index in [`COLUMNS`], id, type, label).
fn columns(peaks: &Peaks) -> Vec<(usize, &'static str, &'static str, &'static str)> {
    let gpu = is_gpu_table(peaks);
    COLUMNS
        .iter()
        .enumerate()
        .filter(|(_, c)| !gpu || !NOT_ON_GPU.contains(&c.0))
        .map(|(i, &(id, kind, label))| (i, id, kind, if gpu { gpu_label(id, label) } else { label }))
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
    for (_, id, kind, label) in &cols {
        table = table.column(id, kind, label);
    }
    for r in &model.records {
        let all = cells(r);
        table.row(cols.iter().map(|(i, ..)| all[*i].clone()).collect());
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
    let mut out = line(cols.iter().map(|(.., label)| (*label).to_string()).collect());
    for r in &model.records {
        let mut all = cells(r);
        if let Some(source) = all.last_mut() {
            *source = if r.source.file_name.is_empty() {
                json!("")
            } else {
                json!(format!("{}:{}", r.source.file_name, r.source.line_number))
            };
        }
        out.push_str(&line(
            cols.iter()
                .map(|(i, ..)| match &all[*i] {
                    Value::String(s) => s.clone(),
                    // Counts and ranks as integers, not XProf's doubles.
                    Value::Number(n) => match n.as_f64() {
                        Some(x) if x.fract() == 0.0 && x.abs() < 1e15 => format!("{}", x as i64),
                        _ => n.to_string(),
                    },
                    v => v.to_string(),
                })
                .collect(),
        ));
    }
    out
}
