//! Guides of the PyTorch (Kineto trace) tools, most after Holistic Trace
//! Analysis (HTA): overview, operators, kernels, modules, idle time, queues,
//! memory copies, stragglers, critical path.

use super::Help;

pub static OVERVIEW: Help = Help {
    summary: "Where each profiler step of a PyTorch trace goes, and how busy the GPU was.",
    numbers: &[
        "Steps: the ProfilerStep#N ranges; each instant of a step counts once, for the first active role (kernel, memcpy, memset, runtime, data loading, CPU op), the rest is other.",
        "GPU utilization: the share of the step with a kernel running.",
        "For several ranks: each rank's computation, communication, their overlap, and idle time.",
    ],
    good_bad: &[
        "Good: kernels fill most of each step and GPU utilization is high.",
        "Bad: much data loading, runtime or CPU op time (the GPU waits for the host), or communication that does not overlap computation.",
    ],
    next: &[
        "Data loading: more DataLoader workers, pinned memory, prefetching.",
        "Runtime and CPU ops: larger batches, CUDA graphs or torch.compile.",
        "Low GPU use: open the idle time breakdown; slow ranks: stragglers.",
    ],
};

pub static OPERATOR_STATS: Help = Help {
    summary: "Which PyTorch operators (aten::…) take the time on the CPU and on the GPU.",
    numbers: &[
        "Calls: how often the operator ran.",
        "Host total and self (µs): CPU time with and without the operators it called.",
        "Device total and self (µs): GPU time of the kernels it launched, with and without its children's.",
        "The second table splits each operator by input shape.",
    ],
    good_bad: &[
        "Good: GPU time sits in a few big operators (matmul, convolution, attention).",
        "Bad: operators whose host time is far above their device time (the CPU is the limit), or many calls of tiny ones.",
    ],
    next: &[
        "Sort by device self time to find the heaviest GPU work; by host self time for CPU overhead.",
        "Compare shapes: odd or varying shapes make slow kernels and recompiles.",
        "See the operators' kernels in GPU kernel stats.",
    ],
};

pub static KERNEL_LAUNCH_STATS: Help = Help {
    summary: "Each CUDA launch matched to the GPU work it started: how long it took on the CPU, on the GPU, and in between.",
    numbers: &[
        "CPU duration: the runtime call (cudaLaunchKernel and the like); GPU duration: the kernel or copy it started.",
        "Launch delay: from the end of the runtime call to the start of the GPU work.",
        "Outliers: runtime calls longer than 50 µs, or launch delays longer than 100 µs (HTA's cut-offs).",
        "Scatter: CPU against GPU duration, log scales, one dot per launch.",
    ],
    good_bad: &[
        "Good: kernels last longer than their launches, and delays are short.",
        "Bad: many dots where the GPU part is shorter than the CPU part: the GPU finishes faster than the CPU can feed it.",
        "Long launch delays mean a busy queue or a blocked stream.",
    ],
    next: &[
        "Fewer, bigger kernels: fuse (torch.compile), bigger batches, CUDA graphs.",
        "Look up an outlier in the trace viewer with its button.",
    ],
};

pub static KERNEL_SEQUENCES: Help = Help {
    summary: "Runs of kernels that one operator launches again and again: candidates for fusion.",
    numbers: &[
        "Kernel sequence: the kernels in launch order; Kernels: how many.",
        "Count: how often the run repeats; GPU total and mean: its kernels' time.",
        "Share of GPU time: the sequence's part of all kernel time; CPU total: the launching operators' host time.",
    ],
    good_bad: &[
        "Good: few repeated sequences, each with little GPU time.",
        "Bad: a sequence of many short kernels that repeats thousands of times: launch overhead and memory round trips that fusion would remove.",
    ],
    next: &[
        "Fuse the operator with torch.compile or a fused implementation (fused optimizers, fused attention).",
        "Start with the sequences with the largest share of GPU time.",
    ],
};

pub static MODULES: Help = Help {
    summary: "Time per PyTorch nn.Module, as the tree of the model's modules.",
    numbers: &[
        "Calls: how often the module's forward ran.",
        "Host total and self (µs): CPU time with and without its submodules.",
        "Kernels, kernel total and self (µs): the GPU kernels launched inside the module, with and without its submodules'.",
        "Depth folds the tree to that many levels.",
    ],
    good_bad: &[
        "Good: GPU time follows the model's heavy layers.",
        "Bad: a module with much host time and little kernel time (Python overhead), or a small layer that costs more than expected.",
    ],
    next: &[
        "Sort by kernel self time to find the costliest layers.",
        "No modules shown: profile with with_stack=True so that each module's forward is recorded.",
    ],
};

pub static IDLE_TIME: Help = Help {
    summary: "When a GPU stream sat idle, and why.",
    numbers: &[
        "Host wait: idle because the CPU had not launched the next kernel yet.",
        "Kernel wait: short gaps between kernels, the cost of launching them.",
        "Other: idle for another reason (synchronization, waiting for another stream).",
        "Intervals and statistics: how many idle gaps and how long they were (µs).",
    ],
    good_bad: &[
        "Good: little idle time on the compute streams.",
        "Bad: host wait dominates (the CPU is the limit), or many kernel waits (too many small kernels).",
    ],
    next: &[
        "Host wait: reduce Python and data loading work per step; CUDA graphs.",
        "Kernel wait: fuse kernels.",
        "Other: look for synchronizations (.item(), .cpu()) in the trace viewer.",
    ],
};

pub static QUEUE_LENGTH: Help = Help {
    summary: "How many launched operations waited on each CUDA stream, over time.",
    numbers: &[
        "The chart: per rank and stream, the number of kernels and copies launched but not finished.",
        "The table: per stream, statistics of the queue length samples (mean, quartiles, maximum).",
    ],
    good_bad: &[
        "Good: a queue that stays above zero: the CPU runs ahead and the GPU always has work.",
        "Bad: a queue often at zero: the GPU starves.",
        "A queue at the runtime's limit (1024): the CPU blocks on launches.",
    ],
    next: &[
        "Empty queues: see the idle time breakdown and kernel launch stats.",
        "Full queues: the GPU is the limit; look at the heaviest kernels.",
    ],
};

pub static MEMORY_BANDWIDTH: Help = Help {
    summary: "Bandwidth of memory copies and sets (host to device, device to host, device to device) over time.",
    numbers: &[
        "The chart: per rank, the bandwidth of the copies in flight at each moment, by kind.",
        "The table: per kind, statistics of the bandwidth samples (mean, quartiles, maximum).",
    ],
    good_bad: &[
        "Good: few copies, overlapped with compute.",
        "Bad: frequent host-to-device copies during the step, or low bandwidth (pageable memory).",
        "Device-to-host copies inside a step often come with a synchronization.",
    ],
    next: &[
        "Use pinned memory (pin_memory=True) and non_blocking copies.",
        "Keep tensors on the GPU; avoid .cpu() and .item() in the training loop.",
    ],
};

pub static STRAGGLERS: Help = Help {
    summary: "Which rank of a PyTorch job the others waited for, step by step.",
    numbers: &[
        "Per step and rank: when it started the step's communication kernel (µs), and how much later than the earliest rank.",
        "Normalized start: the start measured in mean step times; the straggler column marks the latest starters.",
        "Duration: how long the communication kernel took; ranks that arrive early wait inside it.",
    ],
    good_bad: &[
        "Good: ranks start within a small margin; no rank is late step after step.",
        "Bad: the same rank late in most steps: that rank's work, data or hardware is slower.",
    ],
    next: &[
        "Open the late rank's overview and trace to see what it does before communicating.",
        "Balance the work (sequence lengths, data shards) across ranks.",
    ],
};

pub static CRITICAL_PATH: Help = Help {
    summary: "The chain of CPU calls, launches, syncs and GPU kernels that sets a step's length.",
    numbers: &[
        "Breakdown: the path's time per kind (CPU op, CPU gap, launch delay, kernel, kernel wait, sync), in µs and as a share of the step.",
        "The table: each segment of the path, in order, with its time.",
        "HTA weight: the same segments' weights in HTA's graph.",
    ],
    good_bad: &[
        "Good: the path runs mostly through GPU kernels: only faster kernels would shorten the step.",
        "Bad: the path runs through CPU ops or syncs: speeding up kernels will not help.",
    ],
    next: &[
        "CPU on the path: cut Python and launch overhead (torch.compile, CUDA graphs).",
        "Sync on the path: remove the synchronization that causes it.",
        "Kernels on the path: shorten the longest kernels first.",
    ],
};
