//! The Advisor's guide: the one tool that reads the others and says what to
//! fix first.

use super::Help;

pub static ADVISOR: Help = Help {
    summary: "What costs this profile the most, what fixing it would save, and how: findings ranked by their expected gain.",
    numbers: &[
        "Saves: the range a fix is expected to take off each step, in ms and as a share of the step; the middle of the range ranks the findings.",
        "Cost: what the problem takes now, per step (of the whole profiled time when there are no steps).",
        "Confidence: how sure the detector is that the cost is real and the fix applies.",
        "Evidence: the numbers behind a finding; each link opens the tool that shows it, the trace viewer at the time range.",
    ],
    good_bad: &[
        "Good: no finding, or only small ones with low confidence.",
        "Bad: a finding that costs a large share of the step with high confidence: fix it first.",
        "Not measured here: a check this profile cannot answer (no steps, no device trace).",
    ],
    next: &[
        "Check the evidence in its tool, apply the fix, profile again and compare the two profiles.",
        "Capture what a check lacked (more steps, the device trace) to have it measured.",
    ],
};
