//! `capture`: one Profile RPC per profiler server, all at once, each answer
//! written as `<run>/<host>.xplane.pb` exactly as the server produced it.

use crate::logdir;
use crate::proto::profiler_service_client::ProfilerServiceClient;
use crate::proto::TerminateRequest;
use crate::proto::{ProfileOptions, ProfileRequest};
use crate::target::Target;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};
use tonic::codegen::http::uri::PathAndQuery;
use tonic::transport::Endpoint;

/// Protobuf cannot represent more than 2 GiB, so neither can an XSpace.
const MAX_RESPONSE_BYTES: usize = (2 << 30) - 1;
/// Time the server gets, on top of the capture itself, to collect,
/// post-process and serialise the trace (large GPU traces take a while).
const COLLECT_GRACE: Duration = Duration::from_secs(120);
/// The longest wait between two attempts.
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// What the user asked for on the command line.
#[derive(Debug, Clone)]
pub struct CaptureOptions {
    pub duration_ms: u64,
    pub host_tracer_level: u32,
    pub device_tracer_level: u32,
    pub python_tracer_level: u32,
    /// Wait this long before starting (all servers together).
    pub delay_ms: u64,
    /// Further attempts after a failed one that may succeed when repeated.
    pub retries: u32,
    /// Wait before the first retry; doubles for each next one.
    pub backoff: Duration,
    pub connect_timeout: Duration,
    /// On Ctrl-C, ask the servers to stop early and still write what they send.
    pub stop_on_ctrl_c: bool,
}

impl Default for CaptureOptions {
    fn default() -> Self {
        // The levels JAX's and TensorFlow's own clients send by default.
        CaptureOptions {
            duration_ms: 2000,
            host_tracer_level: 2,
            device_tracer_level: 1,
            python_tracer_level: 0,
            delay_ms: 0,
            retries: 3,
            backoff: Duration::from_secs(1),
            connect_timeout: Duration::from_secs(10),
            stop_on_ctrl_c: false,
        }
    }
}

/// Progress lines for the terminal; called from every worker's task.
pub type Progress = Arc<dyn Fn(&str) + Send + Sync>;

/// The request a profiler server understands, as TensorFlow's and JAX's
/// clients build it. The XSpace is asked for inline (`emit_xspace`) because
/// a remote server's disk is out of our reach; `repository_root` still names
/// our own run directory so an older server that ignores `emit_xspace` and
/// runs on this machine saves its file right where we want it.
pub fn profile_request(opts: &CaptureOptions, run: &str, host: &str, repository_root: &Path) -> ProfileRequest {
    ProfileRequest {
        duration_ms: opts.duration_ms,
        max_events: 1_000_000,
        tools: vec!["xplane.pb".to_string()],
        opts: Some(ProfileOptions {
            version: 1,
            host_tracer_level: opts.host_tracer_level,
            device_tracer_level: opts.device_tracer_level,
            python_tracer_level: opts.python_tracer_level,
            // Current servers wait on this field, older ones on the request's.
            duration_ms: opts.duration_ms,
            session_id: run.to_string(),
            ..Default::default()
        }),
        repository_root: repository_root.to_string_lossy().into_owned(),
        session_id: run.to_string(),
        host_name: host.to_string(),
        emit_xspace: true,
        ..Default::default()
    }
}

/// The two fields of ProfileResponse the collector needs, with the XSpace
/// kept as the server's bytes: nothing is lost or re-encoded, and a large
/// trace is not held twice in memory.
#[derive(Clone, PartialEq, prost::Message)]
pub struct RawProfileResponse {
    #[prost(bool, tag = "7")]
    pub empty_trace: bool,
    #[prost(bytes = "vec", optional, tag = "8")]
    pub xspace: Option<Vec<u8>>,
}

/// XSpace's host names, decoded without touching the planes.
#[derive(Clone, PartialEq, prost::Message)]
struct XSpaceHostnames {
    #[prost(string, repeated, tag = "4")]
    hostnames: Vec<String>,
}

/// Why one server's capture failed, worded for the person at the terminal.
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    /// Nothing listens on the port.
    Refused,
    /// No route, unknown host, connect timeout, broken connection.
    Unreachable(String),
    /// The server took longer than the capture plus the collection grace.
    Timeout(Duration),
    /// The server captured nothing.
    Empty,
    /// The server answered with an error status.
    Rpc { code: tonic::Code, message: String },
    /// An older server saved the profile on its own disk instead of answering with it.
    SavedRemotely(PathBuf),
    /// The answer is not an XSpace.
    BadResponse(String),
    /// Our own disk refused the file.
    Write(String),
}

impl Failure {
    /// Whether another attempt may succeed: a job that is still starting, a
    /// capture that fell between steps, a server busy with another session.
    pub fn retryable(&self) -> bool {
        match self {
            Failure::Refused | Failure::Unreachable(_) | Failure::Timeout(_) | Failure::Empty => true,
            Failure::Rpc { code, .. } => !matches!(
                code,
                tonic::Code::Unimplemented
                    | tonic::Code::InvalidArgument
                    | tonic::Code::PermissionDenied
                    | tonic::Code::Unauthenticated
                    | tonic::Code::Cancelled
            ),
            Failure::SavedRemotely(_) | Failure::BadResponse(_) | Failure::Write(_) => false,
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Refused => write!(
                f,
                "connection refused: no profiler server listens on that port; start one in the job \
                 (jax.profiler.start_server(PORT) or tf.profiler.experimental.server.start(PORT))"
            ),
            Failure::Unreachable(detail) => {
                write!(f, "unreachable ({detail}); check the host name, the port and any firewall in between")
            }
            Failure::Timeout(after) => write!(f, "no answer after {:.0} s", after.as_secs_f64()),
            Failure::Empty => write!(
                f,
                "the capture is empty: the job ran nothing the profiler records meanwhile; capture while \
                 it computes (a longer --duration-ms, or --delay-ms to wait for the training steps)"
            ),
            Failure::Rpc { code: tonic::Code::Unimplemented, message } => write!(
                f,
                "the server does not implement the profiler service ({message}); is this the profiler's port?"
            ),
            Failure::Rpc { code, message } => write!(f, "the profiler server answered {code:?}: {message}"),
            Failure::SavedRemotely(path) => write!(
                f,
                "this server is too old to send the profile back and saved it on its own disk as {}; \
                 copy that file from the server (or upgrade TensorFlow/JAX there)",
                path.display()
            ),
            Failure::BadResponse(detail) => write!(f, "the answer is not a profile: {detail}"),
            Failure::Write(detail) => f.write_str(detail),
        }
    }
}

/// One server's profile on disk.
#[derive(Debug, Clone, PartialEq)]
pub struct Written {
    pub path: PathBuf,
    pub bytes: u64,
    pub delivery: Delivery,
}

/// How the profile reached our disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivery {
    /// In the gRPC answer (works for remote servers).
    Inline,
    /// An older server on this machine saved it into our run directory itself.
    SavedByServer,
}

/// One server's result after all attempts.
#[derive(Debug)]
pub struct Outcome {
    pub target: Target,
    pub attempts: u32,
    pub result: Result<Written, Failure>,
}

/// All servers' results for one run.
#[derive(Debug)]
pub struct Report {
    pub run: String,
    /// None when every capture failed (the empty run directory is removed).
    pub run_dir: Option<PathBuf>,
    pub outcomes: Vec<Outcome>,
}

/// Captures every target concurrently into one new run of `logdir`.
pub async fn capture_all(
    targets: &[Target],
    opts: &CaptureOptions,
    logdir: &Path,
    progress: Progress,
) -> Result<Report, String> {
    let (run, run_dir) = logdir::create_run_dir(logdir, &logdir::run_name(SystemTime::now()))?;
    // Absolute, because an older server on this machine resolves it from its own working directory.
    let run_dir = std::path::absolute(&run_dir).map_err(|e| format!("{}: {e}", run_dir.display()))?;
    progress(&format!("run {run}: capturing {} ms from {} server(s)", opts.duration_ms, targets.len()));
    if opts.delay_ms > 0 {
        progress(&format!("waiting {} ms before starting", opts.delay_ms));
        tokio::time::sleep(Duration::from_millis(opts.delay_ms)).await;
    }
    let interrupted = Arc::new(AtomicBool::new(false));
    let on_ctrl_c = opts.stop_on_ctrl_c.then(|| {
        tokio::spawn(stop_on_ctrl_c(
            targets.to_vec(),
            run.clone(),
            opts.connect_timeout,
            interrupted.clone(),
            progress.clone(),
        ))
    });
    let mut tasks = tokio::task::JoinSet::new();
    for (i, target) in targets.iter().enumerate() {
        let (target, opts, run, run_dir, progress, interrupted) =
            (target.clone(), opts.clone(), run.clone(), run_dir.clone(), progress.clone(), interrupted.clone());
        tasks.spawn(
            async move { (i, capture_with_retries(&target, &opts, &run, &run_dir, &progress, &interrupted).await) },
        );
    }
    let mut outcomes: Vec<Option<Outcome>> = targets.iter().map(|_| None).collect();
    while let Some(joined) = tasks.join_next().await {
        let (i, outcome) = joined.map_err(|e| format!("a capture task failed: {e}"))?;
        outcomes[i] = Some(outcome);
    }
    if let Some(handler) = on_ctrl_c {
        handler.abort();
    }
    let outcomes: Vec<Outcome> = outcomes.into_iter().flatten().collect();
    let any_written = outcomes.iter().any(|o| o.result.is_ok());
    if !any_written {
        // Leave no empty run behind for viewers to list.
        let _ = std::fs::remove_dir(&run_dir);
    }
    Ok(Report { run, run_dir: any_written.then_some(run_dir), outcomes })
}

/// On the first Ctrl-C, ends every server's session early (the Terminate
/// RPC): each Profile call then returns what was captured so far and is
/// written as usual. A second Ctrl-C quits at once.
async fn stop_on_ctrl_c(
    targets: Vec<Target>,
    run: String,
    connect_timeout: Duration,
    interrupted: Arc<AtomicBool>,
    progress: Progress,
) {
    if tokio::signal::ctrl_c().await.is_err() {
        return;
    }
    interrupted.store(true, Ordering::SeqCst);
    progress("interrupted: asking the servers to stop now and send what they have (Ctrl-C again quits)");
    for target in &targets {
        if let Err(e) = terminate(target, &run, connect_timeout).await {
            progress(&format!("{target}: could not stop the session early: {e}"));
        }
    }
    if tokio::signal::ctrl_c().await.is_ok() {
        std::process::exit(130);
    }
}

/// Ends the session `run` on `target` before its duration is up.
pub async fn terminate(target: &Target, run: &str, connect_timeout: Duration) -> Result<(), Failure> {
    let endpoint = Endpoint::from_shared(target.uri())
        .map_err(|e| Failure::Unreachable(format!("bad address: {e}")))?
        .connect_timeout(connect_timeout);
    let channel = endpoint.connect().await.map_err(|e| connect_failure(&e))?;
    let mut request = tonic::Request::new(TerminateRequest { session_id: run.to_string() });
    request.set_timeout(Duration::from_secs(10));
    ProfilerServiceClient::new(channel)
        .terminate(request)
        .await
        .map(|_| ())
        .map_err(|s| status_failure(&s, Duration::from_secs(10)))
}

/// Captures one server, retrying with exponential backoff (not after Ctrl-C).
pub async fn capture_with_retries(
    target: &Target,
    opts: &CaptureOptions,
    run: &str,
    run_dir: &Path,
    progress: &Progress,
    interrupted: &AtomicBool,
) -> Outcome {
    let say = |msg: &str| progress(&format!("{target}: {msg}"));
    let mut wait = opts.backoff;
    let mut attempts = 0;
    loop {
        attempts += 1;
        say(&format!("capturing {} ms (attempt {attempts} of {})", opts.duration_ms, opts.retries + 1));
        let result = capture_once(target, opts, run, run_dir).await;
        match &result {
            Ok(written) => say(&match written.delivery {
                Delivery::Inline => format!("wrote {} ({})", written.path.display(), human_bytes(written.bytes)),
                Delivery::SavedByServer => format!(
                    "the server saved {} itself ({}; an older server that cannot send profiles to remote clients)",
                    written.path.display(),
                    human_bytes(written.bytes)
                ),
            }),
            Err(failure) if failure.retryable() && attempts <= opts.retries && !interrupted.load(Ordering::SeqCst) => {
                say(&format!("{failure}; retrying in {:.1} s", wait.as_secs_f64()));
                tokio::time::sleep(wait).await;
                wait = (wait * 2).min(MAX_BACKOFF);
                continue;
            }
            Err(failure) => say(&format!("failed: {failure}")),
        }
        return Outcome { target: target.clone(), attempts, result };
    }
}

/// One Profile RPC and the file it yields.
pub async fn capture_once(
    target: &Target,
    opts: &CaptureOptions,
    run: &str,
    run_dir: &Path,
) -> Result<Written, Failure> {
    let host = target.file_host();
    let repository_root = run_dir.parent().unwrap_or(run_dir);
    let request = profile_request(opts, run, &host, repository_root);
    let deadline = Duration::from_millis(opts.duration_ms) + COLLECT_GRACE;
    let response = profile_rpc(target, request, opts.connect_timeout, deadline).await?;
    match response.xspace {
        Some(bytes) if response.empty_trace || bytes.is_empty() => Err(Failure::Empty),
        Some(bytes) => {
            let bytes = with_hostname(bytes, &target.host)?;
            let path = logdir::write_host_file(run_dir, &host, &bytes).map_err(Failure::Write)?;
            Ok(Written { path, bytes: bytes.len() as u64, delivery: Delivery::Inline })
        }
        None if response.empty_trace => Err(Failure::Empty),
        None => {
            // A server that ignores emit_xspace saved <repository_root>/<session>/<host>.xplane.pb.
            let path = run_dir.join(format!("{host}{}", logdir::XSPACE_SUFFIX));
            match std::fs::metadata(&path) {
                Ok(meta) => Ok(Written { path, bytes: meta.len(), delivery: Delivery::SavedByServer }),
                Err(_) => Err(Failure::SavedRemotely(path)),
            }
        }
    }
}

async fn profile_rpc(
    target: &Target,
    request: ProfileRequest,
    connect_timeout: Duration,
    deadline: Duration,
) -> Result<RawProfileResponse, Failure> {
    let endpoint = Endpoint::from_shared(target.uri())
        .map_err(|e| Failure::Unreachable(format!("bad address: {e}")))?
        .connect_timeout(connect_timeout);
    let channel = endpoint.connect().await.map_err(|e| connect_failure(&e))?;
    let mut grpc = tonic::client::Grpc::new(channel)
        .max_decoding_message_size(MAX_RESPONSE_BYTES)
        .max_encoding_message_size(MAX_RESPONSE_BYTES);
    grpc.ready().await.map_err(|e| Failure::Unreachable(e.to_string()))?;
    let mut request = tonic::Request::new(request);
    request.set_timeout(deadline);
    let codec = tonic_prost::ProstCodec::<ProfileRequest, RawProfileResponse>::default();
    let path = PathAndQuery::from_static("/tensorflow.ProfilerService/Profile");
    // grpc-timeout only asks the server to give up; this bounds our own wait on a hung one.
    match tokio::time::timeout(deadline + Duration::from_secs(10), grpc.unary(request, path, codec)).await {
        Ok(Ok(response)) => Ok(response.into_inner()),
        Ok(Err(status)) => Err(status_failure(&status, deadline)),
        Err(_) => Err(Failure::Timeout(deadline)),
    }
}

/// Classifies a connection error by its innermost I/O cause.
pub(crate) fn connect_failure(error: &(dyn std::error::Error + 'static)) -> Failure {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    let mut innermost = error.to_string();
    while let Some(e) = source {
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            if io.kind() == std::io::ErrorKind::ConnectionRefused {
                return Failure::Refused;
            }
        }
        innermost = e.to_string();
        source = e.source();
    }
    Failure::Unreachable(innermost)
}

pub(crate) fn status_failure(status: &tonic::Status, deadline: Duration) -> Failure {
    match status.code() {
        tonic::Code::DeadlineExceeded => Failure::Timeout(deadline),
        tonic::Code::Unavailable => match std::error::Error::source(status) {
            Some(source) => connect_failure(source),
            None => Failure::Unreachable(status.message().to_string()),
        },
        code => Failure::Rpc { code, message: status.message().to_string() },
    }
}

/// Adds the server's host name to an XSpace that has none (older servers
/// leave `hostnames` to the client), by appending one field: protobuf
/// concatenation merges it, so the server's bytes stay as they are.
fn with_hostname(mut bytes: Vec<u8>, host: &str) -> Result<Vec<u8>, Failure> {
    use prost::Message;
    let head = XSpaceHostnames::decode(bytes.as_slice())
        .map_err(|e| Failure::BadResponse(format!("the XSpace does not decode ({e})")))?;
    if head.hostnames.is_empty() {
        XSpaceHostnames { hostnames: vec![host.to_string()] }
            .encode(&mut bytes)
            .map_err(|e| Failure::BadResponse(e.to_string()))?;
    }
    Ok(bytes)
}

fn human_bytes(n: u64) -> String {
    match n {
        n if n >= 1 << 30 => format!("{:.1} GiB", n as f64 / f64::from(1u32 << 30)),
        n if n >= 1 << 20 => format!("{:.1} MiB", n as f64 / f64::from(1u32 << 20)),
        n if n >= 1 << 10 => format!("{:.1} KiB", n as f64 / 1024.0),
        n => format!("{n} B"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message;

    #[test]
    fn request_carries_levels_duration_and_asks_for_the_xspace() {
        let opts =
            CaptureOptions { duration_ms: 1500, host_tracer_level: 3, python_tracer_level: 1, ..Default::default() };
        let req = profile_request(&opts, "2026_01_01_00_00_00", "w_1", Path::new("/l/plugins/profile"));
        let o = req.opts.as_ref().unwrap();
        assert_eq!((req.duration_ms, o.duration_ms), (1500, 1500));
        assert_eq!((o.version, o.host_tracer_level, o.device_tracer_level, o.python_tracer_level), (1, 3, 1, 1));
        assert!(req.emit_xspace);
        assert_eq!(req.session_id, "2026_01_01_00_00_00");
        assert_eq!(req.repository_root, "/l/plugins/profile");
        assert_eq!(req.tools, ["xplane.pb"]);
    }

    #[test]
    fn raw_response_keeps_the_servers_bytes() {
        use proflens_format::proto::{XPlane, XSpace};
        let space = XSpace {
            planes: vec![XPlane { id: 7, name: "/host:CPU".into(), ..Default::default() }],
            ..Default::default()
        };
        let full =
            crate::proto::ProfileResponse { empty_trace: false, xspace: Some(space.clone()), ..Default::default() };
        let raw = RawProfileResponse::decode(full.encode_to_vec().as_slice()).unwrap();
        assert_eq!(raw.xspace.as_deref(), Some(space.encode_to_vec().as_slice()));
        let none = RawProfileResponse::decode(&[][..]).unwrap();
        assert_eq!(none.xspace, None);
    }

    #[test]
    fn hostname_is_added_only_when_missing() {
        use proflens_format::proto::XSpace;
        let bare = XSpace { warnings: vec!["w".into()], ..Default::default() }.encode_to_vec();
        let named = XSpace::decode(with_hostname(bare, "worker0").unwrap().as_slice()).unwrap();
        assert_eq!((named.hostnames, named.warnings), (vec!["worker0".to_string()], vec!["w".to_string()]));
        let had = XSpace { hostnames: vec!["real".into()], ..Default::default() }.encode_to_vec();
        assert_eq!(with_hostname(had.clone(), "x").unwrap(), had);
        assert!(matches!(with_hostname(vec![0xff, 0xff], "x"), Err(Failure::BadResponse(_))));
    }

    #[test]
    fn which_failures_are_retried() {
        assert!(Failure::Refused.retryable());
        assert!(Failure::Empty.retryable());
        assert!(Failure::Rpc { code: tonic::Code::Internal, message: "busy".into() }.retryable());
        assert!(!Failure::Rpc { code: tonic::Code::Unimplemented, message: String::new() }.retryable());
        assert!(!Failure::SavedRemotely(PathBuf::from("/x")).retryable());
    }

    #[test]
    fn refused_is_found_inside_the_error_chain() {
        #[derive(Debug)]
        struct Wrapper(std::io::Error);
        impl fmt::Display for Wrapper {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("transport error")
            }
        }
        impl std::error::Error for Wrapper {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&self.0)
            }
        }
        let refused = Wrapper(std::io::Error::from(std::io::ErrorKind::ConnectionRefused));
        assert_eq!(connect_failure(&refused), Failure::Refused);
        let other = Wrapper(std::io::Error::other("no route to host"));
        assert_eq!(connect_failure(&other), Failure::Unreachable("no route to host".into()));
    }
}
