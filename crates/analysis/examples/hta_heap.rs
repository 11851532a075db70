//! The heap each HTA-parity analysis of a PyTorch (Kineto) trace holds at
//! its peak beyond the decoded model, in bytes per event of the trace: the
//! measurement behind `passes::kineto::hta`'s working-bytes constants
//! (`cargo run --release -p proflens-analysis --example hta_heap FILE`). A
//! measuring aid, not a test.

use proflens_analysis::passes::kineto::describe::Ties;
use proflens_analysis::passes::kineto::gpu_frame::GpuFrame;
use proflens_analysis::tools::{
    critical_path, idle_time_breakdown, kernel_launch_stats, kernel_sequences, memory_bandwidth, queue_length,
    stragglers,
};
use proflens_format::Limits;
use std::hint::black_box;
use std::sync::atomic::Ordering::Relaxed;

mod counting_alloc;
use counting_alloc::{LIVE, PEAK};

/// Peak heap above what was live when `f` started, and `f`'s result.
fn peak_above<T>(f: impl FnOnce() -> T) -> (usize, T) {
    let base = LIVE.load(Relaxed);
    PEAK.store(base, Relaxed);
    let value = f();
    (PEAK.load(Relaxed).saturating_sub(base), value)
}

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: hta_heap FILE");
        std::process::exit(2);
    };
    let bytes = std::fs::read(&path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(1);
    });
    let profile = proflens_format::load_profile_named(&path, &bytes, &Limits::default(), &mut |_| {}).expect("decodes");
    drop(bytes);
    let events = profile.event_count();
    println!("{events} events, model + rest: {:.1} MiB", LIVE.load(Relaxed) as f64 / 1048576.0);
    let p = &profile;
    let row = |name: &str, peak: usize| {
        println!(
            "{name:<22} peak {:>8.1} MiB  {:>6.1} bytes/event",
            peak as f64 / 1048576.0,
            peak as f64 / events as f64
        )
    };
    // The GPU side's frame is a host's shared pass: its build's peak, what
    // it keeps, then each analysis over it beside it (as the tools run).
    let base = LIVE.load(Relaxed);
    let (peak, frame) = peak_above(|| GpuFrame::new(p));
    row("gpu_frame (build)", peak);
    row("gpu_frame (kept)", LIVE.load(Relaxed).saturating_sub(base));
    let f = &frame;
    let params = kernel_launch_stats::Params::default();
    let ties = Ties::default();
    row("kernel_launch_stats", peak_above(|| black_box(kernel_launch_stats::rank_launches_in(p, f, "h", &params))).0);
    row("idle_time_breakdown", peak_above(|| black_box(idle_time_breakdown::rank_idle_in(p, f, 0, "h", false, 30))).0);
    row("queue_length", peak_above(|| black_box(queue_length::rank_queue_length_in(p, f, "h", false, ties))).0);
    row(
        "memory_bandwidth",
        peak_above(|| black_box(memory_bandwidth::rank_memory_bandwidth_in(p, f, "h", false, ties))).0,
    );
    row("stragglers (map)", peak_above(|| black_box(stragglers::RankSummary::of_frame(0, "h", p, f, false))).0);
    drop(frame);
    row("kernel_sequences", peak_above(|| black_box(kernel_sequences::kernel_sequences(p, "aten::", 2, false))).0);
    row("critical_path (1)", peak_above(|| black_box(critical_path::critical_paths(p, Some(0)))).0);
}
