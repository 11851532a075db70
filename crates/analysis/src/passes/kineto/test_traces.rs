//! Hand-written (synthetic) Kineto traces shared by the tests of the tools
//! over HTA's frame: no public trace of these shapes is small enough to ship
//! (HTA's own MTIA test traces are not readable from here), so the event
//! shapes follow HolisticTraceAnalysis 0.5.0's source and Kineto's writer.

use proflens_model::Profile;

/// SYNTHETIC. An MTIA inference run: three steps, MTIA's launch call
/// (`runFunction - job_prep_and_submit_for_execution`, category
/// `mtia_runtime`) and its on-device work (`mtia_ccp_events` with
/// `device`, `stream` and `correlation` args). One DMA on the stream has
/// no correlation id, as MTIA writes some device events. Times in µs, all
/// on stream 5 of device 0:
///
/// * step 1 [0, 100): launches at 10 and 20 (5 µs each, correlations 1
///   and 2) of `k1` [30, 50) and `k2` [60, 70); `dma_in` [75, 80), no
///   correlation;
/// * step 2 [100, 200): a launch at 110 (correlation 3) of `k3` [150, 170);
/// * step 3 [200, 300), the last: a launch at 210 (correlation 4) of `k4`
///   [230, 250).
pub(crate) const MTIA_TRACE: &str = r#"{"schemaVersion":1,"distributedInfo":{"rank":0,"world_size":1,"backend":"mtia:hccl"},"traceEvents":[
  {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},
  {"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":100,"dur":100},
  {"ph":"X","cat":"user_annotation","name":"ProfilerStep#3","pid":1,"tid":1,"ts":200,"dur":100},
  {"ph":"X","cat":"mtia_runtime","name":"runFunction - job_prep_and_submit_for_execution","pid":1,"tid":1,"ts":10,"dur":5,"args":{"correlation":1}},
  {"ph":"X","cat":"mtia_runtime","name":"runFunction - job_prep_and_submit_for_execution","pid":1,"tid":1,"ts":20,"dur":5,"args":{"correlation":2}},
  {"ph":"X","cat":"mtia_runtime","name":"runFunction - job_prep_and_submit_for_execution","pid":1,"tid":1,"ts":110,"dur":5,"args":{"correlation":3}},
  {"ph":"X","cat":"mtia_runtime","name":"runFunction - job_prep_and_submit_for_execution","pid":1,"tid":1,"ts":210,"dur":5,"args":{"correlation":4}},
  {"ph":"X","cat":"mtia_ccp_events","name":"k1","pid":2,"tid":5,"ts":30,"dur":20,"args":{"device":0,"stream":5,"correlation":1}},
  {"ph":"X","cat":"mtia_ccp_events","name":"k2","pid":2,"tid":5,"ts":60,"dur":10,"args":{"device":0,"stream":5,"correlation":2}},
  {"ph":"X","cat":"mtia_ccp_events","name":"dma_in","pid":2,"tid":5,"ts":75,"dur":5,"args":{"device":0,"stream":5}},
  {"ph":"X","cat":"mtia_ccp_events","name":"k3","pid":2,"tid":5,"ts":150,"dur":20,"args":{"device":0,"stream":5,"correlation":3}},
  {"ph":"X","cat":"mtia_ccp_events","name":"k4","pid":2,"tid":5,"ts":230,"dur":20,"args":{"device":0,"stream":5,"correlation":4}}
]}"#;

/// SYNTHETIC. Two CUDA steps whose host calls synchronise, each with the
/// `cuda_sync` event Kineto writes on the device for it: `k1` [20, 30) and
/// `k2` [35, 45) on stream 7, launched at 10 and 12; a
/// `cudaStreamSynchronize` [14, 54) and its `Stream Sync` on stream 7 (it
/// overlaps both kernels); a `cudaDeviceSynchronize` [60, 90) and its
/// `Context Sync`, whose stream is CUPTI's "none" as Kineto prints it
/// (4294967295); an `Event Sync` on no stream.
pub(crate) const SYNC_TRACE: &str = r#"{"schemaVersion":1,"traceEvents":[
  {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},
  {"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":100,"dur":100},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":10,"dur":2,"args":{"correlation":1}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":12,"dur":2,"args":{"correlation":2}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaStreamSynchronize","pid":1,"tid":1,"ts":14,"dur":40,"args":{"correlation":3}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaDeviceSynchronize","pid":1,"tid":1,"ts":60,"dur":30,"args":{"correlation":4}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaEventSynchronize","pid":1,"tid":1,"ts":92,"dur":2,"args":{"correlation":5}},
  {"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":20,"dur":10,"args":{"device":0,"stream":7,"correlation":1}},
  {"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":7,"ts":35,"dur":10,"args":{"device":0,"stream":7,"correlation":2}},
  {"ph":"X","cat":"cuda_sync","name":"Stream Sync","pid":0,"tid":7,"ts":14,"dur":40,"args":{"device":0,"stream":7,"correlation":3}},
  {"ph":"X","cat":"cuda_sync","name":"Context Sync","pid":0,"tid":7,"ts":60,"dur":30,"args":{"device":0,"stream":4294967295,"correlation":4}},
  {"ph":"X","cat":"cuda_sync","name":"Event Sync","pid":0,"tid":7,"ts":92,"dur":2,"args":{"device":0,"stream":-1,"correlation":5}}
]}"#;

/// A trace loaded as `proflens` loads it.
pub(crate) fn profile(json: &str) -> Profile {
    proflens_format::load_profile(json.as_bytes(), &Default::default(), &mut |_| {}).expect("a valid test trace")
}
