//! Operator stats (per `cpu_op` name) and kernel stats with the operator
//! that launched each kernel.
//!
//! A device event belongs to the host op with its `External id` (Kineto
//! gives kernels, memcpys and memsets the id of the innermost `cpu_op` that
//! launched them; when missing, the id of the runtime call with the same
//! correlation id is used).

use crate::passes::kineto::{HostKind, KinetoIndex};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

/// One operator name.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OperatorRow {
    pub name: String,
    pub calls: u64,
    /// Summed host durations.
    pub host_total_ps: i64,
    /// Host durations minus the direct child ops (cpu_op or user_annotation
    /// ranges nested in it on the same thread).
    pub host_self_ps: i64,
    /// Device time (kernels, memcpy, memset) of the op and the ops nested in it.
    pub device_total_ps: i64,
    /// Device time launched by the op itself.
    pub device_self_ps: i64,
}

/// Device ps per external id.
fn device_time_by_external(index: &KinetoIndex) -> FxHashMap<i64, i64> {
    let by_corr = index.external_of_correlation();
    let mut out: FxHashMap<i64, i64> = FxHashMap::default();
    for d in &index.device {
        let ext = d.external_id.or_else(|| d.correlation_id.and_then(|c| by_corr.get(&c).copied()));
        if let Some(ext) = ext {
            let t = out.entry(ext).or_default();
            *t = t.saturating_add(d.end_ps - d.start_ps);
        }
    }
    out
}

/// Operators sorted by device self time, then host self time (descending).
pub fn operator_stats(index: &KinetoIndex) -> Vec<OperatorRow> {
    let device = device_time_by_external(index);
    let mut rows: FxHashMap<&str, OperatorRow> = FxHashMap::default();
    // Host events are in line order, each line sorted by (start, -duration):
    // a stack of open ranges gives every op its parent.
    let mut stack: Vec<(usize, i64)> = Vec::new(); // (position in `ops`, end)
    let mut current_line = usize::MAX;
    let ops: Vec<usize> = (0..index.host.len())
        .filter(|&i| matches!(index.host[i].kind, HostKind::CpuOp | HostKind::Annotation))
        .collect();
    let mut self_ps: Vec<i64> = Vec::with_capacity(ops.len());
    let mut total_dev: Vec<i64> = Vec::with_capacity(ops.len());
    for (pos, &i) in ops.iter().enumerate() {
        let h = &index.host[i];
        if h.line != current_line {
            stack.clear();
            current_line = h.line;
        }
        while stack.last().is_some_and(|&(_, end)| end <= h.start_ps) {
            stack.pop();
        }
        let dur = h.end_ps - h.start_ps;
        let own = h.external_id.and_then(|e| device.get(&e).copied()).unwrap_or(0);
        self_ps.push(dur);
        total_dev.push(own);
        if let Some(&(parent, _)) = stack.last() {
            self_ps[parent] = self_ps[parent].saturating_sub(dur);
        }
        // Every enclosing range's device total includes this op's own time.
        for &(ancestor, _) in &stack {
            total_dev[ancestor] = total_dev[ancestor].saturating_add(own);
        }
        stack.push((pos, h.end_ps));
    }
    for (pos, &i) in ops.iter().enumerate() {
        let h = &index.host[i];
        if h.kind != HostKind::CpuOp {
            continue;
        }
        let row =
            rows.entry(&*h.name).or_insert_with(|| OperatorRow { name: h.name.to_string(), ..Default::default() });
        row.calls += 1;
        row.host_total_ps += h.end_ps - h.start_ps;
        row.host_self_ps += self_ps[pos];
        row.device_self_ps += h.external_id.and_then(|e| device.get(&e).copied()).unwrap_or(0);
        row.device_total_ps += total_dev[pos];
    }
    let mut out: Vec<OperatorRow> = rows.into_values().collect();
    out.sort_by(|a, b| {
        b.device_self_ps.cmp(&a.device_self_ps).then(b.host_self_ps.cmp(&a.host_self_ps)).then(a.name.cmp(&b.name))
    });
    out
}

/// Operator tables of several ranks as one: rows with the same name add up.
pub fn combine(tables: &[&[OperatorRow]]) -> Vec<OperatorRow> {
    let mut merged: FxHashMap<&str, OperatorRow> = FxHashMap::default();
    for row in tables.iter().flat_map(|t| t.iter()) {
        let m = merged
            .entry(row.name.as_str())
            .or_insert_with(|| OperatorRow { name: row.name.clone(), ..Default::default() });
        m.calls += row.calls;
        m.host_total_ps += row.host_total_ps;
        m.host_self_ps += row.host_self_ps;
        m.device_total_ps += row.device_total_ps;
        m.device_self_ps += row.device_self_ps;
    }
    let mut out: Vec<OperatorRow> = merged.into_values().collect();
    out.sort_by(|a, b| {
        b.device_self_ps.cmp(&a.device_self_ps).then(b.host_self_ps.cmp(&a.host_self_ps)).then(a.name.cmp(&b.name))
    });
    out
}

/// The operators of every rank of a job, as one table.
pub fn operator_stats_of_ranks(ranks: &[&KinetoIndex]) -> Vec<OperatorRow> {
    let tables: Vec<Vec<OperatorRow>> = ranks.iter().map(|i| operator_stats(i)).collect();
    combine(&tables.iter().map(Vec::as_slice).collect::<Vec<_>>())
}

/// The operator table as CSV (times in µs).
pub fn to_csv(rows: &[OperatorRow]) -> String {
    let mut out = String::from("rank,name,calls,host_self_us,host_total_us,device_self_us,device_total_us\n");
    let us = |ps: i64| ps as f64 / 1e6;
    for (rank, r) in rows.iter().enumerate() {
        out += &format!(
            "{},{},{},{},{},{},{}\n",
            rank + 1,
            crate::common::csv::csv_field(&r.name),
            r.calls,
            us(r.host_self_ps),
            us(r.host_total_ps),
            us(r.device_self_ps),
            us(r.device_total_ps)
        );
    }
    out
}
