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
    /// The same numbers per `Input Dims` of the op's calls (TensorBoard's
    /// "group by input shape"), when the trace recorded shapes
    /// (`record_shapes=True`); calls without shapes have `input_dims` "".
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub by_input_shape: Vec<InputShapeRow>,
}

/// One (operator, input shapes) pair.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct InputShapeRow {
    /// The calls' `Input Dims` as compact JSON text (`[[1,512],[]]`).
    pub input_dims: String,
    pub calls: u64,
    pub host_total_ps: i64,
    pub host_self_ps: i64,
    pub device_total_ps: i64,
    pub device_self_ps: i64,
}

impl InputShapeRow {
    fn add(&mut self, calls: u64, host_total: i64, host_self: i64, device_total: i64, device_self: i64) {
        self.calls += calls;
        self.host_total_ps += host_total;
        self.host_self_ps += host_self;
        self.device_total_ps += device_total;
        self.device_self_ps += device_self;
    }
}

/// Shape rows in the operator table's order, from a map by input dims.
fn shape_rows(map: FxHashMap<String, InputShapeRow>) -> Vec<InputShapeRow> {
    let mut out: Vec<InputShapeRow> = map.into_values().collect();
    out.sort_by(|a, b| {
        b.device_self_ps
            .cmp(&a.device_self_ps)
            .then(b.host_self_ps.cmp(&a.host_self_ps))
            .then(a.input_dims.cmp(&b.input_dims))
    });
    out
}

/// Device ps per external id of the launching op (a CUDA graph's kernels
/// count for the op around its `cudaGraphLaunch`, each of them).
fn device_time_by_external(index: &KinetoIndex) -> FxHashMap<i64, i64> {
    let mut out: FxHashMap<i64, i64> = FxHashMap::default();
    for (d, ext) in index.device.iter().zip(index.device_external_ids()) {
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
    let mut current_line = u32::MAX;
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
        let own = h.external_id.get().and_then(|e| device.get(&e).copied()).unwrap_or(0);
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
    let mut shapes: FxHashMap<&str, FxHashMap<String, InputShapeRow>> = FxHashMap::default();
    let any_shapes = ops.iter().any(|&i| index.host[i].input_dims.is_some());
    for (pos, &i) in ops.iter().enumerate() {
        let h = &index.host[i];
        if h.kind != HostKind::CpuOp {
            continue;
        }
        let row = rows
            .entry(index.text(h.name))
            .or_insert_with(|| OperatorRow { name: index.text(h.name).to_string(), ..Default::default() });
        let (host_total, device_self) =
            (h.end_ps - h.start_ps, h.external_id.get().and_then(|e| device.get(&e).copied()).unwrap_or(0));
        row.calls += 1;
        row.host_total_ps += host_total;
        row.host_self_ps += self_ps[pos];
        row.device_self_ps += device_self;
        row.device_total_ps += total_dev[pos];
        if any_shapes {
            let dims = h.input_dims.map_or("", |d| index.text(d));
            shapes
                .entry(index.text(h.name))
                .or_default()
                .entry(dims.to_string())
                .or_insert_with(|| InputShapeRow { input_dims: dims.to_string(), ..Default::default() })
                .add(1, host_total, self_ps[pos], total_dev[pos], device_self);
        }
    }
    for (name, by_dims) in shapes {
        if let Some(row) = rows.get_mut(name) {
            row.by_input_shape = shape_rows(by_dims);
        }
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
    let mut shapes: FxHashMap<&str, FxHashMap<String, InputShapeRow>> = FxHashMap::default();
    for row in tables.iter().flat_map(|t| t.iter()) {
        for s in &row.by_input_shape {
            shapes
                .entry(row.name.as_str())
                .or_default()
                .entry(s.input_dims.clone())
                .or_insert_with(|| InputShapeRow { input_dims: s.input_dims.clone(), ..Default::default() })
                .add(s.calls, s.host_total_ps, s.host_self_ps, s.device_total_ps, s.device_self_ps);
        }
        let m = merged
            .entry(row.name.as_str())
            .or_insert_with(|| OperatorRow { name: row.name.clone(), ..Default::default() });
        m.calls += row.calls;
        m.host_total_ps += row.host_total_ps;
        m.host_self_ps += row.host_self_ps;
        m.device_total_ps += row.device_total_ps;
        m.device_self_ps += row.device_self_ps;
    }
    for (name, by_dims) in shapes {
        if let Some(row) = merged.get_mut(name) {
            row.by_input_shape = shape_rows(by_dims);
        }
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

/// The operator table grouped by (name, input shapes) as CSV (times in µs),
/// as TensorBoard's plugin showed it with "group by input shape".
pub fn to_csv_by_input_shape(rows: &[OperatorRow]) -> String {
    let mut out = String::from("name,input_dims,calls,host_self_us,host_total_us,device_self_us,device_total_us\n");
    let us = |ps: i64| ps as f64 / 1e6;
    for r in rows {
        for s in &r.by_input_shape {
            out += &format!(
                "{},{},{},{},{},{},{}\n",
                crate::common::csv::csv_field(&r.name),
                crate::common::csv::csv_field(&s.input_dims),
                s.calls,
                us(s.host_self_ps),
                us(s.host_total_ps),
                us(s.device_self_ps),
                us(s.device_total_ps)
            );
        }
    }
    out
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passes::kineto::launch::graph_trace;

    #[test]
    fn a_graph_launch_counts_every_kernel_for_its_op() {
        let rows = operator_stats(&KinetoIndex::new(&graph_trace(r#"{"id":0,"name":"H100","warpSize":32}"#)));
        let row = |n: &str| rows.iter().find(|r| r.name == n).unwrap();
        // 2 + 3 + 4 µs of replayed kernels, all three.
        assert_eq!(row("CompiledFunction").device_self_ps, 9_000_000);
        assert_eq!(row("CompiledFunction").device_total_ps, 9_000_000);
        assert_eq!(row("aten::mm").device_self_ps, 21_000_000);
    }

    #[test]
    fn operators_group_by_input_shape() {
        let rows = operator_stats(&KinetoIndex::new(&graph_trace(r#"{"id":0,"name":"H100","warpSize":32}"#)));
        let mm = rows.iter().find(|r| r.name == "aten::mm").unwrap();
        let got: Vec<(&str, u64, i64, i64)> = mm
            .by_input_shape
            .iter()
            .map(|s| (s.input_dims.as_str(), s.calls, s.host_total_ps / 1_000_000, s.device_self_ps / 1_000_000))
            .collect();
        // [[2,3],[3,4]]: calls of 10 + 30 µs with kernels of 5 + 9 µs.
        assert_eq!(got, vec![("[[2,3],[3,4]]", 2, 40, 14), ("[[8,3],[3,4]]", 1, 20, 7)]);
        let relu = rows.iter().find(|r| r.name == "aten::relu").unwrap();
        assert_eq!(relu.by_input_shape.len(), 1);
        assert_eq!(relu.by_input_shape[0].input_dims, "");
        // Two ranks of the same trace: every number doubles, shapes merge.
        let both = combine(&[&rows, &rows]);
        let mm2 = both.iter().find(|r| r.name == "aten::mm").unwrap();
        assert_eq!((mm2.by_input_shape[0].calls, mm2.by_input_shape.len()), (4, 2));
        let csv = to_csv_by_input_shape(&rows);
        assert!(csv.contains("aten::mm,\"[[2,3],[3,4]]\",2,"), "{csv}");
    }
}
