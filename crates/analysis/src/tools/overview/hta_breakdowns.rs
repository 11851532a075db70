//! `overview_page --format hta` on PyTorch traces: HTA 0.5.0's
//! `get_temporal_breakdown` and `get_comm_comp_overlap`, per rank, as its
//! goldens write them. HTA loads a trace with its times rounded to whole µs
//! ([`hta_rounded`]) and drops the work launched in the last step unless
//! told to keep it; both are done here only for this format, never in the
//! overview itself.

use super::distributed::{rank_view, RankView, Scope};
use crate::context::{HostContext, Rendered, ToolError};
use crate::passes::kineto::KinetoIndex;
use serde::Serialize;
use serde_json::{json, Value};

/// HTA's `ns_rounding` (its default): starts rounded up and ends rounded
/// down to whole µs, so sub-µs events vanish and every event loses up to 2 µs.
pub fn hta_rounded(index: &KinetoIndex) -> KinetoIndex {
    const US: i64 = 1_000_000;
    let mut out = index.clone();
    for d in &mut out.device {
        d.start_ps = d.start_ps.div_euclid(US) * US + if d.start_ps.rem_euclid(US) > 0 { US } else { 0 };
        d.end_ps = d.end_ps.div_euclid(US) * US;
    }
    out
}

/// Each rank's view of its trace as HTA loads it.
#[derive(Serialize)]
pub struct HtaBreakdowns {
    include_last_step: bool,
    /// The rank (`distributedInfo.rank`, else 0), its host name, its view.
    ranks: Vec<(i64, String, RankView)>,
}

/// The breakdowns of `hosts` (PyTorch ranks), by rank.
pub fn breakdowns(hosts: &[&HostContext], include_last_step: bool) -> Result<HtaBreakdowns, ToolError> {
    let scope = if include_last_step { Scope::Steps } else { Scope::StepsExceptLast };
    let mut ranks = Vec::new();
    for host in hosts {
        let view = rank_view(&hta_rounded(&*host.kineto()?), host.name(), scope);
        // The index's rank is the host plane's `rank` stat, as HTA's rank (`hta::rank`) reads it.
        let rank = view.rank.unwrap_or(0);
        ranks.push((rank, host.name().to_string(), view));
    }
    ranks.sort_by_key(|(rank, _, _)| *rank);
    Ok(HtaBreakdowns { include_last_step, ranks })
}

/// µs of HTA's rounded trace.
fn us(ps: i64) -> f64 {
    ps as f64 / 1e6
}

/// pandas' `round(2)`, as HTA rounds its shares.
fn round2(pct: f64) -> f64 {
    (pct * 100.0).round_ties_even() / 100.0
}

impl Rendered for HtaBreakdowns {
    fn json(&self) -> Result<Value, ToolError> {
        Ok(self.document())
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn hta(&self) -> Result<Value, ToolError> {
        Ok(self.document())
    }
}

impl HtaBreakdowns {
    /// Both APIs' per-rank rows, as HTA's goldens write them.
    fn document(&self) -> Value {
        let temporal: Vec<Value> = (self.ranks.iter())
            .map(|(rank, _, v)| {
                json!({
                    "rank": rank,
                    "idle_time(us)": us(v.window_ps - v.busy_ps),
                    "compute_time(us)": us(v.computation_ps),
                    "non_compute_time(us)": us(v.busy_ps - v.computation_ps),
                    "kernel_time(us)": us(v.window_ps),
                    "idle_time_pctg": round2(v.idle_pct),
                    "compute_time_pctg": round2(v.compute_pct),
                    "non_compute_time_pctg": round2(v.non_compute_pct),
                })
            })
            .collect();
        let overlap: Vec<Value> = (self.ranks.iter())
            .map(|(rank, _, v)| json!({ "rank": rank, "comp_comm_overlap_pctg": v.comm_comp_overlap_pct.map(round2) }))
            .collect();
        let files: serde_json::Map<String, Value> =
            self.ranks.iter().map(|(rank, name, _)| (rank.to_string(), json!(name))).collect();
        json!({
            "hta_version": "0.5.0",
            "load": { "include_last_profiler_step": self.include_last_step, "ns_rounding": true, "ranks": files },
            "time_unit": "us",
            "temporal_breakdown": { "api": "TraceAnalysis.get_temporal_breakdown", "per_rank": temporal },
            "comm_comp_overlap": { "api": "TraceAnalysis.get_comm_comp_overlap", "per_rank": overlap },
        })
    }
}
