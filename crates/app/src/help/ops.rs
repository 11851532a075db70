//! Guides of the op tools: framework op stats, kernel stats, HLO op stats,
//! op profile, roofline model.

use super::Help;

pub static FRAMEWORK_OP_STATS: Help = Help {
    summary: "Which framework operations (TensorFlow, JAX) take the time, on the host and on the device.",
    numbers: &[
        "Total time includes the ops an op calls; self time excludes them, so self times add up to the whole.",
        "Self-time share and cumulative share: an op's part of all self time on its side (host or device), and the running total down the table.",
        "FLOP rate, memory bandwidth and operational intensity (FLOPs per byte) where the profile has costs; Bound by says which roof is closer.",
        "The idle row: time with no op running.",
    ],
    good_bad: &[
        "Good: a few heavy ops (matrix multiplies, convolutions) dominate the device time.",
        "Bad: a large idle share, many small ops, or host ops that take as long as the device ones.",
    ],
    next: &[
        "Sort by self time and start at the top; the pies show the same shares.",
        "For a heavy op, look at its kernels in GPU kernel stats or its HLO in the op profile.",
        "Leave out the idle row to see the shares of busy time only.",
    ],
};

pub static KERNEL_STATS: Help = Help {
    summary: "Every GPU kernel, aggregated per kernel, launch shape and op, with its time.",
    numbers: &[
        "Occurrences, and total, average, minimum and maximum duration in µs.",
        "Launch shape: grid and block sizes, registers per thread, shared memory; occupancy where known.",
        "TensorCore eligible: the op could run on TensorCores; uses TensorCore: the kernel did.",
        "Op: the framework op or PyTorch operator that launched it.",
    ],
    good_bad: &[
        "Good: the kernels with the most time are big matrix kernels that use TensorCores.",
        "Bad: an eligible op whose kernels do not use TensorCores (FP32 or bad shapes), or thousands of tiny kernels (launch overhead).",
    ],
    next: &[
        "Use 16-bit precision (mixed precision) and dimensions divisible by 8 to get TensorCore kernels.",
        "Fuse small kernels (XLA, torch.compile); see kernel sequences for PyTorch traces.",
        "Filter by op name to see one op's kernels.",
    ],
};

pub static HLO_STATS: Help = Help {
    summary: "Every XLA (HLO) operation of the compiled programs, with its time and efficiency.",
    numbers: &[
        "Total and self time in µs; self time shares and the running total down the table.",
        "FLOP rate, memory bandwidth and operational intensity, from the compiler's cost of each op.",
        "Bound by: whether the op is nearer the compute roof or a memory roof.",
        "Framework op: the TensorFlow or JAX operation the HLO came from.",
    ],
    good_bad: &[
        "Good: time sits in fusions and convolutions or dots that reach a high FLOP rate.",
        "Bad: memory-bound ops with low bandwidth, or copies, transposes and data formatting ops high up.",
    ],
    next: &[
        "Take the top ops to the roofline model to see how far each is from its roof.",
        "Trace a heavy op back to the framework op and change the model code there.",
        "Inspect its neighbourhood in the graph viewer.",
    ],
};

pub static OP_PROFILE: Help = Help {
    summary: "The device's XLA operations as a tree, by program or by category, with time and utilization.",
    numbers: &[
        "Time: the node's share of device time (the bar).",
        "FLOP utilization: achieved FLOP rate as a share of the device's peak.",
        "Memory bandwidth utilization: achieved bandwidth as a share of the peak (HBM).",
        "Nodes add up their children; open a node to see the ops below it.",
    ],
    good_bad: &[
        "Good: the biggest nodes have high FLOP or bandwidth utilization (one of the two near its roof).",
        "Bad: big nodes low on both, which means they are neither compute- nor memory-bound and are waiting or badly shaped.",
    ],
    next: &[
        "Open the biggest categories first; group by program to see each compiled module.",
        "Low FLOP utilization on dots or convolutions: check precision and shapes.",
        "Look up a node in HLO op stats or the graph viewer.",
    ],
};

pub static ROOFLINE: Help = Help {
    summary: "How close each XLA operation comes to what the device can do, compute or memory.",
    numbers: &[
        "Each dot is an op: operational intensity (FLOPs per byte moved) across, FLOP rate up, both on log scales.",
        "Roofs: the flat line is peak compute; the slanted lines are the memory bandwidths (HBM, on-chip).",
        "Left of the ridge an op is memory-bound; right of it, compute-bound.",
    ],
    good_bad: &[
        "Good: the ops with the most time sit close under a roof.",
        "Bad: heavy ops far below the roofs, or compute-heavy ops stuck on the memory-bound side.",
    ],
    next: &[
        "Memory-bound ops: fuse them, or reduce the bytes they move (lower precision, better layouts).",
        "Compute-bound ops well below the top roof: check precision and shapes for TensorCores.",
        "Pick a step or leave out infeed and outfeed to focus; click a dot to find its row.",
    ],
};
