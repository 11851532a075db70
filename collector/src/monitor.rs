//! `monitor`: the Monitor RPC's utilisation text, queried again and again.

use crate::capture::{connect_failure, status_failure, Failure};
use crate::proto::profiler_service_client::ProfilerServiceClient;
use crate::proto::MonitorRequest;
use crate::target::Target;
use std::time::Duration;
use tonic::transport::Endpoint;

#[derive(Debug, Clone)]
pub struct MonitorOptions {
    /// Each query observes the job for this long.
    pub interval_ms: u64,
    /// 1: utilisation only; 2: plus device and step-time information.
    pub level: i32,
    pub num_queries: u32,
    pub connect_timeout: Duration,
}

/// Queries `target` `num_queries` times, handing each answer's text to `show`.
pub async fn monitor(target: &Target, opts: &MonitorOptions, show: &mut dyn FnMut(&str)) -> Result<(), String> {
    let fail = |f: Failure| match f {
        Failure::Rpc { code: tonic::Code::Unimplemented, .. } => format!(
            "{target}: this profiler server does not implement Monitor (JAX's and TensorFlow's CPU/GPU \
             servers answer UNIMPLEMENTED; Cloud TPU hosts implement it); use `capture` instead"
        ),
        f => format!("{target}: {f}"),
    };
    let endpoint = Endpoint::from_shared(target.uri()).map_err(|e| format!("{target}: bad address: {e}"))?;
    let channel =
        endpoint.connect_timeout(opts.connect_timeout).connect().await.map_err(|e| fail(connect_failure(&e)))?;
    let mut client = ProfilerServiceClient::new(channel);
    let deadline = Duration::from_millis(opts.interval_ms) + Duration::from_secs(60);
    for _ in 0..opts.num_queries {
        let mut request = tonic::Request::new(MonitorRequest {
            duration_ms: opts.interval_ms,
            monitoring_level: opts.level,
            timestamp: true,
        });
        request.set_timeout(deadline);
        let response = client.monitor(request).await.map_err(|s| fail(status_failure(&s, deadline)))?;
        show(&response.into_inner().data);
    }
    Ok(())
}
