//! Guides of the memory tools: memory profile (allocator over time) and
//! memory viewer (an XLA program's buffers).

use super::Help;

pub static MEMORY_PROFILE: Help = Help {
    summary: "How much memory one allocator (a GPU, or the host) held over time, and what was allocated at the peak.",
    numbers: &[
        "Peak memory in use, the allocator's capacity, and how fragmented its free memory was at the peak.",
        "Timeline: heap (allocations) and stack (reserved) in use, and free memory, at each allocation or free.",
        "Breakdown: the allocations alive at the peak, largest first, with the op that made them, shape and data type.",
    ],
    good_bad: &[
        "Good: a peak well below capacity, and memory that returns to the same level every step.",
        "Bad: a peak near capacity (out-of-memory risk), a level that grows step after step (a leak), or high fragmentation.",
    ],
    next: &[
        "Shrink the largest allocations at the peak: smaller batch, lower precision, recomputation (gradient checkpointing).",
        "A rising level: look for tensors kept across steps.",
        "Pick another memory id to see other devices.",
    ],
};

pub static MEMORY_VIEWER: Help = Help {
    summary: "How an XLA program uses device memory, from the compiler's buffer assignment.",
    numbers: &[
        "Peak: the most memory live at one point of the program, with and without padding.",
        "Chart: live memory at each point of the program order (not time).",
        "Largest buffers at the peak: size, shape, the framework op and HLO instruction that made it, and padding overhead.",
    ],
    good_bad: &[
        "Good: a peak with headroom below the device's memory, little padding.",
        "Bad: a peak near the memory size, or large padding overhead from awkward shapes.",
    ],
    next: &[
        "Reduce the biggest buffers at the peak: batch size, precision, rematerialization.",
        "Pad less by choosing dimensions that fit the hardware's tiles (multiples of 8 or 128).",
        "Pick another module to see other programs.",
    ],
};
