//! The XLA ops of several hosts as one database: XProf's
//! `OpMetricsDbCombiner` over the device op metrics of every host
//! (op_stats_combiner.cc), which the op profile of all hosts is built from.

use super::xla_ops::{DeviceKind, XlaOp, XlaOpDb};
use rustc_hash::FxHashMap;

/// Ops with the same program id and name add up (occurrences, times,
/// FLOPs, bytes), in the order first seen; an op's fused instructions are
/// the first host's (XProf's CopyOpMetricsMetadata copies them once);
/// measured and idle times add up. The FLOP peak is the last host's that
/// has one and the bandwidth peak the first's, as XProf's CombinePerfEnv
/// keeps them; the device kind is the first known one.
pub fn combine(dbs: &[&XlaOpDb]) -> XlaOpDb {
    let mut out = XlaOpDb::default();
    let mut slots: FxHashMap<(u64, String), usize> = FxHashMap::default();
    for db in dbs {
        if out.device == DeviceKind::Unknown {
            out.device = db.device;
        }
        out.total_time_ps = out.total_time_ps.saturating_add(db.total_time_ps);
        out.idle_time_ps = out.idle_time_ps.saturating_add(db.idle_time_ps);
        if db.peak_gflops > 0.0 {
            out.peak_gflops = db.peak_gflops;
        }
        if out.peak_hbm_gibps <= 0.0 {
            out.peak_hbm_gibps = db.peak_hbm_gibps;
        }
        for op in &db.ops {
            match slots.get(&(op.program_id, op.name.clone())) {
                Some(&i) => add(&mut out.ops[i], op),
                None => {
                    slots.insert((op.program_id, op.name.clone()), out.ops.len());
                    out.ops.push(op.clone());
                }
            }
        }
    }
    out
}

/// XProf's CombineOpMetrics: the counts and costs of `op` join `into`'s.
fn add(into: &mut XlaOp, op: &XlaOp) {
    into.occurrences = into.occurrences.saturating_add(op.occurrences);
    into.time_ps = into.time_ps.saturating_add(op.time_ps);
    into.self_time_ps = into.self_time_ps.saturating_add(op.self_time_ps);
    into.flops = into.flops.saturating_add(op.flops);
    into.model_flops = into.model_flops.saturating_add(op.model_flops);
    into.bytes_accessed = into.bytes_accessed.saturating_add(op.bytes_accessed);
    into.hbm_bytes = into.hbm_bytes.saturating_add(op.hbm_bytes);
    into.has_memory_breakdown |= op.has_memory_breakdown;
    if into.children.is_empty() {
        into.children = op.children.clone();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(program_id: u64, name: &str, time_ps: u64) -> XlaOp {
        XlaOp {
            program_id,
            name: name.into(),
            occurrences: 1,
            time_ps,
            self_time_ps: time_ps,
            flops: 10,
            model_flops: 10,
            children: vec![XlaOp { name: "mul.1".into(), flops: 4, model_flops: 4, ..XlaOp::default() }],
            ..XlaOp::default()
        }
    }

    #[test]
    fn ops_of_the_same_program_and_name_add_up() {
        let a = XlaOpDb {
            device: DeviceKind::Gpu,
            ops: vec![op(1, "fusion", 5), op(1, "dot", 7)],
            total_time_ps: 20,
            idle_time_ps: 8,
            peak_gflops: 100.0,
            peak_hbm_gibps: 10.0,
        };
        let b = XlaOpDb { ops: vec![op(2, "fusion", 3), op(1, "fusion", 6)], peak_gflops: 0.0, ..a.clone() };
        let db = combine(&[&a, &b]);
        let got: Vec<(u64, &str, u64, u64)> =
            db.ops.iter().map(|o| (o.program_id, o.name.as_str(), o.occurrences, o.time_ps)).collect();
        assert_eq!(got, [(1, "fusion", 2, 11), (1, "dot", 1, 7), (2, "fusion", 1, 3)]);
        // Fused instructions are the first host's, not added up.
        assert_eq!((db.ops[0].flops, db.ops[0].children.len(), db.ops[0].children[0].flops), (20, 1, 4));
        assert_eq!((db.total_time_ps, db.idle_time_ps, db.peak_gflops), (40, 16, 100.0));
    }
}
