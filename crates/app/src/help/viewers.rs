//! Guides of the viewers and the rest: trace viewer, graph viewer, profile
//! info, and compare mode.

use super::Help;

pub static TRACE_VIEWER: Help = Help {
    summary: "Everything the profile recorded, on a timeline: the ground truth behind every other tool.",
    numbers: &[
        "Rows: devices and their streams first, then host threads; each box is an event, its width its duration.",
        "Nested boxes are calls inside calls; select a box for its name, times and arguments.",
        "Keys: W and S zoom, A and D pan; ? lists every shortcut. Shift+drag selects a range: its events per name and per track (time in the range, self time, percentiles) and a flame graph of its call stacks.",
    ],
    good_bad: &[
        "Good: device rows packed with kernels, few gaps between steps.",
        "Bad: gaps on device rows while the host is busy (input, Python, launches), or long waits in sync calls.",
    ],
    next: &[
        "Zoom into one step, find the first gap on the device, and look at what the host did just before it.",
        "Search for an op name to find its occurrences; . and , step through a track's slices one by one.",
        "The address keeps what is on screen and the selected event: share it to show the same view.",
        "Compare a slow step with a fast one.",
    ],
};

pub static GRAPH_VIEWER: Help = Help {
    summary: "One XLA module's HLO graph around an instruction you choose.",
    numbers: &[
        "Nodes are HLO instructions, coloured by kind; dashed boxes are fusions.",
        "Edges are data flowing from an instruction to its users.",
        "Hops: how far from the chosen node the graph reaches; the Text tab is the module's HLO text.",
    ],
    good_bad: &[
        "Good: heavy work inside fusions.",
        "Bad: many small unfused ops, or copies and transposes between big ops.",
    ],
    next: &[
        "Open a node from HLO op stats or the op profile, then follow its inputs.",
        "Click a node to centre the graph on it; widen the hops to see more.",
    ],
};

pub static INFO: Help = Help {
    summary: "What the file contains: its planes (host, devices), their lines and event counts.",
    numbers: &[
        "Plane: one source of events, the host or one device; lines are its threads or streams.",
        "Events: how many were recorded; first start and last end give the span in ms.",
        "Plane stats: what the profiler wrote about the device (model, memory, peaks).",
    ],
    good_bad: &[
        "Good: a plane per device, each with events, and a span that covers several steps.",
        "Bad: no device plane (the device trace was not collected), or a span shorter than one step.",
    ],
    next: &[
        "Missing device: check that the profiler saw the GPU (CUPTI) and profile again.",
        "Too short: profile more steps.",
    ],
};

pub static COMPARE: Help = Help {
    summary: "The same tool on two profiles, baseline and candidate, side by side.",
    numbers: &[
        "Change: candidate minus baseline; Change (%): relative to the baseline.",
        "Rows are matched by name (op, kernel, operator) on both sides.",
        "The notes above the numbers say what differs between the sides: hardware, kind of profile, steps.",
    ],
    good_bad: &[
        "Good: the change you made shows where you expect it, other rows are stable.",
        "Bad: different hardware or step counts between the sides make changes meaningless.",
    ],
    next: &[
        "Compare profiles of the same number of steps, on the same hardware.",
        "Sort by change to find what got slower.",
        "For two PyTorch traces, the trace diff lists operators and kernels added, removed or changed.",
    ],
};
