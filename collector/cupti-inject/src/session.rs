//! One tracing session per process: CUPTI hands us activity buffers, we
//! parse them on CUPTI's thread as they complete (so the traced program never
//! waits on us), and at exit (or after the duration) write one XSpace.

use crate::cupti::{BufferCompleted, BufferRequested, Cupti, CUPTI_SUCCESS};
use crate::device;
use proflens_collector::cupti::activity::{self, Activity, MarkerPairs};
use proflens_collector::cupti::{to_xspace, ApiDomain, Capture, Record};
use proflens_collector::logdir;
use prost::Message;
use std::alloc::Layout;
use std::ffi::{c_char, c_void, CStr};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Activity buffers CUPTI fills: big enough that completions are rare.
const BUFFER_SIZE: usize = 8 << 20;
/// CUPTI requires 8-byte aligned buffers.
const BUFFER_ALIGN: usize = 8;
/// What is traced (CUpti_ActivityKind); CONCURRENT_KERNEL, not KERNEL, which serialises kernels.
const KINDS: [(u32, &str); 9] = [
    (activity::kind::CONCURRENT_KERNEL, "CONCURRENT_KERNEL"),
    (activity::kind::MEMCPY, "MEMCPY"),
    (activity::kind::MEMCPY2, "MEMCPY2"),
    (activity::kind::MEMSET, "MEMSET"),
    (activity::kind::DRIVER, "DRIVER"),
    (activity::kind::RUNTIME, "RUNTIME"),
    (activity::kind::OVERHEAD, "OVERHEAD"),
    (activity::kind::SYNCHRONIZATION, "SYNCHRONIZATION"),
    (activity::kind::MARKER, "MARKER"),
];
/// `CUPTI_ACTIVITY_FLAG_FLUSH_FORCED`: also hand over buffers still filling.
const FLUSH_FORCED: u32 = 1;

/// Where the profile goes, from the environment `proflens-collect run` sets.
#[derive(Debug, Clone)]
pub struct Config {
    pub logdir: PathBuf,
    /// Shared by every process of one `run`; None: a new run named by the time.
    pub run: Option<String>,
    pub duration: Option<Duration>,
}

impl Config {
    pub fn from_env() -> Result<Config, String> {
        let logdir = std::env::var_os("PROFLENS_LOGDIR")
            .ok_or("PROFLENS_LOGDIR is not set (start the program with `proflens-collect run --logdir DIR -- …`)")?;
        let duration = match std::env::var("PROFLENS_DURATION_MS") {
            Ok(ms) => Some(Duration::from_millis(
                ms.parse().map_err(|_| format!("PROFLENS_DURATION_MS={ms} is not a number of milliseconds"))?,
            )),
            Err(_) => None,
        };
        Ok(Config { logdir: PathBuf::from(logdir), run: std::env::var("PROFLENS_RUN").ok(), duration })
    }
}

struct Session {
    config: Config,
    start_walltime_ns: u64,
    start_gpu_ns: u64,
    records: Vec<Record>,
    markers: MarkerPairs,
    errors: Vec<String>,
}

static CUPTI: OnceLock<Cupti> = OnceLock::new();
static SESSION: Mutex<Option<Session>> = Mutex::new(None);
static FINISHED: AtomicBool = AtomicBool::new(false);

/// Starts tracing: loads CUPTI, registers the buffers, enables the kinds,
/// and arranges for the profile to be written.
pub fn start() -> Result<(), String> {
    let config = Config::from_env()?;
    let cupti = CUPTI.get_or_init_fallible(Cupti::load)?;
    // SAFETY: the callbacks have the signatures CUPTI expects.
    let r =
        unsafe { (cupti.register_callbacks)(buffer_requested as BufferRequested, buffer_completed as BufferCompleted) };
    if r != CUPTI_SUCCESS {
        return Err(cupti.explain("cuptiActivityRegisterCallbacks", r));
    }
    let mut start_gpu_ns = 0;
    // SAFETY: out-pointer to a local.
    unsafe { (cupti.timestamp)(&mut start_gpu_ns) };
    let start_walltime_ns = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0);
    let mut errors = Vec::new();
    for (kind, name) in KINDS {
        // SAFETY: plain call with an enum value.
        let r = unsafe { (cupti.enable)(kind) };
        if r != CUPTI_SUCCESS {
            let message = cupti.explain(&format!("cuptiActivityEnable({name})"), r);
            if kind == activity::kind::CONCURRENT_KERNEL {
                return Err(message); // without kernels there is nothing worth writing
            }
            eprintln!("proflens-collect: {message}");
            errors.push(message);
        }
    }
    let duration = config.duration;
    *lock() = Some(Session {
        config,
        start_walltime_ns,
        start_gpu_ns,
        records: Vec::new(),
        markers: MarkerPairs::default(),
        errors,
    });
    extern "C" fn at_exit() {
        finish();
    }
    // SAFETY: registering a plain extern "C" function.
    unsafe { atexit(at_exit) };
    if let Some(duration) = duration {
        std::thread::spawn(move || {
            std::thread::sleep(duration);
            finish();
        });
    }
    Ok(())
}

extern "C" {
    fn atexit(callback: extern "C" fn()) -> i32;
}

fn lock() -> std::sync::MutexGuard<'static, Option<Session>> {
    // A panic elsewhere must not stop the profile from being written.
    SESSION.lock().unwrap_or_else(|e| e.into_inner())
}

fn buffer_layout() -> Layout {
    Layout::from_size_align(BUFFER_SIZE, BUFFER_ALIGN).unwrap_or(Layout::new::<u64>())
}

extern "C" fn buffer_requested(buffer: *mut *mut u8, size: *mut usize, max_records: *mut usize) {
    // SAFETY: non-zero size; freed in buffer_completed with the same layout.
    let ptr = unsafe { std::alloc::alloc(buffer_layout()) };
    // SAFETY: CUPTI passes valid out-pointers.
    unsafe {
        *buffer = ptr;
        *size = if ptr.is_null() { 0 } else { buffer_layout().size() };
        *max_records = 0; // as many as fit
    }
}

extern "C" fn buffer_completed(_ctx: *mut c_void, _stream: u32, buffer: *mut u8, _size: usize, valid: usize) {
    if buffer.is_null() {
        return;
    }
    if let Some(cupti) = CUPTI.get() {
        let _ = std::panic::catch_unwind(|| take_records(cupti, buffer, valid));
    }
    // SAFETY: allocated by buffer_requested with this layout.
    unsafe { std::alloc::dealloc(buffer, buffer_layout()) };
}

/// Parses a completed buffer's records into the session.
fn take_records(cupti: &Cupti, buffer: *mut u8, valid: usize) {
    let mut parsed = Vec::new();
    let mut errors = Vec::new();
    let mut record: *mut u8 = std::ptr::null_mut();
    // SAFETY: CUPTI walks its own buffer; it returns an error at the end.
    while unsafe { (cupti.next_record)(buffer, valid, &mut record) } == CUPTI_SUCCESS {
        let offset = (record as usize).wrapping_sub(buffer as usize);
        if record.is_null() || offset >= valid {
            break;
        }
        // SAFETY: every record starts with its u32 kind, inside the buffer.
        let kind = unsafe { (record as *const u32).read_unaligned() };
        let len = activity::record_len(kind).min(valid - offset);
        // SAFETY: `len` bytes from `record` lie inside the valid part of the buffer.
        let bytes = unsafe { std::slice::from_raw_parts(record, len) };
        match activity::parse(bytes, &c_string) {
            Ok(a) => parsed.push(a),
            Err(e) => errors.push(format!("unreadable CUPTI record of kind {kind}: {e}")),
        }
    }
    let mut guard = lock();
    let Some(session) = guard.as_mut() else { return };
    for a in parsed {
        match a {
            Activity::Record(r) => session.records.push(r),
            marker @ (Activity::MarkerStart { .. } | Activity::MarkerEnd { .. }) => {
                if let Some(range) = session.markers.feed(marker) {
                    session.records.push(Record::Nvtx(range));
                }
            }
            Activity::Ignored(_) => {}
        }
    }
    errors.truncate(10);
    session.errors.extend(errors);
}

/// A CUPTI-owned string, copied while CUPTI keeps it alive (during the callback).
fn c_string(ptr: u64) -> Option<String> {
    // SAFETY: CUPTI's name pointers are NUL-terminated strings valid during the callback.
    (ptr != 0).then(|| unsafe { CStr::from_ptr(ptr as usize as *const c_char) }.to_string_lossy().into_owned())
}

/// Stops tracing and writes the profile, once.
pub fn finish() {
    if FINISHED.swap(true, Ordering::SeqCst) {
        return;
    }
    let Some(cupti) = CUPTI.get() else { return };
    let mut end_gpu_ns = 0;
    let mut dropped = 0usize;
    // SAFETY: plain calls with out-pointers to locals; the flush calls buffer_completed.
    unsafe {
        (cupti.timestamp)(&mut end_gpu_ns);
        for (kind, _) in KINDS {
            (cupti.disable)(kind);
        }
        (cupti.flush_all)(FLUSH_FORCED);
        (cupti.dropped_records)(std::ptr::null_mut(), 0, &mut dropped);
    }
    let Some(session) = lock().take() else { return };
    match write(cupti, session, end_gpu_ns, dropped as u64) {
        Ok(path) => eprintln!("proflens-collect: wrote {}", path.display()),
        Err(e) => eprintln!("proflens-collect: no GPU profile written: {e}"),
    }
}

fn write(cupti: &Cupti, session: Session, end_gpu_ns: u64, dropped: u64) -> Result<PathBuf, String> {
    let mut records = session.records;
    for r in &mut records {
        if let Record::Api(a) = r {
            let domain = if a.domain == ApiDomain::Driver { 1 } else { 2 };
            a.name = cupti.callback_name(domain, a.cbid).unwrap_or_else(|| format!("CUDA API {}", a.cbid));
        }
    }
    activity::resolve_sync_devices(&mut records);
    let mut errors = session.errors;
    let devices = device::query().unwrap_or_else(|e| {
        errors.push(format!("GPU capabilities unknown: {e}"));
        Vec::new()
    });
    let host = host_name();
    let capture = Capture {
        records,
        start_walltime_ns: session.start_walltime_ns,
        start_gpu_ns: session.start_gpu_ns,
        end_gpu_ns,
        dropped_records: dropped,
        errors,
    };
    let bytes = to_xspace(&capture, &devices, &host).encode_to_vec();
    let config = session.config;
    let run_dir = match &config.run {
        Some(run) => {
            let dir = config.logdir.join(logdir::PROFILE_DIR).join(run);
            std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            dir
        }
        None => logdir::create_run_dir(&config.logdir, &logdir::run_name(SystemTime::now()))?.1,
    };
    // Several processes of one run (one per GPU) share the run: the later ones add their pid.
    let file_host = if run_dir.join(format!("{host}{}", logdir::XSPACE_SUFFIX)).exists() {
        format!("{host}_{}", std::process::id())
    } else {
        host
    };
    logdir::write_host_file(&run_dir, &file_host, &bytes)
}

fn host_name() -> String {
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    let name: String =
        name.trim().chars().filter(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_')).collect();
    if name.is_empty() {
        "localhost".to_string()
    } else {
        name
    }
}

/// `OnceLock::get_or_try_init` is not stable yet.
trait GetOrInitFallible<T> {
    fn get_or_init_fallible(&self, f: impl FnOnce() -> Result<T, String>) -> Result<&T, String>;
}

impl<T> GetOrInitFallible<T> for OnceLock<T> {
    fn get_or_init_fallible(&self, f: impl FnOnce() -> Result<T, String>) -> Result<&T, String> {
        if let Some(v) = self.get() {
            return Ok(v);
        }
        let value = f()?;
        Ok(self.get_or_init(|| value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_names_are_safe_file_names() {
        let h = host_name();
        assert!(!h.is_empty() && h.chars().all(|c| c.is_ascii_alphanumeric() || ".-_".contains(c)), "{h}");
    }

    #[test]
    fn buffers_are_aligned_as_cupti_requires() {
        let (mut buf, mut size, mut max) = (std::ptr::null_mut(), 0usize, 7usize);
        buffer_requested(&mut buf, &mut size, &mut max);
        assert!(!buf.is_null());
        assert_eq!((buf as usize % 8, size, max), (0, BUFFER_SIZE, 0));
        // Without CUPTI loaded the completion only frees the buffer.
        buffer_completed(std::ptr::null_mut(), 0, buf, size, 0);
    }
}
