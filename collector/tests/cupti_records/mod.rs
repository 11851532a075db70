//! What the recorded-GPU tests share: a dump's records as the injection
//! library keeps them.

use proflens_collector::cupti::activity::{resolve_sync_devices, Activity, MarkerPairs};
use proflens_collector::cupti::raw::Dump;
use proflens_collector::cupti::Record;

/// The records as the injection library keeps them: markers paired into ranges.
pub fn records(dump: &Dump) -> Vec<Record> {
    let mut pairs = MarkerPairs::default();
    let mut records = Vec::new();
    for activity in dump.activities() {
        match activity.expect("every real record parses") {
            Activity::Record(r) => records.push(r),
            marker @ (Activity::MarkerStart { .. } | Activity::MarkerEnd { .. }) => {
                records.extend(pairs.feed(marker).map(Record::Nvtx))
            }
            Activity::Ignored(kind) => panic!("kind {kind} was enabled, so it is read"),
        }
    }
    resolve_sync_devices(&mut records);
    records
}
