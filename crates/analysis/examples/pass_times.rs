//! Times each shared pass behind the step tools on one profile file, best
//! of N runs each (`cargo run --release -p proflens-analysis --example
//! pass_times FILE [N]`). A measuring aid for speed work, not a test: the
//! numbers depend on the machine and its load. Each row gives the best wall
//! time and the best CPU time (Linux: the thread's schedstat), which a busy
//! machine disturbs far less than the wall time, and the heap: what each
//! result holds once built and the peak while it is built.

use proflens_analysis::hlo::gpu::GpuHlo;
use proflens_analysis::passes::{
    device_env::DeviceEnv, duty_cycle, grouping, host_analysis::HostAnalysis, kernels, op_metrics,
    performance_counters, run_environment, steps,
};
use proflens_format::Limits;
use std::hint::black_box;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Instant;

mod counting_alloc;
use counting_alloc::{LIVE, PEAK};

/// MiB of heap now, and the peak since the last call.
fn heap() -> String {
    let (live, peak) = (LIVE.load(Relaxed), PEAK.swap(LIVE.load(Relaxed), Relaxed));
    format!("heap {:>7.1} MiB, peak {:>7.1} MiB", live as f64 / 1048576.0, peak as f64 / 1048576.0)
}

/// Time this thread has run on a CPU, ns (None off Linux).
fn cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// (best wall ms, best CPU ms) over the runs.
#[derive(Clone, Copy)]
struct Ms(f64, f64);

impl std::fmt::Display for Ms {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:>9.1} ms wall {:>9.1} ms cpu", self.0, self.1)
    }
}

fn best<T>(runs: u32, mut f: impl FnMut() -> T) -> (Ms, T) {
    let (mut wall, mut cpu) = (f64::INFINITY, f64::INFINITY);
    let mut last = None;
    for _ in 0..runs {
        let (start, cpu_start) = (Instant::now(), cpu_ns());
        let value = f();
        wall = wall.min(start.elapsed().as_secs_f64() * 1000.0);
        if let (Some(a), Some(b)) = (cpu_start, cpu_ns()) {
            cpu = cpu.min(b.saturating_sub(a) as f64 / 1e6);
        }
        last = Some(value);
    }
    (Ms(wall, cpu), last.expect("at least one run"))
}

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: pass_times FILE [RUNS]");
        std::process::exit(2);
    };
    let runs: u32 = args.next().and_then(|n| n.parse().ok()).unwrap_or(3).max(1);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(1);
    });
    println!("{:<24} {}", "file read", heap());
    let (ms, profile) = best(runs, || {
        proflens_format::load_profile_named(&path, &bytes, &Limits::default(), &mut |_| {}).expect("decodes")
    });
    println!("{:<24} {ms}   ({} events)", "decode", profile.event_count());
    println!("{:<24} {}", "  after decode", heap());
    let (ms, hlo) = best(runs, || proflens_format::hlo::hlo_modules(&profile));
    println!("{:<24} {ms}", "hlo");
    let gpu_hlo = GpuHlo::new(&hlo.modules);
    let (ms, grouping) = best(runs, || grouping::group_events(&profile));
    println!("{:<24} {ms}", "grouping");
    println!("{:<24} {}", "  after grouping", heap());
    let row = |name: &str, ms: Ms| println!("{name:<24} {ms}");
    row("step_db", best(runs, || black_box(steps::step_db(&profile, &grouping, true))).0);
    println!("{:<24} {}", "  after step_db", heap());
    row("host_op_metrics", best(runs, || black_box(op_metrics::host_op_metrics(&profile, &grouping))).0);
    row(
        "device_op_metrics",
        best(runs, || black_box(op_metrics::device_op_metrics_with_hlo(&profile, &grouping, &gpu_hlo))).0,
    );
    row("kernel_stats", best(runs, || black_box(kernels::kernel_stats_with_hlo(&profile, &gpu_hlo))).0);
    row("duty_cycle", best(runs, || black_box(duty_cycle::duty_cycle(&profile))).0);
    row("performance_counters", best(runs, || black_box(performance_counters::performance_counters(&profile))).0);
    row("run_environment", best(runs, || black_box(run_environment::run_environment(&profile))).0);
    row("device_env", best(runs, || black_box(DeviceEnv::of(&profile))).0);
    row(
        "host_analysis (all)",
        best(runs, || black_box(HostAnalysis::of(&profile, &grouping, &gpu_hlo, &hlo.modules))).0,
    );
    let analysis = HostAnalysis::of(&profile, &grouping, &gpu_hlo, &hlo.modules);
    println!("{:<24} {}", "  host_analysis kept", heap());
    drop((analysis, grouping));
    println!("{:<24} {}", "  model only", heap());
}
