//! The TPU parts of a legacy `pod_viewer.json`: each core's named step
//! times (the TPU tools' `PodStatsRecord` before XProf keyed them by event
//! type), and the all-reduce and channel tables of each step.

use super::BUCKETS;
use crate::common::legacy::number;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One core's step as the TPU pod viewer names its parts, µs.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TpuCoreStats {
    pub chip_id: i64,
    pub node_id: i64,
    pub high_flops_compute_us: f64,
    pub low_flops_compute_us: f64,
    pub host_infeed_us: f64,
    pub host_outfeed_us: f64,
    /// Cross-replica sum (all-reduce).
    pub all_reduce_us: f64,
    pub send_us: f64,
    pub recv_us: f64,
}

/// A row of a step's all-reduce table.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AllReduceRow {
    pub name: String,
    pub occurrences: u64,
    /// Average duration, µs.
    pub duration_us: f64,
    pub data_size_bytes: u64,
    /// Replica ids of each group, `[[0, 1], [2, 3]]`.
    pub replica_groups: Vec<Vec<u64>>,
}

/// A row of a step's channel (send/recv) table.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ChannelRow {
    pub channel_id: String,
    pub src_core: i64,
    pub dst_core: i64,
    pub data_size_bytes: u64,
    pub duration_us: f64,
    pub send_delay_us: f64,
    pub occurrences: u64,
    pub replica_id: i64,
    pub hlo_names: Vec<String>,
    /// Link utilisation as the file states it.
    pub utilization: f64,
}

/// `record[camel]`, else `record[snake]` (proto3 JSON with the proto's field names).
fn field<'a>(record: &'a Value, camel: &str, snake: &str) -> Option<&'a Value> {
    record.get(camel).or_else(|| record.get(snake))
}

fn num(record: &Value, camel: &str, snake: &str) -> f64 {
    number(field(record, camel, snake)).filter(|v| v.is_finite()).unwrap_or(0.0)
}

fn count(record: &Value, camel: &str, snake: &str) -> u64 {
    num(record, camel, snake).max(0.0) as u64
}

fn int(record: &Value, camel: &str, snake: &str) -> i64 {
    num(record, camel, snake) as i64
}

fn text(record: &Value, camel: &str, snake: &str) -> String {
    match field(record, camel, snake) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => String::new(),
    }
}

fn list<'a>(record: &'a Value, camel: &str, snake: &str) -> &'a [Value] {
    field(record, camel, snake).and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default()
}

/// The named times of a core's record; `None` when it has none of them
/// (XProf's records, keyed by event type only).
pub fn core_stats(record: &Value) -> Option<TpuCoreStats> {
    const NAMED: [(&str, &str); 4] = [
        ("highFlopsComputeUs", "high_flops_compute_us"),
        ("crsDurationUs", "crs_duration_us"),
        ("hostInfeedDurationUs", "host_infeed_duration_us"),
        ("sendDurationUs", "send_duration_us"),
    ];
    if !NAMED.iter().any(|(c, s)| field(record, c, s).is_some()) {
        return None;
    }
    Some(TpuCoreStats {
        chip_id: int(record, "chipId", "chip_id"),
        node_id: int(record, "nodeId", "node_id"),
        high_flops_compute_us: num(record, "highFlopsComputeUs", "high_flops_compute_us"),
        low_flops_compute_us: num(record, "lowFlopsComputeUs", "low_flops_compute_us"),
        host_infeed_us: num(record, "hostInfeedDurationUs", "host_infeed_duration_us"),
        host_outfeed_us: num(record, "hostOutfeedDurationUs", "host_outfeed_duration_us"),
        all_reduce_us: num(record, "crsDurationUs", "crs_duration_us"),
        send_us: num(record, "sendDurationUs", "send_duration_us"),
        recv_us: num(record, "recvDurationUs", "recv_duration_us"),
    })
}

/// The named times in the generic buckets (ids of `super::BUCKETS`):
/// compute → device compute, send + recv → device to device, all-reduce →
/// collectives, infeed → input, outfeed → output, and what the step's total
/// leaves → all others.
pub fn buckets_of(stats: &TpuCoreStats, total_us: f64) -> [f64; BUCKETS.len()] {
    let compute = stats.high_flops_compute_us + stats.low_flops_compute_us;
    let send_recv = stats.send_us + stats.recv_us;
    let named = compute + send_recv + stats.all_reduce_us + stats.host_infeed_us + stats.host_outfeed_us;
    [
        compute,
        send_recv,
        stats.all_reduce_us,
        0.0,
        0.0,
        stats.host_infeed_us,
        stats.host_outfeed_us,
        0.0,
        (total_us - named).max(0.0),
    ]
}

pub fn all_reduce_rows(step: &Value) -> Vec<AllReduceRow> {
    list(step, "allReduceOpDb", "all_reduce_op_db")
        .iter()
        .map(|op| AllReduceRow {
            name: text(op, "name", "name"),
            occurrences: count(op, "occurrences", "occurrences"),
            duration_us: num(op, "durationUs", "duration_us"),
            data_size_bytes: count(op, "dataSize", "data_size"),
            replica_groups: list(op, "replicaGroups", "replica_groups")
                .iter()
                .map(|g| {
                    list(g, "replicaIds", "replica_ids")
                        .iter()
                        .filter_map(|id| number(Some(id)))
                        .map(|id| id as u64)
                        .collect()
                })
                .collect(),
        })
        .collect()
}

pub fn channel_rows(step: &Value) -> Vec<ChannelRow> {
    list(step, "channelDb", "channel_db")
        .iter()
        .map(|c| ChannelRow {
            channel_id: text(c, "channelId", "channel_id"),
            src_core: int(c, "srcCoreId", "src_core_id"),
            dst_core: int(c, "dstCoreId", "dst_core_id"),
            data_size_bytes: count(c, "dataSize", "data_size"),
            duration_us: num(c, "durationUs", "duration_us"),
            send_delay_us: num(c, "sendDelayUs", "send_delay_us"),
            occurrences: count(c, "occurrences", "occurrences"),
            replica_id: int(c, "replicaId", "replica_id"),
            hlo_names: list(c, "hloNames", "hlo_names").iter().filter_map(Value::as_str).map(str::to_string).collect(),
            utilization: num(c, "utilization", "utilization"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn named_times_fill_the_buckets() {
        let record = json!({"highFlopsComputeUs": 200.0, "crsDurationUs": 10.0, "sendDurationUs": 5.0,
            "recvDurationUs": "7", "hostInfeedDurationUs": 3.0, "chipId": 4, "totalDurationUs": 230.0});
        let stats = core_stats(&record).unwrap();
        assert_eq!((stats.chip_id, stats.recv_us), (4, 7.0));
        let b = buckets_of(&stats, 230.0);
        assert_eq!((b[0], b[1], b[2], b[5], b[8]), (200.0, 12.0, 10.0, 3.0, 5.0));
        assert!(core_stats(&json!({"stepBreakdownUs": {"1": 2.0}})).is_none());
    }

    #[test]
    fn tables_in_both_json_spellings() {
        let step = json!({"allReduceOpDb": [{"name": "all-reduce.2", "occurrences": 32, "durationUs": 1.5,
            "dataSize": "2048", "replicaGroups": [{"replicaIds": ["0", "1"]}]}],
            "channel_db": [{"channel_id": "16436", "src_core_id": 14, "dst_core_id": 7, "hlo_names": ["send.42"]}]});
        let ops = all_reduce_rows(&step);
        assert_eq!((ops[0].data_size_bytes, ops[0].replica_groups.clone()), (2048, vec![vec![0, 1]]));
        let channels = channel_rows(&step);
        assert_eq!((channels[0].channel_id.as_str(), channels[0].src_core, channels[0].dst_core), ("16436", 14, 7));
        assert_eq!(channels[0].hlo_names, ["send.42"]);
    }
}
