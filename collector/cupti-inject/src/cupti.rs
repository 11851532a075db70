//! libcupti, loaded at run time (no CUDA needed to build), and what its
//! error codes mean for the user.

use libloading::{Library, Symbol};
use std::ffi::{c_char, c_void, CStr};

/// `CUptiResult`.
pub type CuptiResult = u32;
pub const CUPTI_SUCCESS: CuptiResult = 0;

pub type BufferRequested = extern "C" fn(buffer: *mut *mut u8, size: *mut usize, max_records: *mut usize);
pub type BufferCompleted =
    extern "C" fn(context: *mut c_void, stream_id: u32, buffer: *mut u8, size: usize, valid_size: usize);

/// The CUPTI entry points used, resolved once.
pub struct Cupti {
    pub register_callbacks: unsafe extern "C" fn(BufferRequested, BufferCompleted) -> CuptiResult,
    pub enable: unsafe extern "C" fn(kind: u32) -> CuptiResult,
    pub disable: unsafe extern "C" fn(kind: u32) -> CuptiResult,
    pub next_record: unsafe extern "C" fn(*mut u8, usize, *mut *mut u8) -> CuptiResult,
    pub dropped_records: unsafe extern "C" fn(*mut c_void, u32, *mut usize) -> CuptiResult,
    pub flush_all: unsafe extern "C" fn(flag: u32) -> CuptiResult,
    pub timestamp: unsafe extern "C" fn(*mut u64) -> CuptiResult,
    result_string: unsafe extern "C" fn(CuptiResult, *mut *const c_char) -> CuptiResult,
    /// Absent before CUDA 11.x; API calls are then named by their callback id.
    callback_name: Option<unsafe extern "C" fn(u32, u32, *mut *const c_char) -> CuptiResult>,
    /// Kept loaded for the life of the process (the symbols point into it).
    _library: Library,
}

/// Where CUPTI usually is. `PROFLENS_CUPTI_PATH`, when set, is the only
/// place tried: a wrong one is said, not quietly replaced by another CUPTI.
fn candidates() -> Vec<String> {
    if let Some(p) = std::env::var_os("PROFLENS_CUPTI_PATH") {
        return vec![p.to_string_lossy().into_owned()];
    }
    let mut paths = Vec::new();
    paths.extend(["libcupti.so", "libcupti.so.13", "libcupti.so.12", "libcupti.so.11.8"].map(String::from));
    for home in ["CUDA_HOME", "CUDA_PATH"].iter().filter_map(|v| std::env::var(v).ok()) {
        paths.push(format!("{home}/extras/CUPTI/lib64/libcupti.so"));
    }
    paths.push("/usr/local/cuda/extras/CUPTI/lib64/libcupti.so".to_string());
    paths
}

impl Cupti {
    /// Loads libcupti, or says where it looked and how to point at it.
    pub fn load() -> Result<Cupti, String> {
        Cupti::load_from(&candidates())
    }

    fn load_from(tried: &[String]) -> Result<Cupti, String> {
        let mut last = String::new();
        for path in tried {
            // SAFETY: loading CUPTI runs its initialisers, which is what loading it is for.
            match unsafe { Library::new(path) } {
                Ok(lib) => return Cupti::resolve(lib).map_err(|e| format!("{path}: {e}")),
                Err(e) => last = e.to_string(),
            }
        }
        Err(format!(
            "CUPTI (libcupti.so) was not found (tried {}; last error: {last}). Install the CUDA toolkit's \
             CUPTI, or set PROFLENS_CUPTI_PATH to its libcupti.so (usually \
             $CUDA_HOME/extras/CUPTI/lib64/libcupti.so)",
            tried.join(", ")
        ))
    }

    fn resolve(lib: Library) -> Result<Cupti, String> {
        fn get<T: Copy>(lib: &Library, name: &[u8]) -> Result<T, String> {
            // SAFETY: each symbol is requested with the signature cupti_activity.h /
            // cupti_callbacks.h / cupti_result.h give it.
            let symbol: Symbol<T> = unsafe { lib.get(name) }.map_err(|e| e.to_string())?;
            Ok(*symbol)
        }
        Ok(Cupti {
            register_callbacks: get(&lib, b"cuptiActivityRegisterCallbacks\0")?,
            enable: get(&lib, b"cuptiActivityEnable\0")?,
            disable: get(&lib, b"cuptiActivityDisable\0")?,
            next_record: get(&lib, b"cuptiActivityGetNextRecord\0")?,
            dropped_records: get(&lib, b"cuptiActivityGetNumDroppedRecords\0")?,
            flush_all: get(&lib, b"cuptiActivityFlushAll\0")?,
            timestamp: get(&lib, b"cuptiGetTimestamp\0")?,
            result_string: get(&lib, b"cuptiGetResultString\0")?,
            callback_name: get(&lib, b"cuptiGetCallbackName\0").ok(),
            _library: lib,
        })
    }

    /// CUPTI's name for a result (`CUPTI_ERROR_INSUFFICIENT_PRIVILEGES`…).
    pub fn result_name(&self, result: CuptiResult) -> String {
        let mut text: *const c_char = std::ptr::null();
        // SAFETY: CUPTI writes a pointer to a static string.
        let ok = unsafe { (self.result_string)(result, &mut text) } == CUPTI_SUCCESS && !text.is_null();
        if ok {
            // SAFETY: non-null, NUL-terminated, static.
            unsafe { CStr::from_ptr(text) }.to_string_lossy().into_owned()
        } else {
            format!("CUPTI error {result}")
        }
    }

    /// The API function of a callback id (`cudaLaunchKernel`…); domain 1 driver, 2 runtime.
    pub fn callback_name(&self, domain: u32, cbid: u32) -> Option<String> {
        let f = self.callback_name?;
        let mut text: *const c_char = std::ptr::null();
        // SAFETY: CUPTI writes a pointer to a static string.
        let ok = unsafe { f(domain, cbid, &mut text) } == CUPTI_SUCCESS && !text.is_null();
        // SAFETY: non-null, NUL-terminated, static.
        ok.then(|| unsafe { CStr::from_ptr(text) }.to_string_lossy().into_owned())
    }

    /// A failed call as a sentence with the fix, when there is a known one.
    pub fn explain(&self, call: &str, result: CuptiResult) -> String {
        explain(call, &self.result_name(result))
    }
}

/// `call` failed with the CUPTI result named `name`: what to do about it.
pub fn explain(call: &str, name: &str) -> String {
    let hint = if name.contains("INSUFFICIENT_PRIVILEGES") {
        " — this user may not trace the GPU. Run as root, or allow it for everyone: \
         `echo 'options nvidia NVreg_RestrictProfilingToAdminUsers=0' > /etc/modprobe.d/nvidia-profiling.conf` \
         and reboot (or reload the nvidia module); in a container, start it with --cap-add SYS_ADMIN \
         (or --privileged)"
    } else if name.contains("MULTIPLE_SUBSCRIBERS") || name.contains("NOT_INITIALIZED") {
        " — CUPTI is already in use in this process (Nsight Systems, TensorFlow/JAX's own GPU profiler or \
         PyTorch's profiler); only one tool can trace at a time, so stop the other one"
    } else if name.contains("NOT_COMPATIBLE") || name.contains("NOT_SUPPORTED") {
        " — this CUPTI does not match the driver or GPU; use the CUPTI of the CUDA version the driver supports"
    } else {
        ""
    };
    format!("{call} failed with {name}{hint}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_come_with_their_fix() {
        let e = explain("cuptiActivityEnable(KERNEL)", "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES");
        assert!(e.contains("NVreg_RestrictProfilingToAdminUsers=0") && e.contains("SYS_ADMIN"), "{e}");
        let e = explain("cuptiActivityRegisterCallbacks", "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED");
        assert!(e.contains("already in use"), "{e}");
        assert_eq!(explain("x", "CUPTI_ERROR_UNKNOWN"), "x failed with CUPTI_ERROR_UNKNOWN");
    }

    #[test]
    fn a_missing_cupti_names_the_fix() {
        let Err(err) = Cupti::load_from(&["/nonexistent/libcupti.so".to_string()]) else {
            panic!("a library that does not exist loaded")
        };
        assert!(err.contains("/nonexistent/libcupti.so") && err.contains("PROFLENS_CUPTI_PATH"), "{err}");
    }
}
