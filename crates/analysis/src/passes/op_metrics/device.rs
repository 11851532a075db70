//! Device op metrics: which planes count (TPU cores, else GPUs) and their
//! combination into one DB.

use super::gpu::gpu_plane_op_metrics;
use super::tpu::{tpu_plane_op_metrics, TpuKeys};
use super::OpMetricsDb;
use crate::common::schema::{StatKeys, GPU_PLANE_PREFIX, TPU_PLANE_PREFIX};
use crate::hlo::gpu::GpuHlo;
use crate::passes::grouping::Grouping;
use proflens_model::Profile;

/// Device op metrics, combined over the devices.
///
/// * TPU (any `/device:TPU:N` plane; SparseCore planes are skipped): every
///   event of the `XLA Ops` lines, keyed by the (program_id, symbol_id) of its
///   metadata, named by the metadata's display name, with category, cost and
///   memory breakdown from the metadata's stats; nested ops count in their
///   parent's total but not its self time. The measured time of a core runs
///   from its first to its last op (or `Steps` event).
/// * Otherwise every GPU plane: events with a `tf_op` stat become ops named
///   `<tf op name>/<kernel name>`. Events with an `hlo_op` stat are XLA ops,
///   counted only through [`device_op_metrics_with_hlo`]. The measured time
///   runs from the first to the last event of the non-derived lines.
///
/// Empty (no idle op either) when the profile has no device plane.
pub fn device_op_metrics(profile: &Profile, grouping: &Grouping) -> OpMetricsDb {
    device_op_metrics_with_hlo(profile, grouping, &GpuHlo::new(&[]))
}

/// [`device_op_metrics`] with the HLO of the profile's XLA programs: on GPUs,
/// each kernel with an `hlo_op` whose instruction `hlo` knows is one
/// occurrence of that instruction (keyed by program id and name; category
/// and costs from the HLO, provenance from its `op_name` metadata), as XProf
/// does when it has the HLO protos.
pub fn device_op_metrics_with_hlo(profile: &Profile, grouping: &Grouping, hlo: &GpuHlo<'_>) -> OpMetricsDb {
    let keys = StatKeys::new(profile);
    let mut db = OpMetricsDb::default();
    let is_tpu = |name: &str| name.starts_with(TPU_PLANE_PREFIX);
    if profile.planes.iter().any(|pl| is_tpu(profile.str(pl.name))) {
        let tpu_keys = TpuKeys::new(profile);
        for plane in &profile.planes {
            let name = profile.str(plane.name);
            if is_tpu(name) && !name.contains("SparseCore") {
                db.combine(&tpu_plane_op_metrics(profile, &tpu_keys, plane));
            }
        }
        return db;
    }
    for (p, plane) in profile.planes.iter().enumerate() {
        if profile.str(plane.name).starts_with(GPU_PLANE_PREFIX) {
            db.combine(&gpu_plane_op_metrics(profile, grouping, &keys, hlo, p));
        }
    }
    db
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::common::schema::HOST_PLANE;
    use crate::passes::op_metrics::host_op_metrics;
    use crate::passes::op_metrics::test_builder::{op, Builder, V};

    #[test]
    fn gpu_planes_combine_and_tpu_wins() {
        let mut b = Builder::new();
        for g in 0..2 {
            let p = b.plane(&format!("/device:GPU:{g}"));
            let k = b.meta(p, "k", None, &[]);
            b.line(p, 1, "Stream #1", vec![(k, 0, 10, vec![("tf_op", V::S("x:X"))]), (k, 40, 10, vec![])]);
        }
        let db = device_op_metrics(&b.build(), &Grouping::default());
        assert_eq!(op(&db, "x/k").occurrences, 2);
        assert_eq!((db.total_time_ps, db.total_op_time_ps), (100, 20));
        assert_eq!(db.ops.iter().filter(|o| o.is_idle()).count(), 1);

        let mut b = Builder::new();
        let p = b.plane("/device:GPU:0");
        let k = b.meta(p, "k", None, &[]);
        b.line(p, 1, "Stream #1", vec![(k, 0, 10, vec![("tf_op", V::S("x:X"))])]);
        b.plane("/device:TPU:0");
        let db = device_op_metrics(&b.build(), &Grouping::default());
        assert!(db.ops.iter().all(|o| o.is_idle()), "GPU planes are ignored beside TPU planes: {db:?}");
    }

    #[test]
    fn hostile_values_do_not_panic() {
        let mut b = Builder::new();
        let p = b.plane(HOST_PLANE);
        let a = b.meta(p, "a:A", None, &[]);
        let odd = b.meta(p, "MemcpyHé€:", None, &[]);
        let odd2 = b.meta(p, "Memcpyé€€€", None, &[]);
        b.line(
            p,
            1,
            "t",
            vec![
                (a, i64::MIN, i64::MAX, vec![("tf_op", V::I(3)), ("_ipl_stage_id", V::S("x"))]),
                (odd, -5, 0, vec![("tf_op", V::S(""))]),
                (odd2, 0, 1, vec![("_ipl_stage_id", V::I(-1)), ("_ipl_stage_cat", V::I(1))]),
                (99, 10, i64::MAX, vec![]),
            ],
        );
        let g = b.plane("/device:GPU:0");
        let k = b.meta(g, "k", None, &[]);
        b.line(g, 1, "s", vec![(k, i64::MIN, i64::MAX, vec![("tf_op", V::S(":"))]), (7, i64::MAX, i64::MAX, vec![])]);
        let t = b.plane("/device:TPU:0");
        let m = b.meta(t, "m", None, &[("program_id", V::I(-1)), ("symbol_id", V::I(3))]);
        b.line(
            t,
            1,
            "XLA Ops",
            vec![(m, i64::MIN, i64::MAX, vec![]), (m, 0, 10, vec![("device_duration_ps", V::I(-4))])],
        );
        let profile = b.build();
        let grouping = Grouping::default();
        let _ = host_op_metrics(&profile, &grouping);
        let _ = device_op_metrics(&profile, &grouping);
        let mut no_tpu = profile;
        no_tpu.planes.pop();
        let _ = device_op_metrics(&no_tpu, &grouping);
    }
}
