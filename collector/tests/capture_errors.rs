//! `capture` against in-process fake profiler servers: the answers a real
//! server gives rarely or only when something is wrong (empty traces, older
//! servers, transient errors), concurrency across workers, and refused ports.

use proflens_collector::capture::{self, CaptureOptions, Delivery, Failure};
use proflens_collector::monitor::{self, MonitorOptions};
use proflens_collector::proto::profiler_service_server::{ProfilerService, ProfilerServiceServer};
use proflens_collector::proto::{
    MonitorRequest, MonitorResponse, ProfileRequest, ProfileResponse, TerminateRequest, TerminateResponse,
};
use proflens_collector::target::Target;
use proflens_format::proto::{XPlane, XSpace};
use prost::Message;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tonic::{Request, Response, Status};

#[derive(Clone, Copy)]
enum Mode {
    /// Answers with an XSpace inline.
    Inline,
    /// Says the trace is empty.
    Empty,
    /// Fails with UNAVAILABLE once, then answers inline.
    FlakyOnce,
    /// Ignores emit_xspace and saves nothing we can see (a remote older server).
    Old,
}

struct Fake {
    mode: Mode,
    calls: Arc<AtomicU32>,
    requests: Arc<Mutex<Vec<ProfileRequest>>>,
    /// When set, every Profile call waits here for the other workers' calls.
    barrier: Option<Arc<tokio::sync::Barrier>>,
}

fn space() -> XSpace {
    XSpace { planes: vec![XPlane { id: 1, name: "/host:CPU".into(), ..Default::default() }], ..Default::default() }
}

#[tonic::async_trait]
impl ProfilerService for Fake {
    async fn profile(&self, request: Request<ProfileRequest>) -> Result<Response<ProfileResponse>, Status> {
        let n = self.calls.fetch_add(1, Ordering::SeqCst);
        self.requests.lock().unwrap().push(request.into_inner());
        if let Some(barrier) = &self.barrier {
            if tokio::time::timeout(Duration::from_secs(10), barrier.wait()).await.is_err() {
                return Err(Status::invalid_argument("the workers were not profiled at the same time"));
            }
        }
        let inline = ProfileResponse { xspace: Some(space()), ..Default::default() };
        match self.mode {
            Mode::Inline => Ok(Response::new(inline)),
            Mode::Empty => Ok(Response::new(ProfileResponse { empty_trace: true, ..Default::default() })),
            Mode::FlakyOnce if n == 0 => Err(Status::unavailable("warming up")),
            Mode::FlakyOnce => Ok(Response::new(inline)),
            Mode::Old => Ok(Response::new(ProfileResponse::default())),
        }
    }

    async fn terminate(&self, _: Request<TerminateRequest>) -> Result<Response<TerminateResponse>, Status> {
        Ok(Response::new(TerminateResponse {}))
    }

    async fn monitor(&self, _: Request<MonitorRequest>) -> Result<Response<MonitorResponse>, Status> {
        Err(Status::unimplemented("unimplemented."))
    }
}

struct Server {
    target: Target,
    calls: Arc<AtomicU32>,
    requests: Arc<Mutex<Vec<ProfileRequest>>>,
}

async fn serve(mode: Mode, barrier: Option<Arc<tokio::sync::Barrier>>) -> Server {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let calls = Arc::new(AtomicU32::new(0));
    let requests = Arc::new(Mutex::new(Vec::new()));
    let fake = Fake { mode, calls: calls.clone(), requests: requests.clone(), barrier };
    tokio::spawn(async move {
        tonic::transport::Server::builder()
            .serve_with_incoming(
                ProfilerServiceServer::new(fake),
                tonic::transport::server::TcpIncoming::from(listener),
            )
            .await
    });
    Server { target: Target { host: "127.0.0.1".into(), port }, calls, requests }
}

fn fast(retries: u32) -> CaptureOptions {
    CaptureOptions { duration_ms: 10, retries, backoff: Duration::from_millis(10), ..Default::default() }
}

fn temp_logdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("proflens-collect-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn quiet() -> capture::Progress {
    Arc::new(|line: &str| eprintln!("{line}"))
}

#[tokio::test]
async fn inline_profiles_of_concurrent_workers_land_in_one_run() {
    let barrier = Arc::new(tokio::sync::Barrier::new(2));
    let a = serve(Mode::Inline, Some(barrier.clone())).await;
    let b = serve(Mode::Inline, Some(barrier)).await;
    let logdir = temp_logdir("concurrent");
    let report = capture::capture_all(&[a.target.clone(), b.target.clone()], &fast(0), &logdir, quiet()).await.unwrap();
    let run_dir = report.run_dir.clone().expect("a run was written");
    for (o, server) in report.outcomes.iter().zip([&a, &b]) {
        let written = o.result.as_ref().unwrap_or_else(|f| panic!("{}: {f}", o.target));
        assert_eq!(written.delivery, Delivery::Inline);
        assert_eq!(written.path, run_dir.join(format!("127.0.0.1_{}.xplane.pb", server.target.port)));
        let saved = XSpace::decode(std::fs::read(&written.path).unwrap().as_slice()).unwrap();
        assert_eq!(saved.planes, space().planes, "the server's planes, untouched");
        assert_eq!(saved.hostnames, ["127.0.0.1"], "the host is named when the server did not");
        let request = &server.requests.lock().unwrap()[0];
        assert!(request.emit_xspace);
        assert_eq!(request.session_id, report.run);
        assert_eq!(request.host_name, format!("127.0.0.1_{}", server.target.port));
    }
    std::fs::remove_dir_all(&logdir).unwrap();
}

#[tokio::test]
async fn empty_captures_are_retried_then_reported_and_leave_no_run() {
    let server = serve(Mode::Empty, None).await;
    let logdir = temp_logdir("empty");
    let report = capture::capture_all(std::slice::from_ref(&server.target), &fast(2), &logdir, quiet()).await.unwrap();
    let outcome = &report.outcomes[0];
    assert_eq!(outcome.result, Err(Failure::Empty));
    assert_eq!((outcome.attempts, server.calls.load(Ordering::SeqCst)), (3, 3));
    assert!(outcome.result.as_ref().unwrap_err().to_string().contains("the capture is empty"));
    assert_eq!(report.run_dir, None);
    let runs = std::fs::read_dir(logdir.join("plugins/profile")).unwrap().count();
    assert_eq!(runs, 0, "no empty run directory is left behind");
    std::fs::remove_dir_all(&logdir).unwrap();
}

#[tokio::test]
async fn a_transient_error_is_retried() {
    let server = serve(Mode::FlakyOnce, None).await;
    let logdir = temp_logdir("flaky");
    let report = capture::capture_all(std::slice::from_ref(&server.target), &fast(1), &logdir, quiet()).await.unwrap();
    assert!(report.outcomes[0].result.is_ok(), "{:?}", report.outcomes[0].result);
    assert_eq!(report.outcomes[0].attempts, 2);
    std::fs::remove_dir_all(&logdir).unwrap();
}

#[tokio::test]
async fn an_older_remote_server_is_explained() {
    let server = serve(Mode::Old, None).await;
    let logdir = temp_logdir("old");
    let report = capture::capture_all(std::slice::from_ref(&server.target), &fast(3), &logdir, quiet()).await.unwrap();
    let failure = report.outcomes[0].result.as_ref().unwrap_err();
    assert!(matches!(failure, Failure::SavedRemotely(_)), "{failure:?}");
    assert!(failure.to_string().contains("too old to send the profile back"), "{failure}");
    assert_eq!(server.calls.load(Ordering::SeqCst), 1, "not retried: it would not change");
    std::fs::remove_dir_all(&logdir).unwrap();
}

#[tokio::test]
async fn a_refused_port_says_so() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let target = Target { host: "127.0.0.1".into(), port };
    let dir = temp_logdir("refused");
    let failure = capture::capture_once(&target, &fast(0), "r", &dir).await.unwrap_err();
    assert_eq!(failure, Failure::Refused);
    assert!(failure.to_string().contains("jax.profiler.start_server"), "{failure}");
}

#[tokio::test]
async fn monitor_unimplemented_points_to_capture() {
    let server = serve(Mode::Inline, None).await;
    let opts = MonitorOptions { interval_ms: 10, level: 1, num_queries: 1, connect_timeout: Duration::from_secs(5) };
    let err = monitor::monitor(&server.target, &opts, &mut |_| panic!("no data expected")).await.unwrap_err();
    assert!(err.contains("does not implement Monitor") && err.contains("capture"), "{err}");
}
