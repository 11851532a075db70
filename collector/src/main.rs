//! The `proflens-collect` command.

use clap::{Parser, Subcommand};
use proflens_collector::capture::{self, CaptureOptions};
use proflens_collector::monitor::{self, MonitorOptions};
use proflens_collector::run::{self as traced, RunOptions};
use proflens_collector::{index, target};
use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Parser)]
#[command(
    name = "proflens-collect",
    version,
    about = "Captures TensorFlow/JAX profiles into a logdir Proflens and XProf read."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Profiles running jobs (jax.profiler.start_server / tf.profiler.experimental.server.start).
    Capture {
        /// Profiler servers: grpc://HOST:PORT, several separated by commas or spaces.
        #[arg(required = true)]
        servers: Vec<String>,
        /// How long to profile.
        #[arg(long, default_value_t = 2000)]
        duration_ms: u64,
        /// Where to write LOGDIR/plugins/profile/<run>/<host>.xplane.pb.
        #[arg(long)]
        logdir: PathBuf,
        /// 0 off, 1 user annotations, 2 + high-level runtime ops, 3 verbose.
        #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(0..=3))]
        host_tracer_level: u32,
        /// 0 off, 1 on (GPU kernels, memcpys).
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(0..=1))]
        device_tracer_level: u32,
        /// 0 off, 1 Python function calls.
        #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=1))]
        python_tracer_level: u32,
        /// Wait this long before profiling.
        #[arg(long, default_value_t = 0)]
        delay_ms: u64,
        /// Further attempts per server after one that failed for a reason that may pass.
        #[arg(long, default_value_t = 3)]
        retries: u32,
    },
    /// Shows a profiler server's utilisation (the Monitor RPC).
    Monitor {
        /// The profiler server: grpc://HOST:PORT.
        server: String,
        /// Each query observes the job for this long.
        #[arg(long, default_value_t = 1000)]
        interval_ms: u64,
        /// 1: utilisation; 2: plus device and step-time information.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(i32).range(1..=2))]
        level: i32,
        /// How many queries.
        #[arg(long, default_value_t = 1)]
        num_queries: u32,
    },
    /// Writes LOGDIR/proflens-index.json listing the logdir's runs and hosts.
    Index { logdir: PathBuf },
    /// Runs a CUDA program traced with CUPTI (no change to the program needed).
    Run {
        /// Where to write LOGDIR/plugins/profile/<run>/<host>.xplane.pb.
        #[arg(long)]
        logdir: PathBuf,
        /// Stop tracing after this long (default: when the program exits).
        #[arg(long)]
        duration_ms: Option<u64>,
        /// The program and its arguments, after `--` (passed on byte for byte).
        #[arg(last = true, required = true)]
        command: Vec<OsString>,
    },
}

fn main() -> ExitCode {
    match run(Cli::parse().command) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("proflens-collect: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(command: Command) -> Result<ExitCode, String> {
    match command {
        Command::Capture {
            servers,
            duration_ms,
            logdir,
            host_tracer_level,
            device_tracer_level,
            python_tracer_level,
            delay_ms,
            retries,
        } => {
            let targets = target::parse_targets(&servers)?;
            let opts = CaptureOptions {
                duration_ms,
                host_tracer_level,
                device_tracer_level,
                python_tracer_level,
                delay_ms,
                retries,
                stop_on_ctrl_c: true,
                ..Default::default()
            };
            let started = Instant::now();
            let progress: capture::Progress =
                Arc::new(move |line: &str| eprintln!("[{:6.1} s] {line}", started.elapsed().as_secs_f64()));
            let report = runtime()?.block_on(capture::capture_all(&targets, &opts, &logdir, progress))?;
            let failed: Vec<_> = report.outcomes.iter().filter(|o| o.result.is_err()).collect();
            for o in &report.outcomes {
                if let Ok(w) = &o.result {
                    println!("{}", w.path.display());
                }
            }
            if report.run_dir.is_some() && logdir.join(index::INDEX_FILE).exists() {
                // Keep an index the user created current with the new run.
                index::write(&logdir)?;
            }
            if failed.is_empty() {
                return Ok(ExitCode::SUCCESS);
            }
            for o in &failed {
                if let Err(f) = &o.result {
                    eprintln!("proflens-collect: {}: {f} (after {} attempt(s))", o.target, o.attempts);
                }
            }
            eprintln!("proflens-collect: {} of {} server(s) failed", failed.len(), report.outcomes.len());
            Ok(ExitCode::FAILURE)
        }
        Command::Monitor { server, interval_ms, level, num_queries } => {
            let targets = target::parse_targets(&[server])?;
            let [target] = targets.as_slice() else {
                return Err("monitor queries one server at a time".to_string());
            };
            let opts = MonitorOptions { interval_ms, level, num_queries, connect_timeout: Duration::from_secs(10) };
            runtime()?.block_on(monitor::monitor(target, &opts, &mut |text| println!("{text}")))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Run { logdir, duration_ms, command } => {
            // Everything `run` says goes to stderr, so the program's stdout is its own.
            let opts = RunOptions { logdir, duration_ms, library: None };
            Ok(ExitCode::from(traced::run(&opts, &command, &say)))
        }
        Command::Index { logdir } => {
            let (path, index) = index::write(&logdir)?;
            let hosts: usize = index.runs.iter().map(|r| r.hosts.len()).sum();
            eprintln!("{}: {} run(s), {hosts} host file(s)", path.display(), index.runs.len());
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// One line on stderr, in one write; a closed or broken stderr is not worth
/// a panic (and for `run`, not worth replacing the program's exit code with ours).
fn say(line: &str) {
    let _ = std::io::stderr().write_all(format!("proflens-collect: {line}\n").as_bytes());
}

/// One thread is plenty: the work is waiting on the network.
fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| format!("cannot start: {e}"))
}
