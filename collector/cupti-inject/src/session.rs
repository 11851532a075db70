//! One tracing session per process: CUPTI hands us activity buffers, we
//! parse them on CUPTI's thread as they complete (so the traced program never
//! waits on us), and at exit (or after the duration) write one XSpace
//! ([`crate::profile`]).
//!
//! Every function CUPTI or the C library calls back (`buffer_requested`,
//! `buffer_completed`, the exit handler) catches panics or cannot panic, and
//! the exit handler never waits without a bound: the program's exit must not
//! turn into an abort or a hang because of us.

use crate::cupti::{BufferCompleted, BufferRequested, Cupti, CUPTI_SUCCESS};
use crate::{dump, profile, say};
use proflens_collector::cupti::activity::{self, Activity, MarkerPairs};
use proflens_collector::cupti::Record;
use std::alloc::Layout;
use std::ffi::{c_char, c_void, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock, TryLockError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

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
/// The longest the exit handler waits, for the session or for a write the
/// duration timer began: a stuck writer delays the program's exit by this
/// much at worst, never forever.
const EXIT_WAIT: Duration = Duration::from_secs(10);

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

/// What has been traced so far.
pub struct Session {
    pub config: Config,
    pub start_walltime_ns: u64,
    pub start_gpu_ns: u64,
    pub records: Vec<Record>,
    markers: MarkerPairs,
    pub errors: Vec<String>,
}

static CUPTI: OnceLock<Cupti> = OnceLock::new();
static SESSION: Mutex<Option<Session>> = Mutex::new(None);

/// Where the one write of the profile is: not begun, under way, over.
static FINISH: AtomicU8 = AtomicU8::new(NOT_BEGUN);
const NOT_BEGUN: u8 = 0;
const WRITING: u8 = 1;
const DONE: u8 = 2;

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
            say(&message);
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
    // SAFETY: registering a plain extern "C" function that catches its panics.
    if unsafe { atexit(at_exit) } != 0 {
        say("cannot register the exit handler: the GPU profile is written only with PROFLENS_DURATION_MS");
    }
    if let Some(duration) = duration {
        // Builder, not thread::spawn, which panics when no thread can be made.
        let timer = std::thread::Builder::new().name("proflens-duration".into()).spawn(move || {
            std::thread::sleep(duration);
            finish();
        });
        if let Err(e) = timer {
            say(&format!("cannot start the duration timer ({e}); the GPU profile is written at exit"));
        }
    }
    Ok(())
}

extern "C" {
    fn atexit(callback: extern "C" fn()) -> i32;
}

/// Run by `exit()`. If the duration timer is already writing, waits (a
/// bounded time) for it: returning would end the process mid-write.
extern "C" fn at_exit() {
    if FINISH.compare_exchange(NOT_BEGUN, WRITING, Ordering::SeqCst, Ordering::SeqCst).is_ok() {
        finish_now();
        return;
    }
    let deadline = Instant::now() + EXIT_WAIT;
    while FINISH.load(Ordering::SeqCst) != DONE {
        if Instant::now() > deadline {
            say("the GPU profile was still being written when the program exited; it is missing");
            return;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Stops tracing and writes the profile, once (the duration timer's call).
pub fn finish() {
    if FINISH.compare_exchange(NOT_BEGUN, WRITING, Ordering::SeqCst, Ordering::SeqCst).is_ok() {
        finish_now();
    }
}

fn finish_now() {
    match catch_unwind(flush_and_write) {
        Ok(Ok(())) => {}
        Ok(Err(e)) => say(&format!("no GPU profile written: {e}")),
        Err(_) => say("no GPU profile written: the injection library failed unexpectedly"),
    }
    FINISH.store(DONE, Ordering::SeqCst);
}

fn flush_and_write() -> Result<(), String> {
    let Some(cupti) = CUPTI.get() else { return Ok(()) };
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
    let session = lock_within(EXIT_WAIT)
        .ok_or_else(|| format!("the trace was still being read after {} s", EXIT_WAIT.as_secs()))?
        .take();
    let Some(session) = session else { return Ok(()) };
    profile::write(cupti, session, end_gpu_ns, dropped as u64).map(|_| ())
}

fn lock() -> MutexGuard<'static, Option<Session>> {
    // A panic elsewhere must not stop the profile from being written.
    SESSION.lock().unwrap_or_else(|e| e.into_inner())
}

/// The session, unless another thread holds it for longer than `limit`.
fn lock_within(limit: Duration) -> Option<MutexGuard<'static, Option<Session>>> {
    let deadline = Instant::now() + limit;
    loop {
        match SESSION.try_lock() {
            Ok(guard) => return Some(guard),
            Err(TryLockError::Poisoned(e)) => return Some(e.into_inner()),
            Err(TryLockError::WouldBlock) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(1)),
            Err(TryLockError::WouldBlock) => return None,
        }
    }
}

fn buffer_layout() -> Layout {
    Layout::from_size_align(BUFFER_SIZE, BUFFER_ALIGN).unwrap_or(Layout::new::<u64>())
}

/// CUPTI asks for a buffer. Nothing here can panic: no unwrap, and a failed
/// allocation is a null buffer of size 0, which CUPTI takes as "none".
extern "C" fn buffer_requested(buffer: *mut *mut u8, size: *mut usize, max_records: *mut usize) {
    if buffer.is_null() || size.is_null() || max_records.is_null() {
        return;
    }
    // SAFETY: non-zero size; freed in buffer_completed with the same layout.
    let ptr = unsafe { std::alloc::alloc(buffer_layout()) };
    // SAFETY: checked non-null above; CUPTI passes out-pointers.
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
        if catch_unwind(AssertUnwindSafe(|| take_records(cupti, buffer, valid))).is_err() {
            say("a CUPTI activity buffer could not be read; its records are missing from the profile");
        }
    }
    // SAFETY: allocated by buffer_requested with this layout.
    unsafe { std::alloc::dealloc(buffer, buffer_layout()) };
}

/// Parses a completed buffer's records into the session.
fn take_records(cupti: &Cupti, buffer: *mut u8, valid: usize) {
    let mut offsets = Vec::new();
    let mut record: *mut u8 = std::ptr::null_mut();
    // SAFETY: CUPTI walks its own buffer; it returns an error at the end.
    while unsafe { (cupti.next_record)(buffer, valid, &mut record) } == CUPTI_SUCCESS {
        let offset = (record as usize).wrapping_sub(buffer as usize);
        if record.is_null() || offset >= valid {
            break;
        }
        offsets.push(offset);
    }
    let dumping = dump::enabled();
    if dumping {
        // The bytes first, before anything reads through their pointers.
        dump_records(buffer, valid, &offsets);
    }
    let mut parsed = Vec::new();
    let mut errors = Vec::new();
    for &offset in &offsets {
        // SAFETY: every record starts with its u32 kind, inside the buffer.
        let kind = unsafe { (buffer.add(offset) as *const u32).read_unaligned() };
        let len = activity::record_len(kind).min(valid - offset);
        // SAFETY: `len` bytes from the record lie inside the valid part of the buffer.
        let bytes = unsafe { std::slice::from_raw_parts(buffer.add(offset), len) };
        match activity::parse(bytes, &c_string) {
            Ok(a) => parsed.push(a),
            Err(e) => errors.push(format!("unreadable CUPTI record of kind {kind}: {e}")),
        }
    }
    if dumping {
        dump_strings(buffer, valid, &offsets);
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

/// Each record's bytes, from its start to the next record's, in order.
fn record_slices<'a>(buffer: *mut u8, valid: usize, offsets: &'a [usize]) -> impl Iterator<Item = &'a [u8]> + 'a {
    offsets.iter().enumerate().map(move |(i, &start)| {
        let end = offsets.get(i + 1).copied().unwrap_or(valid).clamp(start, valid);
        // SAFETY: start..end lies inside the valid part of the buffer, alive during the callback.
        unsafe { std::slice::from_raw_parts(buffer.add(start), end - start) }
    })
}

/// Each record's whole bytes, for `PROFLENS_CUPTI_DUMP`.
fn dump_records(buffer: *mut u8, valid: usize, offsets: &[usize]) {
    let mut out = Vec::new();
    for bytes in record_slices(buffer, valid, offsets) {
        dump::encode_record(bytes, &mut out);
    }
    dump::append(&out);
}

/// The names the records point at, read while CUPTI keeps them alive.
fn dump_strings(buffer: *mut u8, valid: usize, offsets: &[usize]) {
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for bytes in record_slices(buffer, valid, offsets) {
        let word = |at: usize| bytes.get(at..at + 4).and_then(|b| b.try_into().ok()).map(u32::from_ne_bytes);
        let (kind, flags) = (word(0).unwrap_or(0), word(4).unwrap_or(0));
        for &at in name_offsets(kind, flags) {
            let Some(ptr) = bytes.get(at..at + 8).and_then(|b| b.try_into().ok()).map(u64::from_ne_bytes) else {
                continue;
            };
            if seen.insert(ptr) {
                if let Some(text) = c_string(ptr) {
                    dump::encode_string(ptr, &text, &mut out);
                }
            }
        }
    }
    dump::append(&out);
}

/// `CUPTI_ACTIVITY_FLAG_MARKER_START`.
const MARKER_START: u32 = 1 << 1;

/// Where `activity::parse` reads name pointers, per kind.
fn name_offsets(kind: u32, flags: u32) -> &'static [usize] {
    match kind {
        activity::kind::KERNEL | activity::kind::CONCURRENT_KERNEL => &[104],
        // Only a start marker names its range (an end marker's names are null).
        activity::kind::MARKER if flags & MARKER_START != 0 => &[40, 48],
        _ => &[],
    }
}

/// A CUPTI-owned string, copied while CUPTI keeps it alive (during the callback).
fn c_string(ptr: u64) -> Option<String> {
    // SAFETY: CUPTI's name pointers are NUL-terminated strings valid during the callback.
    (ptr != 0).then(|| unsafe { CStr::from_ptr(ptr as usize as *const c_char) }.to_string_lossy().into_owned())
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
    fn buffers_are_aligned_as_cupti_requires() {
        let (mut buf, mut size, mut max) = (std::ptr::null_mut(), 0usize, 7usize);
        buffer_requested(&mut buf, &mut size, &mut max);
        assert!(!buf.is_null());
        assert_eq!((buf as usize % 8, size, max), (0, BUFFER_SIZE, 0));
        // Without CUPTI loaded the completion only frees the buffer.
        buffer_completed(std::ptr::null_mut(), 0, buf, size, 0);
        // Null out-pointers are refused, not written through.
        buffer_requested(std::ptr::null_mut(), std::ptr::null_mut(), std::ptr::null_mut());
    }

    #[test]
    fn a_busy_session_is_given_up_on_after_the_limit() {
        let held = lock();
        let started = Instant::now();
        assert!(lock_within(Duration::from_millis(30)).is_none());
        assert!(started.elapsed() >= Duration::from_millis(30));
        drop(held);
        assert!(lock_within(Duration::from_millis(30)).is_some());
    }
}
