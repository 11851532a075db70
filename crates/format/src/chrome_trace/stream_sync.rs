//! Kineto's Stream Sync rows (pytorch/kineto#1356, April 2026): the JSON
//! export writes each `Stream Sync` event (category `cuda_sync`, from
//! `cudaStreamSynchronize`; pid the device, args `cuda_sync_kind`,
//! `stream`, `correlation`, `device`, `context`) on a virtual thread id,
//! the stream's id + 1,000,000, named `stream N (sync)` by a `thread_name`
//! record and given the stream's `thread_sort_index`. It is a display
//! device for Perfetto, which drops slices that overlap on one row: the
//! sync's host-side times overlap the stream's kernels. Kineto's own data
//! (and its protobuf export) keeps the stream as the event's resource, and
//! traces written before the change put the event on the stream's row.
//! So the event goes back to its stream's row here, and no row 1,000,00N
//! appears: both kinds of trace read alike.

use super::{Id, RawEvent};

/// What Kineto adds to the stream id (`kSyncStreamTidOffset`).
const SYNC_TID_OFFSET: i64 = 1_000_000;

/// The thread id event `e`'s row is keyed by: its `tid`, except for a
/// Stream Sync on its virtual row, which takes its stream's.
pub(crate) fn row_tid<'a>(e: &RawEvent<'a>) -> Id<'a> {
    let tid = e.tid();
    match synced_stream(e, &tid) {
        Some(stream) => Id { text: stream.to_string().into(), number: Some(stream), numeric: true },
        None => tid,
    }
}

/// The stream of a Stream Sync written on its virtual row: Kineto moves
/// only `Stream Sync` events of category `cuda_sync`, and writes the stream
/// as an arg too, which must agree when present.
fn synced_stream(e: &RawEvent, tid: &Id) -> Option<i64> {
    if e.cat() != "cuda_sync" || e.name() != "Stream Sync" || !tid.numeric {
        return None;
    }
    let stream = tid.number?.checked_sub(SYNC_TID_OFFSET).filter(|s| *s >= 0)?;
    match e.arg_i64("stream") {
        Some(arg) if arg != stream => None,
        _ => Some(stream),
    }
}

#[cfg(test)]
mod tests {
    use super::super::decode;
    use proflens_model::Profile;

    /// A synthetic Kineto trace: a launch, its kernel on stream 7 and the
    /// host's `cudaStreamSynchronize`, whose `Stream Sync` event sits on
    /// `sync_tid` with the metadata records Kineto writes for that row
    /// (`extra`).
    fn trace(sync_tid: i64, extra: &str) -> String {
        format!(
            r#"{{"schemaVersion":1,"traceEvents":[
  {{"ph":"M","name":"thread_name","pid":0,"tid":7,"args":{{"name":"stream 7"}}}},
  {{"ph":"M","name":"thread_sort_index","pid":0,"tid":7,"args":{{"sort_index":7}}}},{extra}
  {{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":10,"tid":11,"ts":1,"dur":2,"args":{{"correlation":5}}}},
  {{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":4,"dur":10,"args":{{"device":0,"stream":7,"correlation":5}}}},
  {{"ph":"X","cat":"cuda_runtime","name":"cudaStreamSynchronize","pid":10,"tid":11,"ts":5,"dur":10,"args":{{"correlation":6}}}},
  {{"ph":"X","cat":"cuda_sync","name":"Stream Sync","pid":0,"tid":{sync_tid},"ts":5,"dur":10,
    "args":{{"cuda_sync_kind":"Stream Sync","stream":7,"correlation":6,"device":0,"context":1}}}}
]}}"#
        )
    }

    /// (plane, line id, line name, event names) of every line.
    fn rows(p: &Profile) -> Vec<(String, i64, String, Vec<String>)> {
        let mut out = Vec::new();
        for plane in &p.planes {
            for line in &plane.lines {
                let names = line.events.metadata.iter().map(|&m| p.str(plane.event_metadata[m as usize].name));
                let names = names.map(str::to_string).collect();
                out.push((p.str(plane.name).to_string(), line.id, p.str(line.name).to_string(), names));
            }
        }
        out
    }

    #[test]
    fn a_stream_sync_on_its_virtual_row_lands_on_its_streams_row() {
        let sync_row = r#"
  {"ph":"M","name":"thread_name","pid":0,"tid":1000007,"args":{"name":"stream 7 (sync)"}},
  {"ph":"M","name":"thread_sort_index","pid":0,"tid":1000007,"args":{"sort_index":7}},"#;
        let new = decode(trace(1_000_007, sync_row).as_bytes(), &mut |_| {}).unwrap();
        let got = rows(&new);
        let sync = got.iter().find(|r| r.3.contains(&"Stream Sync".to_string())).unwrap();
        assert_eq!((sync.1, sync.2.as_str()), (7, "stream 7"), "{got:?}");
        assert!(got.iter().all(|r| r.1 != 1_000_007 && !r.2.contains("(sync)")), "{got:?}");
        // As a trace written before kineto#1356 reads.
        let old = decode(trace(7, "").as_bytes(), &mut |_| {}).unwrap();
        assert_eq!(got, rows(&old));
    }

    #[test]
    fn only_a_stream_sync_that_names_its_stream_moves() {
        // Synthetic: the `stream` arg disagrees with the row, or another kind of sync.
        let wrong_stream = trace(1_000_008, "");
        let other_kind = trace(1_000_007, "").replace(r#""name":"Stream Sync""#, r#""name":"Event Sync""#);
        for (json, name) in [(wrong_stream, "Stream Sync"), (other_kind, "Event Sync")] {
            let got = rows(&decode(json.as_bytes(), &mut |_| {}).unwrap());
            let row = got.iter().find(|r| r.3.contains(&name.to_string())).unwrap();
            assert!(row.1 >= 1_000_007, "{got:?}");
        }
    }
}
