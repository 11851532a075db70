//! Signals sent to `proflens-collect run` while its program runs. The
//! collector must outlive the program (to pass on its exit status and report
//! its profile), and the program must get each signal once:
//!
//! * SIGTERM and SIGHUP are passed on: they are sent to one process (`kill
//!   PID`, `timeout`, `docker stop`, a batch system), and that is the collector.
//! * SIGINT and SIGQUIT (Ctrl-C, Ctrl-\) are passed on unless the collector
//!   is the foreground job of a terminal. Then they came from the terminal,
//!   which sends them to the whole job, the program included (it shares the
//!   collector's process group), and a second copy could interrupt the
//!   program's handling of the first (its clean-up after KeyboardInterrupt).
//!   `kill -INT` aimed at the pid of a foreground collector is therefore not
//!   passed on: send SIGTERM, or SIGINT to the process group.
//! * A signal that was ignored when the collector started stays ignored,
//!   so the program inherits it ignored (`nohup`, `cmd &` in a script).
//!
//! Handlers, never SIG_IGN, for the others: exec resets a handled signal to
//! its default in the program, but keeps an ignored one ignored.
//!
//! Linux only (the injection library is too); elsewhere nothing is forwarded.

#[cfg(target_os = "linux")]
pub use linux::{forward_to, install, program_ended, wait_without_reaping};

#[cfg(not(target_os = "linux"))]
pub fn install() {}
#[cfg(not(target_os = "linux"))]
pub fn forward_to(_pid: u32) {}
#[cfg(not(target_os = "linux"))]
pub fn program_ended() {}
#[cfg(not(target_os = "linux"))]
pub fn wait_without_reaping(_pid: u32) {}

#[cfg(target_os = "linux")]
mod linux {
    use std::ffi::c_int;
    use std::os::fd::IntoRawFd;
    use std::sync::atomic::{AtomicI32, Ordering};

    // The same numbers on every Linux architecture.
    const SIGHUP: c_int = 1;
    const SIGINT: c_int = 2;
    const SIGQUIT: c_int = 3;
    const SIGTERM: c_int = 15;
    const SIG_IGN: usize = 1;
    const EINTR: c_int = 4;
    /// waitid(2): wait for one pid's exit, and leave it to be reaped later.
    const P_PID: c_int = 1;
    const WEXITED: c_int = 4;
    const WNOWAIT: c_int = 0x0100_0000;

    /// The program's pid; 0 before it starts, -1 once it has ended (then
    /// nothing is sent: its pid may already belong to another process).
    static CHILD: AtomicI32 = AtomicI32::new(0);
    /// A signal that came before the program started, passed on when it does.
    static PENDING: AtomicI32 = AtomicI32::new(0);
    /// The controlling terminal (`/dev/tty`), or -1 without one.
    static TTY: AtomicI32 = AtomicI32::new(-1);

    // Declared here rather than through the libc crate: plain ints and a
    // function pointer, the same in glibc and musl on every architecture.
    extern "C" {
        fn signal(signum: c_int, handler: usize) -> usize;
        fn kill(pid: i32, sig: c_int) -> c_int;
        fn getpgrp() -> i32;
        fn tcgetpgrp(fd: c_int) -> i32;
        fn __errno_location() -> *mut c_int;
        fn waitid(idtype: c_int, id: u32, info: *mut u8, options: c_int) -> c_int;
    }

    pub fn install() {
        if TTY.load(Ordering::SeqCst) < 0 {
            // Opened close-on-exec (std always does), so the program never sees it;
            // kept open for the handler's whole life.
            if let Ok(tty) = std::fs::File::open("/dev/tty") {
                TTY.store(tty.into_raw_fd(), Ordering::SeqCst);
            }
        }
        for sig in [SIGHUP, SIGINT, SIGQUIT, SIGTERM] {
            // SAFETY: on_signal only makes async-signal-safe calls; `signal`
            // returns the previous disposition, put back when it was "ignore".
            unsafe {
                if signal(sig, on_signal as extern "C" fn(c_int) as usize) == SIG_IGN {
                    signal(sig, SIG_IGN);
                }
            }
        }
    }

    pub fn forward_to(pid: u32) {
        let pid = i32::try_from(pid).unwrap_or(0);
        CHILD.store(pid, Ordering::SeqCst);
        let early = PENDING.swap(0, Ordering::SeqCst);
        if early != 0 && pid > 0 {
            // SAFETY: a plain system call on the program we just started.
            unsafe { kill(pid, early) };
        }
    }

    /// Returns once the program has ended, without reaping it: until it is
    /// reaped its pid cannot be given to another process, so a signal passed
    /// on before [`program_ended`] cannot reach a stranger.
    pub fn wait_without_reaping(pid: u32) {
        // siginfo_t is 128 bytes on Linux; only the call's success is used.
        let mut info = [0u64; 16];
        loop {
            // SAFETY: `info` is a writable siginfo_t-sized buffer.
            if unsafe { waitid(P_PID, pid, info.as_mut_ptr().cast(), WEXITED | WNOWAIT) } == 0 {
                return;
            }
            // SAFETY: errno of this thread.
            if unsafe { *__errno_location() } != EINTR {
                return; // the reaping wait that follows reports the error
            }
        }
    }

    /// The program has ended: later signals are not passed on.
    /// The handlers stay, so the collector still finishes its report (a
    /// second Ctrl-C there would turn the program's exit code into ours).
    pub fn program_ended() {
        CHILD.store(-1, Ordering::SeqCst);
    }

    fn in_terminal_foreground() -> bool {
        let tty = TTY.load(Ordering::SeqCst);
        // SAFETY: both are async-signal-safe queries.
        tty >= 0 && unsafe { tcgetpgrp(tty) == getpgrp() }
    }

    extern "C" fn on_signal(sig: c_int) {
        // Only atomics and async-signal-safe calls; errno is restored, as the
        // interrupted code may be about to read it.
        // SAFETY: errno is thread-local; the pointer is valid for this thread.
        let saved = unsafe { *__errno_location() };
        let from_terminal = matches!(sig, SIGINT | SIGQUIT) && in_terminal_foreground();
        if !from_terminal {
            match CHILD.load(Ordering::SeqCst) {
                0 => PENDING.store(sig, Ordering::SeqCst),
                // SAFETY: a plain system call.
                pid if pid > 0 => unsafe {
                    kill(pid, sig);
                },
                _ => {}
            }
        }
        // SAFETY: as above.
        unsafe { *__errno_location() = saved };
    }
}
