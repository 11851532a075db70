//! Tables keyed alike on both sides: framework ops (type and name, device
//! and host), PyTorch operators (name), HLO ops (category and name) and GPU
//! kernels (name and launch shape). Rows with the same key are summed;
//! a key on one side only is "new" or "gone".

use super::model::{DiffRow, Status, TableDiff};
use crate::context::{Output, ToolError};
use crate::tools::framework_op_stats::{FrameworkOpStats, OperatorStats};
use crate::tools::hlo_stats::HloStats;
use crate::tools::kernel_stats::KernelStats;
use rustc_hash::FxHashMap;

/// One side's rows: key → (count, value).
type Rows = FxHashMap<Vec<String>, (u64, f64)>;

/// What a table compares, and each side's rows.
struct Table {
    key_names: &'static [&'static str],
    metric: &'static str,
    rows: Rows,
}

/// `kernels_by_name`: kernels keyed by name only (launch shapes differ
/// between two kinds of GPU, so name and shape would match nothing).
pub fn compare(base: &Output, candidate: &Output, kernels_by_name: bool) -> Result<TableDiff, ToolError> {
    let (b, c) = match (base.model_as::<OperatorStats>(), candidate.model_as::<OperatorStats>()) {
        // PyTorch operators: device self time when both sides ran on a device.
        (Some(bo), Some(co)) => {
            let device = has_device_time(bo) && has_device_time(co);
            (operators(bo, device), operators(co, device))
        }
        _ => (rows(base, kernels_by_name)?, rows(candidate, kernels_by_name)?),
    };
    if b.key_names != c.key_names {
        return Err(ToolError::Failed(format!(
            "the two sides' tables differ (baseline keyed by {}, candidate by {}): one is a PyTorch trace and the other is not",
            b.key_names.join(" and "),
            c.key_names.join(" and ")
        )));
    }
    Ok(diff(b.key_names, b.metric, "µs", &b.rows, &c.rows))
}

/// The rows of a tool's output, by the output's type.
fn rows(output: &Output, kernels_by_name: bool) -> Result<Table, ToolError> {
    let mut rows = Rows::default();
    let mut add = |key: Vec<String>, count: u64, value: f64| {
        let row = rows.entry(key).or_default();
        row.0 += count;
        row.1 += value;
    };
    let (key_names, metric): (&'static [&'static str], &'static str) =
        if let Some(stats) = output.model_as::<FrameworkOpStats>() {
            for r in &stats.without_idle.rows {
                add(
                    vec![r.side.label().into(), r.op_type.clone(), r.operation.clone()],
                    r.occurrences,
                    r.total_self_time_us,
                );
            }
            (&["Side", "Type", "Operation"], "self time")
        } else if let Some(stats) = output.model_as::<OperatorStats>() {
            return Ok(operators(stats, false));
        } else if let Some(stats) = output.model_as::<HloStats>() {
            for r in &stats.rows {
                add(vec![r.category.clone(), r.hlo_op_name.clone()], r.occurrences, r.total_self_time_us);
            }
            (&["Category", "HLO op"], "self time")
        } else if let Some(stats) = output.model_as::<KernelStats>() {
            let dims = |d: [u64; 3]| format!("{},{},{}", d[0], d[1], d[2]);
            for k in &stats.kernels {
                let key = match kernels_by_name {
                    true => vec![k.name.clone()],
                    false => vec![k.name.clone(), dims(k.grid), dims(k.block)],
                };
                add(key, k.occurrences, k.total_ns as f64 / 1e3);
            }
            match kernels_by_name {
                true => (&["Kernel"], "total time"),
                false => (&["Kernel", "Grid", "Block"], "total time"),
            }
        } else {
            return Err(ToolError::Failed(format!("the {} view has no table to compare", output.view)));
        };
    Ok(Table { key_names, metric, rows })
}

fn has_device_time(stats: &OperatorStats) -> bool {
    stats.0.iter().any(|r| r.device_self_ps > 0)
}

fn operators(stats: &OperatorStats, device: bool) -> Table {
    let mut rows = Rows::default();
    for r in &stats.0 {
        let ps = if device { r.device_self_ps } else { r.host_self_ps };
        let row = rows.entry(vec![r.name.clone()]).or_default();
        row.0 += r.calls;
        row.1 += ps as f64 / 1e6;
    }
    Table { key_names: &["Operator"], metric: if device { "device self time" } else { "host self time" }, rows }
}

/// Both sides' rows as one table, sorted by |delta| (ties by key).
pub fn diff(key_names: &[&str], metric: &str, unit: &str, base: &Rows, candidate: &Rows) -> TableDiff {
    let mut keys: Vec<&Vec<String>> = base.keys().chain(candidate.keys().filter(|k| !base.contains_key(*k))).collect();
    keys.sort();
    let mut rows: Vec<DiffRow> = keys
        .into_iter()
        .map(|key| {
            let (bc, bv) = base.get(key).copied().unwrap_or_default();
            let (cc, cv) = candidate.get(key).copied().unwrap_or_default();
            let status = match (base.contains_key(key), candidate.contains_key(key)) {
                (false, _) => Status::New,
                (_, false) => Status::Gone,
                _ if bc == cc && bv == cv => Status::Same,
                _ => Status::Changed,
            };
            let delta = cv - bv;
            DiffRow {
                key: key.clone(),
                status,
                base_count: bc,
                candidate_count: cc,
                base: bv,
                candidate: cv,
                delta,
                delta_pct: (bv != 0.0).then(|| 100.0 * delta / bv),
                share_of_change_pct: 0.0,
            }
        })
        .collect();
    let moved: f64 = rows.iter().map(|r| r.delta.abs()).sum();
    if moved > 0.0 {
        for r in &mut rows {
            r.share_of_change_pct = 100.0 * r.delta / moved;
        }
    }
    rows.sort_by(|a, b| b.delta.abs().total_cmp(&a.delta.abs()).then_with(|| a.key.cmp(&b.key)));
    TableDiff {
        key_names: key_names.iter().map(|s| s.to_string()).collect(),
        metric: metric.into(),
        unit: unit.into(),
        base_total: base.values().map(|r| r.1).sum(),
        candidate_total: candidate.values().map(|r| r.1).sum(),
        rows,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(items: &[(&str, u64, f64)]) -> Rows {
        items.iter().map(|(k, n, v)| (vec![k.to_string()], (*n, *v))).collect()
    }

    #[test]
    fn new_gone_changed_same_and_shares() {
        let base = rows(&[("a", 1, 10.0), ("b", 2, 5.0), ("c", 1, 1.0)]);
        let candidate = rows(&[("a", 1, 16.0), ("c", 1, 1.0), ("d", 3, 2.0)]);
        let t = diff(&["Op"], "self time", "µs", &base, &candidate);
        let got: Vec<(&str, Status, f64, f64)> =
            t.rows.iter().map(|r| (r.key[0].as_str(), r.status, r.delta, r.share_of_change_pct)).collect();
        // |deltas| 6 + 5 + 2 = 13.
        assert_eq!(
            got,
            vec![
                ("a", Status::Changed, 6.0, 600.0 / 13.0),
                ("b", Status::Gone, -5.0, -500.0 / 13.0),
                ("d", Status::New, 2.0, 200.0 / 13.0),
                ("c", Status::Same, 0.0, 0.0),
            ]
        );
        assert_eq!(t.rows[2].delta_pct, None);
        assert_eq!(t.rows[1].delta_pct, Some(-100.0));
        assert_eq!((t.base_total, t.candidate_total), (16.0, 19.0));
    }

    #[test]
    fn itself_gives_zero_deltas() {
        let base = rows(&[("a", 1, 10.0), ("b", 2, 5.0)]);
        let t = diff(&["Op"], "self time", "µs", &base, &base);
        assert!(t.rows.iter().all(|r| r.delta == 0.0 && r.status == Status::Same && r.share_of_change_pct == 0.0));
    }
}
