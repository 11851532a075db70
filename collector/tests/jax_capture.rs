//! End to end against a real profiler server: a JAX job (CPU) with
//! `jax.profiler.start_server` and a jit loop annotated as training steps,
//! captured by the `proflens-collect` binary, read back with Proflens's own
//! decoder and analysis.
//!
//! Needs `python3` with jax (`cargo xtask test` installs it); without it the
//! test fails and says how to install it, it never skips.

use proflens_analysis::passes::host_analysis::HostAnalysis;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// The job: a profiler server and a jit step loop until it is killed.
const JOB: &str = r#"
import sys, time
try:
    import jax, jax.numpy as jnp
except ImportError as e:
    print("NO_JAX", e, flush=True)
    sys.exit(3)
jax.profiler.start_server(int(sys.argv[1]))

@jax.jit
def step(x):
    return jnp.tanh(x @ x) * 0.5

x = jnp.ones((128, 128))
step(x).block_until_ready()  # compile before the capture
print("READY", jax.__version__, flush=True)
i = 0
while True:
    with jax.profiler.StepTraceAnnotation("train", step_num=i):
        x = step(x).block_until_ready()
    i += 1
    time.sleep(0.005)
"#;

/// Kills the job however the test ends.
struct Job(Child);

impl Drop for Job {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Starts the job and waits for its READY line.
fn start_job(port: u16) -> Job {
    let mut child = Command::new("python3")
        .args(["-c", JOB, &port.to_string()])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("python3 runs (the collector's end-to-end test needs python3 with jax)");
    let stdout = child.stdout.take().unwrap();
    let job = Job(child);
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    loop {
        match rx.recv_timeout(Duration::from_secs(120)) {
            Ok(line) if line.starts_with("READY") => {
                eprintln!("job: {line}");
                return job;
            }
            Ok(line) if line.starts_with("NO_JAX") => panic!(
                "python3 has no jax ({line}); `cargo xtask test` installs it, or run \
                 `python3 -m pip install jax==0.10.2`"
            ),
            Ok(_) => continue,
            Err(e) => panic!("the JAX job did not start within 120 s ({e})"),
        }
    }
}

fn capture(port: u16, duration_ms: u64, logdir: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_proflens-collect"));
    cmd.args(["capture", &format!("grpc://127.0.0.1:{port}"), "--retries", "2"])
        .args(["--duration-ms", &duration_ms.to_string()])
        .arg("--logdir")
        .arg(logdir);
    cmd
}

fn temp_logdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("proflens-collect-jax-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn only_file(dir: &Path) -> PathBuf {
    let runs: Vec<_> = std::fs::read_dir(dir.join("plugins/profile")).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(runs.len(), 1, "one run: {runs:?}");
    let files: Vec<_> = std::fs::read_dir(&runs[0]).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(files.len(), 1, "one host file: {files:?}");
    files[0].clone()
}

#[test]
fn captures_a_running_jax_job_with_its_steps() {
    let port = free_port();
    let _job = start_job(port);
    let logdir = temp_logdir("steps");

    let out = capture(port, 2000, &logdir).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprintln!("{stderr}");
    assert!(out.status.success(), "capture failed: {stderr}");

    let file = only_file(&logdir);
    assert_eq!(file.file_name().unwrap().to_str().unwrap(), format!("127.0.0.1_{port}.xplane.pb"));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), file.to_str().unwrap(), "stdout lists the file");
    // The remote path: the server sent the profile in its answer rather than
    // saving it on its own disk (which only works when it is this machine).
    assert!(stderr.contains(": wrote "), "the profile came inline: {stderr}");

    let bytes = std::fs::read(&file).unwrap();
    let profile = proflens_format::load_xspace(&bytes, &Default::default(), &mut |_| {}).expect("Proflens decodes it");
    let host = profile.planes.iter().find(|p| profile.strings.get(p.name) == "/host:CPU").expect("a /host:CPU plane");
    let events: usize = host.lines.iter().map(|l| l.events.len()).sum();
    assert!(events > 100, "host events: {events}");

    let analysis = HostAnalysis::new(&profile);
    let steps = &analysis.steps.steps;
    eprintln!("{} steps, {events} host events, first {:?}", steps.len(), steps.first().map(|s| &s.name));
    // ~2 s of steps of a few ms each; XProf drops the first and last (cut) ones.
    assert!(steps.len() >= 20, "steps found: {}", steps.len());
    let numbers: Vec<i64> = steps
        .iter()
        .map(|s| {
            s.name.strip_prefix("train ").and_then(|n| n.parse().ok()).expect("steps are named `train <step_num>`")
        })
        .collect();
    assert!(numbers.windows(2).all(|w| w[1] == w[0] + 1), "consecutive step numbers: {numbers:?}");
    let overview = proflens_analysis::tools::overview::page_of(&analysis, false);
    assert_eq!(overview.input.steps.len(), steps.len(), "the overview shows the steps");
    assert_eq!(analysis.environment.hostnames.len(), 1);
    std::fs::remove_dir_all(&logdir).unwrap();
}

#[test]
fn ctrl_c_ends_a_long_capture_with_what_was_captured() {
    let port = free_port();
    let _job = start_job(port);
    let logdir = temp_logdir("interrupt");
    let mut collector = capture(port, 120_000, &logdir).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    std::thread::sleep(Duration::from_millis(2500));
    let killed = Command::new("kill").args(["-INT", &collector.id().to_string()]).status().unwrap();
    assert!(killed.success());
    let mut waited = 0;
    let status = loop {
        if let Some(status) = collector.try_wait().unwrap() {
            break status;
        }
        if waited > 300 {
            let _ = collector.kill();
            panic!("the capture did not end within 30 s of Ctrl-C");
        }
        std::thread::sleep(Duration::from_millis(100));
        waited += 1;
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut collector.stderr.take().unwrap(), &mut stderr).unwrap();
    eprintln!("{stderr}");
    assert!(status.success(), "{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    let bytes = std::fs::read(only_file(&logdir)).unwrap();
    let profile = proflens_format::load_xspace(&bytes, &Default::default(), &mut |_| {}).unwrap();
    let steps = HostAnalysis::new(&profile).steps.steps.len();
    assert!(steps >= 5, "the 2.5 s before Ctrl-C hold steps: {steps}");
    std::fs::remove_dir_all(&logdir).unwrap();
}
