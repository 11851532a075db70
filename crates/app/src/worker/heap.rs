//! The worker's heap in use, counted at each allocation. The wasm memory
//! only grows, so its size counts room the allocator has freed since (an
//! overview's passes of a 6 GB trace free about half a GiB); the bytes in use
//! say what a tool can still take ([`proflens_analysis::context::Hooks::memory_left`]).

#[cfg(target_arch = "wasm32")]
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// The system allocator (dlmalloc in wasm32), counting the bytes in use.
/// Natively (tests) the worker runs on the process's allocator, uncounted.
#[cfg(target_arch = "wasm32")]
struct Counting;

static IN_USE: AtomicU64 = AtomicU64::new(0);
/// The most [`IN_USE`] held since [`take_peak`] last ran.
static PEAK: AtomicU64 = AtomicU64::new(0);

// SAFETY: every call goes to `System` unchanged; only a counter is added.
#[cfg(target_arch = "wasm32")]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        counted(System.alloc(layout), layout)
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        counted(System.alloc_zeroed(layout), layout)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        IN_USE.fetch_sub(layout.size() as u64, Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let moved = System.realloc(ptr, layout, new_size);
        if !moved.is_null() {
            let grown = IN_USE.fetch_add(new_size as u64, Relaxed) + new_size as u64;
            // The old room is given back after the new is had.
            PEAK.fetch_max(grown, Relaxed);
            IN_USE.fetch_sub(layout.size() as u64, Relaxed);
        }
        moved
    }
}

/// `ptr`, once `layout`'s bytes are counted in use (when it was given).
#[cfg(target_arch = "wasm32")]
fn counted(ptr: *mut u8, layout: Layout) -> *mut u8 {
    if !ptr.is_null() {
        let in_use = IN_USE.fetch_add(layout.size() as u64, Relaxed) + layout.size() as u64;
        PEAK.fetch_max(in_use, Relaxed);
    }
    ptr
}

#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Bytes the worker's allocations hold now.
pub fn in_use() -> u64 {
    IN_USE.load(Relaxed)
}

/// The most bytes the worker's allocations held at once since the last
/// call (or since it started), and the count starts again from now.
pub fn take_peak() -> u64 {
    let now = in_use();
    PEAK.swap(now, Relaxed).max(now)
}
