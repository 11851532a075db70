//! The CUDA injection library of `proflens-collect run`.
//!
//! With `CUDA_INJECTION64_PATH` pointing at this library, the CUDA driver
//! loads it during `cuInit` and calls [`InitializeInjection`]; we then trace
//! the unmodified program with CUPTI's activity API ([`session`]) and write
//! `<PROFLENS_LOGDIR>/plugins/profile/<run>/<host>.xplane.pb` at exit or after
//! `PROFLENS_DURATION_MS`. libcupti is loaded at run time ([`cupti`]), so
//! building needs no CUDA.

mod cupti;
mod device;
mod session;

/// Called by the CUDA driver. Always reports success: a profiler that cannot
/// trace must say why, never stop the program it was asked to watch.
#[no_mangle]
pub extern "C" fn InitializeInjection() -> i32 {
    match std::panic::catch_unwind(session::start) {
        Ok(Ok(())) => eprintln!("proflens-collect: tracing the GPU with CUPTI"),
        Ok(Err(e)) => eprintln!("proflens-collect: GPU tracing is off: {e}"),
        Err(_) => eprintln!("proflens-collect: GPU tracing is off: the injection library failed unexpectedly"),
    }
    1
}
