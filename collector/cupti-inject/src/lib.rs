//! The CUDA injection library of `proflens-collect run`.
//!
//! With `CUDA_INJECTION64_PATH` pointing at this library, the CUDA driver
//! loads it during `cuInit` and calls [`InitializeInjection`]; we then trace
//! the unmodified program with CUPTI's activity API ([`session`]) and write
//! `<PROFLENS_LOGDIR>/plugins/profile/<run>/<host>.xplane.pb` ([`profile`])
//! at exit or after `PROFLENS_DURATION_MS`. libcupti is loaded at run time
//! ([`cupti`]), so building needs no CUDA.
//!
//! This code runs inside the program being profiled, which comes first: no
//! panic crosses back into C (every entry point, CUPTI callback and exit
//! handler catches them), nothing here exits or aborts, and whatever fails
//! (no libcupti, a CUPTI error, a logdir that cannot be written, a full disk)
//! is one `proflens-collect:` line on the program's stderr. Success is
//! silent: the program's output stays its own. Run on one H200 with CUDA
//! 13.0 (collector/README.md says what); the tests drive it with a stand-in
//! libcupti (tests/fake_cupti.c).

mod cupti;
mod device;
mod dump;
mod profile;
mod session;

use std::sync::atomic::{AtomicBool, Ordering};

/// Set by the first call: the driver calls once per process, but a second
/// call must not register CUPTI's callbacks and exit handler twice.
static INITIALIZED: AtomicBool = AtomicBool::new(false);

/// Called by the CUDA driver. Always reports success: a profiler that cannot
/// trace must say why, never stop the program it was asked to watch.
#[no_mangle]
pub extern "C" fn InitializeInjection() -> i32 {
    if INITIALIZED.swap(true, Ordering::SeqCst) {
        return 1;
    }
    match std::panic::catch_unwind(session::start) {
        Ok(Ok(())) => {}
        Ok(Err(e)) => say(&format!("GPU tracing is off: {e}")),
        Err(_) => say("GPU tracing is off: the injection library failed unexpectedly"),
    }
    1
}

/// One line on the program's stderr. Errors are dropped: the program's
/// stderr may be closed or a pipe nobody reads, and `eprintln!` would panic.
pub(crate) fn say(line: &str) {
    use std::io::Write;
    // One write, so lines of several threads do not interleave.
    let _ = std::io::stderr().write_all(format!("proflens-collect: {line}\n").as_bytes());
}
