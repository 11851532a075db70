//! Guides of the step-time tools: overview, input pipeline, pod viewer, tf.data.

use super::Help;

pub static OVERVIEW: Help = Help {
    summary: "Where a training step's time goes, and the first thing to fix.",
    numbers: &[
        "Step time: from the start of one step to the next, per step and on average.",
        "Breakdown: each step split into device compute, input, kernel launch, host compute, communication and the rest; one stretch of time counts once, under the most important activity.",
        "Top ops: the operations with the most self time on the device, with their FLOP rate.",
    ],
    good_bad: &[
        "Good: device compute is most of the step and steps take about the same time.",
        "Bad: a large input share (the device waits for data), kernel launch (the host cannot keep up), or All others (often Python overhead).",
        "Uneven steps point to stalls: compare a slow step with a fast one in the trace viewer.",
    ],
    next: &[
        "Input-bound: open the input pipeline analyzer.",
        "Compute-bound: look at the top ops in framework op stats or the op profile; try mixed precision.",
        "No steps found: mark steps in your code (a step marker or a profiler step) and profile again.",
    ],
};

pub static INPUT_PIPELINE: Help = Help {
    summary: "Whether the device waits for input, and which part of the input pipeline is slow.",
    numbers: &[
        "Step time graph: each step split by category; the input part is time the device waited for data.",
        "Host-side breakdown: input time split into enqueuing to the device, reading files on demand or in advance, and preprocessing.",
        "Input ops: each input operation with its count, total and self time, and share of all input time.",
    ],
    good_bad: &[
        "Good: waiting for input is a few percent of the step or less.",
        "Bad: above about 5% the job is partly input-bound, above about 20% mostly; the device sits idle that long.",
        "Reading on demand that dominates means the files are read just in time, not ahead.",
    ],
    next: &[
        "Overlap input with compute: prefetch, and parallelize map and interleave.",
        "Cache or pre-process expensive transformations offline.",
        "Use tf.data bottleneck analysis to find the slowest transformation.",
    ],
};

pub static POD_VIEWER: Help = Help {
    summary: "One step at a time, how each worker of a job spent it, to spot the slow one.",
    numbers: &[
        "A bar per worker (host and core): that step's time stacked by category, in ms.",
        "The slider picks the step; the table has the same numbers, and the bottleneck column names each worker's largest category.",
    ],
    good_bad: &[
        "Good: bars of similar height and mix; every worker does the same work.",
        "Bad: one worker much taller, or one with a lot of input or communication while the others wait.",
        "If the tall worker changes from step to step, the cause is noise (input, host), not the model.",
    ],
    next: &[
        "Open the slow worker's overview and trace viewer for that step.",
        "Balance data and work across workers; check that every worker has the same hardware.",
    ],
};

pub static TF_DATA: Help = Help {
    summary: "Which tf.data pipeline is slow, and the transformation that slows it.",
    numbers: &[
        "Latency: how long a call to the pipeline's iterator took to hand over an element (min, mean, max, µs).",
        "Slow calls: calls over 50 µs, a sign that the device may wait for input.",
        "Bottleneck: the iterator with the most own time on the slowest call's critical path, drawn outlined in the graph.",
    ],
    good_bad: &[
        "Good: no call over 50 µs; prefetching hides the pipeline's work.",
        "Bad: many slow calls, or a maximum latency far above the mean (an occasional stall).",
    ],
    next: &[
        "Follow the suggestion for the bottleneck: parallelize map or interleave, cache, or move work offline.",
        "Add a prefetch at the end of the pipeline.",
        "Check in the input pipeline analyzer that the device really waits for input.",
    ],
};
